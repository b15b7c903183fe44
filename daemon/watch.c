/*
 * watch: watched lists (see watch.h).
 *
 * DESIGN: one thread, one loop.  Each watch has a next-poll time in
 * memory (now at start: a restart polls at once, and the seen-set in the
 * store makes that harmless).  A poll fetches the feed, and for every
 * entry not seen before decides: a reply or a non-patch is noted and
 * skipped; a series root (cover letter, single patch, or patch 1/K of a
 * thread without a cover letter) is fetched as a thread, picked, its
 * changed paths matched against the filter, and submitted with the
 * watch's priority and origin.  An entry is marked seen only once it is
 * decided, so a lore error mid-poll retries it at the next poll, and the
 * daily limit leaves the rest unseen for tomorrow.  Failures back off:
 * poll << failures, at most six hours.  The thread sleeps on a condition
 * variable so watch_stop() ends it at once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "daemon/app.h"
#include "core/atom.h"
#include "daemon/db.h"
#include "daemon/db_watch.h"
#include "daemon/intake.h"
#include "core/lore.h"
#include "core/mbox.h"
#include "core/mime.h"
#include "core/series.h"
#include "daemon/watch.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#define WATCH_MAX_BACKOFF	(6 * 3600)
#define WATCH_MAX_OLDER		16

struct watch {
	const char	*name;		/* borrowed from app.settings */
	const char	*lore, *list;
	const char	**paths;
	size_t		 npaths;
	long long	 poll, per_day, priority;
	/* state, under watch_lock */
	time_t		 next, last_poll;
	int		 failures;
	char		*last_error;
	long long	 last_new;	/* series submitted by the last poll */
};

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;
static pthread_t watch_thread;
static int watch_running, watch_stopping;
static struct watch *watches;
static size_t nwatches;

/* ---- configuration --------------------------------------------------- */

static void
watch_load(const struct settings *set)
{
	nwatches = 0;
	watches = xcalloc(set->nwatches + 1, sizeof(*watches));
	for (size_t i = 0; i < set->nwatches; i++) {
		const struct settings_watch *sw = &set->watches[i];
		struct watch *w = &watches[nwatches++];

		w->name = sw->name;
		w->lore = sw->lore;
		w->list = sw->list;
		w->poll = sw->poll;
		w->per_day = sw->per_day;
		w->priority = sw->priority;
		w->paths = xcalloc(sw->npaths + 1, sizeof(*w->paths));
		memcpy(w->paths, sw->paths, sw->npaths * sizeof(*w->paths));
		w->npaths = sw->npaths;
		w->next = time(NULL);
	}
}

/* ---- paths ----------------------------------------------------------- */

int
watch_paths_match(const char *const *filter, size_t nfilter,
    const char *const *paths, size_t npaths)
{
	for (size_t i = 0; i < npaths; i++)
		for (size_t j = 0; j < nfilter; j++) {
			size_t fl = strlen(filter[j]);

			if (fl && filter[j][fl - 1] == '/' ?
			    !strncmp(paths[i], filter[j], fl) :
			    !strcmp(paths[i], filter[j]))
				return 1;
		}
	return 0;
}

static void
watch_add_path(char ***paths, size_t *n, const char *p, size_t len)
{
	if (!len || len > 4096)
		return;
	for (size_t i = 0; i < *n; i++)
		if (strlen((*paths)[i]) == len && !memcmp((*paths)[i], p, len))
			return;
	*paths = xrealloc(*paths, (*n + 1) * sizeof(**paths));
	(*paths)[(*n)++] = xstrndup(p, len);
}

void
watch_diff_paths(const char *diff, char ***paths, size_t *n)
{
	const char *l, *nl;

	for (l = diff; l && *l; l = nl ? nl + 1 : NULL) {
		const char *a, *b;

		nl = strchr(l, '\n');
		if (strncmp(l, "diff --git a/", 13))
			continue;
		a = l + 13;
		b = strstr(a, " b/");
		if (!b || (nl && b > nl))
			continue;
		watch_add_path(paths, n, a, b - a);
		b += 3;
		watch_add_path(paths, n, b, (nl ? (size_t)(nl - b) :
		    strlen(b)));
	}
}

/* ---- one entry ------------------------------------------------------- */

/* Fetches and picks the thread of msgid; 0 with *s filled, or -1. */
static int
watch_pick(const struct watch *w, const char *msgid, struct series *s,
    struct buf *err)
{
	struct buf data = BUF_INIT(LORE_MAX_BYTES);
	struct mbox mb = { 0 };
	struct msg *msgs = NULL, **ptrs = NULL;
	size_t nmsgs = 0, i;
	int rc = -1;

