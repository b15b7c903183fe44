/*
 * pipeline: background workers moving series through their stored states.
 *
 *	queued -> fetched -> applied -> built -> running -> done | failed
 *
 * Each step is one row of the stage table in pipeline.c:
 *
 *	{ "fetched", stage_apply, "applied" },
 *
 * A worker takes a series whose state is some row's from_state, runs the
 * stage function with its own db connection, and on success moves the
 * series to to_state (unless the function already moved it: it may store
 * its results and the new state in one transaction with
 * db_series_set_state or db_series_store_picked).  On failure the series
 * becomes `failed` with the function's sentence; nothing else stored is
 * touched.  A stage may also say "not yet" (an outside event pending, e.g.
 * agents still running): the series stays where it is and is looked at
 * again after [daemon] poll seconds.  Or it may say "rest" (nothing can
 * happen without new configuration): the reason is stored, the series is
 * shown as at rest, and it is looked at again after the next start-up.
 *
 * States live in the store only, so a restart resumes every series: at
 * start-up every series in a from_state is simply picked up again.  A
 * state that is nobody's from_state is where a series rests (fetched until
 * the build stages exist; done; failed).
 */
#ifndef KPERFCI_PIPELINE_H
#define KPERFCI_PIPELINE_H

#include "lib/buf.h"

struct db;

struct stage_ctx {
	struct db *db;			/* this worker's connection */
	long long series_id;
	const char *from, *to;		/* the row being run */
	struct buf err;			/* the failure sentence */
	volatile int *stop;		/* non-zero: daemon stopping, return */
};

/* Stage function results. */
#define STAGE_OK	0		/* move to to_state */
#define STAGE_FAIL	(-1)		/* failed, reason in ctx->err */
#define STAGE_WAIT	1		/* not yet: look again later */
#define STAGE_REST	2		/* nothing more can happen without new
					   configuration (no tree, no agent):
					   the series rests here, reason in
					   ctx->err; looked at again after a
					   restart */

/*
 * Queues (redis bio style): each kind of blocking work has its own
 * workers, so a long kernel build never holds the worker that would fetch,
 * apply or schedule the next series.
 */
#define PIPELINE_Q_MAIN		0	/* fetch, apply, scheduling */
#define PIPELINE_Q_BUILD	1	/* kernel builds: [build] slots workers */
#define PIPELINE_NQUEUES	2

struct stage {
	const char *from;
	int	(*fn)(struct stage_ctx *);
	const char *to;
	int	 queue;			/* PIPELINE_Q_*; 0 by default */
};

/*
 * Starts nworkers threads for the main queue and nbuild for the build
 * queue (nbuild 0: the main workers take build stages too).  0 or -1.
 */
int	 pipeline_start(int nworkers, int nbuild, int poll_sec);
/* Wakes the workers (a new series was stored). */
void	 pipeline_kick(void);
/* Asks workers to stop and joins them. */
void	 pipeline_stop(void);

/*
 * Runs one pass synchronously on db: every series in a from_state gets its
 * stage run once.  Returns how many stages ran.  For tests and -n checks.
 */
int	 pipeline_run_once(struct db *);
/* The same for the one stage starting at from_state (unit tests of a
   stage that must not run the stages after it). */
int	 pipeline_run_stage(struct db *, const char *from_state);

/* Replaces the stage table (unit tests); NULL restores the daemon's. */
void	 pipeline_set_stages(const struct stage *, size_t n);

/* 1 if no stage row starts from state (the series rests there). */
int	 pipeline_state_is_final(const char *state);
/* 1 if the series rests: a final state, or a stage said STAGE_REST. */
struct db_series;
int	 pipeline_series_rests(const struct db_series *);

/*
 * The stage functions of the daemon's table, declared here as routes.h
 * declares the route tables: each stage's file implements its rows and
 * includes this header; pipeline.c calls them only through the table, so
 * the pipeline never includes a stage's file (the floors of t0010).
 */
/* queued -> fetched (intake.c) */
int	 stage_fetch(struct stage_ctx *);
/* fetched -> applied: choose the base, apply the series (stage_build.c) */
int	 stage_apply(struct stage_ctx *);
/* applied -> built: build base, then patched from it (stage_build.c) */
int	 stage_build(struct stage_ctx *);
/* built -> running, running -> done: the comparison (sched.c) */
int	 stage_sched_start(struct stage_ctx *);
int	 stage_sched_wait(struct stage_ctx *);

#endif
