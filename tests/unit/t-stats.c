/*
 * t-stats: the sample parser, the rank test, the comparison's verdicts and
 * outputs, and the statistical requirements of issue 5 on generated data
 * (A/A false positives, power for a 5% shift) with the daemon's defaults.
 *
 * Generated data: value = 1000 * (1 + shift) * (1 + sb * z_boot) *
 * (1 + sr * z_run), z standard normal (GSL), one z_boot per boot.
 *
 * The simulations use the daemon's defaults (boots, iterations, looks,
 * alpha, margins) and the same stats_compare; only the bootstrap resample
 * count may be lowered with KPERFCI_STATS_RESAMPLES (the ASan run of
 * make check is slower) -- the decision rule is unchanged.
 *
 * `t-stats --bench` prints the figures of tests/bench/stats.sh instead.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "daemon/stats.h"
#include "tests/unit/tap.h"

static const char *
verdict_of(const struct stats_result *res, const char *metric)
{
	size_t i;

	for (i = 0; i < res->n; i++)
		if (!strcmp(res->rows[i].metric, metric))
			return stats_verdict_name(res->rows[i].verdict);
	return "(no row)";
}

/* ---- parser ----------------------------------------------------------- */

#define L(b, it, v) "{\"boot\":" #b ",\"workload\":\"fault-free\"," \
	"\"params\":\"mode=shmem,tasks=4\",\"iteration\":" #it "," \
	"\"metric\":\"pages_per_sec\",\"value\":" #v ",\"unit\":\"pages/s\"," \
	"\"better\":\"higher\"}\n"

static void
test_parse_ok(void)
{
	const char *text =
	    L(1, 0, 100) L(1, 1, 102.5) "\n   \r\n" L(2, 0, 99)
	    "{\"type\":\"lock-profile\",\"boot\":1,\"locks\":[]}\n"
	    "{\"type\":\"error\",\"boot\":2,\"message\":\"oom\"}\n"
	    "{\"type\":\"sample\",\"boot\":2,\"workload\":\"memcg-flush\","
	    "\"params\":\"\",\"iteration\":0,\"metric\":\"p99\",\"value\":3,"
	    "\"unit\":\"us\",\"better\":\"lower\"}";
	struct stats_set s;
	char err[256] = "";

	stats_set_init(&s);
	is_int(stats_load_jsonl(&s, text, strlen(text), err, sizeof(err)), 0,
	    "valid lines load (%s)", err);
	is_int(s.n, 2, "two series");
	is_int(s.nsamples, 4, "four samples");
	is_int(s.nlock_profile, 1, "lock-profile line counted and skipped");
	is_int(s.nerror, 1, "error line counted and skipped");
	is_int(s.series[0].nboots, 2, "fault-free grouped into two boots");
	is_int(s.series[0].boots[0].n, 2, "boot 1 has two runs");
	ok(s.series[0].boots[0].v[1] == 102.5, "value kept");
	is_int(s.series[1].better, STATS_LOWER, "better lower");
	is_str(s.series[1].params, "", "empty params allowed");
	stats_set_release(&s);
}

struct bad {
	const char *text;
	const char *want;	/* substring of the error */
};

