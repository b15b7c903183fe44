/*
 * claims: the quantitative claims a series makes about itself, read from
 * its cover letter and patch changelogs, and checked against a comparison.
 *
 * A kernel developer backs a series with numbers ("shmem, 80 threads
 * 7.94M 10.33M (+30%)", "~25% improvement for multi-cgroup SWAP", "the lru
 * lock contention dropped to 43%", mmtests and kernel test robot tables,
 * time(1) and perf before -> after).  claims_extract() finds them with
 * the rules listed at the top of claims.c, one claim per number (or pair
 * of numbers), each with the metric words and conditions nearest to it;
 * what looks like a claim but matches no rule is kept as text with kind
 * CLAIM_UNKNOWN (nothing is invented).  Configuration values, versions,
 * machine sizes and counts are never claims.  claims_check() maps a claim to the comparison row it speaks
 * about and says whether the measurement agrees; claims_boots_needed()
 * says how many boots per side it would take to tell.
 *
 * Core library: includes neither daemon/app.h nor db.h.
 */
#ifndef KPERFCI_CLAIMS_H
#define KPERFCI_CLAIMS_H

#include <stddef.h>

struct buf;
struct json_t;

enum claim_kind {
	CLAIM_CHANGE,	/* a relative change: "+30%", "25% improvement" */
	CLAIM_BEFORE_AFTER, /* two values, before and after (a change) */
	CLAIM_LEVEL,	/* one value ("52.8% of cycles", "69us"): context */
	CLAIM_UNKNOWN,	/* a number that reads like a claim; no rule fits */
};

/* Which way a CLAIM_CHANGE without a sign goes. */
enum claim_dir {
	CLAIM_DIR_NONE,		/* signed by the numbers themselves */
	CLAIM_DIR_UP,		/* "increase", "more", "higher" */
	CLAIM_DIR_DOWN,		/* "reduction", "dropped", "less" */
	CLAIM_DIR_BETTER,	/* "improvement", "faster": by the metric */
	CLAIM_DIR_WORSE,	/* "regression", "slower" */
};

/* What a claim measures (from its metric words). */
enum claim_metric {
	CLAIM_M_NONE,
	CLAIM_M_RATE,		/* throughput, pages/s, ops: higher is better */
	CLAIM_M_TIME_REAL,	/* real / wall / elapsed time */
	CLAIM_M_TIME_SYS,	/* sys time */
	CLAIM_M_TIME_USER,	/* user time */
	CLAIM_M_LATENCY,	/* latency, "took 69us" */
	CLAIM_M_LOCK,		/* lock contention, share of cycles */
	CLAIM_M_PROFILE,	/* a perf profile share of a function */
	CLAIM_M_OTHER,		/* a named metric no class fits (LKP rows) */
};

#define CLAIM_NONE	(-1)	/* an unknown condition */

struct claim_cond {
	int	 threads, processes, cpus, memcgs;	/* CLAIM_NONE: unsaid */
	int	 folio_kb;	/* large folio size: 16 for order 2, 2048 PMD */
	char	 mode[8];	/* "shmem", "anon", "file" or "" */
	char	 workload[16];	/* fault-free, page-fault, swap-memhog,
				   file-read, memcg-flush, or "" */
	char	 lock[24];	/* lru_lock, split_queue_lock, zone_lock,
				   list_lru, rstat or "" */
};

struct claim {
	enum claim_kind	 kind;
	const char	*rule;		/* name of the rule that matched */
	char		*text;		/* the sentence or table row, one line */
	char		*where;		/* "cover letter", "patch 2/7" */
	char		*words;		/* metric words found, ", "-separated */
	enum claim_metric metric;
	enum claim_dir	 dir;
	int		 has_before, has_after, has_change;
	double		 before, after;	/* in the unit of the text */
	double		 change_pct;	/* signed when has_change */
	int		 has_points;	/* the author gave the change in points */
	double		 change_pts;	/* (a % metric: "-3.1" of sys%) */
	char		 unit[8];	/* "%", "s", "us", "" (counts) */
	struct claim_cond cond;
};

struct claims {
	struct claim	*v;
	size_t		 n, cap;
};

/*
 * Extracts the claims of one message body (a cover letter or a patch's
 * commit message; quoted lines, the diff and the signature are skipped)
 * and appends them to out.  where names the message in each claim.
 */
void	claims_extract(struct claims *out, const char *body, const char *where);
/* The cover letter's and every patch's claims ("patch 2/7"). */
struct series;
void	claims_extract_series(struct claims *out, const struct series *);
void	claims_release(struct claims *);

/* The JSON list of claims: [{text, where, rule, kind, metric_words,
   metric, before, after, change_pct, change_points, direction, unit,
   conditions}]. */
struct json_t *claims_to_json(const struct claims *);
struct json_t *claim_to_json(const struct claim *);

/* Names for the enums (JSON, pages). */
const char *claim_kind_name(enum claim_kind);
const char *claim_metric_name(enum claim_metric);
const char *claim_dir_name(enum claim_dir);

/*
 * One row of a comparison as a claim check sees it (borrowed strings).
 * better: +1 higher is better, -1 lower is better.
 */
struct claim_row {
	const char	*workload, *params, *metric, *verdict;
	int		 better;
	double		 change_pct, ci_lo, ci_hi;	/* % */
	double		 cv_pct;	/* per-boot %stddev (pooled) */
	double		 alpha;		/* the level the row was tested at */
	int		 exercised;	/* 0: the changed code never ran */
};

enum claim_verdict {
	CLAIM_CONSISTENT,	/* the claim lies in the CI, or the CI beyond */
	CLAIM_SMALLER,		/* same direction, smaller than claimed */
	CLAIM_NOT_REPRODUCED,	/* no change, and the changed code ran */
	CLAIM_OPPOSITE,		/* a change the other way */
	CLAIM_UNDECIDED,	/* the CI holds both 0 and the claim */
	CLAIM_NOT_MEASURED,	/* no row speaks about it (why: in `why`) */
	CLAIM_NOT_UNDERSTOOD,	/* the text matched no rule */
	CLAIM_CONTEXT,		/* a level, not a change: nothing to check */
};

struct claim_check {
	enum claim_verdict verdict;
	int		 row;		/* index into rows, -1 none */
	double		 expected_pct;	/* the claim in the row's terms */
	int		 has_expected;
	char		 why[160];	/* for not measured / context */
};

const char *claim_verdict_name(enum claim_verdict);

/*
 * Maps claim c to the row of rows[0..n) it speaks about (workload and
 * metric, then the task count nearest the claim's threads or processes,
 * as a share of the author's machine when the letter names its CPUs) and
 * judges it; out->why says which row was chosen by the count and why, or
 * why none could be.
 */
void	claims_check(const struct claim *c, const struct claim_row *rows,
	    size_t n, struct claim_check *out);

/*
 * Boots per side a two-sided test at level alpha needs to find a change of
 * effect_pct with the given power, when per-boot means spread by cv_pct
 * (Welch/t approximation, iterated on the degrees of freedom).  Returns
 * -1 when effect_pct or cv_pct is not positive.
 */
int	claims_boots_needed(double cv_pct, double effect_pct, double alpha,
	    double power);

#endif
