/*
 * stats: samples grouped by boot, the A/B comparison and its verdicts (see
 * stats.h for the interface).  No I/O except stats_load_file and
 * stats_result_print_table.
 *
 * DESIGN
 *
 * Unit of replication.  Runs within one boot share the boot's page layout,
 * its IRQ placement and whatever else a boot randomises, so they are not
 * independent: the boot is the unit.  Each side's mean is the mean of its
 * per-boot means (every boot weighs the same however many runs it has) and
 * %stddev is the sample standard deviation of the per-boot means in % of
 * that mean -- the spread a developer re-running the comparison would see.
 *
 * %change and its CI.  %change = 100 * (test mean / base mean - 1).  Its 95%
 * CI is a percentile interval from a hierarchical bootstrap: B times (2000
 * by default), for each side draw as many boots as it has, with
 * replacement, then for each drawn boot draw its runs with replacement, and
 * recompute the %change.  Resampling both levels keeps both sources of
 * noise in the interval (it errs slightly wide, which is the safe side).
 * Random numbers come from GSL's mt19937 seeded with opts.seed mixed with
 * the series' name (FNV-1a), so a comparison is reproducible and a row does
 * not change when other series are added.
 *
 * Rank test.  Mann-Whitney U on the per-boot means (test vs base), two-
 * sided.  With 3-24 boots per side the normal approximation is poor, so
 * up to 50 boots per side the p-value comes from the exact permutation
 * distribution of U, conditional on the ties (metrics measured in whole
 * seconds do tie), counted by a small dynamic programme; beyond 50 the
 * normal approximation with tie and continuity corrections
 * (gsl_cdf_ugaussian_Q).
 *
 * Verdict, per row, in this order:
 *   1. a side missing -> "missing"; unit or direction differ -> "invalid";
 *      base mean 0 -> "invalid" (no %change);
 *   2. fewer than 2 boots on a side -> "inconclusive" (more boots help);
 *   3. the 95% CI lies inside +-equiv_margin (2%) -> "no change": whatever
 *      the change is, it is smaller than the margin we report;
 *   4. significant = the CI excludes 0 AND the rank test's p <= alpha_look
 *      -> "improvement" or "regression" by the metric's direction;
 *   5. not significant and the CI lies inside +-nochange_halfwidth (5%)
 *      -> "no change" (nothing larger than that is plausible);
 *   6. otherwise "inconclusive".
 * The false-positive rate is held by the rank test alone: under A/A the
 * per-boot means of both sides are exchangeable, so the exact test's size
 * is at most alpha_look whatever the noise distribution; requiring the CI
 * to agree can only lower it (so can rule 3).  Hence A/A "improvement" or
 * "regression" <= alpha (0.8% by default) per metric.
 *
 * Extra looks.  An inconclusive comparison gets more boots (boot_step per
 * side, up to max_boots), and each look is another chance of a false
 * positive.  We spend alpha Bonferroni-style: every look tests at
 * alpha / looks, looks planned up front (stats_planned_looks).  By the union
 * bound the chance of any false positive over all looks is <= alpha, with
 * no assumption on how the looks are correlated; Pocock's constant would be
 * slightly less conservative but needs that correlation.  The planned
 * count is fixed before the first look, so stopping early does not change
 * the level of earlier looks.
 *
 * Defaults (stats.h), chosen with tests/bench/stats.sh on generated data:
 * value = mean * (1 + shift) * (1 + sigma_b z_boot) * (1 + sigma_r z_run).
 * 12 boots per side, 5 iterations per boot, up to 24 boots (one extra look
 * of 12 more per side: 2 looks), alpha 0.008 over both looks, so each look
 * tests at 0.004.  Why:
 *   - power: a true 5% shift with sigma_b = sigma_r = 2% (each sample 2.8%
 *     off, boot means 2.2%) is called in the right direction at the first
 *     look in ~97% of comparisons with 12 boots; 8 boots gave ~75%, 10
 *     ~91% (the exact rank test with few boots is the bottleneck: with 6
 *     per side only complete separation reaches p < 0.004);
 *   - A/A: alpha 0.008 rather than 0.01 because the union bound over two
 *     looks is nearly attained, and a 1000-comparison test of "at most 1%"
 *     needs room for sampling noise; measured: ~0.4% at the first look,
 *     ~0.6% with the extra look (t-stats checks both, 1000 each).
 *   - iterations: past 5, more runs per boot barely narrow a boot's mean
 *     when boot-to-boot noise dominates; boots are what buy power.
 * The rate is per metric: a matrix of many metrics will show the odd false
 * "change" somewhere, which is why every row carries its p and CI.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "daemon/stats.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#define STATS_MAX_NAME		64
#define STATS_MAX_PARAMS	256
#define STATS_MAX_UNIT		32
#define STATS_EXACT_MAX		50	/* boots per side for the exact test */

