/*
 * stats: the A/B comparison behind every kperfci verdict.
 *
 * Owns the sample format agents upload (JSON lines), grouping samples by
 * (workload, params, metric) and then by boot, and the comparison of two
 * sides: mean and %stddev of per-boot means, %change with a 95% CI from a
 * hierarchical bootstrap, a t test on per-boot means (an exact permutation
 * test where a side has an outlier boot), alpha spent over the planned looks,
 * the family of rows held together (Holm over the primary metrics, FDR over
 * the others) and a verdict.  The decision rule and the defaults are argued
 * in the DESIGN comment at the top of stats.c.
 *
 * No I/O except where a function says so (stats_load_file reads a file,
 * stats_result_print_table writes to the FILE it is given).  The daemon (the
 * series page, JSON, text report) and `kperfci stats compare` share it.
 *
 * One sample line:
 *   {"boot":3,"workload":"fault-free","params":"mode=shmem,tasks=4",
 *    "iteration":2,"metric":"pages_per_sec","value":123456.7,
 *    "unit":"pages/s","better":"higher"}
 * Lines with "type":"lock-profile" or "type":"error" are counted and skipped;
 * "type":"sample" (or no "type") is a sample; anything else is an error.
 */
#ifndef KPERFCI_STATS_H
#define KPERFCI_STATS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/*
 * The defaults the daemon schedules with ([sched] boots, boot_step,
 * max_boots; iterations come from the matrix): looks at 3, 6, 9 and 12
 * boots per side.  tests/unit/t-stats.c and `make bench-stats` check the
 * A/A and power requirements with exactly these.  Why: stats.c, DESIGN.
 */
#define STATS_DEFAULT_BOOTS		3	/* per side, first look */
#define STATS_DEFAULT_ITERATIONS	5	/* runs per boot and workload */
#define STATS_DEFAULT_MAX_BOOTS		12	/* per side, after extra looks */
#define STATS_DEFAULT_BOOT_STEP		3	/* extra boots per side per look */
#define STATS_DESIGN_BOOTS		6	/* the look the power is promised
						   at: most of alpha is spent there */
#define STATS_DEFAULT_RESAMPLES		2000
#define STATS_DEFAULT_ALPHA		0.008	/* per comparison, over all looks */
#define STATS_DEFAULT_EQUIV_MARGIN	2.0	/* % */
#define STATS_DEFAULT_NOCHANGE_HALFWIDTH 5.0	/* % */

/* Hard limits on what one side may hold (input is hostile). */
#define STATS_MAX_LINE		65536
#define STATS_MAX_FILE		(64u << 20)
#define STATS_MAX_SAMPLES	1000000
#define STATS_MAX_SERIES	10000
#define STATS_MAX_BOOTS		1000	/* per series */
#define STATS_MAX_BOOT_ID	1000000000L
#define STATS_MAX_ITERATION	1000000L

enum stats_better {
	STATS_LOWER = -1,
	STATS_HIGHER = 1,
};

/* One measurement, as uploaded.  Strings are borrowed. */
struct stats_sample {
	long		 boot;
	const char	*workload;
	const char	*params;	/* may be "" */
	const char	*metric;
	const char	*unit;
	int		 better;	/* enum stats_better */
	long		 iteration;
	double		 value;
};

/* The runs of one boot for one series. */
struct stats_boot {
	long	 id;
	double	*v;		/* values, in upload order */
	long	*iter;		/* their iteration numbers */
	size_t	 n, cap;
};

/* One (workload, params, metric) on one side. */
struct stats_series {
	char	*workload, *params, *metric, *unit;
	int	 better;
	struct stats_boot *boots;
	size_t	 nboots, cap;
	size_t	 nsamples;
};

/* One side of a comparison (all samples of the base or of the test kernel). */
struct stats_set {
	struct stats_series *series;
	size_t	 n, cap;
	size_t	 nsamples;
	size_t	 nlock_profile;	/* "type":"lock-profile" lines skipped */
	size_t	 nerror;	/* "type":"error" lines skipped */
};

void	stats_set_init(struct stats_set *);
void	stats_set_release(struct stats_set *);

