/*
 * noise: the boot-to-boot spread an agent class has shown, row by row.
 *
 * Every finished comparison stores, per row (workload, params, metric),
 * the spread of each side's per-boot means (pct_stddev, % of the mean,
 * over nboots boots).  Pooled over the class's past comparisons, that is
 * the noise a new comparison on the class should expect: the pooled
 * variance sum((n_i - 1) s_i^2) / sum(n_i - 1) over every side of every
 * comparison that measured the row with two boots or more.  It tells how
 * many boots a claimed change needs before anything runs ("boots":
 * "auto") and, next to each claim, on what noise that number rests.
 */
#ifndef KPERFCI_NOISE_H
#define KPERFCI_NOISE_H

#include <stddef.h>

struct db;

/* Comparisons read at most: the newest ones say how the class is now. */
#define NOISE_MAX_COMPARISONS	50

struct noise_row {
	char	*workload, *params, *metric;
	int	 better;	/* +1 higher is better, -1 lower */
	double	 cv_pct;	/* pooled per-boot % stddev: sqrt(ss / dof) */
	double	 ss;		/* sum of (boots - 1) stddev^2 pooled */
	int	 dof;		/* sum of (boots - 1) pooled */
	int	 ncomparisons;	/* comparisons that measured it */
};

struct noise {
	struct noise_row *v;
	size_t	 n, cap;
	int	 ncomparisons;	/* finished comparisons read */
};

/*
 * The noise of class from its finished comparisons older than before_id
 * (0: all), newest NOISE_MAX_COMPARISONS.  0 (n may be 0: no history),
 * or -1 when the store cannot be read.  Results that do not parse are
 * skipped.
 */
int	noise_class(struct db *, const char *class, long long before_id,
	    struct noise *);
/* Pools one stored result (stats_result_to_json text) into nz. */
void	noise_add_result(struct noise *nz, const char *result_json);
/* The row's entry, or NULL. */
const struct noise_row *noise_find(const struct noise *, const char *workload,
	    const char *params, const char *metric);
void	noise_release(struct noise *);

#endif
