/*
 * changepoint: change points in a tracked tree's history of one
 * (workload, params, metric).
 *
 * The history is a list of nights (runs), each with the per-boot means of
 * its boots (the boot is the unit of replication, as in stats.c).  A
 * change point is the first night of a new level.  The method and its
 * numbers are argued in the DESIGN comment at the top of changepoint.c;
 * tests/unit/t-changepoint.c checks them and `make bench-changepoint`
 * prints the detection and false-alarm rates.
 *
 * No I/O, no daemon: the nightly pipeline (track.c), the unit tests and the
 * benchmark share it.
 */
#ifndef KPERFCI_CHANGEPOINT_H
#define KPERFCI_CHANGEPOINT_H

#include <stddef.h>

#define CHANGEPOINT_DEFAULT_ALPHA	0.01	/* per permutation test */
#define CHANGEPOINT_DEFAULT_PERMS	199
#define CHANGEPOINT_DEFAULT_MIN_EFFECT	1.5	/* % */
#define CHANGEPOINT_MAX_BOOTS		20000	/* in one history */

struct changepoint_opts {
	double	 alpha;		/* significance of each split */
	int	 permutations;	/* permutations per split test */
	double	 min_effect;	/* %: smaller level changes are not
				   reported (they still split) */
	size_t	 min_boots;	/* boots on each side of a split (2) */
	unsigned long seed;	/* permutation RNG (default 1) */
};

void	changepoint_opts_init(struct changepoint_opts *);

struct changepoint {
	size_t	 night;		/* index of the first night of the new level */
	size_t	 nboots_before, nboots_after;	/* in the adjacent segments */
	double	 mean_before, mean_after;	/* of per-boot means */
	double	 pct_change;	/* 100 * (after / before - 1) */
	double	 ci_lo, ci_hi;	/* 95% (Welch) interval of pct_change */
	double	 p_value;	/* permutation p of the split */
};

/*
 * Detects change points in a history of nnights nights: night i holds the
 * boot values v[start[i]] .. v[start[i + 1] - 1] (start has nnights + 1
 * entries, non-decreasing; a night may hold no boots, it then cannot be a
 * change point's first night).  Values must be finite.  *out (malloc'd,
 * the caller frees it) receives the change points whose |pct_change| is at
 * least opts->min_effect, ordered by night.  Deterministic for a given
 * opts->seed.  Returns 0, or -1 on bad input (message in err).
 */
int	changepoint_detect(const double *v, const size_t *start, size_t nnights,
	    const struct changepoint_opts *, struct changepoint **out,
	    size_t *nout, char *err, size_t errsz);

/*
 * 1 if the change is a regression for a metric whose better direction is
 * better (+1 higher, -1 lower) and at least min_effect %, else 0.
 */
int	changepoint_is_regression(const struct changepoint *, int better,
	    double min_effect);

#endif
