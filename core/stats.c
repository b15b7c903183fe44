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
 * The test.  A t test on the per-boot means.  Why not the rank test the
 * first version used: with 6 boots per side the exact Mann-Whitney p can
 * be no smaller than 2/924 = 0.0022, reached only on complete separation,
 * so at any level near 0.004 it finds a 5% shift with 1.5% boot noise in
 * about 73% of comparisons; a permutation test on the means has the same
 * floor.  A boot's mean averages several runs on top of one boot effect,
 * so per-boot means are close to normal, and then the t test is the most
 * powerful test there is: d = 5 / 1.57 = 3.2 standard deviations, t
 * about 5.5 with 10 degrees of freedom at 6 boots per side.  With equal
 * boots per side (the scheduler's plan) the Student and Welch statistics
 * are the same number and Student's 2n - 2 degrees of freedom keep the
 * level even when the sides' variances differ (Scheffe); Welch's
 * Satterthwaite degrees of freedom are used when a side lost boots.
 * Normality guard: Grubbs' test (at 0.1%) on each side's per-boot means;
 * when it flags a boot (a bimodal kernel, one bad boot) or both sides are
 * constant, the row falls back to the permutation test of the difference
 * in means, exact by enumeration up to 20000 relabellings, else 20000
 * random ones (seeded) -- valid whatever the distribution, weaker with
 * few boots, and the row's JSON says which test ran ("test").  The
 * Mann-Whitney p is still computed and shown ("rank_p"), never decisive.
 *
 * The CI.  Besides the bootstrap interval (shown) each row has the 95% t
 * interval of the difference in means in % of the base mean (ci95_t).
 * "No change" needs both inside the margin: a percentile bootstrap of 3
 * boots is far too narrow (it has 10 distinct resamples), and a 5% shift
 * must not be called "no change" at the first look.
 *
 * The per-boot estimate.  A boot's runs are averaged after leaving out
 * those more than 5% worse than the boot's best run (stats_trimmed; they
 * are counted per side in outlier_runs and shown).  On a real machine a
 * few percent of runs are 10-20% slow (another tenant, a late timer):
 * with 3 runs per boot the plain mean lets one slow run move a boot by
 * 3-7%, and the median still moves when 2 of 3 are slow -- 3 q^2 = 0.75%
 * of boot-rows at q = 5%, so with 8 primary rows and 24 boots some row of
 * most comparisons has such a boot.  Measured (stats-noise, the "real"
 * model, 100 comparisons): with the mean, a no-op series read "no change"
 * by 12 boots in 45%; the median, 52% (the trace showed a boot 16% low in
 * two rows); the best half of the runs, 94%; this rule keeps every run
 * under ordinary 1% run noise, so the emulator's figures are the mean's.
 * Unless the slow runs are the effect: a patch that makes one run in
 * three slow (a deferred split that fires in some runs, a lock that
 * convoys now and then) would show only as outlier_runs on its side, and
 * a split-queue calibration's PMD row, -44% with every run, read -0.0%
 * [-31.6%, +1.8%] with the trim.  So the sides' rates of slow runs are
 * compared first (Fisher's exact test, two-sided, at
 * STATS_SLOW_RATE_ALPHA): when they differ, the row averages every run on
 * both sides (slow_runs_differ in its JSON).  Under A/A both sides have
 * the same rate and the trim stays on but for that test's alpha.
 *
 * Looks and alpha spending.  The plan (stats.h): a first look at 3 boots
 * per side, then 3 more per side per look up to 12 (looks at 3, 6, 9, 12).
 * A row's error over all looks is bounded by the sum of the levels of the
 * looks (union bound: valid however the looks are correlated, which a
 * Pocock or O'Brien-Fleming boundary would have to assume, and nearly
 * tight here since the first look's level is tiny).  The spending:
 * Alpha is 0.008 rather than 0.01 so that a 1000-comparison measurement
 * of "at most 1%" has room for its own sampling noise (the union bound is
 * nearly attained: A/A comparisons mostly run to the look at 6 boots; at
 * 0.009 a 14-row A/A headline measured 98.8% "no change").
 *   - looks before STATS_DESIGN_BOOTS (6) share 3% of alpha (0.00024): the
 *     first look at 3 boots is for large effects -- a 20% shift has t ~ 15
 *     with 4 degrees of freedom and passes there in ~3 of 4 comparisons,
 *     the rest at 6 boots: it never needs 12;
 *   - the look at 6 boots holds 95% (0.0076): the power requirement is
 *     stated there and needs the level: ~96% for a 5% shift with 1.5%
 *     boot and 1% run noise (5 runs); with 85% of alpha there it was 93%;
 *   - later looks share the last 2%: they settle "no change" (the
 *     interval narrows) and, rarely, medium effects.
 * Issue 15 changed the split to 3% before the design look, 88% there, 1%
 * between it and the last look and 8% at the last (0.00064 for the look
 * at 12): with 1% after the design look in all, the last look had 8e-5,
 * and on the real model a 5% shift was found by 12 boots in 71%; with 8%
 * there, 87% (100 comparisons), while the emulator's one-row power at 6
 * boots stays at 95.1% (t-stats; 91.8% with 67% at the design look).
 * A row decided at a look keeps that verdict at every later one: at look
 * k stats_compare replays looks 1..k-1 on their boots (the first
 * stats_look_boots ids of each side) and a row they decided is carried,
 * out of the look's Holm family.  This spends nothing extra: the union
 * bound over the looks already counts a rejection at any look, and Holm
 * on a family that still holds every true null is valid.  Before, 26% of
 * real-model comparisons lost a right call between looks (a row called
 * right at 6 boots, inconclusive at 12 with almost no alpha left).
 *
 * The split is fixed by the plan before the first look (stats_alpha_spent;
 * t-stats checks that it sums to alpha), so stopping early never changes
 * the level of a look.  A single look (a plan with no room for more, or
 * `kperfci stats compare` on two files) holds all of alpha.
 *
 * The family.  A comparison has many rows (14 in the default matrix) and
 * its headline is one claim about all of them: with every row at the
 * look's level, a no-op series shows some false change in ~6% of A/A
 * comparisons.  So at each look:
 *   - primary rows (each workload's judging metrics: stats_primary[])
 *     are held together by Holm's step-down over the look's level: the
 *     chance that any primary row of an A/A comparison is called a change
 *     at that look is <= its level, and over all looks <= alpha (0.8%);
 *     the headline (stats_headline) is made of primary rows only;
 *   - the other rows (user_sec, per-task rates, ...) are shown with
 *     Benjamini-Hochberg adjusted p-values (false-discovery rate at the
 *     look's level among them) and never ask for more boots.
 * Issue 15: one primary metric per workload, the mechanism's (sys_sec
 * rather than wall_sec, which adds disk and zram; flush_p99_us; refaults
 * per second): the default matrix's 14 rows hold 8 primary rows instead
 * of 11, so Holm's first step is alpha / 8.  Wall time, p50 and MB/s are
 * still shown with their BH verdicts.
 * Holm is uniformly better than Bonferroni and needs no independence;
 * the cost is power when many primary rows move a little, which is why
 * secondary metrics are kept out of the primary family.
 *
 * Verdict, per row, in this order:
 *   1. a side missing -> "missing"; unit or direction differ -> "invalid";
 *      base mean 0 -> "invalid" (no %change);
 *   2. fewer than 2 boots on a side -> "inconclusive" (more boots help);
 *   3. both 95% intervals lie inside +-equiv_margin (2%) -> "no change":
 *      whatever the change is, it is smaller than the margin we report;
 *   4. significant = the bootstrap CI excludes 0 AND the adjusted p <=
 *      the look's level -> "improvement" or "regression";
 *   5. not significant, at least STATS_DESIGN_BOOTS (6) boots per side and
 *      both intervals inside +-nochange_halfwidth (5%) -> "no change"
 *      (nothing larger than that is plausible).  Not before 6 boots: a
 *      variance from 3 boots is often far too small, a 5% shift then
 *      shows as [+2.5%, +4.5%], and calling that "no change" cost ~1.5%
 *      of the power at 6 boots;
 *   6. otherwise "inconclusive".
 * Requiring the CI to agree with the test can only lower the false-
 * positive rate (so can rule 3).
 *
 * Figures (tests/bench/stats.sh, generated data value = mean * (1 + shift)
 * * (1 + sigma_b z_boot) * (1 + sigma_r z_run), 1.5% boot, 1% run noise,
 * 5 runs, the plan above; t-stats checks them with fixed seeds).  Measured
 * at alpha 0.009 with 1000 comparisons each: A/A false positives per row
 * over all looks 0.8%; a 14-row A/A headline "no change" 98.8% (hence
 * 0.008); a 5% shift found by 6 boots per side in 97.2%; a 20% shift
 * decided at 3 boots in 74.5% of comparisons, by 6 in all.
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

#include "core/claims.h"
#include "core/stats.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#define STATS_MAX_NAME		64
#define STATS_MAX_PARAMS	256
#define STATS_MAX_UNIT		32
#define STATS_EXACT_MAX		50	/* boots per side for the exact test */
#define STATS_PERM_MAX		20000	/* relabellings enumerated, or drawn */
#define STATS_GRUBBS_ALPHA	0.001	/* the normality guard's level */
#define STATS_SPEND_PRE		0.03	/* share of alpha before the design look */
#define STATS_SPEND_POST	0.01	/* share of alpha between it and the
					   last look */
#define STATS_SPEND_LAST	0.08	/* share of alpha at the last look */
#define STATS_NEED_POWER	0.95	/* boots_needed: the power planned */
#define STATS_SLOW_RATE_ALPHA	0.01	/* sides' slow-run rates differ */
#define STATS_OUTLIER_RUN_PCT	5.0	/* a run this much worse than its
					   boot's best is left out of the
					   boot's estimate (outlier_runs) */

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

/* ---- the test on per-boot means ----------------------------------------- */

const char *
stats_test_name(enum stats_test t)
{
	switch (t) {
	case STATS_TEST_NONE:		return "none";
	case STATS_TEST_T:		return "t";
	case STATS_TEST_PERMUTATION:	return "permutation";
	case STATS_TEST_PERMUTATION_MC:	return "permutation (random)";
	}
	return "?";
}

static void
stats_mean_var(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*var = n > 1 ? ss / (n - 1) : 0;
}

/*
 * Grubbs' two-sided test for one outlier among x (n >= 3) at level a:
 * G = max |x - mean| / s against (n-1)/sqrt(n) * sqrt(t^2 / (n-2+t^2)),
 * t the upper a/(2n) quantile of t with n-2 degrees of freedom.
 */
static int
stats_grubbs(const double *x, size_t n, double a)
{
	double mean, var, g = 0, t, crit;
	size_t i;

	if (n < 3)
		return 0;
	stats_mean_var(x, n, &mean, &var);
	if (var <= 0)
		return 0;
	for (i = 0; i < n; i++)
		if (fabs(x[i] - mean) > g)
			g = fabs(x[i] - mean);
	g /= sqrt(var);
	t = gsl_cdf_tdist_Qinv(a / (2.0 * n), (double)(n - 2));
	crit = (n - 1) / sqrt((double)n) * sqrt(t * t / (n - 2 + t * t));
	return g > crit;
}

/* |mean(y) - mean(x)| from the sum of the values labelled x. */
static double
stats_perm_stat(double sumx, double total, size_t n, size_t m)
{
	return fabs((total - sumx) / m - sumx / n);
}

/* Exact: every n-subset of the pooled values, by a combination walk. */
static double
stats_perm_exact(const double *v, size_t n, size_t m, double obs)
{
	size_t N = n + m, idx[STATS_EXACT_MAX * 2], i, j;
	double total = 0, sumx, count = 0, all = 0;

	for (i = 0; i < N; i++)
		total += v[i];
	for (i = 0; i < n; i++)
		idx[i] = i;
	for (;;) {
		sumx = 0;
		for (i = 0; i < n; i++)
			sumx += v[idx[i]];
		all++;
		/* a relative tolerance: equal statistics tie, not miss */
		if (stats_perm_stat(sumx, total, n, m) >= obs * (1 - 1e-12))
			count++;
		for (i = n; i-- > 0;)
			if (idx[i] != i + N - n)
				break;
		if (i == (size_t)-1)
			break;
		idx[i]++;
		for (j = i + 1; j < n; j++)
			idx[j] = idx[j - 1] + 1;
	}
	return count / all;
}

/* Random relabellings (Fisher-Yates on a copy), p = (1 + hits) / (1 + B). */
static double
stats_perm_random(const double *v, size_t n, size_t m, double obs,
    unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t N = n + m, i, k, hits = 0;
	double *w = xmalloc(N * sizeof(*w)), total = 0, sumx, tmp;

	gsl_rng_set(r, seed);
	memcpy(w, v, N * sizeof(*w));
	for (i = 0; i < N; i++)
		total += v[i];
	for (k = 0; k < STATS_PERM_MAX; k++) {
		sumx = 0;
		for (i = 0; i < n; i++) {
			size_t j = i + gsl_rng_uniform_int(r, N - i);

			tmp = w[i];
			w[i] = w[j];
			w[j] = tmp;
			sumx += w[i];
		}
		if (stats_perm_stat(sumx, total, n, m) >= obs * (1 - 1e-12))
			hits++;
	}
	free(w);
	gsl_rng_free(r);
	return (1.0 + hits) / (1.0 + STATS_PERM_MAX);
}

static double
stats_permutation(const double *x, size_t n, const double *y, size_t m,
    unsigned long seed, enum stats_test *test)
{
	double *v = xmalloc((n + m) * sizeof(*v)), mx, my, vx, vy, p;
	double combos = 1;
	size_t i;

	memcpy(v, x, n * sizeof(*x));
	memcpy(v + n, y, m * sizeof(*y));
	stats_mean_var(x, n, &mx, &vx);
	stats_mean_var(y, m, &my, &vy);
	for (i = 0; i < n; i++)		/* C(n + m, n) */
		combos = combos * (double)(m + i + 1) / (double)(i + 1);
	if (combos <= STATS_PERM_MAX && n + m <= 2 * STATS_EXACT_MAX) {
		*test = STATS_TEST_PERMUTATION;
		p = stats_perm_exact(v, n, m, fabs(my - mx));
	} else {
		*test = STATS_TEST_PERMUTATION_MC;
		p = stats_perm_random(v, n, m, fabs(my - mx), seed);
	}
	free(v);
	return p > 1 ? 1 : p;
}

/* Degrees of freedom and standard error of mean(y) - mean(x). */
static void
stats_t_parts(size_t n, double vx, size_t m, double vy, double *se,
    double *df)
{
	double a = vx / n, b = vy / m;

	*se = sqrt(a + b);
	if (n == m)
		*df = 2.0 * n - 2;
	else
		*df = (a + b) * (a + b) / (a * a / (n - 1) + b * b / (m - 1));
}

double
stats_mean_test(const double *x, size_t n, const double *y, size_t m,
    unsigned long seed, enum stats_test *test, int *outlier)
{
	double mx, my, vx, vy, se, df, t;

	*test = STATS_TEST_NONE;
	*outlier = 0;
	if (n < 2 || m < 2)
		return NAN;
	stats_mean_var(x, n, &mx, &vx);
	stats_mean_var(y, m, &my, &vy);
	*outlier = stats_grubbs(x, n, STATS_GRUBBS_ALPHA) ||
	    stats_grubbs(y, m, STATS_GRUBBS_ALPHA);
	if (*outlier || (vx <= 0 && vy <= 0))
		return stats_permutation(x, n, y, m, seed, test);
	*test = STATS_TEST_T;
	stats_t_parts(n, vx, m, vy, &se, &df);
	t = (my - mx) / se;
	return 2 * gsl_cdf_tdist_Q(fabs(t), df);
}

/* ---- the family of rows ---------------------------------------------------- */

struct stats_pidx {
	double	 p;
	size_t	 i;
};

static int
stats_cmp_pidx(const void *a, const void *b)
{
	const struct stats_pidx *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The finite p-values of p[0..n) sorted ascending; *k how many. */
static struct stats_pidx *
stats_sorted_p(const double *p, size_t n, size_t *k)
{
	struct stats_pidx *s = xcalloc(n + 1, sizeof(*s));
	size_t i;

	*k = 0;
	for (i = 0; i < n; i++)
		if (isfinite(p[i])) {
			s[*k].p = p[i];
			s[(*k)++].i = i;
		}
	qsort(s, *k, sizeof(*s), stats_cmp_pidx);
	return s;
}

void
stats_holm(const double *p, size_t n, double *adj)
{
	struct stats_pidx *s;
	double run = 0, a;
	size_t i, k;

	for (i = 0; i < n; i++)
		adj[i] = NAN;
	s = stats_sorted_p(p, n, &k);
	for (i = 0; i < k; i++) {
		a = (double)(k - i) * s[i].p;
		if (a > run)
			run = a;		/* step-down: never below earlier */
		adj[s[i].i] = run > 1 ? 1 : run;
	}
	free(s);
}

void
stats_bh(const double *p, size_t n, double *adj)
{
	struct stats_pidx *s;
	double run = 1, a;
	size_t i, k;

	for (i = 0; i < n; i++)
		adj[i] = NAN;
	s = stats_sorted_p(p, n, &k);
	for (i = k; i-- > 0;) {
		a = (double)k / (double)(i + 1) * s[i].p;
		if (a < run)
			run = a;		/* step-up: never above later */
		adj[s[i].i] = run;
	}
	free(s);
}

/* ---- primary metrics ------------------------------------------------------- */

/*
 * The metrics each workload's result is judged by, one line per workload
 * (space-separated metric names).  A workload not listed has every metric
 * primary.  Other metrics are shown but never ask for more boots and never
 * make the headline.
 */
static const struct {
	const char	*workload;
	const char	*metrics;
} stats_primary[] = {
	{ "fault-free",		"pages_per_sec" },
	{ "page-fault",		"ops_per_sec" },
	/* the kernel's share of the work: wall time adds the disk and
	   zram, and is shown */
	{ "swap-memhog",	"sys_sec" },
	{ "file-read",		"sys_sec" },
	/* the flush's tail is what a flush change moves; p50 is shown */
	{ "memcg-flush",	"flush_p99_us" },
	/* the refault path's rate; MB/s and its flush p50 are side views */
	{ "root-refault",	"refaults_per_sec" },
	/* lock waits: shown per lock, never the headline (report.c) */
	{ "lock-profile",	"" },
};

int
stats_metric_primary(const char *workload, const char *metric)
{
	size_t i, len = strlen(metric);
	const char *p;

	for (i = 0; i < sizeof(stats_primary) / sizeof(stats_primary[0]); i++) {
		if (strcmp(stats_primary[i].workload, workload))
			continue;
		for (p = stats_primary[i].metrics; *p; p += strcspn(p, " ")) {
			p += strspn(p, " ");
			if (!strncmp(p, metric, len) &&
			    (p[len] == ' ' || p[len] == '\0'))
				return 1;
		}
		return 0;
	}
	return 1;
}

/* ---- comparison --------------------------------------------------------- */

void
stats_opts_init(struct stats_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->resamples = STATS_DEFAULT_RESAMPLES;
	o->alpha = STATS_DEFAULT_ALPHA;
	o->boots = STATS_DEFAULT_BOOTS;
	o->boot_step = STATS_DEFAULT_BOOT_STEP;
	o->max_boots = STATS_DEFAULT_MAX_BOOTS;
	o->look = 0;
	o->looks = 1;
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

int
stats_look_boots(int boots, int max_boots, int step, int look)
{
	long b = boots + (long)(look > 1 ? look - 1 : 0) * (step > 0 ? step : 0);

	return b > max_boots && max_boots >= boots ? max_boots : (int)b;
}

double
stats_alpha_spent(double alpha, int boots, int max_boots, int step,
    int look)
{
	int looks = stats_planned_looks(boots, max_boots, step), design, k;
	int pre, post;

	if (look < 1 || look > looks)
		return 0;
	if (looks == 1)
		return alpha;
	/* the design look: the first to reach STATS_DESIGN_BOOTS */
	design = looks;
	for (k = 1; k <= looks; k++)
		if (stats_look_boots(boots, max_boots, step, k) >=
		    STATS_DESIGN_BOOTS) {
			design = k;
			break;
		}
	pre = design - 1;
	post = looks - design - 1;	/* between the design and last look */
	if (look < design)
		return alpha * STATS_SPEND_PRE / pre;
	if (look > design && look < looks)
		return alpha * STATS_SPEND_POST / post;
	if (look > design)
		return alpha * STATS_SPEND_LAST;
	return alpha * (1 - (pre ? STATS_SPEND_PRE : 0) -
	    (post > 0 ? STATS_SPEND_POST : 0) -
	    (looks > design ? STATS_SPEND_LAST : 0));
}

double
stats_look_alpha(const struct stats_opts *o)
{
	if (o->look <= 0)
		return o->alpha;
	return stats_alpha_spent(o->alpha, o->boots, o->max_boots,
	    o->boot_step, o->look);
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

/* Off while a row whose sides' slow-run rates differ is measured (see the
   DESIGN block): each thread measures one row at a time. */
static __thread int stats_trim_off;

/* The value a run must reach not to count as slow: STATS_OUTLIER_RUN_PCT
   worse than the best of v's n (n >= 1) runs, the best in *best. */
static double
stats_slow_limit(const double *v, size_t n, int better, double *best)
{
	*best = v[0];
	for (size_t i = 1; i < n; i++)
		if (better * (v[i] - *best) > 0)
			*best = v[i];
	return *best * (1 - better * STATS_OUTLIER_RUN_PCT / 100);
}

/*
 * A boot's estimate from its n runs v (sorted in place): the mean of the
 * runs no more than STATS_OUTLIER_RUN_PCT worse than the boot's best run
 * (better: enum stats_better).  A slow run (10-20% worse on a busy
 * machine) is left out however many of the boot's runs are slow, and
 * counted in outlier_runs; with ordinary run noise (1-2%) nothing is left
 * out and the estimate is the mean (DESIGN: the per-boot estimate).
 */
static double
stats_trimmed(double *v, size_t n, int better)
{
	double s = 0, best, lim;
	size_t i, k = 0;

	if (n == 0)
		return 0;
	if (stats_trim_off) {
		for (i = 0; i < n; i++)
			s += v[i];
		return s / (double)n;
	}
	lim = stats_slow_limit(v, n, better, &best);
	for (i = 0; i < n; i++)
		if (better * (v[i] - lim) >= 0) {
			s += v[i];
			k++;
		}
	return k ? s / (double)k : best;
}

/* Scratch is at least b->n doubles. */
static double
stats_boot_mean(const struct stats_boot *b, int better, double *scratch)
{
	memcpy(scratch, b->v, b->n * sizeof(*scratch));
	return stats_trimmed(scratch, b->n, better);
}

/* Runs more than STATS_OUTLIER_RUN_PCT worse than their boot's best. */
static size_t
stats_outlier_runs(const struct stats_boot *b, int better)
{
	double best, lim;
	size_t i, n = 0;

	if (b->n == 0)
		return 0;
	lim = stats_slow_limit(b->v, b->n, better, &best);
	for (i = 0; i < b->n; i++)
		n += better * (b->v[i] - lim) < 0;
	return n;
}

static size_t
stats_series_maxruns(const struct stats_series *s)
{
	size_t i, m = 1;

	for (i = 0; i < s->nboots; i++)
		if (s->boots[i].n > m)
			m = s->boots[i].n;
	return m;
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
	double sum = 0, ss = 0, *scratch;
	size_t i;

	scratch = xmalloc(stats_series_maxruns(s) * sizeof(*scratch));
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
		d->boot_means[i] = stats_boot_mean(&sorted[i], s->better,
		    scratch);
		{
			size_t k = stats_outlier_runs(&sorted[i], s->better);

			d->outlier_runs += k;
			d->slow_boots += k > 0;
		}
		sum += d->boot_means[i];
	}
	free(sorted);
	free(scratch);
	d->mean = s->nboots ? sum / s->nboots : 0;
	for (i = 0; i < s->nboots; i++)
		ss += (d->boot_means[i] - d->mean) * (d->boot_means[i] - d->mean);
	d->pct_stddev = s->nboots > 1 && d->mean != 0 ?
	    100 * sqrt(ss / (s->nboots - 1)) / fabs(d->mean) : 0;
}

/* Runs in all of a side. */
static size_t
stats_series_runs(const struct stats_series *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nboots; i++)
		n += s->boots[i].n;
	return n;
}

/* log of the hypergeometric probability of k slow runs among a side's n,
   K slow among N runs in all. */
static double
stats_lhyper(size_t k, size_t n, size_t K, size_t N)
{
	return lgamma(K + 1.0) - lgamma(k + 1.0) - lgamma(K - k + 1.0) +
	    lgamma(N - K + 1.0) - lgamma(n - k + 1.0) -
	    lgamma(N - K - n + k + 1.0) - lgamma(N + 1.0) + lgamma(n + 1.0) +
	    lgamma(N - n + 1.0);
}

/* Fisher's exact test, two-sided: kb of nb against kt of nt. */
static double
stats_fisher(size_t kb, size_t nb, size_t kt, size_t nt)
{
	size_t K = kb + kt, N = nb + nt, k, lo, hi;
	double p0, p = 0;

	if (!K || K == N || nb == 0 || nt == 0)
		return 1;
	lo = K > nt ? K - nt : 0;
	hi = K < nb ? K : nb;
	p0 = stats_lhyper(kb, nb, K, N);
	for (k = lo; k <= hi; k++) {
		double lp = stats_lhyper(k, nb, K, N);

		if (lp <= p0 + 1e-9)
			p += exp(lp);
	}
	return p;
}

/*
 * Do the sides' slow runs differ (STATS_SLOW_RATE_ALPHA)?  Asked of the
 * runs (outlier_runs of all runs) and of the boots (boots with a slow
 * run): a busy machine's slow runs fall on a few boots of either side,
 * an effect's on every boot of one side.
 */
static int
stats_slow_rates_differ(const struct stats_side *b, const struct stats_series *bs,
    const struct stats_side *t, const struct stats_series *ts)
{
	return stats_fisher(b->outlier_runs, stats_series_runs(bs),
	    t->outlier_runs, stats_series_runs(ts)) < STATS_SLOW_RATE_ALPHA ||
	    stats_fisher(b->slow_boots, bs->nboots, t->slow_boots,
	    ts->nboots) < STATS_SLOW_RATE_ALPHA;
}

/* Fills d again (with the trim as it is now), its arrays replaced. */
static void
stats_side_refill(struct stats_side *d, const struct stats_series *s)
{
	free(d->boot_ids);
	free(d->boot_means);
	memset(d, 0, sizeof(*d));
	stats_side_fill(d, s);
}

/* One hierarchical resample of a side: boots, then runs within them. */
static double
stats_resample_mean(gsl_rng *r, const struct stats_series *s,
    double *scratch)
{
	double sum = 0;
	size_t i, j;

	for (i = 0; i < s->nboots; i++) {
		const struct stats_boot *b =
		    &s->boots[gsl_rng_uniform_int(r, s->nboots)];

		if (b->n == 1) {
			sum += b->v[0];
			continue;
		}
		for (j = 0; j < b->n; j++)
			scratch[j] = b->v[gsl_rng_uniform_int(r, b->n)];
		sum += stats_trimmed(scratch, b->n, s->better);
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
	double *d = xmalloc(o->resamples * sizeof(*d)), *scratch;
	size_t runs = stats_series_maxruns(bs);
	int i;

	if (stats_series_maxruns(ts) > runs)
		runs = stats_series_maxruns(ts);
	scratch = xmalloc(runs * sizeof(*scratch));
	gsl_rng_set(r, stats_series_seed(o->seed, bs));
	for (i = 0; i < o->resamples; i++) {
		double mb = stats_resample_mean(r, bs, scratch);
		double mt = stats_resample_mean(r, ts, scratch);

		/* A resample of zeros only (some boots measured 0). */
		d[i] = mb > 0 ? 100 * (mt / mb - 1) : mt > 0 ? INFINITY : 0;
	}
	qsort(d, o->resamples, sizeof(*d), stats_cmp_double);
	row->ci_lo = gsl_stats_quantile_from_sorted_data(d, 1, o->resamples,
	    0.025);
	row->ci_hi = gsl_stats_quantile_from_sorted_data(d, 1, o->resamples,
	    0.975);
	free(scratch);
	free(d);
	gsl_rng_free(r);
}

/*
 * The numbers of a row: %change, the intervals, the test's p.  Rows that
 * cannot be tested (a side missing, disagreeing, a zero base, one boot)
 * get their verdict here; the others are decided by stats_decide once the
 * family's adjusted p-values are known.  Returns 1 when decided.
 */
static int
stats_measure(struct stats_row *row, const struct stats_series *bs,
    const struct stats_series *ts, const struct stats_opts *o)
{
	double mx, my, vx, vy, se, df, q;
	int rank_exact;

	if (!bs || !ts) {
		row->verdict = STATS_MISSING;
		snprintf(row->reason, sizeof(row->reason), "only in the %s "
		    "samples", bs ? "base" : "test");
		return 1;
	}
	if (strcmp(bs->unit, ts->unit) || bs->better != ts->better) {
		row->verdict = STATS_INVALID;
		snprintf(row->reason, sizeof(row->reason), "the sides disagree "
		    "on the unit (%s, %s) or direction", bs->unit, ts->unit);
		return 1;
	}
	if (row->base.mean <= 0) {
		row->verdict = STATS_INVALID;
		snprintf(row->reason, sizeof(row->reason), "base mean is 0: "
		    "%%change undefined");
		return 1;
	}
	row->pct_change = 100 * (row->test.mean / row->base.mean - 1);
	if (bs->nboots < 2 || ts->nboots < 2) {
		row->verdict = STATS_INCONCLUSIVE;
		snprintf(row->reason, sizeof(row->reason), "needs at least 2 "
		    "boots per side (base %zu, test %zu)", bs->nboots,
		    ts->nboots);
		return 1;
	}
	stats_bootstrap(row, bs, ts, o);
	row->p_value = stats_mean_test(row->base.boot_means, row->base.nboots,
	    row->test.boot_means, row->test.nboots,
	    stats_series_seed(o->seed, bs) ^ 0x5bd1e995UL, &row->test_used,
	    &row->outlier);
	row->p_exact = row->test_used == STATS_TEST_PERMUTATION;
	row->rank_p = stats_mann_whitney(row->base.boot_means,
	    row->base.nboots, row->test.boot_means, row->test.nboots, &rank_exact);
	stats_mean_var(row->base.boot_means, row->base.nboots, &mx, &vx);
	stats_mean_var(row->test.boot_means, row->test.nboots, &my, &vy);
	stats_t_parts(row->base.nboots, vx, row->test.nboots, vy, &se, &df);
	q = df > 0 && se > 0 ? gsl_cdf_tdist_Qinv(0.025, df) * se : 0;
	row->tci_lo = 100 * (my - mx - q) / mx;
	row->tci_hi = 100 * (my - mx + q) / mx;
	return 0;
}

static void
stats_decide(struct stats_row *row, const struct stats_opts *o)
{
	double m = o->equiv_margin, h = o->nochange_halfwidth;
	double lo = fmin(row->ci_lo, row->tci_lo);
	double hi = fmax(row->ci_hi, row->tci_hi);
	const char *adj = row->primary ? "Holm" : "BH";

	row->significant = (row->ci_lo > 0 || row->ci_hi < 0) &&
	    row->p_adjusted <= row->alpha_look;
	if (lo >= -m && hi <= m) {
		row->significant = 0;
		row->verdict = STATS_NO_CHANGE;
		snprintf(row->reason, sizeof(row->reason), "95%% CI within "
		    "+-%g%%", m);
	} else if (row->significant) {
		row->verdict = row->pct_change * row->better > 0 ?
		    STATS_IMPROVEMENT : STATS_REGRESSION;
		snprintf(row->reason, sizeof(row->reason), "95%% CI excludes 0 "
		    "and %s p = %.2g (%s-adjusted %.2g) <= %.2g",
		    stats_test_name(row->test_used), row->p_value, adj,
		    row->p_adjusted, row->alpha_look);
	} else if (lo >= -h && hi <= h && row->base.nboots >=
	    STATS_DESIGN_BOOTS && row->test.nboots >= STATS_DESIGN_BOOTS) {
		row->verdict = STATS_NO_CHANGE;
		snprintf(row->reason, sizeof(row->reason), "not significant "
		    "(%s-adjusted p = %.2g) and 95%% CI within +-%g%%", adj,
		    row->p_adjusted, h);
	} else if (row->ci_lo > 0 || row->ci_hi < 0) {
		row->verdict = STATS_INCONCLUSIVE;
		snprintf(row->reason, sizeof(row->reason), "95%% CI excludes 0 "
		    "but %s-adjusted p = %.2g > %.2g: more boots needed", adj,
		    row->p_adjusted, row->alpha_look);
	} else {
		row->verdict = STATS_INCONCLUSIVE;
		snprintf(row->reason, sizeof(row->reason), "not significant "
		    "(%s-adjusted p = %.2g) and 95%% CI wider than +-%g%%", adj,
		    row->p_adjusted, h);
	}
}

/* Returns 1 when the row's verdict is already known (stats_measure). */
static int
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
	row->primary = stats_metric_primary(s->workload, s->metric);
	row->pct_change = row->ci_lo = row->ci_hi = row->p_value = NAN;
	row->tci_lo = row->tci_hi = row->p_adjusted = row->rank_p = NAN;
	row->alpha_look = NAN;
	if (bs)
		stats_side_fill(&row->base, bs);
	if (ts)
		stats_side_fill(&row->test, ts);
	if (bs && ts && stats_slow_rates_differ(&row->base, bs, &row->test,
	    ts)) {
		int rc;

		row->slow_runs_differ = 1;
		stats_trim_off = 1;
		stats_side_refill(&row->base, bs);
		stats_side_refill(&row->test, ts);
		rc = stats_measure(row, bs, ts, o);
		stats_trim_off = 0;
		return rc;
	}
	return stats_measure(row, bs, ts, o);
}

/*
 * The family: Holm over the primary rows' p, Benjamini-Hochberg over the
 * others', then the verdict of every row not decided yet.
 */
static void
stats_family(struct stats_row *rows, const int *decided, size_t n,
    const struct stats_opts *o, double alpha_look)
{
	double *p = xcalloc(n + 1, sizeof(*p)), *adj = xcalloc(n + 1,
	    sizeof(*adj));
	size_t i;
	int prim;

	for (prim = 0; prim <= 1; prim++) {
		for (i = 0; i < n; i++)
			p[i] = !decided[i] && rows[i].primary == prim ?
			    rows[i].p_value : NAN;
		if (prim)
			stats_holm(p, n, adj);
		else
			stats_bh(p, n, adj);
		for (i = 0; i < n; i++)
			if (!decided[i] && rows[i].primary == prim)
				rows[i].p_adjusted = adj[i];
	}
	for (i = 0; i < n; i++) {
		if (decided[i])
			continue;
		rows[i].alpha_look = alpha_look;
		stats_decide(&rows[i], o);
	}
	free(adj);
	free(p);
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

/* What an earlier look decided about a row (stats_compare). */
struct stats_carry {
	int	 look;		/* 0: nothing decided */
	enum stats_verdict verdict;
	int	 significant;
	double	 p_adjusted, alpha_look;
	char	 reason[160];
};

static int
stats_cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The nb-th smallest boot id of a side (every id when it has fewer). */
static long
stats_side_cutoff(const struct stats_set *set, int nb)
{
	long *ids, cut = STATS_MAX_BOOT_ID;
	size_t i, j, n = 0, k = 0;

	for (i = 0; i < set->n; i++)
		n += set->series[i].nboots;
	ids = xcalloc(n + 1, sizeof(*ids));
	for (i = 0; i < set->n; i++)
		for (j = 0; j < set->series[i].nboots; j++)
			ids[k++] = set->series[i].boots[j].id;
	qsort(ids, n, sizeof(*ids), stats_cmp_long);
	for (i = 0, k = 0; i < n; i++) {
		if (i > 0 && ids[i] == ids[i - 1])
			continue;
		if (++k == (size_t)nb) {
			cut = ids[i];
			break;
		}
	}
	free(ids);
	return cut;
}

/*
 * A view of set holding the boots of an earlier look: the first nb boot
 * ids of the side (the scheduler numbers a look's boots after the last
 * look's).  Series keep their order, so row i of the view is row i of
 * the whole set.  Borrows names and runs; stats_view_release frees it.
 */
static void
stats_view(const struct stats_set *set, int nb, struct stats_set *view)
{
	long cut = stats_side_cutoff(set, nb);
	size_t i, j;

	memset(view, 0, sizeof(*view));
	view->series = xcalloc(set->n + 1, sizeof(*view->series));
	view->n = view->cap = set->n;
	for (i = 0; i < set->n; i++) {
		const struct stats_series *s = &set->series[i];
		struct stats_series *v = &view->series[i];

		*v = *s;
		v->boots = xcalloc(s->nboots + 1, sizeof(*v->boots));
		v->nboots = v->nsamples = 0;
		for (j = 0; j < s->nboots; j++)
			if (s->boots[j].id <= cut) {
				v->boots[v->nboots++] = s->boots[j];
				v->nsamples += s->boots[j].n;
			}
		view->nsamples += v->nsamples;
	}
}

static void
stats_view_release(struct stats_set *view)
{
	size_t i;

	for (i = 0; i < view->n; i++)
		free(view->series[i].boots);
	free(view->series);
}

/* A row decided at an earlier look keeps that verdict (DESIGN: looks). */
static void
stats_carry_apply(struct stats_row *row, const struct stats_carry *c,
    int boots)
{
	row->verdict = c->verdict;
	row->significant = c->significant;
	row->p_adjusted = c->p_adjusted;
	row->alpha_look = c->alpha_look;
	row->decided_look = c->look;
	snprintf(row->reason, sizeof(row->reason), "at look %d (%d boots per "
	    "side): %s", c->look, boots, c->reason);
}

static void
stats_row_release(struct stats_row *r)
{
	free(r->workload);
	free(r->params);
	free(r->metric);
	free(r->unit);
	free(r->base.boot_ids);
	free(r->base.boot_means);
	free(r->test.boot_ids);
	free(r->test.boot_means);
}

/*
 * The rows of one look (unsorted, *n of them) under o, whose look is
 * look: carry holds what earlier looks decided and gets what this one
 * decides.
 */
static struct stats_row *
stats_look_rows(const struct stats_set *base, const struct stats_set *test,
    const struct stats_opts *o, struct stats_carry *carry, size_t *n)
{
	struct stats_row *rows;
	double alpha_look = stats_look_alpha(o);
	size_t i, k = 0;
	int *decided;

	rows = xcalloc(base->n + test->n + 1, sizeof(*rows));
	decided = xcalloc(base->n + test->n + 1, sizeof(*decided));
	for (i = 0; i < base->n; i++) {
		const struct stats_series *bs = &base->series[i];

		decided[k] = stats_row_fill(&rows[k], bs, stats_find_series(
		    test, bs->workload, bs->params, bs->metric), o);
		k++;
	}
	for (i = 0; i < test->n; i++) {
		const struct stats_series *ts = &test->series[i];

		if (!stats_find_series(base, ts->workload, ts->params,
		    ts->metric)) {
			decided[k] = stats_row_fill(&rows[k], NULL, ts, o);
			k++;
		}
	}
	for (i = 0; i < k; i++)
		if (!decided[i] && carry[i].look > 0) {
			stats_carry_apply(&rows[i], &carry[i], stats_look_boots(
			    o->boots, o->max_boots, o->boot_step,
			    carry[i].look));
			decided[i] = 1;
		}
	stats_family(rows, decided, k, o, alpha_look);
	for (i = 0; i < k; i++) {
		struct stats_row *r = &rows[i];

		if (decided[i] || o->look == 0 || (r->verdict !=
		    STATS_NO_CHANGE && r->verdict != STATS_IMPROVEMENT &&
		    r->verdict != STATS_REGRESSION))
			continue;
		r->decided_look = o->look;
		carry[i].look = o->look;
		carry[i].verdict = r->verdict;
		carry[i].significant = r->significant;
		carry[i].p_adjusted = r->p_adjusted;
		carry[i].alpha_look = r->alpha_look;
		snprintf(carry[i].reason, sizeof(carry[i].reason), "%s",
		    r->reason);
	}
	free(decided);
	*n = k;
	return rows;
}

/* res->opts made consistent: the plan's looks, this look in range. */
static void
stats_opts_fix(struct stats_result *res, const struct stats_opts *opts)
{
	if (opts)
		res->opts = *opts;
	else
		stats_opts_init(&res->opts);
	if (res->opts.resamples < 100)
		res->opts.resamples = 100;
	if (res->opts.boots < 1)
		res->opts.boots = 1;
	if (res->opts.max_boots < res->opts.boots)
		res->opts.max_boots = res->opts.boots;
	res->opts.looks = stats_planned_looks(res->opts.boots,
	    res->opts.max_boots, res->opts.boot_step);
	if (res->opts.look > res->opts.looks)
		res->opts.look = res->opts.looks;
	if (res->opts.look < 0)
		res->opts.look = 0;
	if (res->opts.look == 0)
		res->opts.looks = 1;
	res->alpha_look = stats_look_alpha(&res->opts);
}

int
stats_compare(const struct stats_set *base, const struct stats_set *test,
    const struct stats_opts *opts, struct stats_result *res)
{
	struct stats_sortkey *keys;
	struct stats_carry *carry;
	struct stats_row *rows;
	struct stats_opts lo;
	size_t i, j, n = 0;
	int look;

	memset(res, 0, sizeof(*res));
	stats_opts_fix(res, opts);
	carry = xcalloc(base->n + test->n + 1, sizeof(*carry));
	/* the earlier looks again, on their boots: what they decided stays */
	for (look = 1; look < res->opts.look; look++) {
		struct stats_set vb, vt;

		lo = res->opts;
		lo.look = look;
		stats_view(base, stats_look_boots(lo.boots, lo.max_boots,
		    lo.boot_step, look), &vb);
		stats_view(test, stats_look_boots(lo.boots, lo.max_boots,
		    lo.boot_step, look), &vt);
		rows = stats_look_rows(&vb, &vt, &lo, carry, &n);
		for (i = 0; i < n; i++)
			stats_row_release(&rows[i]);
		free(rows);
		stats_view_release(&vb);
		stats_view_release(&vt);
	}
	rows = stats_look_rows(base, test, &res->opts, carry, &n);
	free(carry);
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
		if (res->rows[i].primary)
			res->primary[res->rows[i].verdict]++;
	}
	res->n = n;
	free(keys);
	free(rows);
	stats_result_boots_needed(res, NULL, NULL);
	return 0;
}

void
stats_result_release(struct stats_result *res)
{
	size_t i;

	for (i = 0; i < res->n; i++)
		stats_row_release(&res->rows[i]);
	free(res->rows);
	memset(res, 0, sizeof(*res));
}

/* The pooled per-boot % spread of a row's two sides, or NAN. */
static double
stats_row_cv(const struct stats_row *r)
{
	double ss = 0;
	int dof = 0;

	if (r->base.nboots >= 2) {
		ss += (r->base.nboots - 1) * r->base.pct_stddev *
		    r->base.pct_stddev;
		dof += (int)r->base.nboots - 1;
	}
	if (r->test.nboots >= 2) {
		ss += (r->test.nboots - 1) * r->test.pct_stddev *
		    r->test.pct_stddev;
		dof += (int)r->test.nboots - 1;
	}
	return dof ? sqrt(ss / dof) : NAN;
}

void
stats_result_boots_needed(struct stats_result *res,
    double (*cv)(const struct stats_row *, void *), void *arg)
{
	size_t i, nprim = 0;
	double a;

	for (i = 0; i < res->n; i++)
		nprim += res->rows[i].primary;
	a = res->opts.alpha / (nprim ? (double)nprim : 1);
	for (i = 0; i < res->n; i++) {
		struct stats_row *r = &res->rows[i];
		double c = cv ? cv(r, arg) : NAN;

		r->boots_needed = 0;
		r->boots_needed_cv = NAN;
		r->boots_needed_class = 0;
		if (!r->primary || r->verdict != STATS_INCONCLUSIVE)
			continue;
		if (isfinite(c) && c > 0)
			r->boots_needed_class = 1;
		else
			c = stats_row_cv(r);
		if (!isfinite(c) || c <= 0)
			continue;
		r->boots_needed = claims_boots_needed(c,
		    res->opts.nochange_halfwidth, a, STATS_NEED_POWER);
		r->boots_needed_cv = c;
	}
}

int
stats_row_need_more(const struct stats_row *row, int boots_done,
    int max_boots)
{
	return row->primary && row->verdict == STATS_INCONCLUSIVE &&
	    boots_done < max_boots;
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

char *
stats_headline(const struct stats_result *res, char *buf, size_t sz)
{
	size_t reg = res->primary[STATS_REGRESSION];
	size_t imp = res->primary[STATS_IMPROVEMENT];

	if (reg && imp)
		snprintf(buf, sz, "mixed: %zu regression%s, %zu improvement%s",
		    reg, reg > 1 ? "s" : "", imp, imp > 1 ? "s" : "");
	else if (reg)
		snprintf(buf, sz, "regression");
	else if (imp)
		snprintf(buf, sz, "improvement");
	else if (res->primary[STATS_INCONCLUSIVE])
		snprintf(buf, sz, "inconclusive");
	else if (res->primary[STATS_NO_CHANGE])
		snprintf(buf, sz, "no change");
	else
		snprintf(buf, sz, "no comparable metrics");
	return buf;
}

char *
stats_rule_text(const struct stats_result *res, char *buf, size_t sz)
{
	snprintf(buf, sz, "significant: the 95%% CI excludes 0 and the "
	    "test's p (t on per-boot means, or a permutation test where a "
	    "side has an outlier boot), adjusted over the comparison's rows, "
	    "is at most %.2g (look %d of %d; alpha %.3g over all looks). "
	    "Holm over the primary metrics, which alone make the headline; "
	    "Benjamini-Hochberg over the secondary ones, which are shown but "
	    "never ask for more boots.", res->alpha_look,
	    res->opts.look ? res->opts.look : 1, res->opts.looks,
	    res->opts.alpha);
	return buf;
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
	o = json_pack("{s:I,s:I,s:I,s:o,s:o,s:o}",
	    "boots", (json_int_t)d->nboots,
	    "samples", (json_int_t)d->nsamples,
	    "outlier_runs", (json_int_t)d->outlier_runs,
	    "mean", stats_json_num(d->mean),
	    "pct_stddev", stats_json_num(d->pct_stddev),
	    "boot_means", boots);
	return o;
}

static json_t *
stats_counts_json(const size_t *count)
{
	json_t *o = json_object();
	int v;

	for (v = 0; v <= STATS_INVALID; v++)
		json_object_set_new(o, stats_verdict_name(v),
		    json_integer((json_int_t)count[v]));
	return o;
}

static json_t *
stats_row_json(const struct stats_row *r)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:s,s:s,s:b,s:o,s:[o,o],"
	    "s:[o,o],s:s,s:o,s:b,s:o,s:o,s:b,s:b,s:o,s:i,s:o,s:o,s:o,s:o,"
	    "s:o}",
	    "workload", r->workload,
	    "params", r->params,
	    "metric", r->metric,
	    "unit", r->unit,
	    "better", r->better == STATS_HIGHER ? "higher" : "lower",
	    "primary", r->primary,
	    "verdict", stats_verdict_name(r->verdict),
	    "reason", r->reason,
	    "significant", r->significant,
	    "pct_change", stats_json_num(r->pct_change),
	    "ci95", stats_json_num(r->ci_lo), stats_json_num(r->ci_hi),
	    "ci95_t", stats_json_num(r->tci_lo), stats_json_num(r->tci_hi),
	    "p_test", stats_test_name(r->test_used),
	    "p_value", stats_json_num(r->p_value),
	    "p_exact", r->p_exact,
	    "p_adjusted", stats_json_num(r->p_adjusted),
	    "rank_p", stats_json_num(r->rank_p),
	    "outlier", r->outlier,
	    "slow_runs_differ", r->slow_runs_differ,
	    "alpha_look", stats_json_num(r->alpha_look),
	    "decided_look", r->decided_look,
	    "boots_needed", r->boots_needed > 0 ?
	    json_integer(r->boots_needed) : json_null(),
	    "boots_needed_cv", stats_json_num(r->boots_needed_cv),
	    "boots_needed_noise", r->boots_needed <= 0 ? json_null() :
	    json_string(r->boots_needed_class ? "class" : "comparison"),
	    "base", stats_side_json(&r->base),
	    "test", stats_side_json(&r->test));
}

json_t *
stats_result_to_json(const struct stats_result *res)
{
	json_t *rows = json_array(), *opts, *row;
	char head[128];
	size_t i;

	opts = json_pack("{s:I,s:i,s:f,s:i,s:i,s:i,s:i,s:i,s:o,s:f,s:f,s:f,"
	    "s:s}",
	    "seed", (json_int_t)res->opts.seed,
	    "resamples", res->opts.resamples,
	    "alpha", res->opts.alpha,
	    "boots", res->opts.boots,
	    "boot_step", res->opts.boot_step,
	    "max_boots", res->opts.max_boots,
	    "look", res->opts.look,
	    "looks", res->opts.looks,
	    "alpha_look", stats_json_num(res->alpha_look),
	    "equiv_margin", res->opts.equiv_margin,
	    "nochange_halfwidth", res->opts.nochange_halfwidth,
	    "ci_level", 0.95,
	    "family", "Holm over the primary metrics (the headline), "
	    "Benjamini-Hochberg over the others");
	for (i = 0; i < res->n; i++) {
		row = stats_row_json(&res->rows[i]);
		json_array_append_new(rows, row);
	}
	return json_pack("{s:o,s:s,s:o,s:o,s:o}", "options", opts,
	    "headline", stats_headline(res, head, sizeof(head)),
	    "counts", stats_counts_json(res->count),
	    "primary_counts", stats_counts_json(res->primary),
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
	char head[128], note[512];
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
		fprintf(f, "  %s%s%s (%s)%s", r->metric, *r->params ? " " : "",
		    r->params, r->unit, r->primary ? "" : " [secondary]");
		if (r->verdict == STATS_NO_CHANGE)
			fprintf(f, "  no change\n");
		else if (r->boots_needed > 0)
			fprintf(f, "  %s: %s; %d boots per side would tell a "
			    "%g%% change (%.2f%% per-boot spread%s)\n",
			    stats_verdict_name(r->verdict), r->reason,
			    r->boots_needed, res->opts.nochange_halfwidth,
			    r->boots_needed_cv, r->boots_needed_class ?
			    ", the class's" : "");
		else
			fprintf(f, "  %s: %s\n", stats_verdict_name(r->verdict),
			    r->reason);
	}
	fprintf(f, "\n* %s\n", stats_rule_text(res, note, sizeof(note)));
	fprintf(f, "headline (primary metrics only): %s\n",
	    stats_headline(res, head, sizeof(head)));
}
