/*
 * t-changepoint: change-point detection on generated histories (issue 9).
 *
 * Generated data: night i's boot value = 1000 * (1 + step_i) *
 * (1 + sigma * z), z standard normal (GSL, fixed seeds), sigma per
 * history uniform in [1%, 3%]; step_i = -3% from the step night on
 * (a regression of a higher-is-better metric), 0 for flat histories.
 *
 * Requirements checked with the defaults (changepoint_opts_init) and the
 * nightly default of 3 boots per night, 60 nights, step night uniform in
 * 10..50:
 *   - a 3% step is reported as a regression within 2 nights of where it
 *     happened in >= 95% of histories;
 *   - a flat history reports any change point in <= 1% of histories.
 *
 * `t-changepoint --bench [REPS]` prints the same rates for 1, 2 and 3
 * boots per night, recent steps (5 nights before the end) and the time per
 * history (tests/bench/changepoint.sh).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/changepoint.h"
#include "tests/unit/tap.h"

#define NIGHTS 60

struct hist {
	double	 v[NIGHTS * 8];
	size_t	 start[NIGHTS + 1];
	size_t	 n;
};

/* step_night < 0: flat. */
static void
gen(gsl_rng *r, struct hist *h, size_t nights, size_t boots, double sigma,
    long step_night, double step)
{
	size_t i, b, k = 0;

	h->n = nights;
	for (i = 0; i < nights; i++) {
		double level = 1000 * (step_night >= 0 &&
		    (long)i >= step_night ? 1 + step : 1);

		h->start[i] = k;
		for (b = 0; b < boots; b++)
			h->v[k++] = level * (1 + sigma *
			    gsl_ran_gaussian(r, 1));
	}
	h->start[nights] = k;
}

/* 1 if a regression is reported within 2 nights of night. */
static int
found_near(const struct changepoint *cp, size_t n, long night)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (labs((long)cp[i].night - night) <= 2 &&
		    changepoint_is_regression(&cp[i], 1,
		    CHANGEPOINT_DEFAULT_MIN_EFFECT))
			return 1;
	return 0;
}

struct rates {
	int	 found, steps, alarms, flats;
	double	 seconds;
};

static void
rates(unsigned long seed, int reps, size_t boots, long lo, long hi,
    struct rates *out)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct changepoint_opts o;
	struct changepoint *cp;
	struct hist h;
	struct timespec t0, t1;
	size_t n;
	char err[128];
	int i;

	memset(out, 0, sizeof(*out));
	gsl_rng_set(r, seed);
	changepoint_opts_init(&o);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < reps; i++) {
		double sigma = 0.01 + 0.02 * gsl_rng_uniform(r);
		long night = lo + (long)gsl_rng_uniform_int(r, hi - lo + 1);

		o.seed = seed + i;
		gen(r, &h, NIGHTS, boots, sigma, night, -0.03);
		if (changepoint_detect(h.v, h.start, h.n, &o, &cp, &n, err,
		    sizeof(err)) == 0) {
			out->found += found_near(cp, n, night);
			free(cp);
		}
		out->steps++;
		gen(r, &h, NIGHTS, boots, sigma, -1, 0);
		if (changepoint_detect(h.v, h.start, h.n, &o, &cp, &n, err,
		    sizeof(err)) == 0) {
			out->alarms += n > 0;
			free(cp);
		}
		out->flats++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) /
	    1e9;
	gsl_rng_free(r);
}

