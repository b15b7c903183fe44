/*
 * pipeline: the stage table and the worker threads (see pipeline.h).
 *
 * DESIGN: two queues, like redis's bio.c: the main queue (fetch, apply,
 * starting and watching comparisons: seconds each) and the build queue
 * (kernel builds: minutes each).  A stage row names its queue; each
 * queue has its own workers ([daemon] workers main ones, [build] slots
 * build ones), so three series submitted while a build runs are fetched
 * and applied at once and only wait for a build slot, and a finished
 * comparison's next look is scheduled while builds run.  Within a queue
 * workers share nothing but a mutex-protected set of series ids being
 * worked on (so two workers never run the same series) and a condition
 * variable that pipeline_kick() signals.  Each worker loops: ask the store
 * for series in any from_state of its queue, claim the first unclaimed
 * one, run its stage outside the lock, store the outcome, repeat; when
 * nothing is left, sleep until kicked or for [daemon] poll seconds.
 * Series waiting on outside events (STAGE_WAIT) are remembered with a
 * not-before time so they are not spun on.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/pipeline.h"
#include "lib/log.h"
#include "lib/xalloc.h"

static const struct stage pipeline_stages[] = {
	{ "queued", stage_fetch, "fetched" },
	/* trees and builds: fetched -> applied -> built */
	{ "fetched", stage_apply, "applied" },
	{ "applied", stage_build, "built", PIPELINE_Q_BUILD },
	/* scheduler: built -> running -> done */
	{ "built", stage_sched_start, "running" },
	{ "running", stage_sched_wait, "done" },
};

/* The table in use: pipeline_stages, or a test's own (pipeline_set_stages). */
static const struct stage *pl_stages = pipeline_stages;
static size_t pl_nstages = sizeof(pipeline_stages) / sizeof(pipeline_stages[0]);
#define NSTAGES pl_nstages

void
pipeline_set_stages(const struct stage *stages, size_t n)
{
	pl_stages = stages ? stages : pipeline_stages;
	pl_nstages = stages ? n :
	    sizeof(pipeline_stages) / sizeof(pipeline_stages[0]);
}

#define PIPELINE_MAX_IDS 64

static pthread_mutex_t pl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pl_cond = PTHREAD_COND_INITIALIZER;
static pthread_t *pl_threads;
static int pl_nthreads;
static int pl_poll = 5;
static volatile int pl_stop;
static unsigned pl_kicks;

/*
 * Series being worked on (at most one per worker), and series whose stage
 * said "wait" with the time before which they are not looked at again
 * (grows with the number of waiting series; entries go when they expire).
 */
static long long *pl_busy;
static size_t pl_nbusy;
static struct pl_wait {
	long long id;
	time_t	 until;
} *pl_wait;
static size_t pl_nwait, pl_wait_cap;

int
pipeline_state_is_final(const char *state)
{
	size_t i;

	for (i = 0; i < NSTAGES; i++)
		if (!strcmp(pl_stages[i].from, state))
			return 0;
	return 1;
}

int
pipeline_series_rests(const struct db_series *s)
{
	return s->rest != NULL || pipeline_state_is_final(s->state);
}

static const struct stage *
pipeline_stage_for(const char *state)
{
	size_t i;

	for (i = 0; i < NSTAGES; i++)
		if (!strcmp(pl_stages[i].from, state))
			return &pl_stages[i];
	return NULL;
}

/* Caller holds pl_lock. */
static int
pipeline_claimable(long long id)
{
	time_t now = time(NULL);
	size_t i;

	for (i = 0; i < pl_nbusy; i++)
		if (pl_busy[i] == id)
			return 0;
	for (i = 0; i < pl_nwait; i++)
		if (pl_wait[i].id == id) {
			if (pl_wait[i].until > now)
				return 0;
			pl_wait[i] = pl_wait[--pl_nwait];
			break;
		}
	return 1;
}

