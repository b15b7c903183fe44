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
 * daily limit leaves the rest unseen for tomorrow.  Inside per_day, one
 * author (the From address) may take at most per_day / author_share
 * (rounded up): an author over the share waits, unseen, while the others'
 * series go on -- six drive-by patches cannot push the real series to
 * tomorrow.  A newer revision supersedes only the same author's older one
 * (same subject or same change-id): both can be copied by any poster, a
 * From address on the list cannot be used without it showing.  A bad
 * feed entry (atom.h) or one whose thread cannot be picked is skipped,
 * logged and listed in the watch's status, never fatal to the poll.
 * Failures (the feed itself) back off:
 * poll << failures, at most six hours.  The thread sleeps on a condition
 * variable so watch_stop() ends it at once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
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
#include "daemon/limits.h"
#include "daemon/mail.h"
#include "daemon/mail_threads.h"
#include "daemon/watch_search.h"
#include "daemon/watches.h"
#include "core/lore.h"
#include "core/mime.h"
#include "core/series.h"
#include "daemon/watch.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#define WATCH_MAX_BACKOFF	(6 * 3600)
#define WATCH_MAX_OLDER		16

/* What came of one entry (watch_entry). */
enum watch_rc {
	WATCH_DECIDED,		/* seen, with an outcome */
	WATCH_LIMIT,		/* per_day reached: the rest waits */
	WATCH_SHARE,		/* its author's share reached: it waits */
	WATCH_RETRY,		/* a lore or store error: next poll */
	WATCH_PENDING,		/* its thread not complete yet: next poll */
};

static pthread_t watch_thread;
static int watch_running, watch_stopping;

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

/* Fetches and picks the thread of msgid: 0 with *s filled, -1 when lore
   could not be reached (retried), -2 when the thread cannot be picked. */
static int
watch_pick(const struct watch *w, const char *msgid, struct series *s,
    struct buf *err)
{
	struct buf data = BUF_INIT(LORE_MAX_BYTES);
	struct msg_list msgs = { 0 };
	int rc = -1;

	if (lore_fetch_thread(w->lore, w->list, msgid, &data, err) < 0)
		goto out;
	rc = -2;	/* from here on the thread itself is bad */
	if (msg_parse_mbox(data.data ? data.data : "", data.len, &msgs, NULL,
	    NULL, err) < 0)
		goto out;
	buf_release(&data);
	rc = series_pick(msgs.v, msgs.n, msgid, 0, s, err) < 0 ? -2 : 0;
out:
	msg_list_release(&msgs);
	buf_release(&data);
	return rc;
}

/* A newer revision replaces the same author's older, not yet booted
   ones of this watch (same subject key or change-id). */
static void
watch_supersede(struct db *db, const struct watch *w,
    const struct db_watch_key *key, int version, long long id)
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