static void
test_single_step(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct changepoint *cp;
	struct hist h;
	size_t n;
	char err[128];

	gsl_rng_set(r, 7);
	gen(r, &h, 20, 3, 0.01, 12, -0.10);
	is_int(changepoint_detect(h.v, h.start, h.n, NULL, &cp, &n, err,
	    sizeof(err)), 0, "a 10%% step history is analysed");
	is_int(n, 1, "one change point");
	if (n >= 1) {
		is_int(cp[0].night, 12, "at the step night");
		ok(cp[0].pct_change < -8 && cp[0].pct_change > -12,
		    "size about -10%% (%.2f)", cp[0].pct_change);
		ok(cp[0].ci_lo < cp[0].pct_change &&
		    cp[0].ci_hi > cp[0].pct_change && cp[0].ci_hi < 0,
		    "CI around it, excluding 0 [%.2f, %.2f]", cp[0].ci_lo,
		    cp[0].ci_hi);
		ok(cp[0].p_value <= CHANGEPOINT_DEFAULT_ALPHA,
		    "p %.4f <= alpha", cp[0].p_value);
		is_int(cp[0].nboots_before, 36, "boots before");
		is_int(cp[0].nboots_after, 24, "boots after");
		ok(changepoint_is_regression(&cp[0], 1, 1.5),
		    "a drop is a regression of a higher-is-better metric");
		ok(!changepoint_is_regression(&cp[0], -1, 1.5),
		    "and an improvement of a lower-is-better one");
	}
	free(cp);
	gsl_rng_free(r);
}

static void
test_two_steps_and_recent(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct changepoint *cp;
	struct hist h;
	size_t n, i, k = 0;
	char err[128];

	/* +8% at night 10, then -15% of the original at night 25 */
	gsl_rng_set(r, 11);
	h.n = 35;
	for (i = 0; i < h.n; i++) {
		double level = i < 10 ? 1000 : i < 25 ? 1080 : 850;
		int b;

		h.start[i] = k;
		for (b = 0; b < 3; b++)
			h.v[k++] = level * (1 + 0.01 *
			    gsl_ran_gaussian(r, 1));
	}
	h.start[h.n] = k;
	changepoint_detect(h.v, h.start, h.n, NULL, &cp, &n, err,
	    sizeof(err));
	is_int(n, 2, "two steps, two change points");
	if (n == 2) {
		is_int(cp[0].night, 10, "first at 10");
		is_int(cp[1].night, 25, "second at 25");
		ok(cp[0].pct_change > 0 && cp[1].pct_change < 0,
		    "up then down");
	}
	free(cp);

	/* the nightly case: the regression is in last night's run only */
	gen(r, &h, 8, 3, 0.01, 7, -0.25);
	changepoint_detect(h.v, h.start, h.n, NULL, &cp, &n, err,
	    sizeof(err));
	ok(n == 1 && cp[0].night == 7,
	    "a 25%% drop in the last night of 8 is found at once");
	free(cp);
	gsl_rng_free(r);
}

static void
test_short_and_bad(void)
{
	double v[6] = { 1, 1, 1, 1, 1, NAN };
	size_t st[4] = { 0, 2, 4, 6 }, bad[4] = { 0, 4, 2, 6 };
	struct changepoint *cp;
	size_t n;
	char err[128] = "";

	is_int(changepoint_detect(v, st, 2, NULL, &cp, &n, err, sizeof(err)),
	    0, "a constant history is analysed");
	is_int(n, 0, "and has no change point");
	free(cp);
	is_int(changepoint_detect(v, st, 0, NULL, &cp, &n, err, sizeof(err)),
	    0, "an empty history has none");
	free(cp);
	is_int(changepoint_detect(v, st, 3, NULL, &cp, &n, err, sizeof(err)),
	    -1, "a NaN boot is refused");
	ok(strstr(err, "boot 5") != NULL, "naming the boot (%s)", err);
	is_int(changepoint_detect(v, bad, 3, NULL, &cp, &n, err, sizeof(err)),
	    -1, "nights out of order are refused");
	ok(strstr(err, "night 1") != NULL, "naming the night (%s)", err);

	/* empty nights (runs with no new commits) do not start a level */
	{
		double w[12] = { 100, 101, 99, 100, 101, 99,
				 70, 71, 69, 70, 71, 69 };
		size_t s2[6] = { 0, 3, 6, 6, 9, 12 };

		changepoint_detect(w, s2, 5, NULL, &cp, &n, err, sizeof(err));
		ok(n == 1 && cp[0].night == 3,
		    "the level starts at the first night with boots");
		free(cp);
	}
}