static void
pipeline_unclaim(long long id, int wait)
{
	size_t i;

	pthread_mutex_lock(&pl_lock);
	for (i = 0; i < pl_nbusy; i++)
		if (pl_busy[i] == id) {
			pl_busy[i] = pl_busy[--pl_nbusy];
			break;
		}
	if (wait) {
		time_t now = time(NULL);

		/* drop expired entries of series that moved on meanwhile */
		for (i = 0; i < pl_nwait;)
			if (pl_wait[i].until <= now)
				pl_wait[i] = pl_wait[--pl_nwait];
			else
				i++;
		if (pl_nwait == pl_wait_cap) {
			pl_wait_cap = pl_wait_cap ? 2 * pl_wait_cap : 64;
			pl_wait = xrealloc(pl_wait, pl_wait_cap *
			    sizeof(*pl_wait));
		}
		pl_wait[pl_nwait].id = id;
		pl_wait[pl_nwait].until = time(NULL) + pl_poll;
		pl_nwait++;
	}
	pthread_mutex_unlock(&pl_lock);
}

/*
 * Runs the stage for one series.  Returns 1 when a stage ran (progress or
 * failure), 0 when it said "wait" or the series moved meanwhile.
 */
static int
pipeline_run_series(struct db *db, long long id, volatile int *stop,
    int *waited)
{
	struct db_series s;
	const struct stage *st;
	struct stage_ctx ctx;
	int r, ran = 0;

	*waited = 0;
	if (db_series_get(db, id, 0, &s) != 0)
		return 0;
	st = pipeline_stage_for(s.state);
	if (!st)
		goto out;
	memset(&ctx, 0, sizeof(ctx));
	ctx.db = db;
	ctx.series_id = id;
	ctx.from = st->from;
	ctx.to = st->to;
	ctx.stop = stop;
	/* room for a first compiler error or a rejected hunk */
	buf_init(&ctx.err, 64 << 10);
	log_debug("pipeline: series %lld: %s -> %s", id, st->from, st->to);
	r = st->fn(&ctx);
	if (r == STAGE_WAIT) {
		*waited = 1;
	} else if (r == STAGE_REST) {
		const char *why = ctx.err.len ? ctx.err.data :
		    "waiting for configuration";

		if (!s.rest)
			log_info("series %lld: rests at %s: %s", id, st->from,
			    why);
		db_series_set_rest(db, id, st->from, why);
	} else if (r == STAGE_OK) {
		/* 1 (not in from any more) means the stage moved it itself */
		if (db_series_set_state(db, id, st->from, st->to, NULL) == 0)
			log_info("series %lld: %s", id, st->to);
		ran = 1;
	} else if (*stop) {
		/* interrupted by shutdown: stays in from, resumed at start */
	} else {
		const char *why = ctx.err.len ? ctx.err.data :
		    "stage failed (no reason given)";

		log_info("series %lld: failed: %s", id, why);
		db_series_set_state(db, id, st->from, "failed", why);
		ran = 1;
	}
	buf_release(&ctx.err);
out:
	db_series_release(&s);
	return ran;
}

#define PIPELINE_MAX_STAGES 64

/*
 * Fills states (PIPELINE_MAX_STAGES long) with the from_state of every row
 * of queue q, or of every row when q is -1.
 */
static const char **
pipeline_from_states(const char **states, size_t *n, int q)
{
	size_t i;

	*n = 0;
	for (i = 0; i < NSTAGES && *n < PIPELINE_MAX_STAGES; i++)
		if (q < 0 || pl_stages[i].queue == q)
			states[(*n)++] = pl_stages[i].from;
	return states;
}

static int
pipeline_run_pass(struct db *db, const char **states, size_t n)
{
	int64_t ids[PIPELINE_MAX_IDS];
	size_t nids, i;
	int ran = 0, waited;
	int stop = 0;

	if (db_series_in_states(db, states, n, 0, ids, PIPELINE_MAX_IDS,
	    &nids) < 0)
		return -1;
	for (i = 0; i < nids; i++)
		ran += pipeline_run_series(db, ids[i], &stop, &waited);
	return ran;
}

int
pipeline_run_once(struct db *db)
{
	size_t n;
	const char *sv[PIPELINE_MAX_STAGES];
	const char **states = pipeline_from_states(sv, &n, -1);

	return pipeline_run_pass(db, states, n);
}

