/*
 * changepoint-nightly: the nightly detector measured the way the daemon
 * runs it (tests/bench/changepoint.sh).
 *
 * A history of 60 nights grows one night at a time; after every night the
 * rule under test looks at the whole history so far and opens a
 * regression for each change point it has not opened yet, as
 * daemon/track.c does (track_analyse).  Counted: the histories in which a
 * flat metric opens any regression, and for a step at night s (uniform in
 * 10..50) the night on which a regression whose first bad night is s is
 * opened (delay d: by the analysis after night s + d), and the regressions
 * opened at other nights.
 *
 * Rules:
 *   today   changepoint_detect over the whole history, every regression
 *           point not yet opened for that row is opened (per row, per
 *           first bad night), per-boot value = the mean of its runs;
 *   nightly changepoint_confirm with the defaults (the analyses of the
 *           last `confirm` nights must agree, at most `horizon` nights
 *           old), per-boot value = the median of its runs, one regression
 *           per first bad night over all rows (what track.c opens).
 * The nightly rule's analyses of earlier nights are kept from the nights
 * before (changepoint_nightly recomputes them; t-changepoint checks the
 * two agree).
 *
 * Noise models:
 *   emu   the emulator: one row, per-boot noise 0.3 %, Gaussian;
 *   gauss the model issue 9's figures were measured on: one row,
 *         per-boot noise 1-3 % (uniform per history), Gaussian;
 *   real  a real machine: 3 rows measured in the same boots (a boot's
 *         effect shared, correlation 0.5-0.9), boot-to-boot noise 1-3 %
 *         (uniform per history), 3 runs per boot with 0.5 % run noise of
 *         which 2-5 % are 10-20 % slow.  The step moves rows 0 and 1.
 * Both: 3 boots per night ([track] boots), higher is better, the step is
 * a drop.
 *
 *	changepoint-nightly MODEL KIND REPS [SEED]
 *	    MODEL emu | gauss | real, KIND flat | step3 | step5
 * prints one line of figures per rule.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/changepoint.h"
#include "lib/xalloc.h"

#define NIGHTS	60
#define BOOTS	3
#define RUNS	3
#define ROWS	3
#define MAXD	4	/* delays counted: 0 .. MAXD - 1 */

struct model {
	int	 rows;
	double	 boot_lo, boot_hi;	/* boot sigma, uniform per history */
	double	 run_sigma;
	double	 slow_lo, slow_hi;	/* share of slow runs */
	double	 rho_lo, rho_hi;	/* boot effect shared by rows */
};

static const struct model emu = { 1, 0.003, 0.003, 0, 0, 0, 0, 0 };
static const struct model gauss = { 1, 0.01, 0.03, 0, 0, 0, 0, 0 };
static const struct model real = { ROWS, 0.01, 0.03, 0.005, 0.02, 0.05,
    0.5, 0.9 };

/* mean[r][k], median[r][k]: boot k of row r. */
struct hist {
	double	 mean[ROWS][NIGHTS * BOOTS], median[ROWS][NIGHTS * BOOTS];
	size_t	 start[NIGHTS + 1];
	int	 rows;
};

static double
med3(double a, double b, double c)
{
	if (a > b) {
		double t = a;

		a = b;
		b = t;
	}
	return c < a ? a : c > b ? b : c;
}

static void
gen(gsl_rng *g, const struct model *m, long step_night, double step,
    struct hist *h)
{
	double sb = m->boot_lo + (m->boot_hi - m->boot_lo) *
	    gsl_rng_uniform(g);
	double ps = m->slow_lo + (m->slow_hi - m->slow_lo) *
	    gsl_rng_uniform(g);
	double rho = m->rho_lo + (m->rho_hi - m->rho_lo) * gsl_rng_uniform(g);
	size_t i, b, k = 0;
	int r, j;