static int PRINTF(3, 4)
stats_err(char *err, size_t errsz, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err && errsz)
		snprintf(err, errsz, "%s", msg);
	else
		error("%s", msg);
	return -1;
}

/* ---- the sample set ----------------------------------------------------- */

void
stats_set_init(struct stats_set *set)
{
	memset(set, 0, sizeof(*set));
}

void
stats_set_release(struct stats_set *set)
{
	size_t i, j;

	for (i = 0; i < set->n; i++) {
		struct stats_series *s = &set->series[i];

		for (j = 0; j < s->nboots; j++) {
			free(s->boots[j].v);
			free(s->boots[j].iter);
		}
		free(s->boots);
		free(s->workload);
		free(s->params);
		free(s->metric);
		free(s->unit);
	}
	free(set->series);
	stats_set_init(set);
}

/* Names end up in tables, HTML and JSON: printable ASCII only. */
static const char *
stats_check_name(const char *s, size_t max, int allow_empty)
{
	size_t n;

	if (!s)
		return "missing";
	n = strlen(s);
	if (n == 0 && !allow_empty)
		return "empty";
	if (n > max)
		return "too long";
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return "has a character that is not printable ASCII";
	return NULL;
}

static struct stats_series *
stats_find_series(const struct stats_set *set, const char *w, const char *p,
    const char *m)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		struct stats_series *s = &set->series[i];

		if (!strcmp(s->workload, w) && !strcmp(s->params, p) &&
		    !strcmp(s->metric, m))
			return s;
	}
	return NULL;
}

int
stats_set_add(struct stats_set *set, const struct stats_sample *x, char *err,
    size_t errsz)
{
	struct stats_series *s;
	struct stats_boot *b = NULL;
	const char *why;
	size_t i;

	if ((why = stats_check_name(x->workload, STATS_MAX_NAME, 0)))
		return stats_err(err, errsz, "field \"workload\": %s", why);
	if ((why = stats_check_name(x->params, STATS_MAX_PARAMS, 1)))
		return stats_err(err, errsz, "field \"params\": %s", why);
	if ((why = stats_check_name(x->metric, STATS_MAX_NAME, 0)))
		return stats_err(err, errsz, "field \"metric\": %s", why);
	if ((why = stats_check_name(x->unit, STATS_MAX_UNIT, 0)))
		return stats_err(err, errsz, "field \"unit\": %s", why);
	if (x->better != STATS_HIGHER && x->better != STATS_LOWER)
		return stats_err(err, errsz, "field \"better\": not higher or lower");
	if (x->boot < 0 || x->boot > STATS_MAX_BOOT_ID)
		return stats_err(err, errsz, "field \"boot\": %ld out of range "
		    "0..%ld", x->boot, STATS_MAX_BOOT_ID);
	if (x->iteration < 0 || x->iteration > STATS_MAX_ITERATION)
		return stats_err(err, errsz, "field \"iteration\": %ld out of "
		    "range 0..%ld", x->iteration, STATS_MAX_ITERATION);
	if (!isfinite(x->value))
		return stats_err(err, errsz, "field \"value\": not a finite "
		    "number");
	if (x->value < 0)
		return stats_err(err, errsz, "field \"value\": %g is negative; "
		    "a %s metric (unit \"%s\") cannot be negative", x->value,
		    x->metric, x->unit);
	if (set->nsamples >= STATS_MAX_SAMPLES)
		return stats_err(err, errsz, "more than %d samples",
		    STATS_MAX_SAMPLES);

	s = stats_find_series(set, x->workload, x->params, x->metric);
	if (s) {
		if (strcmp(s->unit, x->unit))
			return stats_err(err, errsz, "field \"unit\": \"%s\" "
			    "but earlier samples of %s %s %s say \"%s\"",
			    x->unit, x->workload, x->params, x->metric,
			    s->unit);
		if (s->better != x->better)
			return stats_err(err, errsz, "field \"better\": "
			    "differs from earlier samples of %s %s %s",
			    x->workload, x->params, x->metric);
		for (i = 0; i < s->nboots; i++)
			if (s->boots[i].id == x->boot) {
				b = &s->boots[i];
				break;
			}
		if (b)
			for (i = 0; i < b->n; i++)
				if (b->iter[i] == x->iteration)
					return stats_err(err, errsz,
					    "field \"iteration\": duplicate "
					    "sample (boot %ld, iteration %ld) "
					    "of %s %s %s", x->boot,
					    x->iteration, x->workload,
					    x->params, x->metric);
		if (!b && s->nboots >= STATS_MAX_BOOTS)
			return stats_err(err, errsz, "field \"boot\": more than "
			    "%d boots", STATS_MAX_BOOTS);
	} else {
		if (set->n >= STATS_MAX_SERIES)
			return stats_err(err, errsz, "more than %d series",
			    STATS_MAX_SERIES);
		if (set->n == set->cap) {
			set->cap = set->cap ? 2 * set->cap : 8;
			set->series = xrealloc(set->series,
			    set->cap * sizeof(*set->series));
		}
		s = &set->series[set->n++];
		memset(s, 0, sizeof(*s));
		s->workload = xstrdup(x->workload);
		s->params = xstrdup(x->params);
		s->metric = xstrdup(x->metric);
		s->unit = xstrdup(x->unit);
		s->better = x->better;
	}
	if (!b) {
		if (s->nboots == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 4;
			s->boots = xrealloc(s->boots, s->cap * sizeof(*s->boots));
		}
		b = &s->boots[s->nboots++];
		memset(b, 0, sizeof(*b));
		b->id = x->boot;
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 8;
		b->v = xrealloc(b->v, b->cap * sizeof(*b->v));
		b->iter = xrealloc(b->iter, b->cap * sizeof(*b->iter));
	}
	b->v[b->n] = x->value;
	b->iter[b->n] = x->iteration;
	b->n++;
	s->nsamples++;
	set->nsamples++;
	return 0;
}

