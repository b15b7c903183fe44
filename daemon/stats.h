/*
 * stats: the A/B comparison behind every kperfci verdict.
 *
 * Owns the sample format agents upload (JSON lines), grouping samples by
 * (workload, params, metric) and then by boot, and the comparison of two
 * sides: mean and %stddev of per-boot means, %change with a 95% CI from a
 * hierarchical bootstrap, a Mann-Whitney rank test on per-boot means, and a
 * verdict.  The decision rule and the defaults are argued in the DESIGN
 * comment at the top of stats.c.
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
 * The defaults the daemon schedules with ([sched] boots, iterations,
 * max_boots, boot_step); tests/unit/t-stats.c checks the A/A and power
 * requirements with exactly these.  Why these numbers: stats.c, DESIGN.
 */
#define STATS_DEFAULT_BOOTS		12	/* per side, first look */
#define STATS_DEFAULT_ITERATIONS	5	/* runs per boot and workload */
#define STATS_DEFAULT_MAX_BOOTS		24	/* per side, after extra looks */
#define STATS_DEFAULT_BOOT_STEP		12	/* extra boots per side per look */
#define STATS_DEFAULT_RESAMPLES		2000
#define STATS_DEFAULT_ALPHA		0.008	/* per metric, over all looks */
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
	double		 alpha;		/* false-positive rate per metric,
					   over all planned looks (0.01) */
	int		 looks;		/* planned looks; each look tests at
					   alpha / looks (Bonferroni) */
	double		 equiv_margin;	/* %: CI inside +-margin = no change */
	double		 nochange_halfwidth; /* %: not significant and CI
					   inside +-this = no change */
};

/* Fills the defaults above; looks = stats_planned_looks(defaults). */
void	stats_opts_init(struct stats_opts *);

/*
 * Number of looks a comparison may take: the first at boots, then one per
 * step extra boots per side until max_boots.  (8, 16, 4) -> 3.
 */
int	stats_planned_looks(int boots, int max_boots, int step);

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
	double	 mean;		/* mean of the per-boot means */
	double	 pct_stddev;	/* sample stddev of the per-boot means, in
				   % of mean (0 with one boot) */
	long	*boot_ids;	/* nboots, sorted by id */
	double	*boot_means;	/* per-boot means, same order (for charts) */
};

struct stats_row {
	char	*workload, *params, *metric, *unit;	/* owned */
	int	 better;
	struct stats_side base, test;
	double	 pct_change;	/* 100 * (test mean / base mean - 1); NAN if
				   not computed */
	double	 ci_lo, ci_hi;	/* 95% bootstrap CI of pct_change, or NAN */
	double	 p_value;	/* two-sided Mann-Whitney p, or NAN */
	int	 p_exact;	/* 1: exact distribution, 0: normal approx */
	double	 alpha_look;	/* the level the rank test was held to */
	int	 significant;	/* CI excludes 0 and p <= alpha_look */
	enum stats_verdict verdict;
	char	 reason[192];	/* one line saying why */
};

struct stats_result {
	struct stats_row *rows;	/* significant rows first, then grouped by
				   workload (see stats_compare) */
	size_t	 n;
	struct stats_opts opts;	/* what was used */
	size_t	 count[STATS_INVALID + 1];	/* rows per verdict */
};

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
 * Whether more boots would help: some row is inconclusive and
 * boots_done (boots per side so far: the smaller side's count) is below
 * max_boots.  The caller then schedules the next look
 * (STATS_DEFAULT_BOOT_STEP more per side) and compares again with the same
 * opts.looks, so the error rate stays at alpha over all looks.
 */
int	stats_need_more(const struct stats_result *, int boots_done,
	    int max_boots);
int	stats_row_need_more(const struct stats_row *, int boots_done,
	    int max_boots);

/*
 * The verdict of a comparison that produced no samples on one side:
 * stats_failed_verdict(buf, sz, "patched", "panicked") gives
 * "failed: every patched boot panicked".  Returns buf.
 */
char	*stats_failed_verdict(char *buf, size_t sz, const char *side,
	    const char *how);

/* Mann-Whitney U test of x (n) against y (m), two-sided p-value.
   *exact says which distribution was used.  Exposed for tests. */
double	stats_mann_whitney(const double *x, size_t n, const double *y,
	    size_t m, int *exact);

/* ---- output ----------------------------------------------------------- */

/*
 * A new JSON object (the caller decrefs it), rows in table order:
 *   {"options": {"seed","resamples","alpha","looks","equiv_margin",
 *                "nochange_halfwidth","ci_level"},
 *    "counts": {"no change": n, "improvement": n, ...},
 *    "rows": [{"workload","params","metric","unit","better":"higher",
 *              "verdict","reason","significant":bool,"pct_change",
 *              "ci95":[lo,hi],"p_value","p_exact":bool,"alpha_look",
 *              "base": {"boots","samples","mean","pct_stddev",
 *                       "boot_means":[{"boot","mean"}]} or null,
 *              "test": {...} or null}]}
 * Numbers not computed (a missing side, too few boots) are null.
 */
json_t	*stats_result_to_json(const struct stats_result *);
/*
 * The inverse (daemon/stats_json.c), for results stored once and read
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
