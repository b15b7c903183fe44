/*
 * report_cache: a comparison's statistics and lock-profile diff, computed
 * once (DESIGN below): read from the store for a finished comparison
 * (computed and stored at its first view when missing), held in memory
 * for a live one until a new upload changes its samples, and never
 * computed by two threads at once.  report_load.c calls it with the
 * scheduler's comparison; it reads the samples and stores the result
 * (sched.h, db_report.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/db_report.h"
#include "daemon/report.h"
#include "daemon/report_int.h"
#include "daemon/sched.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xalloc.h"

/*
 * DESIGN (results stored once).  The statistics of a comparison (a
 * hierarchical bootstrap per row: 0.2 s for 30 rows of 24 boots, seconds
 * for a large upload) and its lock-profile diff are never computed inside
 * every GET:
 *   - a finished comparison (state done or failed) reads both from the
 *     store: comparisons.result (what the scheduler decided on, written by
 *     stage_sched_wait) and comparisons.profiles.  What is missing (the
 *     profiles of a comparison that just finished, the rows of one that
 *     failed with samples) is computed once, at the first view, under
 *     report_lock, stored, and read back, so every later view renders the
 *     very bytes that were stored.  Nothing recomputes a finished result;
 *     whatever re-runs a comparison must clear result and profiles.
 *   - a live comparison (running) keeps its last computation in memory,
 *     keyed by db_report_key (jobs done, samples and profiles uploaded):
 *     it is recomputed at most once per new upload, by one thread while
 *     the others wait for the same answer.
 * report_lock guards only the cache and the list of comparisons being
 * computed (report_busy); no computation runs under it.  A thread that
 * computes comparison C marks C busy, and only views of C wait for it
 * (report_cond): a large upload of one comparison never stalls views of
 * another, nor /healthz.
 * The results travel as their JSON (stats_result_to_json and the profile
 * diff), and report_from_text rebuilds the model from it: the renderers
 * never see whether a result was stored or just computed.
 */
#define REPORT_CACHE_SLOTS	16

struct report_cached {
	long long cid;			/* 0: free */
	char	 key[160];
	char	*result, *profiles;	/* JSON text */
	unsigned long used;
};

/* Comparisons being computed at once: one per MHD thread is plenty. */
#define REPORT_BUSY_SLOTS	64

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t report_cond = PTHREAD_COND_INITIALIZER;
static struct report_cached report_cache[REPORT_CACHE_SLOTS];
static long long report_busy[REPORT_BUSY_SLOTS];	/* 0: free */
static unsigned long report_clock, report_ncomputed;

/* Whether a thread computes cid now (report_lock held). */
static int
report_is_busy(long long cid)
{
	for (size_t i = 0; i < REPORT_BUSY_SLOTS; i++)
		if (report_busy[i] == cid)
			return 1;
	return 0;
}

/* Waits until nobody computes cid and a slot is free, then marks it ours
   (report_lock held, as on return). */
static void
report_claim(long long cid)
{
	for (;;) {
		if (!report_is_busy(cid))
			for (size_t i = 0; i < REPORT_BUSY_SLOTS; i++)
				if (!report_busy[i]) {
					report_busy[i] = cid;
					return;
				}
		pthread_cond_wait(&report_cond, &report_lock);
	}
}

/* Gives cid back and wakes its waiters (report_lock held). */
static void
report_unclaim(long long cid)
{
	size_t i;

	for (i = 0; i < REPORT_BUSY_SLOTS; i++)
		if (report_busy[i] == cid)
			report_busy[i] = 0;
	pthread_cond_broadcast(&report_cond);
}

void
report_busy_hold(long long cid, int on)
{
	pthread_mutex_lock(&report_lock);
	if (on)
		report_claim(cid);
	else
		report_unclaim(cid);
	pthread_mutex_unlock(&report_lock);
}

unsigned long
report_computations(void)
{
	unsigned long n;

	n = __atomic_load_n(&report_ncomputed, __ATOMIC_RELAXED);
	return n;
}

void
report_cache_clear(void)
{
	size_t i;

	pthread_mutex_lock(&report_lock);
	for (i = 0; i < REPORT_CACHE_SLOTS; i++) {
		free(report_cache[i].result);
		free(report_cache[i].profiles);
		memset(&report_cache[i], 0, sizeof(report_cache[i]));
	}
	pthread_mutex_unlock(&report_lock);
}