int
pipeline_run_stage(struct db *db, const char *from)
{
	return pipeline_run_pass(db, &from, 1);
}

/* arg: the queue (PIPELINE_Q_*), or -1 for every stage. */
static void *
pipeline_worker(void *arg)
{
	int64_t ids[PIPELINE_MAX_IDS];
	size_t nids, n, i, skip;
	const char *sv[PIPELINE_MAX_STAGES];
	const char **states = pipeline_from_states(sv, &n,
	    (int)(intptr_t)arg);
	struct db *db;
	long long pick;
	unsigned seen;
	int waited;

	db = app_db();
	if (!db) {
		error("pipeline: worker has no database; stopping it");
		return NULL;
	}
	if (n == 0) {		/* a test's table without this queue */
		app_db_close_thread();
		return NULL;
	}
	while (!pl_stop) {
		pthread_mutex_lock(&pl_lock);
		seen = pl_kicks;
		pthread_mutex_unlock(&pl_lock);
		pick = 0;
		/* page through candidates: many may be busy or waiting */
		for (skip = 0; !pick && db_series_in_states(db, states, n,
		    skip, ids, PIPELINE_MAX_IDS, &nids) == 0 && nids > 0;
		    skip += nids) {
			pthread_mutex_lock(&pl_lock);
			for (i = 0; i < nids && !pick; i++)
				if (pipeline_claimable(ids[i])) {
					pick = ids[i];
					pl_busy[pl_nbusy++] = pick;
				}
			pthread_mutex_unlock(&pl_lock);
			if (nids < PIPELINE_MAX_IDS)
				break;
		}
		if (pick) {
			pipeline_run_series(db, pick, &pl_stop, &waited);
			pipeline_unclaim(pick, waited);
			continue;
		}
		pthread_mutex_lock(&pl_lock);
		if (!pl_stop && seen == pl_kicks) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += pl_poll;
			pthread_cond_timedwait(&pl_cond, &pl_lock, &ts);
		}
		pthread_mutex_unlock(&pl_lock);
	}
	app_db_close_thread();
	return NULL;
}

int
pipeline_start(int nworkers, int nbuild, int poll_sec)
{
	int i, e, total = nworkers + nbuild;

	pl_poll = poll_sec > 0 ? poll_sec : 5;
	pl_stop = 0;
	/* the configuration may have changed: resting series get a look */
	if (app_db())
		db_series_clear_rest(app_db());
	pl_threads = xcalloc(total, sizeof(*pl_threads));
	pl_busy = xcalloc(total, sizeof(*pl_busy));
	for (i = 0; i < total; i++) {
		/* no build workers: the main ones take every stage */
		intptr_t q = nbuild == 0 ? -1 : i < nworkers ?
		    PIPELINE_Q_MAIN : PIPELINE_Q_BUILD;

		e = pthread_create(&pl_threads[pl_nthreads], NULL,
		    pipeline_worker, (void *)q);
		if (e) {
			errno = e;
			log_warn("pipeline: cannot start worker");
			break;
		}
		pl_nthreads++;
	}
	return pl_nthreads == total ? 0 : -1;
}

void
pipeline_kick(void)
{
	pthread_mutex_lock(&pl_lock);
	pl_kicks++;
	pthread_cond_broadcast(&pl_cond);
	pthread_mutex_unlock(&pl_lock);
}

void
pipeline_stop(void)
{
	int i;

	pthread_mutex_lock(&pl_lock);
	pl_stop = 1;
	pthread_cond_broadcast(&pl_cond);
	pthread_mutex_unlock(&pl_lock);
	for (i = 0; i < pl_nthreads; i++)
		pthread_join(pl_threads[i], NULL);
	free(pl_threads);
	free(pl_busy);
	free(pl_wait);
	pl_threads = NULL;
	pl_busy = NULL;
	pl_wait = NULL;
	pl_nbusy = pl_nwait = pl_wait_cap = 0;
	pl_nthreads = 0;
}