/* The author's address as stored: lower case, "" when none. */
static char *
watch_author(const char *email)
{
	char *a = xstrdup(email ? email : "");

	for (char *p = a; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p += 'a' - 'A';
	return a;
}

/* WATCH_SHARE when author has used the share, WATCH_LIMIT when the watch
   has used per_day, WATCH_RETRY on a store error, else WATCH_DECIDED. */
static enum watch_rc
watch_budget(struct db *db, const struct watch *w, const char *author,
    struct buf *err)
{
	long long since = (long long)time(NULL) - 86400, count;

	if (author && *author && w->author_max < w->per_day) {
		if (db_watch_count_author_since(db, w->name, author, since,
		    &count) < 0)
			return buf_addstr(err, "store error"), WATCH_RETRY;
		if (count >= w->author_max)
			return WATCH_SHARE;
	}
	if (db_watch_count_since(db, w->name, since, &count) < 0)
		return buf_addstr(err, "store error"), WATCH_RETRY;
	return count >= w->per_day ? WATCH_LIMIT : WATCH_DECIDED;
}

/* The key a list poster's submissions charge in limits.c: the same
   rate bucket and storage quota as a client's ([http] submit_burst,
   submit_per_hour, upload_quota), one per watch and author. */
static char *
watch_limits_key(const struct watch *w, const char *author)
{
	return xasprintf("watch %s: %s", w->name, author && *author ?
	    author : "(no author)");
}

/* WATCH_DECIDED when author may have one more submitted now (one token
   taken), WATCH_SHARE when their rate or quota says wait, WATCH_RETRY
   on a store error. */
static enum watch_rc
watch_charge(struct db *db, const struct watch *w, const char *author,
    struct buf *err)
{
	struct buf why = BUF_INIT(256);
	char *who = watch_limits_key(w, author);
	long retry;
	int r = limits_submit(db, who, 0, &why, &retry);

	if (r == 1)
		log_info("watch %s: %s; it waits", w->name, why.data);
	else if (r < 0)
		buf_addstr(err, "store error");
	buf_release(&why);
	free(who);
	return r == 0 ? WATCH_DECIDED : r == 1 ? WATCH_SHARE : WATCH_RETRY;
}

/* Submits the picked series s of entry msgid; 0, or -1 with err. */
static int
watch_submit(struct db *db, struct watch *w, const struct series *s,
    const struct db_watch_key *key, const char *msgid,
    struct buf *outcome, struct buf *err)
{
	char *who = watch_limits_key(w, key->author);
	char *url = xasprintf("%s%s%s/%s/", w->lore,
	    w->lore[strlen(w->lore) - 1] == '/' ? "" : "/", w->list, msgid);
	long long id;
	int rc = -1;

	if (intake_submit_url(db, url, s->version, NULL, &id, err) < 0 ||
	    db_watch_submitted(db, id, w->name, key, s->version,
	    (int)w->priority, time(NULL)) < 0)
		goto out;
	limits_submitted(db, who, id, 0);	/* its patches count for who */
	mail_series_watched(db, id, w->name);
	w->last_new++;
	buf_addf(outcome, "series %lld", id);
	log_info("watch %s: submitted <%s> v%d from %s as series %lld",
	    w->name, msgid, s->version, key->author, id);
	watch_supersede(db, w, key, s->version, id);
	rc = 0;
out:
	free(url);
	free(who);
	return rc;
}

/*
 * A series root whose thread cannot be picked yet: the seconds left of
 * its WATCH_SETTLE window from the first time it was read (a cover
 * letter reaches the lore before its patches, seconds or, through a
 * list's queue, minutes apart), 0 once it is over.  The table is small
 * and the thread's own; when full, the oldest entry gives way.
 */
static long long
watch_settling(struct watch *w, const char *msgid, time_t now, int *fresh)
{
	struct watch_pending *p = NULL, *old = &w->pending[0];

	for (size_t i = 0; i < WATCH_MAX_PENDING; i++) {
		struct watch_pending *q = &w->pending[i];

		if (q->msgid && !strcmp(q->msgid, msgid)) {
			p = q;
			break;
		}
		if (!q->msgid || (old->msgid && q->first < old->first))
			old = q;
	}
	*fresh = !p;
	if (!p) {
		p = old;
		free(p->msgid);
		p->msgid = xstrdup(msgid);
		p->first = now;
	}
	if (now - p->first < WATCH_SETTLE)
		return (long long)(WATCH_SETTLE - (now - p->first));
	free(p->msgid);
	p->msgid = NULL;
	return 0;
}

/*
 * Decides one feed entry (enum watch_rc): WATCH_DECIDED with outcome set
 * (the entry is seen), WATCH_LIMIT or WATCH_SHARE when it must wait,
 * WATCH_RETRY on a lore or store error (retried at the next poll).
 */
static enum watch_rc
watch_entry(struct db *db, struct watch *w, const struct atom_entry *e,
    const char *msgid, struct buf *outcome, struct buf *err)
{
	struct subject sj;
	struct series s = { 0 };
	struct db_watch_key key = { 0 };
	char **paths = NULL, *author = NULL;
	size_t npaths = 0, i;
	enum watch_rc rc = WATCH_DECIDED;
	int r;

	subject_parse(e->title, &sj);
	/* a reply may hold a command (mail.c): read once, answered there */
	if (sj.reply) {
		if (mail_watch_reply(db, w->name, w->lore, w->list, msgid,
		    outcome, err) < 0)
			rc = WATCH_RETRY;
		goto out;
	}
	if (!sj.patch) {
		buf_addstr(outcome, "not a patch");
		goto out;
	}
	if (sj.counter > 1) {
		buf_addf(outcome, "patch %d/%d of a series", sj.counter,
		    sj.expected);
		goto out;
	}
	/* the feed names the author: one over the share costs no fetch */
	author = watch_author(e->email);
	if ((rc = watch_budget(db, w, author, err)) == WATCH_SHARE)
		goto out;
	rc = WATCH_DECIDED;
	free(author);
	author = NULL;
	if ((r = watch_pick(w, msgid, &s, err)) < 0) {
		long long left;
		int fresh;

		if (r == -1) {
			rc = WATCH_RETRY;
			goto out;
		}
		/* its patches may not have reached the lore yet */
		if ((left = watch_settling(w, msgid, time(NULL), &fresh)) > 0) {
			if (fresh)
				log_info("watch %s: <%s>: %s; the thread may "
				    "not be complete yet, looked at again at "
				    "each poll for %llds", w->name, msgid,
				    err->data ? err->data : "?", left);
			rc = WATCH_PENDING;
			goto out;
		}
		buf_addf(outcome, "skipped: the thread cannot be picked (%s)",
		    err->data ? err->data : "?");
		log_warnx("watch %s: <%s>: %s", w->name, msgid,
		    outcome->data);
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
	author = watch_author(s.email);
	if ((rc = watch_budget(db, w, author, err)) != WATCH_DECIDED ||
	    (rc = watch_charge(db, w, author, err)) != WATCH_DECIDED)
		goto out;
	key.subject_key = sj.subject;
	key.author = author;
	key.change_id = s.change_id;
	if (watch_submit(db, w, &s, &key, msgid, outcome, err) < 0)
		rc = WATCH_RETRY;
out:
	for (i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	free(author);
	series_release(&s);
	subject_release(&sj);
	return rc;
}

/* ---- one poll -------------------------------------------------------- */

/* The last poll's skipped entries, for the status (watches.h). */
struct watch_skips {
	char	*v[WATCH_MAX_SKIPPED];
	size_t	 n, nbad;
};

static void
watch_skip(struct watch_skips *sk, const struct watch *w, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/* Lists (and logs) one skipped entry. */
static void
watch_skip(struct watch_skips *sk, const struct watch *w, const char *fmt,
    ...)
{
	struct buf b = BUF_INIT(1024);
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	log_warnx("watch %s: skipped %s", w->name, b.data ? b.data : "");
	sk->nbad++;
	if (sk->n < WATCH_MAX_SKIPPED)
		sk->v[sk->n++] = buf_detach(&b, NULL);
	buf_release(&b);
}

/* Decides entry e (its place idx, 0-based) unless seen; its watch_rc, or
   -1 when there was nothing to do. */
static int
watch_poll_entry(struct db *db, struct watch *w, const struct atom_entry *e,
    struct watch_skips *sk)
{
	struct lore_url u = { 0 };
	struct buf outcome = BUF_INIT(1024), why = BUF_INIT(1024);
	int r = -1;

	if (lore_parse_url(e->link, app.settings.lore.allow,
	    app.settings.lore.nallow, &u, &why) < 0) {
		watch_skip(sk, w, "feed entry \"%.80s\": %s", e->title,
		    why.data ? why.data : "bad link");
		goto out;
	}
	/* seen before (or the store cannot say): nothing to do */
	if (db_watch_seen(db, w->name, u.msgid) != 0)
		goto out;
	r = watch_entry(db, w, e, u.msgid, &outcome, &why);
	if (r == WATCH_DECIDED) {
		db_watch_mark(db, w->name, u.msgid, outcome.data ?
		    outcome.data : "", time(NULL));
		if (outcome.data && !strncmp(outcome.data, "skipped: ", 9))
			watch_skip(sk, w, "<%.200s>: %s", u.msgid,
			    outcome.data + 9);
	} else if (r == WATCH_RETRY) {
		log_warnx("watch %s: <%s>: %s (retried at the next poll)",
		    w->name, u.msgid, why.data ? why.data : "");
	} else if (r == WATCH_SHARE) {
		log_info("watch %s: <%s>: its author has had %lld of today's "
		    "%lld; it waits", w->name, u.msgid, w->author_max,
		    w->per_day);
	}
out:
	lore_url_release(&u);
	buf_release(&outcome);
	buf_release(&why);
	return r;
}

/*
 * Beside a search's answer, the Atom feed's newest entries too: a search
 * by date misses what carries an old Date: header (a resend, a
 * mis-set clock, an imported archive) while the feed lists it.  Entries
 * both name are read once (watch_seen); a feed that cannot be read costs
 * nothing, the search stands.
 */
static void
watch_poll_add_feed(struct watch *w, struct atom_feed *feed)
{
	struct buf body = BUF_INIT(LORE_MAX_BYTES), err = BUF_INIT(1024);
	struct atom_feed f = { 0 };
	size_t i, n;

	if (lore_fetch_atom(w->lore, w->list, app.settings.lore.allow,
	    app.settings.lore.nallow, &body, &err) < 0 ||
	    atom_parse(body.data ? body.data : "", body.len, &f, &err) < 0) {
		log_debug("watch %s: the feed beside the search: %s", w->name,
		    err.data ? err.data : "");
		goto out;
	}
	/* the feed is newest first, as the search's list is: after it */
	n = feed->n;
	feed->v = xrealloc(feed->v, (n + f.n + 1) * sizeof(*feed->v));
	for (i = 0; i < f.n; i++) {
		size_t k;

		for (k = 0; k < n; k++)
			if (feed->v[k].link && f.v[i].link &&
			    !strcmp(feed->v[k].link, f.v[i].link))
				break;
		if (k < n)
			continue;
		feed->v[feed->n++] = f.v[i];
		memset(&f.v[i], 0, sizeof(f.v[i]));
	}
	memset(&feed->v[feed->n], 0, sizeof(feed->v[0]));
	/* and what the feed reader skipped, listed like the search's */
	if (f.nskipped) {
		feed->skipped = xrealloc(feed->skipped, (feed->nskipped +
		    f.nskipped) * sizeof(*feed->skipped));
		memcpy(feed->skipped + feed->nskipped, f.skipped,
		    f.nskipped * sizeof(*f.skipped));
		feed->nskipped += f.nskipped;
		free(f.skipped);
		f.skipped = NULL;
		f.nskipped = 0;
	}
	feed->nbad += f.nbad;
out:
	atom_feed_release(&f);
	buf_release(&body);
	buf_release(&err);
}

static int
watch_poll(struct db *db, struct watch *w, struct buf *err)
{
	struct buf body = BUF_INIT(LORE_MAX_BYTES);
	struct atom_feed feed = { 0 };
	struct watch_skips sk = { { 0 }, 0, 0 };
	int rc = -1, search, retried = 0;

	w->last_new = 0;
	/* the lore's search where it has one (watch_search.h), else the feed */
	if ((search = watch_search_feed(db, w->name, w->lore, w->list,
	    w->paths, w->npaths, &feed, err)) < 0)
		goto out;
	if (search == 1 && (lore_fetch_atom(w->lore, w->list,
	    app.settings.lore.allow, app.settings.lore.nallow, &body, err) < 0 ||
	    atom_parse(body.data ? body.data : "", body.len, &feed, err) < 0))
		goto out;
	if (search == 0)
		watch_poll_add_feed(w, &feed);
	/* entries the feed reader skipped: listed, the rest still read */
	for (size_t i = 0; i < feed.nskipped; i++)
		watch_skip(&sk, w, "%s", feed.skipped[i].why);
	sk.nbad += feed.nbad - feed.nskipped;
	/* oldest first: a v1 is submitted before the v2 that replaces it */
	for (size_t i = feed.n; i-- > 0;) {
		int r = watch_poll_entry(db, w, &feed.v[i], &sk);

		if (r == WATCH_LIMIT) {
			log_info("watch %s: %lld series today, the limit; the "
			    "rest waits", w->name, w->per_day);
			search = 1;
			break;
		}
		/* an entry retried keeps the search's window where it is:
		   the next poll asks for it again (the seen ones are
		   skipped) */
		retried |= r == WATCH_RETRY || r == WATCH_PENDING;
	}
	if (search == 0 && !retried)
		watch_search_commit(db, w->name);
	rc = 0;
out:
	watches_lock();
	for (size_t i = 0; i < w->nskipped; i++)
		free(w->skipped[i]);
	memcpy(w->skipped, sk.v, sizeof(sk.v));
	w->nskipped = sk.n;
	w->nbad = sk.nbad;
	watches_unlock();
	atom_feed_release(&feed);
	buf_release(&body);
	return rc;
}

/* When the threads of URL-submitted series are read ([mail] thread_poll,
   while mail is sent): the next time. */
static time_t threads_next;

static int
watch_threads_on(void)
{
	return app.settings.mail.thread_poll > 0 && app.settings.mail.send &&
	    strcmp(app.settings.mail.send, "none");
}

static void *
watch_main(void *arg)
{
	struct db *db = app_db();

	(void)arg;
	watches_lock();
	while (!watch_stopping) {
		time_t now = time(NULL), soonest = now + 3600;
		struct timespec ts;

		/* the threads of series submitted by URL, for commands */
		if (watch_threads_on() && db && now >= threads_next) {
			watches_unlock();
			mail_threads_poll(db);
			watches_lock();
			threads_next = time(NULL) +
			    app.settings.mail.thread_poll;
		}
		if (watch_threads_on() && threads_next < soonest)
			soonest = threads_next;

		for (size_t i = 0; i < watches_count() && !watch_stopping;
		    i++) {
			struct watch *w = watches_get(i);
			struct buf err = BUF_INIT(4096);
			int r;

			if (w->next > now) {
				if (w->next < soonest)
					soonest = w->next;
				continue;
			}
			watches_unlock();
			r = db ? watch_poll(db, w, &err) : -1;
			watches_lock();
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
		watches_wait(&ts);
	}
	watches_unlock();
	app_db_close_thread();
	return NULL;
}

int
watch_start(void)
{
	size_t n;
	int e;

	watches_load(&app.settings);
	if (!(n = watches_count()) && !watch_threads_on())
		return 0;
	threads_next = 0;
	watch_stopping = 0;
	if ((e = pthread_create(&watch_thread, NULL, watch_main, NULL))) {
		errno = e;
		log_warn("watch: pthread_create");
		return -1;
	}
	watch_running = 1;
	log_info("watching %zu list%s%s", n, n == 1 ? "" : "s",
	    watch_threads_on() ? " and the threads of series submitted by "
	    "URL" : "");
	return 0;
}

void
watch_stop(void)
{
	if (watch_running) {
		watches_lock();
		watch_stopping = 1;
		watches_wake();
		watches_unlock();
		pthread_join(watch_thread, NULL);
		watch_running = 0;
	}
	watches_release();
}