/* ---- JSON lines --------------------------------------------------------- */

static const char *const stats_fields[] = {
	"type", "boot", "workload", "params", "iteration", "metric", "value",
	"unit", "better", NULL
};

static int
stats_get_string(json_t *o, const char *field, const char **out,
    size_t lineno, char *err, size_t errsz)
{
	json_t *v = json_object_get(o, field);

	if (!v)
		return stats_err(err, errsz, "line %zu: field \"%s\": missing",
		    lineno, field);
	if (!json_is_string(v))
		return stats_err(err, errsz, "line %zu: field \"%s\": not a "
		    "string", lineno, field);
	/* An embedded NUL would silently shorten the name. */
	if (strlen(json_string_value(v)) != json_string_length(v))
		return stats_err(err, errsz, "line %zu: field \"%s\": contains "
		    "NUL", lineno, field);
	*out = json_string_value(v);
	return 0;
}

static int
stats_get_int(json_t *o, const char *field, long *out, size_t lineno,
    char *err, size_t errsz)
{
	json_t *v = json_object_get(o, field);

	if (!v)
		return stats_err(err, errsz, "line %zu: field \"%s\": missing",
		    lineno, field);
	if (!json_is_integer(v))
		return stats_err(err, errsz, "line %zu: field \"%s\": not an "
		    "integer", lineno, field);
	if (json_integer_value(v) < 0 ||
	    json_integer_value(v) > STATS_MAX_BOOT_ID)
		return stats_err(err, errsz, "line %zu: field \"%s\": %lld out "
		    "of range", lineno, field,
		    (long long)json_integer_value(v));
	*out = (long)json_integer_value(v);
	return 0;
}

/* One non-blank line.  Returns 0 (sample added or line skipped) or -1. */
static int
stats_load_line(struct stats_set *set, const char *line, size_t len,
    size_t lineno, char *err, size_t errsz)
{
	struct stats_sample x;
	json_error_t jerr;
	json_t *o, *v;
	const char *key, *type = NULL, *better;
	char sub[384];
	int ret = -1;

	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o)
		return stats_err(err, errsz, "line %zu: not JSON: %s (column "
		    "%d)", lineno, jerr.text, jerr.column);
	if (!json_is_object(o)) {
		stats_err(err, errsz, "line %zu: not a JSON object", lineno);
		goto out;
	}
	if ((v = json_object_get(o, "type"))) {
		if (!json_is_string(v)) {
			stats_err(err, errsz, "line %zu: field \"type\": not a "
			    "string", lineno);
			goto out;
		}
		type = json_string_value(v);
		if (!strcmp(type, "lock-profile")) {
			set->nlock_profile++;
			ret = 0;
			goto out;
		}
		if (!strcmp(type, "error")) {
			set->nerror++;
			ret = 0;
			goto out;
		}
		if (strcmp(type, "sample")) {
			stats_err(err, errsz, "line %zu: field \"type\": unknown "
			    "type (want sample, lock-profile or error)", lineno);
			goto out;
		}
	}
	json_object_foreach(o, key, v) {
		size_t i;

		for (i = 0; stats_fields[i]; i++)
			if (!strcmp(key, stats_fields[i]))
				break;
		if (!stats_fields[i]) {
			stats_err(err, errsz, "line %zu: field \"%.64s\": not a "
			    "sample field", lineno, key);
			goto out;
		}
	}
	memset(&x, 0, sizeof(x));
	if (stats_get_int(o, "boot", &x.boot, lineno, err, errsz) ||
	    stats_get_string(o, "workload", &x.workload, lineno, err, errsz) ||
	    stats_get_string(o, "params", &x.params, lineno, err, errsz) ||
	    stats_get_int(o, "iteration", &x.iteration, lineno, err, errsz) ||
	    stats_get_string(o, "metric", &x.metric, lineno, err, errsz) ||
	    stats_get_string(o, "unit", &x.unit, lineno, err, errsz) ||
	    stats_get_string(o, "better", &better, lineno, err, errsz))
		goto out;
	v = json_object_get(o, "value");
	if (!v) {
		stats_err(err, errsz, "line %zu: field \"value\": missing",
		    lineno);
		goto out;
	}
	if (!json_is_number(v)) {
		stats_err(err, errsz, "line %zu: field \"value\": not a number",
		    lineno);
		goto out;
	}
	x.value = json_number_value(v);
	if (!strcmp(better, "higher"))
		x.better = STATS_HIGHER;
	else if (!strcmp(better, "lower"))
		x.better = STATS_LOWER;
	else {
		stats_err(err, errsz, "line %zu: field \"better\": want "
		    "\"higher\" or \"lower\"", lineno);
		goto out;
	}
	if (stats_set_add(set, &x, sub, sizeof(sub))) {
		stats_err(err, errsz, "line %zu: %s", lineno, sub);
		goto out;
	}
	ret = 0;
