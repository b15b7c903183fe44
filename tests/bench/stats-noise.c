/*
 * stats-noise: the verdicts of A/B comparisons under two noise models, run
 * through the daemon's own decision path: the samples of each look go to
 * stats_compare with sched_stats_opts' options (the plan, the look, its
 * share of alpha, the family of primary rows), and sched_next_look decides
 * whether another look runs, exactly as stage_sched_wait does.  Part of
 * `make bench-stats` (tests/bench/stats.sh).
 *
 *	stats-noise [MODEL]	MODEL: emulator, real or both (default)
 *	stats-noise class DB CLASS
 *		the real model with each row's boot-to-boot spread the one
 *		agent class CLASS has shown in the store DB (daemon/noise.c:
 *		pooled over its finished comparisons, what "boots": "auto"
 *		plans with); rows the class never measured keep the real
 *		model's 1-3 %.
 *
 * The matrix: the default matrix's 14 rows (etc/workloads.conf), names as
 * the agent emits them, so the primary rows are stats_metric_primary's.
 * Per comparison, per row r: a boot-to-boot spread s_r, a share rho_r of
 * it common to all rows of the boot, a chance q_r that a run is slow and
 * how much slower; every side draws from the same machine:
 *
 *   value = mu_r * (1 + shift) * (1 + s_r (sqrt(rho_r) z_boot +
 *           sqrt(1 - rho_r) z_r)) * (1 + 1% z_run) * slow
 *
 * with slow = 1 + f (times) or 1 / (1 + f) (rates) for a run drawn slow.
 *   emulator: rows independent (rho 0), s 1.5%, no slow runs, 5 runs a boot
 *             (the noise of make bench-stats' one-row figures);
 *   real:     rho 0.5-0.9, s 1-3%, 2-5% of runs 10-20% slow, 3 runs a boot
 *             (the default matrix's iterations), uniform over the ranges.
 *
 * Shifted comparisons move one primary row (fault-free shmem at all CPUs,
 * pages/s) by -5% or -10% (a regression); "found" is that row reading
 * "regression".  A column "by N boots" is what the comparison said after
 * its look at N boots per side (or its verdict, when it stopped before).
 * "A/A false headline" counts a change claimed at any look up to N; "right
 * calls lost" a primary row that was right at one look (the shifted row's
 * regression, any other row's "no change") and not at a later one.
 *
 * KPERFCI_STATS_BENCH_REPS comparisons per column (default 400),
 * KPERFCI_STATS_BENCH_THREADS workers (default 2),
 * KPERFCI_STATS_RESAMPLES bootstrap resamples (default the daemon's).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/stats.h"
#include "daemon/db.h"
#include "daemon/noise.h"
#include "daemon/sched.h"

#define NROWS		14
#define NLOOKS_MAX	8
#define SHIFT_ROW	1	/* fault-free mode=shmem,tasks=all */

static const struct {
	const char	*workload, *params, *metric, *unit;
	int		 better;
	double		 mu;
} rows[NROWS] = {
	{ "fault-free", "mode=shmem,tasks=node", "pages_per_sec", "pages/s",
	  STATS_HIGHER, 2e6 },
	{ "fault-free", "mode=shmem,tasks=all", "pages_per_sec", "pages/s",
	  STATS_HIGHER, 3e6 },
	{ "fault-free", "mode=anon,tasks=node", "pages_per_sec", "pages/s",
	  STATS_HIGHER, 1.5e6 },
	{ "fault-free", "mode=anon,tasks=all", "pages_per_sec", "pages/s",
	  STATS_HIGHER, 2.5e6 },
	{ "page-fault", "mode=process,tasks=all,variant=1", "ops_per_sec",
	  "ops/s", STATS_HIGHER, 8e5 },
	{ "page-fault", "mode=process,tasks=all,variant=1",
	  "ops_per_sec_per_task", "ops/s", STATS_HIGHER, 2e5 },
	{ "memcg-flush", "groups=16,interval=2000,reads=100,size=4M",
	  "flush_p50_us", "us", STATS_LOWER, 40 },
	{ "memcg-flush", "groups=16,interval=2000,reads=100,size=4M",
	  "flush_p99_us", "us", STATS_LOWER, 300 },
	{ "swap-memhog", "groups=2,limit=12M,passes=2,size=24M,zram=256M",
	  "wall_sec", "s", STATS_LOWER, 2.5 },
	{ "swap-memhog", "groups=2,limit=12M,passes=2,size=24M,zram=256M",
	  "sys_sec", "s", STATS_LOWER, 1.8 },
	{ "swap-memhog", "groups=2,limit=12M,passes=2,size=24M,zram=256M",
	  "user_sec", "s", STATS_LOWER, 0.4 },
	{ "file-read", "files=200,groups=4", "wall_sec", "s", STATS_LOWER,
	  1.2 },
	{ "file-read", "files=200,groups=4", "sys_sec", "s", STATS_LOWER, 0.9 },
	{ "file-read", "files=200,groups=4", "user_sec", "s", STATS_LOWER,
	  0.1 },
};