/*
 * Adds one sample.  Rejects (returns -1, message in err, nothing added): a
 * value that is not finite, a negative value (every kperfci metric is a
 * rate, a count, a time or a latency: none can be negative, and %change
 * needs a ratio scale), empty or over-long names, a unit or direction that
 * differs from earlier samples of the same series, and a duplicate
 * (boot, iteration) of a series.  err may be NULL: the message is logged.
 */
int	stats_set_add(struct stats_set *, const struct stats_sample *,
	    char *err, size_t errsz);

/*
 * Parses JSON lines (the agent upload) into set; blank lines are ignored.
 * On the first bad line returns -1 with "line N: field \"F\": what" in err
 * (or logged when err is NULL); samples of earlier lines stay in set.
 * No I/O.
 */
int	stats_load_jsonl(struct stats_set *, const char *data, size_t len,
	    char *err, size_t errsz);
/* Reads path (at most STATS_MAX_FILE bytes), then stats_load_jsonl. */
int	stats_load_file(struct stats_set *, const char *path,
	    char *err, size_t errsz);

/* ---- comparison ------------------------------------------------------- */

struct stats_opts {
	unsigned long	 seed;		/* bootstrap RNG seed (default 1) */
	int		 resamples;	/* bootstrap B (default 2000) */
	double		 alpha;		/* false-positive rate of the
					   comparison's headline, over all
					   planned looks (0.01) */
	int		 boots, boot_step, max_boots;	/* the look plan */
	int		 look;		/* this look, 1..looks; 0: a single
					   look holding all of alpha */
	int		 looks;		/* planned looks: set by
					   stats_compare from the plan */
	double		 equiv_margin;	/* %: CI inside +-margin = no change */
	double		 nochange_halfwidth; /* %: not significant and CI
					   inside +-this = no change */
};

/* Fills the defaults above: the daemon's plan, look 0 (one look). */
void	stats_opts_init(struct stats_opts *);

/*
 * Number of looks a comparison may take: the first at boots, then one per
 * step extra boots per side until max_boots.  (8, 16, 4) -> 3.
 */
int	stats_planned_looks(int boots, int max_boots, int step);
/* Boots per side at look (1-based) of that plan. */
int	stats_look_boots(int boots, int max_boots, int step, int look);
/*
 * The part of alpha spent at look (1-based) of the plan: looks before the
 * one reaching STATS_DESIGN_BOOTS share 5%, looks after it 10%, the design
 * look the rest; one look holds all.  Summed over the looks it is alpha.
 */
double	stats_alpha_spent(double alpha, int boots, int max_boots, int step,
	    int look);
/* The level of this look under opts (all of alpha when look is 0). */
double	stats_look_alpha(const struct stats_opts *);

/*
 * Whether a metric is one its workload's result is judged by (a table in
 * stats.c, one line per workload: fault-free pages/s, page-fault ops/s,
 * swap-memhog and file-read wall and sys seconds, memcg-flush latency).
 * Every metric of a workload not in the table is primary.
 */
int	stats_metric_primary(const char *workload, const char *metric);

enum stats_verdict {
	STATS_NO_CHANGE,
	STATS_IMPROVEMENT,
	STATS_REGRESSION,
	STATS_INCONCLUSIVE,	/* more boots may decide (stats_need_more) */
	STATS_MISSING,		/* series on one side only */
	STATS_INVALID,		/* sides disagree on unit/direction, or the
				   base mean is 0 so %change is undefined */
};

/* "improvement", "regression", "no change", "inconclusive", "missing",
   "invalid". */
const char *stats_verdict_name(enum stats_verdict);

struct stats_side {
	int	 present;
	size_t	 nboots, nsamples;
	double	 mean;		/* mean of the per-boot estimates */
	double	 pct_stddev;	/* sample stddev of the per-boot estimates,
				   in % of mean (0 with one boot) */
	long	*boot_ids;	/* nboots, sorted by id */
	double	*boot_means;	/* per-boot estimates, same order (for
				   charts): the mean of a boot's runs less
				   the (n + 1) / 4 lowest and highest (the
				   median of 3 runs) */
	size_t	 outlier_runs;	/* runs more than 5% from their boot's
				   estimate: shown, not averaged in */
	size_t	 slow_boots;	/* boots with at least one of them (not
				   stored: only for slow_runs_differ) */
};

