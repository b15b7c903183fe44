/*
 * t-claims: claims read from text (the rules one by one) and checked
 * against comparison rows; the boots a claim needs.  The seed threads'
 * full text is checked end to end by tests/e2e/t1002-series-claims.sh.
 *
 * `t-claims --bench` (make bench-stats) checks on generated data that the
 * boots claims_boots_needed() asks for deliver the promised power with
 * the daemon's own decision rule (stats_compare, one look).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/claims.h"
#include "core/stats.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

static struct claims cs;

static const struct claim *
one(const char *body)
{
	claims_release(&cs);
	claims_extract(&cs, body, "test");
	return cs.n == 1 ? &cs.v[0] : NULL;
}

static void
test_rules(void)
{
	const struct claim *c;

	c = one("before after\nanon, 20 threads 3.04M 3.35M\n");
	ok(c && c->kind == CLAIM_BEFORE_AFTER && !strcmp(c->rule, "table-row")
	    && fabs(c->change_pct - 10.197) < 0.01 && c->cond.threads == 20,
	    "table-row under a before/after header: change computed");
	ok(one("anon, 20 threads 3.04M 3.35M\n") == NULL && cs.n == 0,
	    "the same row without header or change: not a claim");
	c = one("The lock share went from 64% to 20% with 96 processes.\n");
	ok(c && !strcmp(c->rule, "from-to") && c->before == 64 &&
	    c->after == 20 && c->cond.processes == 96,
	    "from-to: from N%% to M%%");
	c = one("It is 12% faster for shmem.\n");
	ok(c && c->kind == CLAIM_CHANGE && c->dir == CLAIM_DIR_BETTER &&
	    c->change_pct == 12, "pct-change: faster is better");
	c = one("Sys time is reduced by 8% on swap.\n");
	ok(c && c->dir == CLAIM_DIR_DOWN && c->change_pct == -8 &&
	    c->metric == CLAIM_M_TIME_SYS, "pct-change: reduced by N%%");
	c = one("The flush took 150ns.\n");
	ok(c && c->kind == CLAIM_LEVEL && c->metric == CLAIM_M_LATENCY &&
	    !strcmp(c->unit, "ns"), "level: a latency");
	c = one("As seen in [1], this cost 2% throughput.\n");
	ok(c == NULL && cs.n == 0, "a sentence citing other work: nothing");
	c = one("> quoted: 50% faster\n");
	ok(c == NULL && cs.n == 0, "quoted lines are not the author's claims");
	c = one("Text.\n---\nv2: 40% faster than v1\n");
	ok(c == NULL && cs.n == 0, "below --- is the changelog: skipped");
	c = one("Before:\nreal 0m2.000s\nreal 0m4.000s\nAfter:\nreal 0m1.500s\n");
	ok(c && !strcmp(c->rule, "time-block") && c->before == 3 &&
	    c->after == 1.5 && c->change_pct == -50, "time-block: means");
	c = one("We saw 30% lock contention.\nWith this patch, the lock "
	    "contention is 10%.\n");
	ok(c && !strcmp(c->rule, "level-pair") && c->before == 30 &&
	    c->after == 10, "level-pair across sentences");
	c = one("Order 4 folio with 8 threads is +7% here.\n");
	ok(c && c->cond.folio_kb == 64 && c->cond.threads == 8 &&
	    c->change_pct == 7, "conditions: order 4 is 64 kB; signed change");
}

static void
test_check(void)
{
	struct claim c = { .kind = CLAIM_BEFORE_AFTER, .metric = CLAIM_M_RATE,
	    .has_change = 1, .change_pct = 30 };
	struct claim_row rows[] = {
		{ "fault-free", "mode=shmem,tasks=node,ntasks=2",
		    "pages_per_sec", "improvement", 1, 14, 10, 18, 1, 0.01, 1 },
		{ "fault-free", "mode=shmem,tasks=all,ntasks=4",
		    "pages_per_sec", "improvement", 1, 28, 25, 33, 1, 0.01, 1 },
		{ "swap-memhog", "groups=4,ntasks=4", "wall_sec", "no change",
		    -1, 0.2, -1.5, 1.8, 1, 0.01, 1 },
	};
	struct claim_check k;

	c.cond.threads = 80;
	c.cond.cpus = 80;
	c.cond.folio_kb = c.cond.processes = c.cond.memcgs = CLAIM_NONE;
	strcpy(c.cond.workload, "fault-free");
	strcpy(c.cond.mode, "shmem");
	claims_check(&c, rows, 3, &k);
	ok(k.row == 1 && k.verdict == CLAIM_CONSISTENT,
	    "80 of 80 threads maps to tasks=all; +30%% in [25, 33]: consistent");
	c.cond.threads = 20;
	claims_check(&c, rows, 3, &k);
	ok(k.row == 0 && k.verdict == CLAIM_SMALLER,
	    "20 of 80 maps to the smaller count; [10, 18] < 30: smaller");
	c.change_pct = -30;
	claims_check(&c, rows, 3, &k);
	ok(k.verdict == CLAIM_OPPOSITE, "a claimed drop, measured rise: opposite");
	c.change_pct = 12;
	claims_check(&c, rows, 3, &k);
	ok(k.verdict == CLAIM_CONSISTENT, "12 in [10, 18]: consistent");

	memset(&c.cond, 0, sizeof(c.cond));
	c.cond.threads = c.cond.cpus = c.cond.folio_kb = CLAIM_NONE;
	c.cond.processes = c.cond.memcgs = CLAIM_NONE;
	strcpy(c.cond.workload, "swap-memhog");
	c.kind = CLAIM_CHANGE;
	c.metric = CLAIM_M_NONE;
	c.dir = CLAIM_DIR_BETTER;
	c.change_pct = 25;
	claims_check(&c, rows, 3, &k);
	ok(k.row == 2 && k.has_expected && k.expected_pct == -25 &&
	    k.verdict == CLAIM_NOT_REPRODUCED,
	    "25%% better on a lower-is-better time: -25%%; CI holds 0: not reproduced");
	rows[2].exercised = 0;
	claims_check(&c, rows, 3, &k);
	ok(k.verdict == CLAIM_NOT_MEASURED && strstr(k.why, "did not run"),
	    "a row whose changed code never ran: not measured here, with why");
	strcpy(c.cond.workload, "memcg-flush");
	claims_check(&c, rows, 3, &k);
	ok(k.row == -1 && k.verdict == CLAIM_NOT_MEASURED,
	    "no row of the workload: not measured here");
	c.kind = CLAIM_LEVEL;
	claims_check(&c, rows, 3, &k);
	ok(k.verdict == CLAIM_CONTEXT, "a level is context, not checked");
	c.kind = CLAIM_UNKNOWN;
	claims_check(&c, rows, 3, &k);
	ok(k.verdict == CLAIM_NOT_UNDERSTOOD, "unknown stays not understood");
}

static void
test_boots(void)
{
	int n5 = claims_boots_needed(1.5, 5, 0.05, 0.95);
	int n3 = claims_boots_needed(1.5, 3, 0.05, 0.95);
	int n20 = claims_boots_needed(1.5, 20, 0.05, 0.95);

	/* normal approximation: 2 (1.96 + 1.645)^2 (1.5/5)^2 = 2.34; the
	   t quantiles at so few degrees of freedom make it 4, and the one
	   boot of margin 5 */
	ok(n5 >= 4 && n5 <= 6, "5%% at 1.5%% noise: %d boots per side", n5);
	ok(n3 > n5, "a smaller effect needs more boots (%d > %d)", n3, n5);
	/* the smallest n the t test can work with (2), plus the margin;
	   a monotone search, not an iteration that oscillates between
	   df 2 and df 6 */
	ok(n20 == 3, "a 20%% effect: the minimum, 2, and the margin (%d)",
	    n20);
	ok(claims_boots_needed(1.095, 10, 0.008, 0.95) >= 3,
	    "a 10%% effect at 1.1%% noise and alpha 0.008: %d (2 would have "
	    "48.8%% power: bench-stats)",
	    claims_boots_needed(1.095, 10, 0.008, 0.95));
	ok(claims_boots_needed(0, 5, 0.05, 0.95) == -1 &&
	    claims_boots_needed(1, 0, 0.05, 0.95) == -1,
	    "no noise or no effect: -1");
	ok(claims_boots_needed(1.5, 5, 0.01, 0.95) > n5,
	    "a stricter level needs more boots");
}