struct model {
	const char	*name, *what;
	int		 runs;
	double		 sb_lo, sb_hi, rho_lo, rho_hi;
	double		 q_lo, q_hi, f_lo, f_hi, sr;
};

/* class: the rows' spreads from a store (NAN: the model's draw). */
static double class_sb[NROWS];
static int class_rows;

static const struct model models[] = {
	{ "emulator", "14 independent rows, 1.5% boot and 1% run noise, "
	  "5 runs per boot", 5, 0.015, 0.015, 0, 0, 0, 0, 0, 0, 0.01 },
	{ "real", "14 rows sharing boots (correlation 0.5-0.9), 1-3% boot "
	  "noise, 2-5% of runs 10-20% slow, 1% run noise, 3 runs per boot",
	  3, 0.01, 0.03, 0.5, 0.9, 0.02, 0.05, 0.10, 0.20, 0.01 },
};

/* One row's noise in one comparison. */
struct rownoise {
	double	 sb, rho, q, f;
};

/* What one comparison said after each of its looks. */
struct trace {
	int	 nlooks;
	int	 boots[NLOOKS_MAX];
	int	 change[NLOOKS_MAX];	/* headline claims a change */
	int	 nochange[NLOOKS_MAX];	/* headline "no change" */
	int	 verdict[NLOOKS_MAX][NROWS];
	int	 primary[NROWS];
	int	 nprimary;
};

static void
sim_boot(gsl_rng *r, const struct model *m, const struct rownoise *nz,
    double shift, long boot, struct stats_set *set)
{
	double z = gsl_ran_gaussian(r, 1);
	int i, it;

	for (i = 0; i < NROWS; i++) {
		double e = nz[i].sb * (sqrt(nz[i].rho) * z +
		    sqrt(1 - nz[i].rho) * gsl_ran_gaussian(r, 1));
		double mu = rows[i].mu * (i == SHIFT_ROW ? 1 + shift : 1);

		for (it = 0; it < m->runs; it++) {
			struct stats_sample x = {
				.boot = boot, .workload = rows[i].workload,
				.params = rows[i].params,
				.metric = rows[i].metric,
				.unit = rows[i].unit,
				.better = rows[i].better, .iteration = it,
			};
			double v = mu * (1 + e) * (1 + m->sr *
			    gsl_ran_gaussian(r, 1));

			if (nz[i].q > 0 && gsl_rng_uniform(r) < nz[i].q) {
				double f = nz[i].f;

				v = rows[i].better == STATS_LOWER ? v * (1 + f)
				    : v / (1 + f);
			}
			x.value = v > 0 ? v : 0;
			if (stats_set_add(set, &x, NULL, 0))
				abort();
		}
	}
}

static double
unif(gsl_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * gsl_rng_uniform(r);
}