static void
test_parse_bad(void)
{
	static const struct bad bad[] = {
		{ L(1, 0, 1) "{\"boot\":1,\"workload\":\"w\",\"params\":\"\","
		  "\"iteration\":1,\"metric\":\"m\",\"value\":NaN,"
		  "\"unit\":\"s\",\"better\":\"lower\"}\n",
		  "line 2: not JSON" },
		{ "{\"boot\":1,\"workload\":\"w\",\"params\":\"\","
		  "\"iteration\":1,\"metric\":\"m\",\"value\":1e999,"
		  "\"unit\":\"s\",\"better\":\"lower\"}\n", "line 1: " },
		{ L(1, 0, 1) L(1, 1, -5), "line 2: field \"value\": -5 is "
		  "negative" },
		{ "{\"boot\":1,\"workload\":\"w\",\"params\":\"\","
		  "\"iteration\":1,\"value\":1,\"unit\":\"s\","
		  "\"better\":\"lower\"}", "line 1: field \"metric\": missing" },
		{ "{\"boot\":\"1\",\"workload\":\"w\",\"params\":\"\","
		  "\"iteration\":1,\"metric\":\"m\",\"value\":1,\"unit\":\"s\","
		  "\"better\":\"lower\"}", "line 1: field \"boot\": not an "
		  "integer" },
		{ "{\"boot\":1,\"workload\":\"w\",\"params\":\"\","
		  "\"iteration\":1,\"metric\":\"m\",\"value\":\"1\","
		  "\"unit\":\"s\",\"better\":\"lower\"}",
		  "field \"value\": not a number" },
		{ "{\"boot\":1,\"workload\":\"w\",\"params\":\"\","
		  "\"iteration\":1,\"metric\":\"m\",\"value\":1,\"unit\":\"s\","
		  "\"better\":\"up\"}", "field \"better\": want" },
		{ "{\"boot\":1,\"workload\":\"w\",\"params\":\"\","
		  "\"iteration\":1,\"metric\":\"m\",\"value\":1,\"unit\":\"s\","
		  "\"better\":\"lower\",\"extra\":1}",
		  "field \"extra\": not a sample field" },
		{ L(1, 0, 1) L(1, 0, 2), "line 2: field \"iteration\": "
		  "duplicate" },
		{ L(1, 0, 1) "{\"boot\":1,\"workload\":\"fault-free\","
		  "\"params\":\"mode=shmem,tasks=4\",\"iteration\":1,"
		  "\"metric\":\"pages_per_sec\",\"value\":1,\"unit\":\"ops/s\","
		  "\"better\":\"higher\"}", "line 2: field \"unit\"" },
		{ "[1,2]\n", "line 1: not a JSON object" },
		{ "not json at all\n", "line 1: not JSON" },
		{ "{\"type\":\"bogus\"}", "field \"type\": unknown" },
		{ "{\"boot\":-1,\"workload\":\"w\",\"params\":\"\","
		  "\"iteration\":1,\"metric\":\"m\",\"value\":1,\"unit\":\"s\","
		  "\"better\":\"lower\"}", "field \"boot\": -1 out of range" },
		{ "{\"boot\":1,\"workload\":\"\",\"params\":\"\","
		  "\"iteration\":1,\"metric\":\"m\",\"value\":1,\"unit\":\"s\","
		  "\"better\":\"lower\"}", "field \"workload\": empty" },
		{ "{\"boot\":1,\"workload\":\"a\\u0001b\",\"params\":\"\","
		  "\"iteration\":1,\"metric\":\"m\",\"value\":1,\"unit\":\"s\","
		  "\"better\":\"lower\"}", "field \"workload\": has a character" },
		{ "{\"boot\":1,\"boot\":2}", "line 1: not JSON" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct stats_set s;
		char err[256] = "";
		int r;

		stats_set_init(&s);
		r = stats_load_jsonl(&s, bad[i].text, strlen(bad[i].text), err,
		    sizeof(err));
		ok(r == -1 && strstr(err, bad[i].want), "bad input %zu "
		    "rejected: %s", i, err);
		if (!strstr(err, bad[i].want))
			printf("#   want \"%s\"\n", bad[i].want);
		stats_set_release(&s);
	}
}

/* ---- Mann-Whitney ----------------------------------------------------- */

static void
test_mann_whitney(void)
{
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	double c[] = { 1, 3, 5, 7, 9 }, d[] = { 2, 4, 6, 8, 10 };
	double big1[60], big2[60];
	int exact, i;
	double p;

	p = stats_mann_whitney(a, 3, b, 3, &exact);
	ok(exact && fabs(p - 2.0 / 20) < 1e-12, "3 vs 3 separated: p = 2/20 "
	    "exact (%g)", p);
	p = stats_mann_whitney(a, 5, b, 5, &exact);
	ok(exact && fabs(p - 2.0 / 252) < 1e-12, "5 vs 5 separated: p = "
	    "2/252 (%g)", p);
	p = stats_mann_whitney(b, 5, a, 5, &exact);
	ok(fabs(p - 2.0 / 252) < 1e-12, "symmetric in direction");
	/* U = 15 of 25 for c vs d: P(U >= 15) = P(U <= 10) = 87/252 */
	p = stats_mann_whitney(c, 5, d, 5, &exact);
	ok(fabs(p - 2 * 87.0 / 252) < 1e-12, "interleaved 5 vs 5: p = "
	    "2*87/252 (%g)", p);
	p = stats_mann_whitney(a, 5, a, 5, &exact);
	ok(exact && fabs(p - 1) < 1e-12, "same values both sides: p = 1");
	{
		double t1[] = { 7, 7, 7 }, t2[] = { 7, 7 };

		p = stats_mann_whitney(t1, 3, t2, 2, &exact);
		ok(exact && fabs(p - 1) < 1e-12, "all tied: p = 1 (%g)", p);
	}
	{
		/* ties across and within sides, against brute force over
		   every labelling of the 9 pooled values */
		double x[] = { 1, 2, 2, 4 }, y[] = { 2, 4, 5, 5, 6 };
		double pool[9], u0 = 0, le = 0, ge = 0, tot = 0, bp;
		unsigned mask;
		int q, r;

		memcpy(pool, x, sizeof(x));
		memcpy(pool + 4, y, sizeof(y));
		for (q = 0; q < 4; q++)
			for (r = 0; r < 5; r++)
				u0 += y[r] > x[q] ? 1 : y[r] == x[q] ? 0.5 : 0;
		for (mask = 0; mask < 512; mask++) {
			double u = 0;

			if (__builtin_popcount(mask) != 4)
				continue;
			for (q = 0; q < 9; q++)
				for (r = 0; r < 9; r++)
					if ((mask >> q & 1) && !(mask >> r & 1))
						u += pool[r] > pool[q] ? 1 :
						    pool[r] == pool[q] ? 0.5 : 0;
			tot++;
			le += u <= u0;
			ge += u >= u0;
		}
		bp = 2 * (le < ge ? le : ge) / tot;
		p = stats_mann_whitney(x, 4, y, 5, &exact);
		ok(exact && fabs(p - (bp > 1 ? 1 : bp)) < 1e-12,
		    "ties: exact p %g = brute force %g", p, bp);
	}
	for (i = 0; i < 60; i++) {
		big1[i] = i * 2;
		big2[i] = i * 2 + 7;
	}
	p = stats_mann_whitney(big1, 40, big2, 40, &exact);
	{
		/* normal approximation for the same U, no ties */
		double u = 0, mu = 800, sd = sqrt(1600.0 * 81 / 12), z;
		int j, k;

		for (j = 0; j < 40; j++)
			for (k = 0; k < 40; k++)
				u += big2[k] > big1[j];
		z = (fabs(u - mu) - 0.5) / sd;
		ok(exact && fabs(p - erfc(z / sqrt(2))) < 0.01,
		    "40 vs 40 exact close to the normal approximation (%g, %g)",
		    p, erfc(z / sqrt(2)));
	}
	p = stats_mann_whitney(big1, 60, big2, 2, &exact);
	ok(!exact && p > 0 && p <= 1, "over 50 boots: normal approximation");
}

/* ---- generated data ------------------------------------------------- */

struct sim {
	int	 boots, iters;
	double	 sb, sr;	/* boot-to-boot, run-to-run, fractions */
	double	 shift;		/* test / base - 1 */
	int	 better;
};

/* Adds boots [boot0, boot0 + nb) to s. */
static void
sim_side(gsl_rng *r, struct stats_set *s, const struct sim *m, int boot0,
    int nb, double factor)
{
	int b, i;

	for (b = boot0; b < boot0 + nb; b++) {
		double bf = 1 + m->sb * gsl_ran_gaussian(r, 1);

		for (i = 0; i < m->iters; i++) {
			struct stats_sample x = {
				.boot = b, .workload = "sim", .params = "",
				.metric = "m", .unit = "ops/s",
				.better = m->better, .iteration = i,
			};

			x.value = 1000 * factor * bf *
			    (1 + m->sr * gsl_ran_gaussian(r, 1));
			if (x.value < 0)
				x.value = 0;
			if (stats_set_add(s, &x, NULL, 0))
				abort();
		}
	}
}

struct tally {
	int	 n, improvement, regression, nochange, inconclusive;
	int	 boots_used;
	int	 covered;	/* 95% CI contains the true %change */
	double	 seconds;
};

/*
 * n comparisons; adaptive: take extra looks as the daemon would
 * (stats_need_more, STATS_DEFAULT_BOOT_STEP, up to STATS_DEFAULT_MAX_BOOTS).
 */
static void
simulate(const struct sim *m, int n, int adaptive, int resamples,
    unsigned long seed, struct tally *t)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct stats_opts o;
	struct timespec t0, t1;
	int k, comparisons = 0;

	gsl_rng_set(r, seed);
	stats_opts_init(&o);
	o.resamples = resamples;
	if (!adaptive)
		o.looks = stats_planned_looks(m->boots, STATS_DEFAULT_MAX_BOOTS,
		    STATS_DEFAULT_BOOT_STEP);
	memset(t, 0, sizeof(*t));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (k = 0; k < n; k++) {
		struct stats_set base, test;
		struct stats_result res;
		int boots = m->boots;

		stats_set_init(&base);
		stats_set_init(&test);
		sim_side(r, &base, m, 0, boots, 1);
		sim_side(r, &test, m, 0, boots, 1 + m->shift);
		o.seed = k + 1;
		for (;;) {
			stats_compare(&base, &test, &o, &res);
			comparisons++;
			if (!adaptive || !stats_need_more(&res, boots,
			    STATS_DEFAULT_MAX_BOOTS))
				break;
			stats_result_release(&res);
			sim_side(r, &base, m, boots, STATS_DEFAULT_BOOT_STEP, 1);
			sim_side(r, &test, m, boots, STATS_DEFAULT_BOOT_STEP,
			    1 + m->shift);
			boots += STATS_DEFAULT_BOOT_STEP;
		}
		if (res.rows[0].ci_lo <= 100 * m->shift &&
		    100 * m->shift <= res.rows[0].ci_hi)
			t->covered++;
		switch (res.rows[0].verdict) {
		case STATS_IMPROVEMENT:	t->improvement++; break;
		case STATS_REGRESSION:	t->regression++; break;
		case STATS_NO_CHANGE:	t->nochange++; break;
		default:		t->inconclusive++; break;
		}
		t->boots_used += boots;
		t->n++;
		stats_result_release(&res);
		stats_set_release(&base);
		stats_set_release(&test);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	t->seconds = ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9)
	    / comparisons;
	gsl_rng_free(r);
}