enum stats_test {
	STATS_TEST_NONE,
	STATS_TEST_T,		/* t on per-boot means */
	STATS_TEST_PERMUTATION,	/* exact permutation test on the means */
	STATS_TEST_PERMUTATION_MC, /* the same by 20000 random relabellings */
};
/* "t", "permutation", "permutation (random)", "none". */
const char *stats_test_name(enum stats_test);

struct stats_row {
	char	*workload, *params, *metric, *unit;	/* owned */
	int	 better;
	int	 primary;	/* stats_metric_primary */
	struct stats_side base, test;
	double	 pct_change;	/* 100 * (test mean / base mean - 1); NAN if
				   not computed */
	double	 ci_lo, ci_hi;	/* 95% bootstrap CI of pct_change, or NAN */
	double	 tci_lo, tci_hi; /* 95% t interval of pct_change, or NAN */
	double	 p_value;	/* two-sided p of the test, or NAN */
	enum stats_test test_used;
	int	 p_exact;	/* 1: exact permutation distribution */
	int	 outlier;	/* Grubbs flagged a boot: no t test */
	int	 slow_runs_differ; /* the sides' rates of slow runs differ
				   (Fisher, STATS_SLOW_RATE_ALPHA): the
				   slow runs are the effect, so every run
				   is averaged in */
	double	 p_adjusted;	/* Holm (primary) or Benjamini-Hochberg
				   (others) over the comparison's rows */
	double	 rank_p;	/* Mann-Whitney p, shown only, or NAN */
	double	 alpha_look;	/* the level of this look */
	int	 significant;	/* CI excludes 0 and p_adjusted <=
				   alpha_look */
	enum stats_verdict verdict;
	int	 boots_needed;	/* an inconclusive primary row: boots per
				   side that tell a change of
				   nochange_halfwidth at one look
				   (stats_result_boots_needed); else 0 */
	double	 boots_needed_cv; /* the per-boot % spread it rests on */
	int	 boots_needed_class; /* 1: the class's pooled noise, 0: this
				   comparison's own spread */
	int	 decided_look;	/* the look of the plan that reached the
				   verdict (kept at every later look); 0:
				   undecided, or a single look */
	char	 reason[192];	/* one line saying why */
};

struct stats_result {
	struct stats_row *rows;	/* significant rows first, then grouped by
				   workload (see stats_compare) */
	size_t	 n;
	struct stats_opts opts;	/* what was used */
	double	 alpha_look;	/* this look's level */
	size_t	 count[STATS_INVALID + 1];	/* rows per verdict */
	size_t	 primary[STATS_INVALID + 1];	/* primary rows per verdict:
				   what the headline says */
};

/*
 * The headline of a finished look, a claim about the whole comparison made
 * from the primary rows only: "regression", "improvement", "mixed: 2
 * regressions, 1 improvement", "inconclusive", "no change" or "no
 * comparable metrics".  Returns buf.
 */
char	*stats_headline(const struct stats_result *, char *buf, size_t sz);
/* The rule in one paragraph, for the table's footnote on every format
   ("significant: the 95% CI excludes 0 and ... Holm ...").  Returns buf. */
char	*stats_rule_text(const struct stats_result *, char *buf, size_t sz);

/*
 * Compares every series of base and test.  Rows are ordered: workloads
 * with a significant row first; within a workload, significant rows first
 * (largest |%change| first), then by params and metric.  Reproducible: each
 * series' bootstrap uses seed mixed with the series' name, so a row does
 * not depend on which other series exist.  opts NULL: defaults.
 * Returns 0; the result must be released.  No I/O.
 */
int	stats_compare(const struct stats_set *base, const struct stats_set *test,
	    const struct stats_opts *, struct stats_result *);
void	stats_result_release(struct stats_result *);

/*
 * Whether more boots would help: some PRIMARY row is inconclusive and
 * boots_done (boots per side so far) is below max_boots.  The caller then
 * schedules the next look (boot_step more per side) and compares again
 * with opts.look one higher, so the error rate stays at alpha over all
 * looks.  Other rows never ask for boots.
 */