static void
test_deterministic(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct changepoint *a, *b;
	struct hist h;
	size_t na, nb;
	char err[128];

	gsl_rng_set(r, 3);
	gen(r, &h, NIGHTS, 2, 0.03, 30, -0.03);
	changepoint_detect(h.v, h.start, h.n, NULL, &a, &na, err, sizeof(err));
	changepoint_detect(h.v, h.start, h.n, NULL, &b, &nb, err, sizeof(err));
	ok(na == nb && (na == 0 || !memcmp(a, b, na * sizeof(*a))),
	    "the same history and seed give the same answer");
	free(a);
	free(b);
	gsl_rng_free(r);
}

static void
test_rates(void)
{
	struct rates rt;
	int reps = getenv("KPERFCI_CHANGEPOINT_REPS") ?
	    atoi(getenv("KPERFCI_CHANGEPOINT_REPS")) : 400;

	rates(20261130, reps, 3, 10, 50, &rt);
	ok(rt.found >= 0.95 * rt.steps,
	    "3%% step found within 2 nights: %d/%d (>= 95%%)", rt.found,
	    rt.steps);
	ok(rt.alarms <= 0.01 * rt.flats,
	    "flat histories alarming: %d/%d (<= 1%%)", rt.alarms, rt.flats);
}

static int
bench(int reps)
{
	size_t boots;
	struct rates rt;

	printf("60 nights, per-boot noise 1-3%% (uniform per history), "
	    "3%% step, %d step + %d flat histories per line\n", reps, reps);
	printf("%-16s %-14s %18s %18s %12s\n", "boots/night", "step night",
	    "found (+-2 nights)", "flat alarms", "ms/history");
	for (boots = 1; boots <= 3; boots++) {
		rates(1000 + boots, reps, boots, 10, 50, &rt);
		printf("%-16zu %-14s %11d/%-4d %5.1f%% %11d/%-4d %4.2f%% "
		    "%8.2f\n", boots, "10..50", rt.found, rt.steps,
		    100.0 * rt.found / rt.steps, rt.alarms, rt.flats,
		    100.0 * rt.alarms / rt.flats,
		    1000 * rt.seconds / (rt.steps + rt.flats));
	}
	rates(2000, reps, 3, 55, 55, &rt);
	printf("%-16d %-14s %11d/%-4d %5.1f%% %11d/%-4d %4.2f%% %8.2f\n", 3,
	    "55 (recent)", rt.found, rt.steps, 100.0 * rt.found / rt.steps,
	    rt.alarms, rt.flats, 100.0 * rt.alarms / rt.flats,
	    1000 * rt.seconds / (rt.steps + rt.flats));
	return 0;
}

/* The nightly rule: seen on two nights in a row, at most horizon old. */
static void
test_nightly(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct changepoint *cp, *an[2];
	struct changepoint_opts o;
	struct hist h;
	size_t n, nan[2];
	char err[128];

	gsl_rng_set(r, 17);
	changepoint_opts_init(&o);
	gen(r, &h, 30, 3, 0.01, 29, -0.10);
	changepoint_detect(h.v, h.start, h.n, &o, &cp, &n, err, sizeof(err));
	ok(n == 1 && cp[0].night == 29, "one analysis sees last night's drop");
	free(cp);
	changepoint_nightly(h.v, h.start, h.n, &o, 1, &cp, &n, err,
	    sizeof(err));
	is_int(n, 0, "the nightly rule waits for a second night");
	free(cp);
	gen(r, &h, 30, 3, 0.01, 28, -0.10);
	changepoint_nightly(h.v, h.start, h.n, &o, 1, &cp, &n, err,
	    sizeof(err));
	ok(n == 1 && cp[0].night == 28, "and confirms it on the second");
	free(cp);
	changepoint_nightly(h.v, h.start, h.n, &o, -1, &cp, &n, err,
	    sizeof(err));
	is_int(n, 0, "a drop is no regression of a lower-is-better metric");
	free(cp);
	/* what the daemon computes is what the benchmark computes */
	changepoint_detect(h.v, h.start, h.n, &o, &an[0], &nan[0], err,
	    sizeof(err));
	changepoint_detect(h.v, h.start, h.n - 1, &o, &an[1], &nan[1], err,
	    sizeof(err));
	changepoint_confirm(an, nan, h.n, &o, 1, &cp, &n);
	ok(n == 1 && cp[0].night == 28, "changepoint_confirm on the two "
	    "analyses agrees");
	free(cp);
	free(an[0]);
	free(an[1]);
	gen(r, &h, 30, 3, 0.01, 25, -0.10);
	changepoint_nightly(h.v, h.start, h.n, &o, 1, &cp, &n, err,
	    sizeof(err));
	is_int(n, 0, "a point older than the horizon is not opened again");
	free(cp);
	gsl_rng_free(r);
}