static int
env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && atoi(v) > 0 ? atoi(v) : dflt;
}

static void
test_requirements(void)
{
	int resamples = env_int("KPERFCI_STATS_RESAMPLES",
	    STATS_DEFAULT_RESAMPLES);
	struct sim aa = { STATS_DEFAULT_BOOTS, STATS_DEFAULT_ITERATIONS,
	    0.03, 0.03, 0, STATS_HIGHER };
	struct sim pw = { STATS_DEFAULT_BOOTS, STATS_DEFAULT_ITERATIONS,
	    0.02, 0.02, 0.05, STATS_HIGHER };
	struct tally t;

	printf("# %d bootstrap resamples per comparison\n", resamples);
	simulate(&aa, 1000, 0, resamples, 11, &t);
	ok(t.improvement + t.regression <= 10, "A/A, %d boots x %d runs, "
	    "3%%+3%% noise, first look: %d of 1000 called a change "
	    "(no change %d, inconclusive %d)", aa.boots, aa.iters,
	    t.improvement + t.regression, t.nochange, t.inconclusive);
	simulate(&aa, 1000, 1, resamples, 12, &t);
	ok(t.improvement + t.regression <= 10, "A/A with extra looks up to %d "
	    "boots: %d of 1000 called a change (no change %d, inconclusive "
	    "%d, %.1f boots per side on average)", STATS_DEFAULT_MAX_BOOTS,
	    t.improvement + t.regression, t.nochange, t.inconclusive,
	    (double)t.boots_used / t.n);
	/* DESIGN.md: A/A comes out "no change" at least 99% of the time, once
	   the extra looks have run. */
	ok(t.nochange >= 990, "A/A with extra looks: no change in %d of 1000",
	    t.nochange);
	simulate(&pw, 1000, 0, resamples, 13, &t);
	ok(t.improvement >= 950 && t.regression == 0, "+5%% with 2%%+2%% "
	    "noise, higher is better, %d boots: improvement in %d of 1000, "
	    "regression in %d", pw.boots, t.improvement, t.regression);
	/* Percentile intervals from few boots tend to be narrow; resampling
	   runs as well as boots widens them.  Near 95% is what matters. */
	ok(t.covered >= 920 && t.covered <= 990, "95%% CI contains the true "
	    "+5%% in %d of 1000", t.covered);
	pw.better = STATS_LOWER;
	simulate(&pw, 1000, 0, resamples, 14, &t);
	ok(t.regression >= 950 && t.improvement == 0, "+5%% with 2%%+2%% "
	    "noise, lower is better: regression in %d of 1000, improvement "
	    "in %d", t.regression, t.improvement);
}

