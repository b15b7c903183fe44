/*
 * report: the result of a series' A/B comparison, as one model and three
 * renderings of it: the series page's comparison section (HTML with inline
 * SVG charts), the comparison JSON (GET /api/v1/series/{id}/comparison) and
 * the plain-text report (GET /series/{id}/report.txt, kernel test robot
 * style, for replying to the thread).
 *
 * The model (struct report) is filled from the store by report_load (the
 * series, its base choice and builds, the scheduler's comparison, each
 * side's samples and lock profiles) and holds no database handle, so the
 * renderers are pure functions that unit tests call on constructed models.
 * All three renderings say the same thing: the rows come from one
 * stats_compare (core/stats.h) over each side's samples.
 *
 * Rules every renderer keeps: outside text (subjects, names, workload and
 * metric names, console paths) is escaped for HTML or stripped of control
 * bytes for text; a number that is not finite is never printed ("-" or
 * JSON null); a side whose every boot failed is a verdict of its own
 * ("failed: every patched boot panicked") with links to its console logs.
 */
#ifndef KPERFCI_REPORT_H
#define KPERFCI_REPORT_H

#include <stddef.h>

#include <jansson.h>

#include "daemon/http.h"
#include "core/stats.h"
#include "lib/buf.h"

struct db;

enum { REPORT_BASE = 0, REPORT_PATCHED = 1 };

/* "base" / "patched". */
const char *report_side_name(int side);

struct report_kernel {
	char	*commit;		/* 40 hex or NULL */
	long long build_id;		/* 0: none yet */
	char	*build_state;		/* "queued", "building", "done"... */
	int	 build_progress;	/* percent, -1 unknown */
	char	*build_error;
};

/* One boot (a job) of one side. */
struct report_job {
	long long id;
	int	 side;			/* REPORT_BASE / REPORT_PATCHED */
	int	 boot;			/* boot number within the side */
	char	*state;			/* queued leased done failed
					   boot-failed */
	char	*reason;		/* why, for failed states, or NULL */
	char	*agent;			/* who ran / runs it, or NULL */
	char	*console;		/* URL path of its console log, or
					   NULL */
	char	*progress;		/* a leased job's last heartbeat, or
					   NULL */
};

struct report_caller {
	char	*symbol;
	double	 share[2];		/* of all kernel samples; NAN absent */
};

/* One lock in the lock-profile diff: mean share per side over boots. */
struct report_lock {
	char	*lock;			/* the lock's name ("lru_lock") */
	char	*symbol;		/* where it spins ("_raw_spin_lock") */
	double	 share[2];		/* NAN: not in that side's profile */
	struct report_caller *callers;
	size_t	 ncallers;
	size_t	*caller_ix;		/* while summing: a hash of callers
					   (report.c), NULL once sorted */
	size_t	 caller_ixcap;
};

/* The profile of one lock-profile run (one params string), both sides. */
struct report_profile {
	char	*params;
	int	 nprofiles[2];		/* boots that returned a profile */
	struct report_lock *locks;	/* by max share, largest first */
	size_t	 nlocks;
	size_t	*lock_ix;		/* while summing: a hash of locks */
	size_t	 lock_ixcap;
};

/*
 * Lock contention: the contention pass of lock-profile uploads ordinary
 * samples, one series per (lock, metric) with lock=NAME in the params
 * (agents/load/lockstat.h).  report_compute compares them like every
 * other metric, then moves their rows out of the main table into
 * r->contention, so they are shown per lock and do not count towards the
 * overall verdict (that stays about throughput and latency; the lock
 * table explains it).  One report_lockrow per (run, lock).
 */
enum {
	REPORT_WAIT_SHARE, REPORT_WAIT_TOTAL, REPORT_WAIT_COUNT,
	REPORT_WAIT_MAX, REPORT_WAIT_METRICS
};

struct report_lockrow {
	char	*run;			/* the run's params without lock= */
	char	*lock;			/* the lock's name */
	const struct stats_row *m[REPORT_WAIT_METRICS];	/* borrowed from
					   r->contention; NULL absent */
};

/* 1 for a row of the contention pass (workload lock-profile, lock=). */
int	report_row_is_contention(const struct stats_row *);

struct report_side {
	int	 planned, done, failed, running;
};