/*
 * The online rule (changepoint_online), what track.c runs: a drop seen on
 * tonight's three boots is suspect (boot more), opens once the night has
 * min_after boots, dated to its night; a flat history, the right metric
 * direction, a regression's own bad night as `since`, a lone slow boot.
 */
static void
test_online(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct changepoint_alarm a;
	struct changepoint_opts o;
	struct hist h;
	char err[128];
	size_t i, k, opened = 0;

	gsl_rng_set(r, 23);
	changepoint_opts_init(&o);
	gen(r, &h, 20, 3, 0.01, 19, -0.05);
	ok(changepoint_online(h.v, h.start, h.n, 0, &o, 1, &a, err,
	    sizeof(err)) == 0, "judged");
	is_int(a.state, CHANGEPOINT_SUSPECT, "a -5 %% night of 3 boots: "
	    "suspect, boot more (z %.1f)", a.z);
	is_int(a.c.night, 19, "dated to its night");
	/* three more boots of the same kernel: the night has 6 */
	for (k = 0; k < 3; k++)
		h.v[h.start[20] + k] = 950 * (1 + 0.01 * gsl_ran_gaussian(r, 1));
	h.start[20] += 3;
	changepoint_online(h.v, h.start, h.n, 0, &o, 1, &a, err, sizeof(err));
	is_int(a.state, CHANGEPOINT_OPEN, "6 boots: it opens");
	ok(a.c.night == 19 && a.night_lo <= 19 && a.night_hi >= 19 &&
	    a.c.pct_change < -3 && a.c.ci_hi < 0, "night 19, %.1f %% "
	    "[%.1f, %.1f], range %zu..%zu", a.c.pct_change, a.c.ci_lo,
	    a.c.ci_hi, a.night_lo, a.night_hi);
	changepoint_online(h.v, h.start, h.n, 0, &o, -1, &a, err,
	    sizeof(err));
	is_int(a.state, CHANGEPOINT_NONE, "no regression of a lower-is-better "
	    "metric");
	changepoint_online(h.v, h.start, h.n, 19, &o, 1, &a, err,
	    sizeof(err));
	is_int(a.state, CHANGEPOINT_NONE, "nor once a regression starts at "
	    "that night (since)");
	/* a lone boot two slow runs in three made: -15 % */
	gen(r, &h, 20, 6, 0.01, -1, 0);
	h.v[h.start[19] + 2] *= 0.85;
	changepoint_online(h.v, h.start, h.n, 0, &o, 1, &a, err, sizeof(err));
	ok(a.state != CHANGEPOINT_OPEN, "one slow boot of six opens nothing");
	/* flat histories re-judged after every night: no alarm */
	for (i = 0; i < 50; i++) {
		size_t t;

		gen(r, &h, 40, 3, 0.02, -1, 0);
		for (t = 3; t <= 40; t++) {
			if (changepoint_online(h.v, h.start, t, 0, &o, 1, &a,
			    err, sizeof(err)) == 0 &&
			    a.state == CHANGEPOINT_OPEN) {
				opened++;
				break;
			}
		}
	}
	ok(opened <= 1, "flat 2 %% noise, 40 nights re-judged: %zu of 50 "
	    "histories open one", opened);
	gsl_rng_free(r);
}