	if (lore_fetch_thread(w->lore, w->list, msgid, &data, err) < 0 ||
	    mbox_split(data.data ? data.data : "", data.len, &mb, err) < 0)
		goto out;
	msgs = xcalloc(mb.n ? mb.n : 1, sizeof(*msgs));
	ptrs = xcalloc(mb.n ? mb.n : 1, sizeof(*ptrs));
	for (i = 0; i < mb.n; i++) {
		struct buf e = BUF_INIT(1024);

		if (msg_parse(mb.msgs[i].data, mb.msgs[i].len, &msgs[nmsgs],
		    &e) == 0) {
			ptrs[nmsgs] = &msgs[nmsgs];
			nmsgs++;
		}
		buf_release(&e);
	}
	rc = series_pick(ptrs, nmsgs, msgid, 0, s, err);
out:
	for (i = 0; i < nmsgs; i++)
		msg_release(&msgs[i]);
	free(msgs);
	free(ptrs);
	mbox_release(&mb);
	buf_release(&data);
	return rc;
}

/* A newer revision replaces this watch's older, not yet booted ones. */
static void
watch_supersede(struct db *db, const struct watch *w, const char *key,
    int version, long long id)
{
	static const char *const states[] = { "queued", "fetched", "applied",
	    "built" };
	int64_t old[WATCH_MAX_OLDER];
	size_t n;
	char why[160];

	if (db_watch_older(db, w->name, key, version, old, WATCH_MAX_OLDER,
	    &n) < 0)
		return;
	snprintf(why, sizeof(why), "superseded by v%d (series %lld)",
	    version, id);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < 4; j++)
			if (db_series_set_state(db, old[i], states[j], "failed",
			    why) == 0) {
				log_info("watch %s: series %lld %s", w->name,
				    (long long)old[i], why);
				break;
			}
}

/*
 * Decides one feed entry.  Returns 0 with outcome set (the entry is
 * seen), 1 when it must wait (daily limit), -1 on a lore error (retried
 * at the next poll).
 */