/* One changed function of the series and its calls per side. */
struct report_fn {
	char	*name, *file, *symbol;
	char	*status;		/* probed inlined specialised ambiguous
					   "not probed" unknown */
	char	*note;			/* why not countable, or "" */
	int	 added;			/* new in the series */
	long long hits[2];		/* summed over the side's boots */
	int	 counted[2];		/* boots that reported a count */
	int	 refused[2];		/* boots whose kernel refused the probe */
};

/* Was the changed code exercised (report_exercise.c)? */
enum report_ex_state {
	REPORT_EX_NONE = 0,		/* no change analysis stored */
	REPORT_EX_UNMEASURED,		/* countable functions, no counts yet */
	REPORT_EX_UNCOUNTABLE,		/* no countable function (inlined...) */
	REPORT_EX_EXERCISED,		/* a countable function ran */
	REPORT_EX_NOT_EXERCISED,	/* none ran, on either side */
};

struct report_exercise {
	enum report_ex_state state;
	json_t	*changes;		/* the stored plan (owned) or NULL */
	struct report_fn *fns;
	size_t	 nfns, ncountable;
	/* the environment, per side: of the side's last boot that said */
	json_t	*env[2];		/* owned or NULL */
	int	 emulated;		/* some boot ran under TCG */
	char	*accel;			/* e.g. "tcg, icount shift=3..." */
	int	 splats[2], runs[2];	/* fail:runs, kernel test robot style */
	char	*splat[2];		/* the first splat line per side */
};

struct report {
	/* the series */
	long long series_id;
	char	*series_state;		/* pipeline state */
	int	 series_final;		/* it rests: a final state, or a
					   stage can do nothing (series_rest) */
	char	*series_rest;		/* why it rests before the end ("no
					   agent is configured"), or NULL */
	char	*series_error;
	char	*subject, *author, *source;	/* source: lore URL or NULL */
	int	 version;
	/* base choice and kernels (trees/builds) */
	char	*tree, *base_commit, *base_kind, *base_reason;
	struct report_kernel kernel[2];
	/* the comparison (scheduler); comparison_id 0: none yet */
	long long comparison_id;
	char	*state;			/* "running", "done", "failed"... */
	char	*error;			/* why it failed, or NULL */
	char	*hw_class;		/* "2s-2n-4c-..." */
	char	*topology;		/* one line: "2 sockets, 2 NUMA nodes,
					   4 CPUs, <model>" or NULL */
	int	 cpus, cpus_per_node;	/* of that machine (the fewest on one
					   node); 0 unknown */
	char	*agent;			/* current agent, or NULL */
	char	*matrix;		/* the job definition text */
	int	 looks;			/* looks taken so far */
	struct report_side side[2];
	struct report_job *jobs;
	size_t	 njobs;
	/* results */
	int	 have_result;		/* result below is filled */
	int	 computing;		/* REPORT_NOWAIT found another request
					   computing it: no result, or the
					   last upload's (stale) */
	int	 stale;			/* the result is the last upload's */
	struct stats_result result;
	struct report_profile *profiles;
	size_t	 nprofiles;
	/* lock contention (filled with result) */
	struct stats_result contention;	/* its rows, same statistics */
	struct report_lockrow *locks;	/* by run, "(all)" first, then by
					   wait share, largest first */
	size_t	 nlocks;
	/* the changed code, the environment (report_exercise.c) */
	struct report_exercise ex;
	/* the author's claims and their checks (report_claims.c) */
	struct report_claims *claims;
};

/*
 * Why the lock contention table cannot show a lock, in words, or NULL
 * when it can: lock:contention_begin fires only from a lock's third
 * contender (qspinlock's first waiter spins on the pending bit untraced),
 * so on a machine with at most 2 CPUs per node a per-node lock (lru_lock,
 * a list_lru node's lock) never appears, and with at most 2 CPUs no lock
 * does.  NULL also when the topology is unknown.
 */
const char *report_lock_blind(const struct report *);

/* report_claims.c: the author's claims, checked against the result. */
int	report_claims_load(struct db *, struct report *);
/* (the claims of a stored series: daemon/claims_series.h) */
void	report_claims_free(struct report *);
size_t	report_claims_count(const struct report *);
json_t	*report_claims_json(const struct report *);
void	report_claims_text(const struct report *, struct buf *);
void	report_claims_html(const struct report *, struct buf *);

void	report_init(struct report *);
void	report_release(struct report *);

