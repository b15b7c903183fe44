/*
 * stats_json: reading back a stored comparison result (the JSON of
 * stats_result_to_json in stats.c) into a struct stats_result, so that a
 * finished comparison is computed once and rendered from the store ever
 * after (daemon/report.c).  The round trip is exact: numbers are written
 * with 17 significant digits, "not computed" is null and comes back NAN.
 * tests/unit/t-stats.c checks to_json(from_json(to_json(r))) == to_json(r).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "lib/xalloc.h"

static double
stats_json_double(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int
stats_json_strdup(const json_t *o, const char *k, char **out)
{
	const json_t *v = json_object_get(o, k);

	if (!json_is_string(v))
		return -1;
	*out = xstrdup(json_string_value(v));
	return 0;
}

static int
stats_json_side(const json_t *o, struct stats_side *d)
{
	const json_t *bm = json_object_get(o, "boot_means"), *b;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (json_is_null(o))
		return 0;
	if (!json_is_object(o) || !json_is_array(bm))
		return -1;
	d->present = 1;
	d->nboots = json_integer_value(json_object_get(o, "boots"));
	d->nsamples = json_integer_value(json_object_get(o, "samples"));
	d->mean = stats_json_double(json_object_get(o, "mean"));
	d->pct_stddev = stats_json_double(json_object_get(o, "pct_stddev"));
	/* absent in results stored before the trimmed per-boot estimate */
	d->outlier_runs = json_integer_value(json_object_get(o,
	    "outlier_runs"));
	if (d->nboots != json_array_size(bm))
		return -1;
	d->boot_ids = xcalloc(d->nboots + 1, sizeof(*d->boot_ids));
	d->boot_means = xcalloc(d->nboots + 1, sizeof(*d->boot_means));
	json_array_foreach(bm, i, b) {
		d->boot_ids[i] = json_integer_value(json_object_get(b, "boot"));
		d->boot_means[i] = stats_json_double(json_object_get(b,
		    "mean"));
	}
	return 0;
}

static int
stats_json_verdict(const char *name)
{
	int v;

	for (v = 0; v <= STATS_INVALID; v++)
		if (!strcmp(stats_verdict_name(v), name))
			return v;
	return -1;
}

/* One row; -1 names the first field that is wrong in *bad. */
static int
stats_json_row(const json_t *o, struct stats_row *r, const char **bad)
{
	const json_t *ci = json_object_get(o, "ci95");
	const json_t *tci = json_object_get(o, "ci95_t");
	const char *s;
	int v, t;

	if ((*bad = "workload", stats_json_strdup(o, "workload",
	    &r->workload)) < 0 || (*bad = "params", stats_json_strdup(o,
	    "params", &r->params)) < 0 || (*bad = "metric",
	    stats_json_strdup(o, "metric", &r->metric)) < 0 ||
	    (*bad = "unit", stats_json_strdup(o, "unit", &r->unit)) < 0)
		return -1;
	*bad = "better";
	s = json_string_value(json_object_get(o, "better"));
	if (!s || (strcmp(s, "higher") && strcmp(s, "lower")))
		return -1;
	r->better = !strcmp(s, "higher") ? STATS_HIGHER : STATS_LOWER;
	*bad = "verdict";
	s = json_string_value(json_object_get(o, "verdict"));
	if (!s || (v = stats_json_verdict(s)) < 0)
		return -1;
	r->verdict = v;
	*bad = "reason";
	s = json_string_value(json_object_get(o, "reason"));
	if (!s)
		return -1;
	snprintf(r->reason, sizeof(r->reason), "%s", s);
	r->significant = json_is_true(json_object_get(o, "significant"));
	r->pct_change = stats_json_double(json_object_get(o, "pct_change"));
	r->ci_lo = stats_json_double(json_array_get(ci, 0));
	r->ci_hi = stats_json_double(json_array_get(ci, 1));
	r->p_value = stats_json_double(json_object_get(o, "p_value"));
	r->p_exact = json_is_true(json_object_get(o, "p_exact"));
	r->alpha_look = stats_json_double(json_object_get(o, "alpha_look"));
	r->primary = json_is_true(json_object_get(o, "primary"));
	r->tci_lo = stats_json_double(json_array_get(tci, 0));
	r->tci_hi = stats_json_double(json_array_get(tci, 1));
	r->p_adjusted = stats_json_double(json_object_get(o, "p_adjusted"));
	r->rank_p = stats_json_double(json_object_get(o, "rank_p"));
	r->outlier = json_is_true(json_object_get(o, "outlier"));
	r->slow_runs_differ = json_is_true(json_object_get(o,
	    "slow_runs_differ"));
	r->decided_look = (int)json_integer_value(json_object_get(o,
	    "decided_look"));
	r->boots_needed = (int)json_integer_value(json_object_get(o,
	    "boots_needed"));
	r->boots_needed_cv = stats_json_double(json_object_get(o,
	    "boots_needed_cv"));
	s = json_string_value(json_object_get(o, "boots_needed_noise"));
	r->boots_needed_class = s && !strcmp(s, "class");
	*bad = "p_test";
	s = json_string_value(json_object_get(o, "p_test"));
	/* absent in results stored before the t test: none */
	for (t = STATS_TEST_NONE; s && t <= STATS_TEST_PERMUTATION_MC; t++)
		if (!strcmp(stats_test_name(t), s))
			break;
	if (s && t > STATS_TEST_PERMUTATION_MC)
		return -1;
	r->test_used = s ? t : STATS_TEST_NONE;
	*bad = "base";
	if (stats_json_side(json_object_get(o, "base"), &r->base) < 0)
		return -1;
	*bad = "test";
	return stats_json_side(json_object_get(o, "test"), &r->test);
}