/* ---- bench ------------------------------------------------------------ */

#define BENCH_ITERS	5

static void
bench_side(gsl_rng *r, struct stats_set *s, int nb, double sb, double sr,
    double factor)
{
	for (int b = 0; b < nb; b++) {
		double bf = 1 + sb * gsl_ran_gaussian(r, 1);

		for (int i = 0; i < BENCH_ITERS; i++) {
			struct stats_sample x = {
				.boot = b, .workload = "sim", .params = "",
				.metric = "m", .unit = "ops/s",
				.better = STATS_HIGHER, .iteration = i,
			};

			x.value = 1000 * factor * bf *
			    (1 + sr * gsl_ran_gaussian(r, 1));
			if (stats_set_add(s, &x, NULL, 0))
				abort();
		}
	}
}

static int
bench(int reps)
{
	/* boot noise, run noise, effect (all %) */
	static const double cells[][3] = { { 1.5, 1, 5 }, { 1.5, 1, 3 },
	    { 3, 2, 5 }, { 1, 1, 10 }, { 3, 3, 20 } };
	struct stats_opts o;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	stats_opts_init(&o);
	o.looks = 1;
	printf("boots per side a claim needs (claims_boots_needed, 95%% power "
	    "at alpha %.3g, one look) and the power the daemon's rule then "
	    "has: %d comparisons per cell, %d runs per boot\n", o.alpha, reps,
	    BENCH_ITERS);
	printf("%-9s %-8s %-7s %6s %8s\n", "boot sd", "run sd", "effect",
	    "boots", "power%");
	for (size_t c = 0; c < sizeof(cells) / sizeof(cells[0]); c++) {
		double sb = cells[c][0] / 100, sr = cells[c][1] / 100;
		double cv = 100 * sqrt(sb * sb + sr * sr / BENCH_ITERS);
		int n = claims_boots_needed(cv, cells[c][2], o.alpha, 0.95);
		int hit = 0;

		gsl_rng_set(r, 42 + c);
		for (int k = 0; k < reps; k++) {
			struct stats_set a, b;
			struct stats_result res;

			stats_set_init(&a);
			stats_set_init(&b);
			bench_side(r, &a, n, sb, sr, 1);
			bench_side(r, &b, n, sb, sr, 1 + cells[c][2] / 100);
			stats_compare(&a, &b, &o, &res);
			if (res.n == 1 && res.rows[0].verdict ==
			    STATS_IMPROVEMENT)
				hit++;
			stats_result_release(&res);
			stats_set_release(&a);
			stats_set_release(&b);
		}
		printf("%6.1f%%   %5.1f%%   %5.1f%% %6d %8.1f\n", cells[c][0],
		    cells[c][1], cells[c][2], n, 100.0 * hit / reps);
		fflush(stdout);
	}
	gsl_rng_free(r);
	return 0;
}

/*
 * A table row after a paragraph that grew the line buffer: the previous
 * sentence's prefix pointed into the buffer it moved (a use after free
 * under ASan, found by fuzz-claims; its input is kept in the corpus).
 */
static void
test_prefix_lifetime(void)
{
	struct buf t = BUF_INIT(0);
	const struct claim *c = NULL;
	size_t i;

	buf_addstr(&t, "At 64 memcgs it is faster by 5% here.\n\n");
	for (i = 0; i < 600; i++)
		buf_addstr(&t, "word ");
	buf_addstr(&t, "\nanon, 20 threads 3.04M 3.35M +10.2%\n");
	claims_release(&cs);
	claims_extract(&cs, t.data, "test");
	for (i = 0; i < cs.n; i++)
		if (!strcmp(cs.v[i].rule, "table-row"))
			c = &cs.v[i];
	ok(c && c->cond.threads == 20 && c->cond.memcgs == CLAIM_NONE,
	    "a table row after a long paragraph: its own conditions, none "
	    "from a sentence whose text has moved");
	buf_release(&t);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return bench(argc > 2 ? atoi(argv[2]) : 400);
	test_rules();
	test_prefix_lifetime();
	test_check();
	test_boots();
	claims_release(&cs);
	return tap_done();
}