/*
 * Fills r for series id from the store.  0 (found; r->comparison_id may be
 * 0 while no comparison exists yet), 1 no such series, -1 (logged).
 * with_result 0 skips the samples, the statistics and the lock profiles
 * (r->have_result stays 0): progress only, for pollers.
 *
 * Results are computed once (DESIGN in report_cache.c): a finished
 * comparison's statistics and lock-profile diff are read from the store
 * (computed and stored at its first view if the scheduler did not store
 * them); a live one's are recomputed only when a new upload changed its
 * samples (a cache keyed by db_report_key), never on every GET.  The
 * bootstrap costs about 0.2 s for 30 rows of 24 boots, and seconds for
 * large uploads.
 */
int	report_load(struct db *, long long series_id, int with_result,
	    struct report *r);
/* with_result for request threads: the result, but never waiting for
   another thread computing the same comparison (r->computing). */
#define REPORT_NOWAIT	2
/* How many times report_load ran the statistics (for tests). */
unsigned long report_computations(void);
/* Marks comparison cid computed by someone (on 1) or not (0), as a
   thread computing it would (for tests). */
void	report_busy_hold(long long cid, int on);
/* Forgets the live results held in memory (for tests). */
void	report_cache_clear(void);

/*
 * Computes r->result from each side's samples (stats JSON lines, as agents
 * upload them) with opts (NULL: defaults).  An empty side gives rows whose
 * verdict is "missing".  0, or -1 with a sentence in err.
 */
int	report_compute(struct report *r, const char *base_jsonl, size_t blen,
	    const char *test_jsonl, size_t tlen, const struct stats_opts *opts,
	    struct buf *err);

/*
 * Fills r->profiles, the lock-profile diff, from each side's profiles
 * (arrays of the "type":"lock-profile" objects kperfci-load prints; NULL
 * for none): per lock and caller, the mean share over that side's
 * profiles.  Malformed entries are skipped.  Returns 0.
 */
int	report_set_profiles(struct report *r, const json_t *base,
	    const json_t *patched);

/*
 * The overall verdict in words: "regression", "improvement", "no change",
 * "inconclusive", "running", "failed: every patched boot panicked",
 * "waiting: <why the series rests>"...
 * Writes into buf (sz bytes), returns buf.
 */
const char *report_verdict(const struct report *r, char *buf, size_t sz);

/* 1 while the comparison can still change (the page refreshes itself). */
int	report_is_live(const struct report *r);

/* The comparison section of the series page: a <section id="result">. */
void	report_html(const struct report *r, struct buf *out);

/* The comparison JSON (a new object). */
json_t	*report_json(const struct report *r);

/*
 * The plain-text report; server is the daemon's base URL for links
 * ("http://host:port"), or NULL.
 */
void	report_text(const struct report *r, const char *server,
	    struct buf *out);

/*
 * The kernel-test-robot table of r->result as text (also used by the
 * report and by `kperfci submit --wait`): no NaN, no control bytes.
 */
void	report_table_text(const struct stats_result *res, struct buf *out);

/* ---- the changed code and the environment (report_exercise.c) --------- */

/*
 * Fills r->ex from a stored plan (exercise.h: comparisons.changes) and the
 * attempts' rows (db_exercise_attempts: probe_hits, environment, splats),
 * and decides r->ex.state.  Pure: the caller reads the store.  changes is
 * borrowed (a reference is kept).
 */
void	report_exercise_set(struct report *r, json_t *changes,
	    const json_t *attempts);
void	report_exercise_release(struct report_exercise *);
/*
 * The verdict word a row shows: "not exercised" when the series' changed
 * functions never ran (r->ex.state REPORT_EX_NOT_EXERCISED) and the row
 * has numbers on both sides; else the statistics' verdict.
 */
const char *report_row_verdict(const struct report *r,
	    const struct stats_row *row);
/* The sections of the three renderings. */
void	report_exercise_html(const struct report *r, struct buf *out);
void	report_exercise_text(const struct report *r, struct buf *out);
void	report_exercise_json(const struct report *r, json_t *obj);
/* The kernel-test-robot table with a verdict per row from r (NULL: the
   statistics' own) and a mark after every row ("emulated") or NULL. */
void	report_table_text_ex(const struct stats_result *res,
	    const struct report *r, struct buf *out);

/* ---- where the report plugs into the daemon ------------------------- */

/* api_comparison.c: "result" links in the series JSON, and the routes
 *	GET /api/v1/series/{id}/comparison	report_json
 *	GET /series/{id}/report.txt		report_text */
int	api_comparison_series_json(struct db *, long long series_id,
	    json_t *obj);
extern const struct route api_comparison_routes[];

#endif