/* Runs the statistics (with_stats) and the profile diff over the stored
   samples of c (c claimed, report_lock not held). */
static int
report_compute_samples(struct db *db, struct report *r,
    const struct sched_comparison *c, int with_stats)
{
	struct buf bs = BUF_INIT(STATS_MAX_FILE), ts = BUF_INIT(STATS_MAX_FILE);
	struct buf err = BUF_INIT(1024);
	struct stats_opts opts;
	json_t *bp = NULL, *tp = NULL;
	int rc = -1;

	if (!with_stats)
		goto profiles;
	__atomic_add_fetch(&report_ncomputed, 1, __ATOMIC_RELAXED);
	if (sched_side_jsonl(db, c->id, "base", &bs) < 0 ||
	    sched_side_jsonl(db, c->id, "patched", &ts) < 0) {
		error("report: samples of comparison %lld unreadable", c->id);
		goto out;
	}
	sched_stats_opts(&opts, c);
	if ((bs.len || ts.len) && report_compute(r, bs.data, bs.len, ts.data,
	    ts.len, &opts, &err) < 0)
		log_warnx("report: comparison %lld: %s", c->id, err.data);
profiles:
	if (sched_side_profiles(db, c->id, "base", &bp) == 0 &&
	    sched_side_profiles(db, c->id, "patched", &tp) == 0)
		report_set_profiles(r, bp, tp);
	rc = 0;
out:
	json_decref(bp);
	json_decref(tp);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
	return rc;
}

/* The computed result and profile diff as JSON text (result "null" when
   there are no rows). */
static void
report_to_text(const struct report *r, char **result, char **profiles)
{
	struct stats_result all;
	json_t *j;

	/* stored whole: the lock contention rows with the others */
	report_merge_contention(r, &all);
	j = r->have_result ? stats_result_to_json(&all) : json_null();
	free(all.rows);
	*result = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(j);
	j = report_profiles_json(r, SIZE_MAX, SIZE_MAX);
	*profiles = json_dumps(j, JSON_COMPACT);
	json_decref(j);
}

/* r's result and profiles from their JSON text: 0, or -1 (logged). */
static int
report_from_text(struct report *r, long long cid, const char *result,
    const char *profiles)
{
	json_t *jr = json_loads(result, JSON_DECODE_ANY, NULL);
	json_t *jp = json_loads(profiles, 0, NULL);
	char err[256];
	int rc = -1;

	if (!jr || !json_is_array(jp)) {
		error("report: comparison %lld: the stored result is not JSON",
		    cid);
		goto out;
	}
	if (!json_is_null(jr)) {
		if (stats_result_from_json(jr, &r->result, err,
		    sizeof(err)) < 0) {
			error("report: comparison %lld: %s", cid, err);
			goto out;
		}
		r->have_result = 1;
		report_split_contention(r);
	}
	report_profiles_from_json(r, jp);
	rc = 0;
out:
	json_decref(jr);
	json_decref(jp);
	return rc;
}

/* Forgets whatever result r holds. */
static void
report_drop_result(struct report *r)
{
	if (r->have_result)
		stats_result_release(&r->result);
	r->have_result = 0;
	report_contention_free(r);
	report_profiles_free(r->profiles, r->nprofiles);
	r->profiles = NULL;
	r->nprofiles = 0;
}

/* A finished comparison: its stored result (computed and stored first
   if it has none yet). */