/*
 * A young track (t7500's): two baseline nights 1.4 % apart in 0.3 %
 * boot noise (the F test sees a night spread, of one degree of freedom),
 * then a -24 % night.  With that df a t can never reach the early p: the
 * regression stayed suspect forever.  The short baseline's spread is
 * taken as at least early_cv % instead; a -5 % night still waits; and
 * young flat histories whose nights spread more than their boots (where
 * two agreeing nights let an ordinary third one open: 3 of 200 without
 * the floor) stay quiet.
 */
static void
test_online_young(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	static const double night[4] = { 1.0, 1.014, 0.76, 0.76 };
	struct changepoint_alarm a;
	struct changepoint_opts o;
	struct hist h;
	char err[128];
	size_t i, b, k = 0, t, opened = 0;

	gsl_rng_set(r, 29);
	changepoint_opts_init(&o);
	for (i = 0; i < 4; i++) {
		h.start[i] = k;
		for (b = 0; b < 3; b++)
			h.v[k++] = 14076 * night[i] *
			    (1 + 0.003 * gsl_ran_gaussian(r, 1));
	}
	h.start[4] = k;
	h.n = 4;
	changepoint_online(h.v, h.start, h.n, 0, &o, 1, &a, err, sizeof(err));
	is_int(a.state, CHANGEPOINT_OPEN, "2 baseline nights 1.4 %% apart, "
	    "then -24 %% for 2 nights: it opens (p %.2g)", a.c.p_value);
	is_int(a.c.night, 2, "dated to the first bad night");
	ok(a.c.ci_lo < -15 && a.c.ci_hi < -10, "its interval [%.1f, %.1f] %% "
	    "holds the 3 %% floor of the night spread", a.c.ci_lo, a.c.ci_hi);
	o.early_cv = 0;
	changepoint_online(h.v, h.start, h.n, 0, &o, 1, &a, err, sizeof(err));
	ok(a.state != CHANGEPOINT_OPEN, "without the floor: never (p %.2g, "
	    "one degree of freedom)", a.c.p_value);
	changepoint_opts_init(&o);
	for (i = h.start[2]; i < h.start[4]; i++)
		h.v[i] *= 0.95 / 0.76;
	changepoint_online(h.v, h.start, h.n, 0, &o, 1, &a, err, sizeof(err));
	ok(a.state != CHANGEPOINT_OPEN, "-5 %% after such a baseline: not "
	    "yet (%s)", a.state == CHANGEPOINT_SUSPECT ? "suspect" : "none");
	/* young flat histories with a night spread (2 % a night, the
	   emulator's 0.3 % a boot), re-judged after nights 3..5: every candidate's baseline
	   is under min_nights; without the floor two nights that agree
	   let an ordinary third open */
	for (i = 0; i < 200; i++) {
		k = 0;
		for (t = 0; t < 8; t++) {
			double lv = 1000 * (1 + 0.02 * gsl_ran_gaussian(r, 1));

			h.start[t] = k;
			for (b = 0; b < 3; b++)
				h.v[k++] = lv * (1 + 0.003 *
				    gsl_ran_gaussian(r, 1));
		}
		h.start[8] = k;
		for (t = 3; t <= 5; t++) {
			if (changepoint_online(h.v, h.start, t, 0, &o, 1, &a,
			    err, sizeof(err)) == 0 &&
			    a.state == CHANGEPOINT_OPEN) {
				opened++;
				break;
			}
		}
	}
	ok(opened <= 1, "flat, 2 %% night and 0.3 %% boot spread, nights 3..5 "
	    "re-judged: %zu of 200 young histories open one", opened);
	gsl_rng_free(r);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return bench(argc > 2 ? atoi(argv[2]) : 1000);
	test_single_step();
	test_two_steps_and_recent();
	test_short_and_bad();
	test_deterministic();
	test_nightly();
	test_online();
	test_online_young();
	test_rates();
	return tap_done();
}