/* ---- the comparison on small hand-made sides ---------------------------- */

static void
add(struct stats_set *s, const char *w, const char *metric, long boot,
    long it, double v, int better)
{
	struct stats_sample x = { boot, w, "tasks=4", metric, "s", better, it,
	    v };

	if (stats_set_add(s, &x, NULL, 0))
		abort();
}

static void
test_compare(void)
{
	struct stats_set base, test;
	struct stats_result res, res2;
	struct stats_opts o;
	char buf[128], *json, *json2, *table = NULL;
	size_t tlen = 0, i;
	FILE *f;
	json_t *j;
	int b;

	stats_set_init(&base);
	stats_set_init(&test);
	for (b = 0; b < 6; b++) {
		add(&base, "swap", "wall", b, 0, 10 + 0.1 * b, STATS_LOWER);
		add(&base, "swap", "wall", b, 1, 10.05 + 0.1 * b, STATS_LOWER);
		add(&test, "swap", "wall", b, 0, 12 + 0.1 * b, STATS_LOWER);
		add(&test, "swap", "wall", b, 1, 12.05 + 0.1 * b, STATS_LOWER);
		add(&base, "swap", "sys", b, 0, 5 + 0.01 * b, STATS_LOWER);
		add(&test, "swap", "sys", b, 0, 5.005 + 0.01 * b, STATS_LOWER);
		add(&base, "read", "wall", b, 0, 3 + 0.01 * b, STATS_LOWER);
		add(&test, "read", "wall", b, 0, 2.5 + 0.01 * b,
		    STATS_LOWER);
		add(&base, "only-base", "x", b, 0, 1, STATS_LOWER);
	}
	add(&base, "few", "x", 0, 0, 1, STATS_LOWER);
	add(&base, "few", "x", 1, 0, 1, STATS_LOWER);
	add(&test, "few", "x", 7, 0, 1, STATS_LOWER);
	add(&test, "only-test", "x", 0, 0, 1, STATS_LOWER);
	add(&base, "zero", "x", 0, 0, 0, STATS_LOWER);
	add(&base, "zero", "x", 1, 0, 0, STATS_LOWER);
	add(&test, "zero", "x", 0, 0, 1, STATS_LOWER);
	add(&test, "zero", "x", 1, 0, 1, STATS_LOWER);

	stats_opts_init(&o);
	stats_compare(&base, &test, &o, &res);
	is_int(res.n, 7, "one row per series of either side");
	is_str(res.rows[0].workload, "read", "the largest significant change "
	    "is first (workloads with significant rows first)");
	is_str(verdict_of(&res, "wall"), "improvement", "read wall -17%, "
	    "lower is better: improvement (first wall row)");
	for (i = 0; i < res.n; i++) {
		const struct stats_row *r = &res.rows[i];

		if (!strcmp(r->workload, "swap") && !strcmp(r->metric, "wall")) {
			is_str(stats_verdict_name(r->verdict), "regression",
			    "swap wall +20%%, lower is better: regression");
			ok(r->ci_lo > 15 && r->ci_hi < 25 && r->pct_change > 19
			    && r->pct_change < 21, "%%change %.2f in CI [%.2f, "
			    "%.2f]", r->pct_change, r->ci_lo, r->ci_hi);
			ok(fabs(r->p_value - 2.0 / 924) < 1e-12 && r->p_exact,
			    "exact p for 6 vs 6 separated (%g)", r->p_value);
			is_int(r->base.nboots, 6, "6 base boots");
			is_int(r->base.nsamples, 12, "12 base samples");
			ok(fabs(r->base.mean - 10.275) < 1e-9,
			    "mean of per-boot means (%g)", r->base.mean);
		}
		if (!strcmp(r->workload, "swap") && !strcmp(r->metric, "sys"))
			is_str(stats_verdict_name(r->verdict), "no change",
			    "swap sys +0.1%%: no change (%s)", r->reason);
		if (!strcmp(r->workload, "few"))
			ok(r->verdict == STATS_INCONCLUSIVE &&
			    strstr(r->reason, "at least 2 boots") &&
			    stats_row_need_more(r, 2, 16) &&
			    !stats_row_need_more(r, 16, 16),
			    "one test boot: inconclusive, more boots help "
			    "(%s)", r->reason);
		if (!strcmp(r->workload, "only-base"))
			ok(r->verdict == STATS_MISSING && !r->test.present &&
			    strstr(r->reason, "only in the base"),
			    "series only in base: missing (%s)", r->reason);
		if (!strcmp(r->workload, "only-test"))
			ok(r->verdict == STATS_MISSING && !r->base.present,
			    "series only in test: missing (%s)", r->reason);
		if (!strcmp(r->workload, "zero"))
			ok(r->verdict == STATS_INVALID, "base mean 0: invalid "
			    "(%s)", r->reason);
	}
	is_int(res.count[STATS_MISSING], 2, "counts: 2 missing");
	ok(stats_need_more(&res, 8, 16) && !stats_need_more(&res, 16, 16),
	    "need more while budget lasts");

	j = stats_result_to_json(&res);
	ok(j != NULL, "JSON built");
	json = json_dumps(j, JSON_SORT_KEYS);
	ok(json && strstr(json, "\"verdict\": \"regression\"") &&
	    strstr(json, "\"ci95\": [") && strstr(json, "\"boot_means\""),
	    "JSON has verdict, ci95, boot_means");
	{
		json_t *r0 = json_array_get(json_object_get(j, "rows"), 0);

		ok(json_is_real(json_object_get(r0, "pct_change")) &&
		    json_integer_value(json_object_get(json_object_get(r0,
		    "base"), "boots")) == 6, "row 0 pct_change and base boots");
	}
	json_decref(j);

	/* reproducible: same seed, same output */
	stats_compare(&base, &test, &o, &res2);
	j = stats_result_to_json(&res2);
	json2 = json_dumps(j, JSON_SORT_KEYS);
	is_str(json2, json, "same seed, same JSON");
	json_decref(j);
	free(json2);
	stats_result_release(&res2);
	o.seed = 99;
	stats_compare(&base, &test, &o, &res2);
	j = stats_result_to_json(&res2);
	json2 = json_dumps(j, JSON_SORT_KEYS);
	ok(strcmp(json, json2) != 0, "another seed, another bootstrap");
	json_decref(j);
	free(json2);
	free(json);
	stats_result_release(&res2);

	f = open_memstream(&table, &tlen);
	stats_result_print_table(f, &res);
	fclose(f);
	printf("%s", "# table:\n");
	{
		char *p = table, *nl;

		while ((nl = strchr(p, '\n'))) {
			printf("#   %.*s\n", (int)(nl - p), p);
			p = nl + 1;
		}
	}
	ok(strstr(table, "read:\n") && strstr(table, "swap:\n") &&
	    strstr(table, "*") && strstr(table, "regression") &&
	    strstr(table, "[95% CI]"), "table has workloads, marks, verdicts");
	ok(strstr(table, "read:") < strstr(table, "swap:") &&
	    strstr(table, "swap:") < strstr(table, "few:"),
	    "workloads with significant rows come first");
	free(table);

	is_str(stats_failed_verdict(buf, sizeof(buf), "patched", "panicked"),
	    "failed: every patched boot panicked", "failed verdict text");
	is_int(stats_planned_looks(8, 16, 4), 3, "8..16 by 4: 3 looks");
	is_int(stats_planned_looks(8, 8, 4), 1, "no budget: 1 look");
	is_int(stats_planned_looks(8, 15, 4), 3, "partial last step counts");

	stats_result_release(&res);
	stats_set_release(&base);
	stats_set_release(&test);
}