static int
report_load_final(struct db *db, struct report *r,
    const struct sched_comparison *c, int nowait)
{
	char *res = NULL, *prof = NULL, *nres = NULL, *nprof = NULL;
	int rc = -1, claimed = 0;

	if (db_report_stored(db, c->id, &res, &prof) < 0)
		goto out;
	if (!res || !prof) {
		/* compute once: a thread that waited here finds it stored */
		pthread_mutex_lock(&report_lock);
		if (nowait && report_is_busy(c->id)) {
			/* a request thread does not wait: no result yet */
			pthread_mutex_unlock(&report_lock);
			r->computing = 1;
			rc = 0;
			goto out;
		}
		report_claim(c->id);
		pthread_mutex_unlock(&report_lock);
		claimed = 1;
		free(res);
		free(prof);
		res = prof = NULL;
		if (db_report_stored(db, c->id, &res, &prof) < 0)
			goto out;
	}
	if (!res || !prof) {
		/* the scheduler's stored result needs only the profiles */
		if (report_compute_samples(db, r, c, res == NULL) < 0)
			goto out;
		report_to_text(r, &nres, &nprof);
		report_drop_result(r);
		free(res);
		free(prof);
		res = prof = NULL;
		if (db_report_store(db, c->id, nres, nprof) < 0 ||
		    db_report_stored(db, c->id, &res, &prof) < 0)
			goto out;
		log_info("report: comparison %lld: result stored", c->id);
	}
	rc = res && prof ? report_from_text(r, c->id, res, prof) : -1;
out:
	if (claimed) {
		pthread_mutex_lock(&report_lock);
		report_unclaim(c->id);
		pthread_mutex_unlock(&report_lock);
	}
	free(res);
	free(prof);
	free(nres);
	free(nprof);
	return rc;
}

/* The cache entry of cid for key, or NULL (report_lock held). */
static struct report_cached *
report_cache_find(long long cid, const char *key)
{
	size_t i;

	for (i = 0; i < REPORT_CACHE_SLOTS; i++)
		if (report_cache[i].cid == cid &&
		    !strcmp(report_cache[i].key, key))
			return &report_cache[i];
	return NULL;
}

/* A live comparison: the cached result for its samples as they are now,
   computed when a new upload changed them. */
static int
report_load_live(struct db *db, struct report *r,
    const struct sched_comparison *c, int nowait)
{
	struct report_cached *e, *slot;
	char key[160], *res = NULL, *prof = NULL;
	size_t i;
	int rc = -1;

	if (db_report_key(db, c->id, key, sizeof(key)) < 0)
		return -1;
	pthread_mutex_lock(&report_lock);
	if (!(e = report_cache_find(c->id, key)) && nowait &&
	    report_is_busy(c->id)) {
		/* a request thread does not wait for another's computation:
		   the last upload's result if one is cached, else none */
		r->computing = 1;
		for (i = 0; i < REPORT_CACHE_SLOTS; i++)
			if (report_cache[i].cid == c->id)
				e = &report_cache[i];
		if (!e) {
			pthread_mutex_unlock(&report_lock);
			return 0;
		}
		r->stale = 1;
		goto hit;
	}
	if (!e) {
		/* one thread computes; other views of this comparison wait
		   (or, from a request thread, see the note above) */
		report_claim(c->id);
		if ((e = report_cache_find(c->id, key))) {
			report_unclaim(c->id);
			goto hit;
		}
		pthread_mutex_unlock(&report_lock);
		if (report_compute_samples(db, r, c, 1) == 0) {
			report_to_text(r, &res, &prof);
			report_drop_result(r);
		}
		pthread_mutex_lock(&report_lock);
		report_unclaim(c->id);
		if (!res)
			goto out;
		/* this comparison's slot, else a free one, else the oldest */
		slot = &report_cache[0];
		for (i = 0; i < REPORT_CACHE_SLOTS; i++) {
			e = &report_cache[i];
			if (e->cid == c->id || (slot->cid != c->id &&
			    (e->cid == 0 || e->used < slot->used)))
				slot = e;
		}
		e = slot;
		free(e->result);
		free(e->profiles);
		e->cid = c->id;
		snprintf(e->key, sizeof(e->key), "%s", key);
		e->result = res;
		e->profiles = prof;
	}
hit:
	e->used = ++report_clock;
	res = xstrdup(e->result);
	prof = xstrdup(e->profiles);
	rc = 0;
out:
	pthread_mutex_unlock(&report_lock);
	if (rc == 0)
		rc = report_from_text(r, c->id, res, prof);
	free(res);
	free(prof);
	return rc;
}

int
report_load_result(struct db *db, struct report *r,
    const struct sched_comparison *c, int nowait)
{
	if (c->state && strcmp(c->state, "running"))
		return report_load_final(db, r, c, nowait);
	return report_load_live(db, r, c, nowait);
}