int
stats_result_from_json(const json_t *j, struct stats_result *res, char *err,
    size_t errsz)
{
	const json_t *rows = json_object_get(j, "rows"), *o, *row;
	const json_t *counts = json_object_get(j, "counts");
	const json_t *prim = json_object_get(j, "primary_counts");
	const char *bad = "rows";
	size_t i;
	int v;

	memset(res, 0, sizeof(*res));
	if (!json_is_array(rows) || !json_is_object(counts)) {
		snprintf(err, errsz, "stored result: no rows or counts");
		return -1;
	}
	o = json_object_get(j, "options");
	stats_opts_init(&res->opts);
	res->opts.seed = json_integer_value(json_object_get(o, "seed"));
	res->opts.resamples = json_integer_value(json_object_get(o,
	    "resamples"));
	res->opts.alpha = stats_json_double(json_object_get(o, "alpha"));
	res->opts.looks = json_integer_value(json_object_get(o, "looks"));
	res->opts.boots = json_integer_value(json_object_get(o, "boots"));
	res->opts.boot_step = json_integer_value(json_object_get(o,
	    "boot_step"));
	res->opts.max_boots = json_integer_value(json_object_get(o,
	    "max_boots"));
	res->opts.look = json_integer_value(json_object_get(o, "look"));
	res->alpha_look = stats_json_double(json_object_get(o, "alpha_look"));
	res->opts.equiv_margin = stats_json_double(json_object_get(o,
	    "equiv_margin"));
	res->opts.nochange_halfwidth = stats_json_double(json_object_get(o,
	    "nochange_halfwidth"));
	for (v = 0; v <= STATS_INVALID; v++)
		res->count[v] = json_integer_value(json_object_get(counts,
		    stats_verdict_name(v)));
	res->rows = xcalloc(json_array_size(rows) + 1, sizeof(*res->rows));
	json_array_foreach(rows, i, row) {
		res->n = i + 1;
		if (!json_is_object(row) ||
		    stats_json_row(row, &res->rows[i], &bad) < 0) {
			snprintf(err, errsz, "stored result: row %zu: field "
			    "\"%s\"", i + 1, bad);
			stats_result_release(res);
			return -1;
		}
	}
	/* older results have no primary_counts: count the rows */
	for (v = 0; v <= STATS_INVALID; v++)
		res->primary[v] = json_is_object(prim) ?
		    (size_t)json_integer_value(json_object_get(prim,
		    stats_verdict_name(v))) : 0;
	for (i = 0; !json_is_object(prim) && i < res->n; i++)
		res->primary[res->rows[i].verdict] += res->rows[i].primary;
	return 0;
}