/* ---- bench ----------------------------------------------------------- */

static int
bench(void)
{
	static const double noise[][2] = { { 0.01, 0.01 }, { 0.02, 0.02 },
	    { 0.03, 0.03 }, { 0.05, 0.02 } };
	static const int boots[] = { 4, 6, 8, 12, 16 };
	static const double shifts[] = { 0, 0.02, 0.05, 0.10 };
	int reps = env_int("KPERFCI_STATS_BENCH_REPS", 400);
	size_t a, b, c;
	struct tally t;

	printf("defaults: %d boots/side (up to %d, step %d), %d iterations, "
	    "alpha %.3g over %d looks, %d resamples\n", STATS_DEFAULT_BOOTS,
	    STATS_DEFAULT_MAX_BOOTS, STATS_DEFAULT_BOOT_STEP,
	    STATS_DEFAULT_ITERATIONS, STATS_DEFAULT_ALPHA,
	    stats_planned_looks(STATS_DEFAULT_BOOTS, STATS_DEFAULT_MAX_BOOTS,
	    STATS_DEFAULT_BOOT_STEP), STATS_DEFAULT_RESAMPLES);
	printf("%d comparisons per cell; first look only, alpha_look as "
	    "planned for the daemon's budget\n", reps);
	printf("shift 0: %% called improvement/regression (A/A false "
	    "positives); else %% called improvement (power)\n\n");
	printf("%-13s %5s %8s %8s %8s %8s %10s\n", "noise b+r", "boots",
	    "A/A FP%", "+2%", "+5%", "+10%", "ms/compare");
	for (a = 0; a < sizeof(noise) / sizeof(noise[0]); a++)
		for (b = 0; b < sizeof(boots) / sizeof(boots[0]); b++) {
			double ms = 0;

			printf("%4.0f%%+%2.0f%%     %5d", 100 * noise[a][0],
			    100 * noise[a][1], boots[b]);
			for (c = 0; c < sizeof(shifts) / sizeof(shifts[0]); c++) {
				struct sim m = { boots[b],
				    STATS_DEFAULT_ITERATIONS, noise[a][0],
				    noise[a][1], shifts[c], STATS_HIGHER };

				simulate(&m, reps, 0, STATS_DEFAULT_RESAMPLES,
				    1000 + a * 100 + b * 10 + c, &t);
				printf(" %8.1f", 100.0 * (c == 0 ?
				    t.improvement + t.regression :
				    t.improvement) / t.n);
				ms += t.seconds * 1000;
				fflush(stdout);
			}
			printf(" %10.2f\n", ms / 4);
		}
	{
		struct sim aa = { STATS_DEFAULT_BOOTS, STATS_DEFAULT_ITERATIONS,
		    0.03, 0.03, 0, STATS_HIGHER };
		struct sim p5 = aa;

		p5.sb = p5.sr = 0.02;
		p5.shift = 0.05;
		printf("\nadaptive (extra looks up to %d boots/side):\n",
		    STATS_DEFAULT_MAX_BOOTS);
		simulate(&aa, reps, 1, STATS_DEFAULT_RESAMPLES, 7, &t);
		printf("A/A 3%%+3%%: %.1f%% called a change, %.1f%% no change, "
		    "%.1f boots/side on average\n", 100.0 * (t.improvement +
		    t.regression) / t.n, 100.0 * t.nochange / t.n,
		    (double)t.boots_used / t.n);
		simulate(&p5, reps, 1, STATS_DEFAULT_RESAMPLES, 8, &t);
		printf("+5%% 2%%+2%%: %.1f%% improvement, %.1f boots/side on "
		    "average\n", 100.0 * t.improvement / t.n,
		    (double)t.boots_used / t.n);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return bench();
	test_parse_ok();
	test_parse_bad();
	test_mann_whitney();
	test_compare();
	test_requirements();
	return tap_done();
}
