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
 *           first bad night), per-boot value = the mean of its runs (the
 *           rule of issue 9);
 *   confirm changepoint_confirm with the defaults (the analyses of the
 *           last `confirm` nights must agree, at most `horizon` nights
 *           old), per-boot value = the median of its runs, one regression
 *           per first bad night over all rows (the previous daemon rule);
 *   online  changepoint_online, what track.c runs now: a suspect night
 *           boots more, a regression covers a range of likely first bad
 *           nights (found: the step's night is in it; the mean range is
 *           printed), per-boot value = the median of its runs; a row
 *           whose range overlaps an opened regression's joins it, as
 *           track_open_group does, instead of opening another.
 * The confirm rule's analyses of earlier nights are kept from the nights
 * before (changepoint_nightly recomputes them; t-changepoint checks the
 * two agree).  KPERFCI_CP_RULE=online runs the online rule alone.
 *
 * Noise models:
 *   emu   the emulator: one row, per-boot noise 0.3 %, Gaussian;
 *   gauss the model issue 9's figures were measured on: one row,
 *         per-boot noise 1-3 % (uniform per history), Gaussian;
 *   real  a real machine: 3 rows measured in the same boots (a boot's
 *         effect shared, correlation 0.5-0.9), boot-to-boot noise 1-3 %
 *         (uniform per history), 3 runs per boot with 0.5 % run noise of
 *         which 2-5 % are 10-20 % slow.  The step moves rows 0 and 1;
 *   night real, and each night's level moved for all its boots and rows
 *         (a machine state shared by the night: 0.5-2 %, uniform per
 *         history), which more boots of one night cannot outvote.
 * All: 3 boots per night ([track] boots; online: up to max_boots 9 on a
 * suspect night), higher is better, the step is a drop.
 *
 *	changepoint-nightly MODEL KIND REPS [SEED]
 *	    MODEL emu | gauss | real | night, KIND flat | step3 | step5
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
	double	 night_lo, night_hi;	/* night sigma, uniform per history */
};

static const struct model emu = { 1, 0.003, 0.003, 0, 0, 0, 0, 0, 0, 0 };
static const struct model gauss = { 1, 0.01, 0.03, 0, 0, 0, 0, 0, 0, 0 };
static const struct model real = { ROWS, 0.01, 0.03, 0.005, 0.02, 0.05,
    0.5, 0.9, 0, 0 };
static const struct model night = { ROWS, 0.01, 0.03, 0.005, 0.02, 0.05,
    0.5, 0.9, 0.005, 0.02 };

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

/* A history's draw of the model's ranges. */
struct draw {
	double	 sb, ps, rho, sn;
};

static void
draw_init(gsl_rng *g, const struct model *m, struct draw *d)
{
	d->sb = m->boot_lo + (m->boot_hi - m->boot_lo) * gsl_rng_uniform(g);
	d->ps = m->slow_lo + (m->slow_hi - m->slow_lo) * gsl_rng_uniform(g);
	d->rho = m->rho_lo + (m->rho_hi - m->rho_lo) * gsl_rng_uniform(g);
	d->sn = m->night_lo + (m->night_hi - m->night_lo) * gsl_rng_uniform(g);
}

/* A night's level, shared by its boots and rows (the machine's state). */
static double
gen_night(gsl_rng *g, const struct draw *d)
{
	return d->sn > 0 ? 1 + d->sn * gsl_ran_gaussian(g, 1) : 1;
}

/* One boot of every row on a kernel moved by step (rows 0 and 1). */
static void
gen_boot(gsl_rng *g, const struct model *m, const struct draw *d,
    double nl, double step, double *mean, double *median)
{
	double z0 = gsl_ran_gaussian(g, 1);
	int r, j;

	for (r = 0; r < m->rows; r++) {
		double lv = 1000 * nl, e, run[RUNS], sum = 0;

		if (r < 2)
			lv *= 1 - step;
		e = d->sb * (m->rows > 1 ? d->rho * z0 + sqrt(1 - d->rho *
		    d->rho) * gsl_ran_gaussian(g, 1) : z0);
		for (j = 0; j < RUNS; j++) {
			run[j] = lv * (1 + e) * (1 + m->run_sigma *
			    gsl_ran_gaussian(g, 1));
			if (gsl_rng_uniform(g) < d->ps)
				run[j] *= 1 - (0.10 + 0.10 *
				    gsl_rng_uniform(g));
			sum += run[j];
		}
		mean[r] = sum / RUNS;
		median[r] = med3(run[0], run[1], run[2]);
	}
}