	h->rows = m->rows;
	for (i = 0; i < NIGHTS; i++) {
		h->start[i] = k;
		for (b = 0; b < BOOTS; b++, k++) {
			double z0 = gsl_ran_gaussian(g, 1);

			for (r = 0; r < m->rows; r++) {
				double lv = 1000, e, run[RUNS], sum = 0;

				if (step_night >= 0 && (long)i >= step_night &&
				    r < 2)
					lv *= 1 - step;
				e = sb * (m->rows > 1 ? rho * z0 +
				    sqrt(1 - rho * rho) * gsl_ran_gaussian(g,
				    1) : z0);
				for (j = 0; j < RUNS; j++) {
					run[j] = lv * (1 + e) * (1 +
					    m->run_sigma * gsl_ran_gaussian(g,
					    1));
					if (gsl_rng_uniform(g) < ps)
						run[j] *= 1 - (0.10 + 0.10 *
						    gsl_rng_uniform(g));
					sum += run[j];
				}
				h->mean[r][k] = sum / RUNS;
				h->median[r][k] = med3(run[0], run[1], run[2]);
			}
		}
	}
	h->start[NIGHTS] = k;
}

struct tally {
	int	 hist, rows, rows_alarmed, alarmed, opened, found[MAXD], found_later, other;
};

/* The nights a regression was opened for, by first bad night (-1 none). */
struct opened {
	int	 at[NIGHTS];
};

static void
opened_init(struct opened *o)
{
	int i;

	for (i = 0; i < NIGHTS; i++)
		o->at[i] = -1;
}

/* KPERFCI_CP_{ALPHA,CONFIRM,HORIZON,MIN_EFFECT}: the nightly rule's
   options other than the defaults, to explore them. */
static void
bench_knobs(struct changepoint_opts *o)
{
	const char *e;

	if ((e = getenv("KPERFCI_CP_ALPHA")))
		o->alpha = atof(e);
	if ((e = getenv("KPERFCI_CP_CONFIRM")))
		o->confirm = atoi(e);
	if ((e = getenv("KPERFCI_CP_HORIZON")))
		o->horizon = atoi(e);
	if ((e = getenv("KPERFCI_CP_MIN_EFFECT")))
		o->min_effect = atof(e);
}

/*
 * Runs one rule over one history up to night last (inclusive): today
 * (nightly 0) or the nightly rule.  Fills op (grouped over rows) and
 * returns the number of regressions opened (today: per row).
 */
static int
run_rule(const struct hist *h, int nightly, size_t last, struct opened *op,
    int *rows_alarmed)
{
	struct changepoint_opts o;
	struct changepoint *an[8] = { 0 }, *cf;
	size_t nan[8] = { 0 }, ncf, t, i, K;
	char err[128];
	int r, opened = 0;

	changepoint_opts_init(&o);
	if (!nightly) {
		o.confirm = 1;
		o.horizon = 0;
	} else {
		bench_knobs(&o);
	}
	K = o.confirm > 1 ? (size_t)o.confirm : 1;
	opened_init(op);
	*rows_alarmed = 0;
	for (r = 0; r < h->rows; r++) {
		struct opened mine;
		const double *v = nightly ? h->median[r] : h->mean[r];

		opened_init(&mine);
		for (t = 1; t <= last + 1; t++) {
			/* an[0] tonight's analysis, an[j] j nights ago */
			free(an[K - 1]);
			memmove(an + 1, an, (K - 1) * sizeof(*an));
			memmove(nan + 1, nan, (K - 1) * sizeof(*nan));
			an[0] = NULL;
			nan[0] = 0;
			if (changepoint_detect(v, h->start, t, &o, &an[0],
			    &nan[0], err, sizeof(err)) != 0)
				continue;
			changepoint_confirm(an, nan, t, &o, 1, &cf, &ncf);
			for (i = 0; i < ncf; i++) {
				size_t c = cf[i].night;

				if (mine.at[c] < 0) {
					mine.at[c] = (int)t - 1;
					if (!nightly)
						opened++;
				}
				if (op->at[c] < 0 || op->at[c] > (int)t - 1) {
					if (nightly && op->at[c] < 0)
						opened++;
					op->at[c] = (int)t - 1;
				}
			}
			free(cf);
		}
		for (i = 0; i < NIGHTS; i++)
			if (mine.at[i] >= 0)
				break;
		*rows_alarmed += i < NIGHTS;
		for (i = 0; i < K; i++) {
			free(an[i]);
			an[i] = NULL;
			nan[i] = 0;
		}
	}
	return opened;
}