static int
watch_entry(struct db *db, struct watch *w, const struct atom_entry *e,
    const char *msgid, struct buf *outcome, struct buf *err)
{
	struct subject sj;
	struct series s = { 0 };
	char **paths = NULL, *url = NULL;
	size_t npaths = 0, i;
	long long count, id;
	int rc = 0;

	subject_parse(e->title, &sj);
	if (sj.reply || !sj.patch) {
		buf_addstr(outcome, sj.reply ? "a reply" : "not a patch");
		goto out;
	}
	if (sj.counter > 1) {
		buf_addf(outcome, "patch %d/%d of a series", sj.counter,
		    sj.expected);
		goto out;
	}
	if (watch_pick(w, msgid, &s, err) < 0) {
		rc = -1;
		goto out;
	}
	/* one submission per series: its cover letter, else its patch 1 */
	if (s.cover_msgid ? strcmp(s.cover_msgid, msgid) :
	    (s.npatches && strcmp(s.patches[0].msgid, msgid))) {
		buf_addf(outcome, "<%s> stands for its series", s.cover_msgid ?
		    s.cover_msgid : s.patches[0].msgid);
		goto out;
	}
	for (i = 0; i < s.npatches; i++)
		watch_diff_paths(s.patches[i].diff, &paths, &npaths);
	if (!watch_paths_match(w->paths, w->npaths,
	    (const char *const *)paths, npaths)) {
		buf_addf(outcome, "touches none of the watched paths (%zu "
		    "file%s changed)", npaths, npaths == 1 ? "" : "s");
		goto out;
	}
	if (db_watch_count_since(db, w->name, time(NULL) - 86400,
	    &count) < 0) {
		rc = -1;
		buf_addstr(err, "store error");
		goto out;
	}
	if (count >= w->per_day) {
		rc = 1;
		goto out;
	}
	url = xasprintf("%s%s%s/%s/", w->lore,
	    w->lore[strlen(w->lore) - 1] == '/' ? "" : "/", w->list, msgid);
	if (intake_submit_url(db, url, s.version, NULL, &id, err) < 0 ||
	    db_watch_submitted(db, id, w->name, sj.subject, s.version,
	    (int)w->priority, time(NULL)) < 0) {
		rc = -1;
		goto out;
	}
	w->last_new++;
	buf_addf(outcome, "series %lld", id);
	log_info("watch %s: submitted <%s> v%d as series %lld", w->name,
	    msgid, s.version, id);
	watch_supersede(db, w, sj.subject, s.version, id);
out:
	for (i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	free(url);
	series_release(&s);
	subject_release(&sj);
	return rc;
}

/* ---- one poll -------------------------------------------------------- */

static int
watch_poll(struct db *db, struct watch *w, struct buf *err)
{
	size_t nallow = app.settings.lore.nallow;
	const char **allow = app.settings.lore.allow;
	struct buf body = BUF_INIT(LORE_MAX_BYTES);
	struct atom_feed feed = { 0 };
	int rc = -1;

	w->last_new = 0;
	if (lore_fetch_atom(w->lore, w->list, allow, nallow, &body, err) < 0 ||
	    atom_parse(body.data ? body.data : "", body.len, &feed, err) < 0)
		goto out;
	/* oldest first: a v1 is submitted before the v2 that replaces it */
	for (size_t i = feed.n; i-- > 0;) {
		const struct atom_entry *e = &feed.v[i];
		struct lore_url u = { 0 };
		struct buf outcome = BUF_INIT(1024), why = BUF_INIT(1024);
		int r;

		if (lore_parse_url(e->link, allow, nallow, &u, &why) < 0) {
			log_warnx("watch %s: feed entry \"%.80s\": %s", w->name,
			    e->title, why.data);
			buf_release(&why);
			continue;
		}
		/* 2: seen before (or the store cannot say): nothing to do */
		r = db_watch_seen(db, w->name, u.msgid) == 0 ?
		    watch_entry(db, w, e, u.msgid, &outcome, &why) : 2;
		if (r == 0)
			db_watch_mark(db, w->name, u.msgid,
			    outcome.data ? outcome.data : "", time(NULL));
		else if (r < 0)
			log_warnx("watch %s: <%s>: %s (retried at the next "
			    "poll)", w->name, u.msgid, why.data);
		lore_url_release(&u);
		buf_release(&outcome);
		buf_release(&why);
		if (r == 1) {
			log_info("watch %s: %lld series today, the limit; the "
			    "rest waits", w->name, w->per_day);
			break;
		}
	}
	rc = 0;
out:
	atom_feed_release(&feed);
	buf_release(&body);
	return rc;
}

static void *
watch_main(void *arg)
{
	struct db *db = app_db();

	(void)arg;
	pthread_mutex_lock(&watch_lock);
	while (!watch_stopping) {
		time_t now = time(NULL), soonest = now + 3600;
		struct timespec ts;

		for (size_t i = 0; i < nwatches && !watch_stopping; i++) {
			struct watch *w = &watches[i];
			struct buf err = BUF_INIT(4096);
			int r;

			if (w->next > now) {
				if (w->next < soonest)
					soonest = w->next;
				continue;
			}
			pthread_mutex_unlock(&watch_lock);
			r = db ? watch_poll(db, w, &err) : -1;
			pthread_mutex_lock(&watch_lock);
			w->last_poll = time(NULL);
			free(w->last_error);
			w->last_error = NULL;
			if (r < 0) {
				long long d = w->poll;

				for (int k = 0; k < w->failures && d <
				    WATCH_MAX_BACKOFF; k++)
					d *= 2;
				if (d > WATCH_MAX_BACKOFF)
					d = WATCH_MAX_BACKOFF;
				w->failures++;
				w->last_error = xstrdup(err.data ? err.data :
				    "no store");
				log_warnx("watch %s: %s; next poll in %llds",
				    w->name, w->last_error, d);
				w->next = w->last_poll + d;
			} else {
				w->failures = 0;
				w->next = w->last_poll + w->poll;
			}
			if (w->next < soonest)
				soonest = w->next;
			buf_release(&err);
		}
		if (watch_stopping)
			break;
		ts.tv_sec = soonest;
		ts.tv_nsec = 0;
		pthread_cond_timedwait(&watch_cond, &watch_lock, &ts);
	}
	pthread_mutex_unlock(&watch_lock);
	app_db_close_thread();
	return NULL;
}

int
watch_start(void)
{
	int e;

	watch_load(&app.settings);
	if (!nwatches)
		return 0;
	watch_stopping = 0;
	if ((e = pthread_create(&watch_thread, NULL, watch_main, NULL))) {
		errno = e;
		log_warn("watch: pthread_create");
		return -1;
	}
	watch_running = 1;
	log_info("watching %zu list%s", nwatches, nwatches == 1 ? "" : "s");
	return 0;
}

void
watch_stop(void)
{
	if (watch_running) {
		pthread_mutex_lock(&watch_lock);
		watch_stopping = 1;
		pthread_cond_broadcast(&watch_cond);
		pthread_mutex_unlock(&watch_lock);
		pthread_join(watch_thread, NULL);
		watch_running = 0;
	}
	for (size_t i = 0; i < nwatches; i++) {
		free(watches[i].paths);
		free(watches[i].last_error);
	}
	free(watches);
	watches = NULL;
	nwatches = 0;
}

json_t *
watch_list_json(void)
{
	json_t *a = json_array();
	struct db *db = app_db();

	pthread_mutex_lock(&watch_lock);
	for (size_t i = 0; i < nwatches; i++) {
		const struct watch *w = &watches[i];
		json_t *paths = json_array();
		long long seen = 0, sub = 0;

		for (size_t j = 0; j < w->npaths; j++)
			json_array_append_new(paths, json_string(w->paths[j]));
		if (db)
			db_watch_counts(db, w->name, &seen, &sub);
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:o,s:I,s:I,"
		    "s:I,s:I,s:I,s:I,s:I,s:s?}", "name", w->name,
		    "lore", w->lore, "list", w->list, "paths", paths,
		    "poll", (json_int_t)w->poll,
		    "per_day", (json_int_t)w->per_day,
		    "priority", (json_int_t)w->priority,
		    "last_poll", (json_int_t)w->last_poll,
		    "failures", (json_int_t)w->failures,
		    "seen", (json_int_t)seen, "submitted", (json_int_t)sub,
		    "last_error", w->last_error));
	}
	pthread_mutex_unlock(&watch_lock);
	return a;
}