out:
	json_decref(o);
	return ret;
}

int
stats_load_jsonl(struct stats_set *set, const char *data, size_t len,
    char *err, size_t errsz)
{
	size_t pos = 0, lineno = 0;

	while (pos < len) {
		const char *line = data + pos, *nl;
		size_t n, i;

		nl = memchr(line, '\n', len - pos);
		n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + (nl ? 1 : 0);
		lineno++;
		if (n > STATS_MAX_LINE)
			return stats_err(err, errsz, "line %zu: longer than %d "
			    "bytes", lineno, STATS_MAX_LINE);
		for (i = 0; i < n; i++)
			if (line[i] != ' ' && line[i] != '\t' &&
			    line[i] != '\r')
				break;
		if (i == n)
			continue;
		if (stats_load_line(set, line, n, lineno, err, errsz))
			return -1;
	}
	return 0;
}

int
stats_load_file(struct stats_set *set, const char *path, char *err,
    size_t errsz)
{
	struct buf b = BUF_INIT(STATS_MAX_FILE);
	char sub[512];
	int ret = -1;

	if (buf_read_file(&b, path)) {
		if (b.overflow)
			stats_err(err, errsz, "%s: larger than %u bytes", path,
			    STATS_MAX_FILE);
		else
			stats_err(err, errsz, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (stats_load_jsonl(set, b.data, b.len, sub, sizeof(sub))) {
		stats_err(err, errsz, "%s: %s", path, sub);
		goto out;
	}
	ret = 0;
out:
	buf_release(&b);
	return ret;
}

/* ---- rank test ---------------------------------------------------------- */

static int
stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The exact permutation distribution of U given the tie groups (their
 * sizes in sorted order): every way of labelling n of the N pooled values
 * "x" is equally likely under H0.  Walking the groups in order, a group of
 * t values of which k are x adds, in units of 1/2, (t - k) * (2 * xs + k)
 * to 2U (each of its y beats the xs x's already passed and ties its k x's),
 * in C(t, k) ways.  Additions of positive counts only, so doubles stay
 * accurate.  Returns P(2U <= u2) and P(2U >= u2).
 */
static void
stats_mw_exact(const size_t *group, size_t ngroups, size_t n, size_t m,
    size_t u2, double *le, double *ge)
{
	size_t w = 2 * n * m + 1, before = 0, g, xs, v, k;
	double *cur = xcalloc((n + 1) * w, sizeof(*cur));
	double *nxt = xcalloc((n + 1) * w, sizeof(*nxt));
	double *binom = xcalloc(n + m + 2, sizeof(*binom));
	double total = 0, lo = 0, hi = 0, *tmp;

	cur[0] = 1;
	for (g = 0; g < ngroups; g++) {
		size_t t = group[g];

		binom[0] = 1;
		for (k = 1; k <= t; k++)
			binom[k] = binom[k - 1] * (double)(t - k + 1) / k;
		memset(nxt, 0, (n + 1) * w * sizeof(*nxt));
		for (xs = 0; xs <= n && xs <= before; xs++) {
			size_t ys = before - xs;

			if (ys > m)
				continue;
			for (v = 0; v < w; v++) {
				double c = cur[xs * w + v];

				if (c == 0)
					continue;
				for (k = 0; k <= t; k++) {
					size_t add = (t - k) * (2 * xs + k);

					if (xs + k > n || ys + t - k > m ||
					    v + add >= w)
						continue;
					nxt[(xs + k) * w + v + add] +=
					    c * binom[k];
				}
			}
		}
		tmp = cur;
		cur = nxt;
		nxt = tmp;
		before += t;
	}
	for (v = 0; v < w; v++) {
		double c = cur[n * w + v];

		total += c;
		if (v <= u2)
			lo += c;
		if (v >= u2)
			hi += c;
	}
	*le = lo / total;
	*ge = hi / total;
	free(binom);
	free(nxt);
	free(cur);
}

double
stats_mann_whitney(const double *x, size_t n, const double *y, size_t m,
    int *exact)
{
	double *all, ties = 0, p, mu, var, z;
	size_t i, j, N = n + m, u2 = 0, *group, ngroups = 0;

	*exact = 0;
	if (n == 0 || m == 0)
		return NAN;
	for (i = 0; i < n; i++)		/* 2U: whole units, ties count 1 */
		for (j = 0; j < m; j++)
			u2 += y[j] > x[i] ? 2 : y[j] == x[i] ? 1 : 0;
	all = xmalloc(N * sizeof(*all));
	group = xmalloc(N * sizeof(*group));
	memcpy(all, x, n * sizeof(*x));
	memcpy(all + n, y, m * sizeof(*y));
	qsort(all, N, sizeof(*all), stats_cmp_double);
	for (i = 0; i < N; i = j) {
		double t;

		for (j = i + 1; j < N && all[j] == all[i]; j++)
			;
		t = (double)(j - i);
		ties += t * t * t - t;
		group[ngroups++] = j - i;
	}
	free(all);
	if (n <= STATS_EXACT_MAX && m <= STATS_EXACT_MAX) {
		double le, ge;

		stats_mw_exact(group, ngroups, n, m, u2, &le, &ge);
		free(group);
		*exact = 1;
		p = 2 * (le < ge ? le : ge);
		return p > 1 ? 1 : p;
	}
	free(group);
	mu = (double)n * m / 2;
	var = (double)n * m / 12 * ((N + 1) - ties / ((double)N * (N - 1)));
	if (var <= 0)
		return 1;		/* every value the same */
	z = (fabs(u2 / 2.0 - mu) - 0.5) / sqrt(var);
	if (z <= 0)
		return 1;
	p = 2 * gsl_cdf_ugaussian_Q(z);
	return p > 1 ? 1 : p;
}

/* ---- comparison --------------------------------------------------------- */

void
stats_opts_init(struct stats_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->resamples = STATS_DEFAULT_RESAMPLES;
	o->alpha = STATS_DEFAULT_ALPHA;
	o->looks = stats_planned_looks(STATS_DEFAULT_BOOTS,
	    STATS_DEFAULT_MAX_BOOTS, STATS_DEFAULT_BOOT_STEP);
	o->equiv_margin = STATS_DEFAULT_EQUIV_MARGIN;
	o->nochange_halfwidth = STATS_DEFAULT_NOCHANGE_HALFWIDTH;
}

int
stats_planned_looks(int boots, int max_boots, int step)
{
	if (step <= 0 || max_boots <= boots)
		return 1;
	return 1 + (max_boots - boots + step - 1) / step;
}

const char *
stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case STATS_NO_CHANGE:		return "no change";
	case STATS_IMPROVEMENT:		return "improvement";
	case STATS_REGRESSION:		return "regression";
	case STATS_INCONCLUSIVE:	return "inconclusive";
	case STATS_MISSING:		return "missing";
	case STATS_INVALID:		return "invalid";
	}
	return "?";
}