int	stats_need_more(const struct stats_result *, int boots_done,
	    int max_boots);
int	stats_row_need_more(const struct stats_row *, int boots_done,
	    int max_boots);

/*
 * What an inconclusive primary row would take: for each, the boots per
 * side a one-look comparison needs to find a change of nochange_halfwidth
 * (5%: the smallest effect reported as a change rather than "no change")
 * with 95% power at Holm's first step over the comparison's primary rows
 * (alpha / primaries), given a per-boot spread: cv(row, arg) when it
 * returns a number (the daemon: the class's pooled noise, noise.h), else
 * the row's own pooled spread.  stats_compare does it with cv NULL.
 */
void	stats_result_boots_needed(struct stats_result *,
	    double (*cv)(const struct stats_row *, void *), void *arg);

/*
 * The verdict of a comparison that produced no samples on one side:
 * stats_failed_verdict(buf, sz, "patched", "panicked") gives
 * "failed: every patched boot panicked".  Returns buf.
 */
char	*stats_failed_verdict(char *buf, size_t sz, const char *side,
	    const char *how);

/* Mann-Whitney U test of x (n) against y (m), two-sided p-value.
   *exact says which distribution was used.  Shown next to the test's p
   (rank_p); exposed for tests. */
double	stats_mann_whitney(const double *x, size_t n, const double *y,
	    size_t m, int *exact);
/*
 * The test of a row: two-sided p of "same mean" for per-boot means x (n)
 * and y (m).  A t test (Student's with equal sizes, Welch's otherwise)
 * unless Grubbs' test flags an outlier on a side or both sides are
 * constant: then the permutation test of the difference in means (exact up
 * to 20000 relabellings, else 20000 random ones, seeded).  *test says
 * which.  NAN with fewer than 2 per side.  Exposed for tests.
 */
double	stats_mean_test(const double *x, size_t n, const double *y, size_t m,
	    unsigned long seed, enum stats_test *test, int *outlier);
/* Holm's step-down adjusted p-values of p[0..n) (NAN entries skipped). */
void	stats_holm(const double *p, size_t n, double *adj);
/* Benjamini-Hochberg step-up adjusted p-values (NAN entries skipped). */
void	stats_bh(const double *p, size_t n, double *adj);

/* ---- output ----------------------------------------------------------- */

/*
 * A new JSON object (the caller decrefs it), rows in table order:
 *   {"options": {"seed","resamples","alpha","boots","boot_step",
 *                "max_boots","look","looks","alpha_look","equiv_margin",
 *                "nochange_halfwidth","ci_level","family"},
 *    "headline": "regression" ...,
 *    "counts": {"no change": n, "improvement": n, ...},
 *    "primary_counts": {...},
 *    "rows": [{"workload","params","metric","unit","better":"higher",
 *              "primary":bool,"verdict","reason","significant":bool,
 *              "pct_change","ci95":[lo,hi],"ci95_t":[lo,hi],
 *              "p_test","p_value","p_exact":bool,"p_adjusted","rank_p","outlier",
 *              "alpha_look",
 *              "base": {"boots","samples","mean","pct_stddev",
 *                       "boot_means":[{"boot","mean"}]} or null,
 *              "test": {...} or null}]}
 * Numbers not computed (a missing side, too few boots) are null.
 */
json_t	*stats_result_to_json(const struct stats_result *);
/*
 * The inverse (core/stats_json.c), for results stored once and read
 * many times: fills res from what stats_result_to_json wrote, so that
 * stats_result_to_json(res) gives the same JSON again.  0, or -1 with err
 * (res released).
 */
int	stats_result_from_json(const json_t *, struct stats_result *res,
	    char *err, size_t errsz);

/*
 * The kernel-test-robot table:
 *   base mean +-%stddev | %change [95% CI] | test mean +-%stddev | metric
 * one block per workload; significant rows marked with '*'; the verdict
 * and its reason for every row not "no change".  Writes to the FILE only.
 */
void	stats_result_print_table(FILE *, const struct stats_result *);

#endif