/* One comparison under the daemon's plan; its looks into tr. */
static void
sim_comparison(const struct model *m, double shift, unsigned long seed,
    int resamples, struct trace *tr)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct sched_comparison c;
	struct stats_set base, test;
	struct stats_result res;
	struct stats_opts o;
	struct rownoise nz[NROWS];
	char head[128];
	int i, b, next;

	gsl_rng_set(r, seed);
	for (i = 0; i < NROWS; i++) {
		nz[i].sb = unif(r, m->sb_lo, m->sb_hi);
		if (class_rows && !isnan(class_sb[i]))
			nz[i].sb = class_sb[i];
		nz[i].rho = unif(r, m->rho_lo, m->rho_hi);
		nz[i].q = unif(r, m->q_lo, m->q_hi);
		nz[i].f = unif(r, m->f_lo, m->f_hi);
	}
	memset(&c, 0, sizeof(c));
	memset(tr, 0, sizeof(*tr));
	c.boots = STATS_DEFAULT_BOOTS;
	c.boot_step = STATS_DEFAULT_BOOT_STEP;
	c.max_boots = STATS_DEFAULT_MAX_BOOTS;
	c.looks = stats_planned_looks(c.boots, c.max_boots, c.boot_step);
	c.look = 1;
	c.planned = c.boots;
	stats_set_init(&base);
	stats_set_init(&test);
	/* boots numbered from 1 per side, as the scheduler numbers them */
	for (b = 1; b <= c.planned; b++) {
		sim_boot(r, m, nz, 0, b, &base);
		sim_boot(r, m, nz, shift, b, &test);
	}
	for (;;) {
		sched_stats_opts(&o, &c);
		o.resamples = resamples;
		o.seed = seed;
		stats_compare(&base, &test, &o, &res);
		tr->boots[tr->nlooks] = c.planned;
		stats_headline(&res, head, sizeof(head));
		tr->change[tr->nlooks] = !strcmp(head, "regression") ||
		    !strcmp(head, "improvement") || !strncmp(head, "mixed", 5);
		tr->nochange[tr->nlooks] = !strcmp(head, "no change");
		for (i = 0; i < (int)res.n; i++) {
			int k;

			for (k = 0; k < NROWS; k++)
				if (!strcmp(res.rows[i].workload,
				    rows[k].workload) && !strcmp(
				    res.rows[i].params, rows[k].params) &&
				    !strcmp(res.rows[i].metric, rows[k].metric))
					break;
			if (k == NROWS)
				abort();
			tr->verdict[tr->nlooks][k] = res.rows[i].verdict;
			tr->primary[k] = res.rows[i].primary;
		}
		tr->nlooks++;
		next = sched_next_look(&c, &res, 0);
		stats_result_release(&res);
		if (next <= 0 || tr->nlooks == NLOOKS_MAX)
			break;
		for (b = c.planned + 1; b <= next; b++) {
			sim_boot(r, m, nz, 0, b, &base);
			sim_boot(r, m, nz, shift, b, &test);
		}
		c.planned = next;
		c.look++;
	}
	for (i = 0; i < NROWS; i++)
		tr->nprimary += tr->primary[i];
	stats_set_release(&base);
	stats_set_release(&test);
	gsl_rng_free(r);
}

/* The look that stands for "by nb boots": the last with at most nb. */
static int
trace_at(const struct trace *tr, int nb)
{
	int k, at = -1;

	for (k = 0; k < tr->nlooks; k++)
		if (tr->boots[k] <= nb)
			at = k;
	return at;
}

/* A primary row right at one look and not at a later one, up to look
   last; shifted: whether SHIFT_ROW moved. */
static int
trace_lost(const struct trace *tr, int last, int shifted)
{
	int i, k, was;

	for (i = 0; i < NROWS; i++) {
		int want = shifted && i == SHIFT_ROW ? STATS_REGRESSION :
		    STATS_NO_CHANGE;

		if (!tr->primary[i])
			continue;
		for (was = 0, k = 0; k <= last; k++) {
			int right = tr->verdict[k][i] == want;

			if (was && !right)
				return 1;
			was |= right;
		}
	}
	return 0;
}

/* ---- the figures ------------------------------------------------------- */

#define NCOL	4	/* by 3, 6, 9, 12 boots */
#define NKIND	3	/* A/A, -5%, -10% */

static const double kind_shift[NKIND] = { 0, -0.05, -0.10 };

struct job {
	const struct model *m;
	int	 kind, reps, resamples, stride, first;
	unsigned long seed0;
	/* counts per column */
	int	 false_headline[NCOL], nochange[NCOL], found[NCOL];
	int	 lost[NCOL], nprimary;
};

static void *
job_run(void *arg)
{
	struct job *j = arg;
	struct trace tr;
	int k, col;

	for (k = j->first; k < j->reps; k += j->stride) {
		sim_comparison(j->m, kind_shift[j->kind], j->seed0 + k,
		    j->resamples, &tr);
		j->nprimary = tr.nprimary;
		for (col = 0; col < NCOL; col++) {
			int nb = STATS_DEFAULT_BOOTS + col *
			    STATS_DEFAULT_BOOT_STEP, at = trace_at(&tr, nb), x;

			if (at < 0)
				continue;
			for (x = 0; x <= at; x++)
				if (tr.change[x]) {
					j->false_headline[col]++;
					break;
				}
			j->nochange[col] += tr.nochange[at];
			j->found[col] += tr.verdict[at][SHIFT_ROW] ==
			    STATS_REGRESSION;
			j->lost[col] += trace_lost(&tr, at, j->kind > 0);
		}
	}
	return NULL;
}

static int
env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && atoi(v) > 0 ? atoi(v) : dflt;
}