static void
gen(gsl_rng *g, const struct model *m, long step_night, double step,
    struct hist *h)
{
	struct draw d;
	double mean[ROWS], median[ROWS];
	size_t i, b, k = 0;
	int r;

	draw_init(g, m, &d);
	h->rows = m->rows;
	for (i = 0; i < NIGHTS; i++) {
		double nl = gen_night(g, &d);

		h->start[i] = k;
		for (b = 0; b < BOOTS; b++, k++) {
			gen_boot(g, m, &d, nl, step_night >= 0 &&
			    (long)i >= step_night ? step : 0, mean, median);
			for (r = 0; r < m->rows; r++) {
				h->mean[r][k] = mean[r];
				h->median[r][k] = median[r];
			}
		}
	}
	h->start[NIGHTS] = k;
}

struct tally {
	int	 hist, rows, rows_alarmed, alarmed, opened, found[MAXD], found_later, other;
	long	 boots, nights;		/* the online rule's cost */
	long	 width, ranges;		/* nights a regression's range spans */
};

/* The nights a regression was opened for, by first bad night (-1 none). */
struct opened {
	int	 at[NIGHTS];
	int	 hi[NIGHTS];	/* online: the range [i, hi[i]] of first bad
				   nights a regression at i covers */
};

static void
opened_init(struct opened *o)
{
	int i;

	for (i = 0; i < NIGHTS; i++)
		o->at[i] = o->hi[i] = -1;
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
	if ((e = getenv("KPERFCI_CP_OPEN_P")))
		o->open_p = atof(e);
	if ((e = getenv("KPERFCI_CP_SUSPECT_P")))
		o->suspect_p = atof(e);
	if ((e = getenv("KPERFCI_CP_WINDOW")))
		o->window = atoi(e);
	if ((e = getenv("KPERFCI_CP_MIN_NIGHTS")))
		o->min_nights = atoi(e);
	if ((e = getenv("KPERFCI_CP_MIN_AFTER")))
		o->min_after = atoi(e);
	if ((e = getenv("KPERFCI_CP_LOC_MARGIN")))
		o->loc_margin = atof(e);
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

/*
 * The online rule (changepoint_online) as track.c runs it: after every
 * night, every row's history is judged; a row whose candidate is suspect
 * makes the night boot BOOTS more (the whole matrix, every row) up to
 * max_boots (KPERFCI_CP_MAX_BOOTS, default [track] max_boots 9) and the
 * night is judged again; the rows that open make one regression (headed
 * by the surest, its range of likely first bad nights), and their
 * baselines start at its bad night from then on.  The
 * history is drawn here boot by boot: extensions get boots of their own.
 */
#define OMAXB	12
static int
run_online(gsl_rng *g, const struct model *m, long step_night, double step,
    size_t last, struct opened *op, int *rows_alarmed, long *boots)
{
	static double v[ROWS][NIGHTS * OMAXB];
	double mean[ROWS], median[ROWS];
	struct changepoint_opts o;
	struct draw d;
	size_t start[NIGHTS + 1], k = 0, since[ROWS] = { 0 }, t;
	int r, opened = 0, alarmed[ROWS] = { 0 }, maxb = 9;
	const char *e;
	char err[128];

	changepoint_opts_init(&o);
	bench_knobs(&o);
	if ((e = getenv("KPERFCI_CP_MAX_BOOTS")))
		maxb = atoi(e);
	if (maxb > OMAXB)
		maxb = OMAXB;
	draw_init(g, m, &d);
	opened_init(op);
	*rows_alarmed = 0;
	for (t = 0; t <= last; t++) {
		double nl = gen_night(g, &d);
		int nb = 0;

		start[t] = k;
		for (;;) {
			struct changepoint_alarm a;
			int b, suspect = 0, opens[ROWS] = { 0 };
			long c = -1, chi = -1;
			double zbest = 0;

			for (b = 0; b < BOOTS && nb < maxb; b++, nb++, k++) {
				gen_boot(g, m, &d, nl, step_night >= 0 &&
				    (long)t >= step_night ? step : 0, mean,
				    median);
				for (r = 0; r < m->rows; r++)
					v[r][k] = median[r];
			}
			start[t + 1] = k;
			for (r = 0; r < m->rows; r++) {
				if (changepoint_online(v[r], start, t + 1,
				    since[r], &o, 1, &a, err, sizeof(err)) != 0)
					continue;
				if (a.state == CHANGEPOINT_OPEN) {
					alarmed[r] = 1;
					opens[r] = 1;
					if (getenv("KPERFCI_CP_DEBUG"))
						fprintf(stderr, "s=%ld open t=%zu "
						    "r=%d c=%zu [%zu,%zu] z=%.2f "
						    "pct=%.2f na=%zu sb=%.3f\n",
						    step_night, t, r, a.c.night,
						    a.night_lo, a.night_hi, a.z,
						    a.c.pct_change,
						    a.c.nboots_after, d.sb);
					/* the regression is headed by the
					   row it is surest of */
					if (c < 0 || a.z > zbest) {
						c = (long)a.night_lo;
						chi = (long)a.night_hi;
						zbest = a.z;
					}
				} else if (a.state == CHANGEPOINT_SUSPECT) {
					suspect = 1;
				}
			}
			if (c >= 0) {
				/* as track_open_group: a range that overlaps
				   an opened regression's is the same change
				   (its rows join it), else a new one */
				int same = 0;

				for (int i = 0; i < NIGHTS; i++)
					if (op->at[i] >= 0 && i <= chi &&
					    c <= op->hi[i])
						same = 1;
				if (!same && op->at[c] < 0) {
					op->at[c] = (int)t;
					op->hi[c] = (int)chi;
					opened++;
				}
				/* the rows the regression lists start again */
				for (r = 0; r < m->rows; r++)
					if (opens[r])
						since[r] = (size_t)chi;
				break;
			}
			if (!suspect || nb >= maxb)
				break;
		}
	}
	*boots = (long)k;
	for (r = 0; r < m->rows; r++)
		*rows_alarmed += alarmed[r];
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
		int hi = op->hi[i] >= i ? op->hi[i] : i;

		if (op->at[i] < 0)
			continue;
		ty->width += hi - i + 1;
		ty->ranges++;
		if (step_night < i || step_night > hi) {
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
		if (ty->nights)
			printf("%-5s %-6s %-8s %.2f boots a night\n", model,
			    kind, rule, (double)ty->boots / ty->nights);
		return;
	}
	printf("%-5s %-6s %-8s found by night s+d:", model, kind, rule);
	for (d = 0; d < MAXD; d++) {
		cum += ty->found[d];
		printf(" d=%d %5.1f%%", d, 100 * cum / n);
	}
	printf(" ever %5.1f%%; other regressions %.3f per history",
	    100 * (cum + ty->found_later) / n, ty->other / n);
	if (ty->nights)
		printf("; %.2f boots a night, ranges of %.2f nights",
		    (double)ty->boots / ty->nights, ty->ranges ?
		    (double)ty->width / ty->ranges : 0);
	printf("\n");
}

int
main(int argc, char **argv)
{
	const struct model *m;
	struct tally today = { 0 }, nightly = { 0 }, online = { 0 };
	long boots;
	const char *only = getenv("KPERFCI_CP_RULE");
	struct hist *h = xcalloc(1, sizeof(*h));
	struct opened op;
	gsl_rng *g;
	double step;
	int reps, i, n, ra;

	if (argc < 4) {
		fprintf(stderr, "usage: changepoint-nightly emu|gauss|real|"
		    "night flat|step3|step5 REPS [SEED]\n");
		return 2;
	}
	m = !strcmp(argv[1], "real") ? &real : !strcmp(argv[1], "gauss") ?
	    &gauss : !strcmp(argv[1], "night") ? &night : &emu;
	step = !strcmp(argv[2], "step3") ? 0.03 : !strcmp(argv[2], "step5") ?
	    0.05 : 0;
	reps = atoi(argv[3]);
	g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, argc > 4 ? strtoul(argv[4], NULL, 10) : 15);
	for (i = 0; i < reps; i++) {
		long s = step > 0 ? 10 + (long)gsl_rng_uniform_int(g, 41) : -1;
		/* a step history is followed until MAXD nights after it */
		size_t last = s < 0 ? NIGHTS - 1 : (size_t)s + MAXD - 1;

		if (!only || strcmp(only, "online")) {
			gen(g, m, s, step, h);
			n = run_rule(h, 0, last, &op, &ra);
			tally_add(&today, &op, n, h->rows, ra, s);
			n = run_rule(h, 1, last, &op, &ra);
			tally_add(&nightly, &op, n, h->rows, ra, s);
		}
		n = run_online(g, m, s, step, last, &op, &ra, &boots);
		tally_add(&online, &op, n, m->rows, ra, s);
		online.boots += boots;
		online.nights += (long)last + 1;
	}
	if (!only || strcmp(only, "online")) {
		tally_print(argv[1], argv[2], "today", &today);
		tally_print(argv[1], argv[2], "confirm", &nightly);
	}
	tally_print(argv[1], argv[2], "online", &online);
	gsl_rng_free(g);
	free(h);
	return 0;
}