char *
stats_failed_verdict(char *buf, size_t sz, const char *side, const char *how)
{
	snprintf(buf, sz, "failed: every %s boot %s", side, how);
	return buf;
}

static double
stats_boot_mean(const struct stats_boot *b)
{
	double s = 0;
	size_t i;

	for (i = 0; i < b->n; i++)
		s += b->v[i];
	return b->n ? s / b->n : 0;
}

static int
stats_cmp_boot(const void *a, const void *b)
{
	const struct stats_boot *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static void
stats_side_fill(struct stats_side *d, const struct stats_series *s)
{
	struct stats_boot *sorted;
	double sum = 0, ss = 0;
	size_t i;

	d->present = 1;
	d->nboots = s->nboots;
	d->nsamples = s->nsamples;
	d->boot_ids = xcalloc(s->nboots, sizeof(*d->boot_ids));
	d->boot_means = xcalloc(s->nboots, sizeof(*d->boot_means));
	sorted = xmalloc(s->nboots * sizeof(*sorted));
	memcpy(sorted, s->boots, s->nboots * sizeof(*sorted));
	qsort(sorted, s->nboots, sizeof(*sorted), stats_cmp_boot);
	for (i = 0; i < s->nboots; i++) {
		d->boot_ids[i] = sorted[i].id;
		d->boot_means[i] = stats_boot_mean(&sorted[i]);
		sum += d->boot_means[i];
	}
	free(sorted);
	d->mean = s->nboots ? sum / s->nboots : 0;
	for (i = 0; i < s->nboots; i++)
		ss += (d->boot_means[i] - d->mean) * (d->boot_means[i] - d->mean);
	d->pct_stddev = s->nboots > 1 && d->mean != 0 ?
	    100 * sqrt(ss / (s->nboots - 1)) / fabs(d->mean) : 0;
}

/* One hierarchical resample of a side: boots, then runs within them. */
static double
stats_resample_mean(gsl_rng *r, const struct stats_series *s)
{
	double sum = 0;
	size_t i, j;

	for (i = 0; i < s->nboots; i++) {
		const struct stats_boot *b =
		    &s->boots[gsl_rng_uniform_int(r, s->nboots)];
		double bs = 0;

		if (b->n == 1) {
			sum += b->v[0];
			continue;
		}
		for (j = 0; j < b->n; j++)
			bs += b->v[gsl_rng_uniform_int(r, b->n)];
		sum += bs / b->n;
	}
	return sum / s->nboots;
}

static unsigned long
stats_series_seed(unsigned long seed, const struct stats_series *s)
{
	const char *parts[3] = { s->workload, s->params, s->metric };
	uint64_t h = 1469598103934665603ULL;
	const char *p;
	int i;

	for (i = 0; i < 3; i++) {
		for (p = parts[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;	/* separator */
	}
	return (unsigned long)(h ^ (uint64_t)seed ^ ((uint64_t)seed << 32));
}

static void
stats_bootstrap(struct stats_row *row, const struct stats_series *bs,
    const struct stats_series *ts, const struct stats_opts *o)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	double *d = xmalloc(o->resamples * sizeof(*d));
	int i;

	gsl_rng_set(r, stats_series_seed(o->seed, bs));
	for (i = 0; i < o->resamples; i++) {
		double mb = stats_resample_mean(r, bs);
		double mt = stats_resample_mean(r, ts);

		/* A resample of zeros only (some boots measured 0). */
		d[i] = mb > 0 ? 100 * (mt / mb - 1) : mt > 0 ? INFINITY : 0;
	}
	qsort(d, o->resamples, sizeof(*d), stats_cmp_double);
	row->ci_lo = gsl_stats_quantile_from_sorted_data(d, 1, o->resamples,
	    0.025);
	row->ci_hi = gsl_stats_quantile_from_sorted_data(d, 1, o->resamples,
	    0.975);
	free(d);
	gsl_rng_free(r);
}

static void
stats_decide(struct stats_row *row, const struct stats_series *bs,
    const struct stats_series *ts, const struct stats_opts *o)
{
	double m = o->equiv_margin, h = o->nochange_halfwidth;

	if (!bs || !ts) {
		row->verdict = STATS_MISSING;
		snprintf(row->reason, sizeof(row->reason), "only in the %s "
		    "samples", bs ? "base" : "test");
		return;
	}
	if (strcmp(bs->unit, ts->unit) || bs->better != ts->better) {
		row->verdict = STATS_INVALID;
		snprintf(row->reason, sizeof(row->reason), "the sides disagree "
		    "on the unit (%s, %s) or direction", bs->unit, ts->unit);
		return;
	}
	if (row->base.mean <= 0) {
		row->verdict = STATS_INVALID;
		snprintf(row->reason, sizeof(row->reason), "base mean is 0: "
		    "%%change undefined");
		return;
	}
	row->pct_change = 100 * (row->test.mean / row->base.mean - 1);
	if (bs->nboots < 2 || ts->nboots < 2) {
		row->verdict = STATS_INCONCLUSIVE;
		snprintf(row->reason, sizeof(row->reason), "needs at least 2 "
		    "boots per side (base %zu, test %zu)", bs->nboots,
		    ts->nboots);
		return;
	}
	stats_bootstrap(row, bs, ts, o);
	row->p_value = stats_mann_whitney(row->base.boot_means,
	    row->base.nboots, row->test.boot_means, row->test.nboots,
	    &row->p_exact);
	row->alpha_look = o->alpha / (o->looks > 0 ? o->looks : 1);
	row->significant = (row->ci_lo > 0 || row->ci_hi < 0) &&
	    row->p_value <= row->alpha_look;
	if (row->ci_lo >= -m && row->ci_hi <= m) {
		row->significant = 0;
		row->verdict = STATS_NO_CHANGE;
		snprintf(row->reason, sizeof(row->reason), "95%% CI within "
		    "+-%g%%", m);
	} else if (row->significant) {
		row->verdict = row->pct_change * row->better > 0 ?
		    STATS_IMPROVEMENT : STATS_REGRESSION;
		snprintf(row->reason, sizeof(row->reason), "95%% CI excludes 0 "
		    "and rank test p = %.2g <= %.2g", row->p_value,
		    row->alpha_look);
	} else if (row->ci_lo >= -h && row->ci_hi <= h) {
		row->verdict = STATS_NO_CHANGE;
		snprintf(row->reason, sizeof(row->reason), "not significant "
		    "(p = %.2g) and 95%% CI within +-%g%%", row->p_value, h);
	} else if (row->ci_lo > 0 || row->ci_hi < 0) {
		row->verdict = STATS_INCONCLUSIVE;
		snprintf(row->reason, sizeof(row->reason), "95%% CI excludes 0 "
		    "but rank test p = %.2g > %.2g: more boots needed",
		    row->p_value, row->alpha_look);
	} else {
		row->verdict = STATS_INCONCLUSIVE;
		snprintf(row->reason, sizeof(row->reason), "not significant "
		    "(p = %.2g) and 95%% CI wider than +-%g%%", row->p_value, h);
	}
}

static void
stats_row_fill(struct stats_row *row, const struct stats_series *bs,
    const struct stats_series *ts, const struct stats_opts *o)
{
	const struct stats_series *s = bs ? bs : ts;

	memset(row, 0, sizeof(*row));
	row->workload = xstrdup(s->workload);
	row->params = xstrdup(s->params);
	row->metric = xstrdup(s->metric);
	row->unit = xstrdup(s->unit);
	row->better = s->better;
	row->pct_change = row->ci_lo = row->ci_hi = row->p_value = NAN;
	row->alpha_look = NAN;
	if (bs)
		stats_side_fill(&row->base, bs);
	if (ts)
		stats_side_fill(&row->test, ts);
	stats_decide(row, bs, ts, o);
}

/* Sort key helper: a workload with a significant row goes first. */
struct stats_sortkey {
	struct stats_row *row;
	int	 wsig;
};

static int
stats_cmp_rows(const void *a, const void *b)
{
	const struct stats_sortkey *x = a, *y = b;
	const struct stats_row *p = x->row, *q = y->row;
	int c;

	if (x->wsig != y->wsig)
		return y->wsig - x->wsig;
	if ((c = strcmp(p->workload, q->workload)))
		return c;
	if (p->significant != q->significant)
		return q->significant - p->significant;
	if (p->significant && fabs(p->pct_change) != fabs(q->pct_change))
		return fabs(p->pct_change) < fabs(q->pct_change) ? 1 : -1;
	if ((c = strcmp(p->params, q->params)))
		return c;
	return strcmp(p->metric, q->metric);
}

int
stats_compare(const struct stats_set *base, const struct stats_set *test,
    const struct stats_opts *opts, struct stats_result *res)
{
	struct stats_sortkey *keys;
	struct stats_row *rows;
	size_t i, j, n = 0;

	memset(res, 0, sizeof(*res));
	if (opts)
		res->opts = *opts;
	else
		stats_opts_init(&res->opts);
	if (res->opts.resamples < 100)
		res->opts.resamples = 100;
	if (res->opts.looks < 1)
		res->opts.looks = 1;
	rows = xcalloc(base->n + test->n + 1, sizeof(*rows));
	for (i = 0; i < base->n; i++) {
		const struct stats_series *bs = &base->series[i];

		stats_row_fill(&rows[n++], bs, stats_find_series(test,
		    bs->workload, bs->params, bs->metric), &res->opts);
	}
	for (i = 0; i < test->n; i++) {
		const struct stats_series *ts = &test->series[i];

		if (!stats_find_series(base, ts->workload, ts->params,
		    ts->metric))
			stats_row_fill(&rows[n++], NULL, ts, &res->opts);
	}
	keys = xcalloc(n + 1, sizeof(*keys));
	for (i = 0; i < n; i++) {
		keys[i].row = &rows[i];
		for (j = 0; j < n; j++)
			if (rows[j].significant &&
			    !strcmp(rows[j].workload, rows[i].workload))
				keys[i].wsig = 1;
	}
	qsort(keys, n, sizeof(*keys), stats_cmp_rows);
	res->rows = xcalloc(n + 1, sizeof(*res->rows));
	for (i = 0; i < n; i++) {
		res->rows[i] = *keys[i].row;
		res->count[res->rows[i].verdict]++;
	}
	res->n = n;
	free(keys);
	free(rows);
	return 0;
}

void
stats_result_release(struct stats_result *res)
{
	size_t i;

	for (i = 0; i < res->n; i++) {
		struct stats_row *r = &res->rows[i];

		free(r->workload);
		free(r->params);
		free(r->metric);
		free(r->unit);
		free(r->base.boot_ids);
		free(r->base.boot_means);
		free(r->test.boot_ids);
		free(r->test.boot_means);
	}
	free(res->rows);
	memset(res, 0, sizeof(*res));
}

int
stats_row_need_more(const struct stats_row *row, int boots_done,
    int max_boots)
{
	return row->verdict == STATS_INCONCLUSIVE && boots_done < max_boots;
}

int
stats_need_more(const struct stats_result *res, int boots_done, int max_boots)
{
	size_t i;

	for (i = 0; i < res->n; i++)
		if (stats_row_need_more(&res->rows[i], boots_done, max_boots))
			return 1;
	return 0;
}

/* ---- output ------------------------------------------------------------- */

/* JSON has no NaN: null stands for "not computed". */
static json_t *
stats_json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
stats_side_json(const struct stats_side *d)
{
	json_t *o, *boots;
	size_t i;

	if (!d->present)
		return json_null();
	boots = json_array();
	for (i = 0; i < d->nboots; i++)
		json_array_append_new(boots, json_pack("{s:I,s:o}", "boot",
		    (json_int_t)d->boot_ids[i], "mean",
		    stats_json_num(d->boot_means[i])));
	o = json_pack("{s:I,s:I,s:o,s:o,s:o}",
	    "boots", (json_int_t)d->nboots,
	    "samples", (json_int_t)d->nsamples,
	    "mean", stats_json_num(d->mean),
	    "pct_stddev", stats_json_num(d->pct_stddev),
	    "boot_means", boots);
	return o;
}

json_t *
stats_result_to_json(const struct stats_result *res)
{
	json_t *rows = json_array(), *counts = json_object(), *opts;
	size_t i;
	int v;

	for (v = 0; v <= STATS_INVALID; v++)
		json_object_set_new(counts, stats_verdict_name(v),
		    json_integer((json_int_t)res->count[v]));
	opts = json_pack("{s:I,s:i,s:f,s:i,s:f,s:f,s:f}",
	    "seed", (json_int_t)res->opts.seed,
	    "resamples", res->opts.resamples,
	    "alpha", res->opts.alpha,
	    "looks", res->opts.looks,
	    "equiv_margin", res->opts.equiv_margin,
	    "nochange_halfwidth", res->opts.nochange_halfwidth,
	    "ci_level", 0.95);
	for (i = 0; i < res->n; i++) {
		const struct stats_row *r = &res->rows[i];

		json_array_append_new(rows, json_pack("{s:s,s:s,s:s,s:s,s:s,"
		    "s:s,s:s,s:b,s:o,s:[o,o],s:o,s:b,s:o,s:o,s:o}",
		    "workload", r->workload,
		    "params", r->params,
		    "metric", r->metric,
		    "unit", r->unit,
		    "better", r->better == STATS_HIGHER ? "higher" : "lower",
		    "verdict", stats_verdict_name(r->verdict),
		    "reason", r->reason,
		    "significant", r->significant,
		    "pct_change", stats_json_num(r->pct_change),
		    "ci95", stats_json_num(r->ci_lo), stats_json_num(r->ci_hi),
		    "p_value", stats_json_num(r->p_value),
		    "p_exact", r->p_exact,
		    "alpha_look", stats_json_num(r->alpha_look),
		    "base", stats_side_json(&r->base),
		    "test", stats_side_json(&r->test)));
	}
	return json_pack("{s:o,s:o,s:o}", "options", opts, "counts", counts,
	    "rows", rows);
}

static void
stats_print_side(FILE *f, const struct stats_side *d)
{
	if (!d->present)
		fprintf(f, "%12s %6s", "-", "");
	else if (d->nboots > 1)
		fprintf(f, "%12.6g ±%3.0f%%", d->mean, d->pct_stddev);
	else
		fprintf(f, "%12.6g %6s", d->mean, "");
}

void
stats_result_print_table(FILE *f, const struct stats_result *res)
{
	const char *wl = NULL;
	size_t i;

	/* Literal "±" is two bytes but one column: the widths below are
	   display columns (18 per side, 28 for the change). */
	fprintf(f, "%18s  %-28s  %18s\n", "base", "", "test");
	fprintf(f, "------------------  ----------------------------  "
	    "------------------\n");
	fprintf(f, "     mean ±%%stddev  %-28s       mean ±%%stddev  metric "
	    "params (unit)\n", "  %change [95% CI]");
	for (i = 0; i < res->n; i++) {
		const struct stats_row *r = &res->rows[i];
		char chg[64];

		if (!wl || strcmp(wl, r->workload)) {
			fprintf(f, "\n%s:\n", r->workload);
			wl = r->workload;
		}
		if (!isfinite(r->pct_change))
			snprintf(chg, sizeof(chg), "%s", "");
		else if (!isfinite(r->ci_lo))
			snprintf(chg, sizeof(chg), "%+7.1f%%", r->pct_change);
		else
			snprintf(chg, sizeof(chg), "%+7.1f%% [%+6.1f%%,%+6.1f%%]",
			    r->pct_change, r->ci_lo, r->ci_hi);
		stats_print_side(f, &r->base);
		fprintf(f, "  %-28s%c ", chg, r->significant ? '*' : ' ');
		stats_print_side(f, &r->test);
		fprintf(f, "  %s%s%s (%s)", r->metric, *r->params ? " " : "",
		    r->params, r->unit);
		if (r->verdict == STATS_NO_CHANGE)
			fprintf(f, "  no change\n");
		else
			fprintf(f, "  %s: %s\n", stats_verdict_name(r->verdict),
			    r->reason);
	}
	fprintf(f, "\n* significant: 95%% CI excludes 0 and the rank test agrees "
	    "(alpha %.3g over %d looks)\n", res->opts.alpha, res->opts.looks);
}