static void
bench_model(const struct model *m, int reps, int nthreads, int resamples)
{
	struct job jobs[NKIND][16];
	pthread_t tid[NKIND][16];
	int sum[NKIND][4][NCOL], kind, t, col, q, nprimary = 0;

	memset(jobs, 0, sizeof(jobs));
	memset(sum, 0, sizeof(sum));
	for (kind = 0; kind < NKIND; kind++)
		for (t = 0; t < nthreads; t++) {
			struct job *j = &jobs[kind][t];

			j->m = m;
			j->kind = kind;
			j->reps = reps;
			j->resamples = resamples;
			j->stride = nthreads;
			j->first = t;
			j->seed0 = 1000003UL * (unsigned long)(m - models + 1) +
			    100000UL * (unsigned long)kind;
		}
	for (kind = 0; kind < NKIND; kind++) {
		for (t = 0; t < nthreads; t++)
			pthread_create(&tid[kind][t], NULL, job_run,
			    &jobs[kind][t]);
		for (t = 0; t < nthreads; t++) {
			struct job *j = &jobs[kind][t];

			pthread_join(tid[kind][t], NULL);
			for (col = 0; col < NCOL; col++) {
				sum[kind][0][col] += j->false_headline[col];
				sum[kind][1][col] += j->nochange[col];
				sum[kind][2][col] += j->found[col];
				sum[kind][3][col] += j->lost[col];
			}
			if (j->nprimary)
				nprimary = j->nprimary;
		}
	}
	printf("== noise model \"%s\": %s; %d of the 14 rows primary; %d "
	    "comparisons per cell\n\n", m->name, m->what, nprimary, reps);
	printf("| boots per side | A/A false headline | A/A says `no change` "
	    "| 5 %% shift found | 10 %% shift found | right calls lost "
	    "between looks |\n|---|---|---|---|---|---|\n");
	for (col = 0; col < NCOL; col++) {
		int lost = 0;

		for (q = 0; q < NKIND; q++)
			lost += sum[q][3][col];
		printf("| %d | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% "
		    "(A/A %.1f, 5 %% %.1f, 10 %% %.1f) |\n",
		    STATS_DEFAULT_BOOTS + col * STATS_DEFAULT_BOOT_STEP,
		    100.0 * sum[0][0][col] / reps, 100.0 * sum[0][1][col] /
		    reps, 100.0 * sum[1][2][col] / reps, 100.0 *
		    sum[2][2][col] / reps, 100.0 * lost / (NKIND * reps),
		    100.0 * sum[0][3][col] / reps, 100.0 * sum[1][3][col] /
		    reps, 100.0 * sum[2][3][col] / reps);
	}
	printf("\n");
	fflush(stdout);
}

/* stats-noise class DB CLASS: the real model on a class's own noise. */
static int
bench_class(int argc, char **argv, int reps, int nthreads, int resamples)
{
	struct model m = models[1];
	struct noise nz = { 0 };
	struct db *db;
	char what[256];
	int i, known = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: stats-noise class DB CLASS\n");
		return 2;
	}
	if (!(db = db_open(argv[2]))) {
		fprintf(stderr, "stats-noise: cannot open %s\n", argv[2]);
		return 1;
	}
	if (noise_class(db, argv[3], 0, &nz) != 0) {
		fprintf(stderr, "stats-noise: %s: cannot read the noise of "
		    "class %s\n", argv[2], argv[3]);
		db_close(db);
		return 1;
	}
	for (i = 0; i < NROWS; i++) {
		const struct noise_row *nr = noise_find(&nz, rows[i].workload,
		    rows[i].params, rows[i].metric);

		class_sb[i] = nr && nr->dof > 0 && isfinite(nr->cv_pct) ?
		    nr->cv_pct / 100 : NAN;
		known += !isnan(class_sb[i]);
	}
	class_rows = 1;
	snprintf(what, sizeof(what), "the real model, boot noise of class "
	    "%.64s from %d comparisons (%d of %d rows measured; the rest "
	    "1-3%%)", argv[3], nz.ncomparisons, known, NROWS);
	m.name = "class";
	m.what = what;
	bench_model(&m, reps, nthreads, resamples);
	noise_release(&nz);
	db_close(db);
	return 0;
}

int
main(int argc, char **argv)
{
	int reps = env_int("KPERFCI_STATS_BENCH_REPS", 400);
	int nthreads = env_int("KPERFCI_STATS_BENCH_THREADS", 2);
	int resamples = env_int("KPERFCI_STATS_RESAMPLES",
	    STATS_DEFAULT_RESAMPLES);
	const char *which = argc > 1 ? argv[1] : "both";
	size_t i;

	if (nthreads > 16)
		nthreads = 16;
	if (!strcmp(which, "class"))
		return bench_class(argc, argv, reps, nthreads, resamples);
	if (strcmp(which, "both") && strcmp(which, "emulator") &&
	    strcmp(which, "real")) {
		fprintf(stderr, "usage: stats-noise [emulator|real|both]\n");
		return 2;
	}
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(which, "both") || !strcmp(which, models[i].name))
			bench_model(&models[i], reps, nthreads, resamples);
	return 0;
}
