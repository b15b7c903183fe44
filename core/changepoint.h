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
#define CHANGEPOINT_DEFAULT_CONFIRM	2	/* nights a point must be seen */
#define CHANGEPOINT_DEFAULT_HORIZON	4	/* nights it may still open */
#define CHANGEPOINT_DEFAULT_OPEN_P	1e-5	/* online: p to open */
#define CHANGEPOINT_DEFAULT_SUSPECT_P	0.1	/* online: p for more boots */
#define CHANGEPOINT_DEFAULT_WINDOW	30	/* online: baseline nights */
#define CHANGEPOINT_DEFAULT_MIN_NIGHTS	5	/* online: before a candidate */
#define CHANGEPOINT_DEFAULT_MIN_AFTER	6	/* online: boots to open */
#define CHANGEPOINT_DEFAULT_LOC_MARGIN	4.0	/* online: z^2 below the best
						   still a likely first night */
#define CHANGEPOINT_DEFAULT_EARLY_CV	3.0	/* online: %, the least night
						   spread of a short baseline */

struct changepoint_opts {
	double	 alpha;		/* significance of each split */
	int	 permutations;	/* permutations per split test */
	double	 min_effect;	/* %: smaller level changes are not
				   reported (they still split) */
	size_t	 min_boots;	/* boots on each side of a split (2) */
	unsigned long seed;	/* permutation RNG (default 1) */
	int	 confirm;	/* nightly: analyses in a row that must
				   show the point (1: the night it shows) */
	int	 horizon;	/* nightly: a point older than this many
				   nights is no longer opened (0: never
				   too old); online: the candidates */
	double	 open_p;	/* online: one-sided p that opens */
	double	 suspect_p;	/* online: one-sided p that asks for
				   more boots of tonight's kernel */
	int	 window;	/* online: baseline nights at most */
	int	 min_nights;	/* online: baseline nights at least */
	int	 min_after;	/* online: boots after the change before it
				   opens (fewer: suspect at most) */
	double	 loc_margin;	/* online: the first bad nights kept likely
				   (z^2 within this of the largest) */
	double	 early_cv;	/* online, a baseline under min_nights:
				   its night-to-night spread is taken as at
				   least this % (0: its own estimate, with
				   its few degrees of freedom) */
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

/*
 * The nightly rule, as the daemon applies it after every night: the
 * regressions (bad direction for better, at least min_effect) that the
 * analysis of the whole history confirms tonight.  A change point is
 * confirmed when the analyses of the last opts->confirm histories (all
 * nights, all but the last, ...) each hold a regression at the same first
 * bad night, and it is at most opts->horizon nights old (its first bad
 * night is one of the last horizon nights).  The daemon opens a
 * regression for each confirmed point it has not opened yet; the design
 * comment in changepoint.c argues the numbers.  *out as for
 * changepoint_detect (figures from the whole history).  0 or -1.
 */
int	changepoint_nightly(const double *v, const size_t *start,
	    size_t nnights, const struct changepoint_opts *, int better,
	    struct changepoint **out, size_t *nout, char *err, size_t errsz);

/*
 * changepoint_nightly's rule on analyses already made: an[j] (nan[j]
 * points) is changepoint_detect's answer for the first nnights - j nights,
 * j < opts->confirm (a history shorter than confirm nights confirms
 * nothing).  Borrowed; *out as above.  The benchmark keeps the analyses of
 * the previous nights and calls this, which is what changepoint_nightly
 * computes.
 */
void	changepoint_confirm(struct changepoint *const *an, const size_t *nan,
	    size_t nnights, const struct changepoint_opts *, int better,
	    struct changepoint **out, size_t *nout);

/*
 * The online rule: what the daemon does after every night (and after
 * every extension of a night by more boots).  The candidates are the first
 * bad nights among the last opts->horizon nights; each is tested against
 * the baseline before it (at most opts->window nights, at least
 * opts->min_nights, never before night `since`, the first bad night of the
 * last regression opened, nor before the last change point
 * changepoint_detect finds in the window), one-sided in the metric's bad
 * direction, with the boot-to-boot and the night-to-night variance the
 * baseline shows.  changepoint.c argues it; bench-changepoint measures it
 * re-run after every night.
 */
enum {
	CHANGEPOINT_NONE = 0,
	CHANGEPOINT_SUSPECT,	/* p <= suspect_p: boot tonight's kernel more */
	CHANGEPOINT_OPEN	/* p <= open_p and >= min_effect: a regression */
};

struct changepoint_alarm {
	int	 state;		/* CHANGEPOINT_NONE, _SUSPECT or _OPEN */
	struct changepoint c;	/* the surest candidate (when not NONE):
				   night, sizes, %change, 95% CI, p */
	double	 z;		/* its statistic, in standard errors */
	size_t	 base_night;	/* the first night of its baseline */
	size_t	 night_lo, night_hi;	/* the first bad night lies in
				   [night_lo, night_hi] (c.night the likeliest):
				   the candidates whose statistic is within
				   the location margin of the largest */
};

int	changepoint_online(const double *v, const size_t *start,
	    size_t nnights, size_t since, const struct changepoint_opts *,
	    int better, struct changepoint_alarm *out, char *err,
	    size_t errsz);

#endif