static void
tally_add(struct tally *ty, const struct opened *op, int opened,
    int rows, int rows_alarmed, long step_night)
{
	int i;

	ty->hist++;
	ty->rows += rows;
	ty->rows_alarmed += rows_alarmed;
	ty->opened += opened;
	if (step_night < 0) {
		ty->alarmed += opened > 0;
		return;
	}
	for (i = 0; i < NIGHTS; i++) {
		if (op->at[i] < 0)
			continue;
		if (i != step_night) {
			ty->other++;
			continue;
		}
		if (op->at[i] - step_night < MAXD)
			ty->found[op->at[i] - step_night]++;
		else
			ty->found_later++;
	}
}

static void
tally_print(const char *model, const char *kind, const char *rule,
    const struct tally *ty)
{
	double n = ty->hist ? ty->hist : 1;
	int d, cum = 0;

	if (!strcmp(kind, "flat")) {
		printf("%-5s %-6s %-8s flat: a metric opens a regression in "
		    "%4d/%-5d %5.2f%% of histories; any of its %d rows "
		    "%5.2f%% (%.3f regressions each)\n", model, kind, rule,
		    ty->rows_alarmed, ty->rows, 100.0 * ty->rows_alarmed /
		    (ty->rows ? ty->rows : 1), ty->rows / (ty->hist ?
		    ty->hist : 1), 100 * ty->alarmed / n, ty->opened / n);
		return;
	}
	printf("%-5s %-6s %-8s found by night s+d:", model, kind, rule);
	for (d = 0; d < MAXD; d++) {
		cum += ty->found[d];
		printf(" d=%d %5.1f%%", d, 100 * cum / n);
	}
	printf(" ever %5.1f%%; other regressions %.3f per history\n",
	    100 * (cum + ty->found_later) / n, ty->other / n);
}

int
main(int argc, char **argv)
{
	const struct model *m;
	struct tally today = { 0 }, nightly = { 0 };
	struct hist *h = xcalloc(1, sizeof(*h));
	struct opened op;
	gsl_rng *g;
	double step;
	int reps, i, n, ra;

	if (argc < 4) {
		fprintf(stderr, "usage: changepoint-nightly emu|gauss|real "
		    "flat|step3|step5 REPS [SEED]\n");
		return 2;
	}
	m = !strcmp(argv[1], "real") ? &real : !strcmp(argv[1], "gauss") ?
	    &gauss : &emu;
	step = !strcmp(argv[2], "step3") ? 0.03 : !strcmp(argv[2], "step5") ?
	    0.05 : 0;
	reps = atoi(argv[3]);
	g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, argc > 4 ? strtoul(argv[4], NULL, 10) : 15);
	for (i = 0; i < reps; i++) {
		long s = step > 0 ? 10 + (long)gsl_rng_uniform_int(g, 41) : -1;
		/* a step history is followed until MAXD nights after it */
		size_t last = s < 0 ? NIGHTS - 1 : (size_t)s + MAXD - 1;

		gen(g, m, s, step, h);
		n = run_rule(h, 0, last, &op, &ra);
		tally_add(&today, &op, n, h->rows, ra, s);
		n = run_rule(h, 1, last, &op, &ra);
		tally_add(&nightly, &op, n, h->rows, ra, s);
	}
	tally_print(argv[1], argv[2], "today", &today);
	tally_print(argv[1], argv[2], "nightly", &nightly);
	gsl_rng_free(g);
	free(h);
	return 0;
}
