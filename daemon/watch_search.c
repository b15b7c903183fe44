/*
 * watch_search: polling a watched list through public-inbox's search
 * (watch_search.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/atom.h"
#include "core/lore.h"
#include "core/mbox.h"
#include "core/mime.h"
#include "daemon/app.h"
#include "daemon/db_mail.h"
#include "daemon/watch_search.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#define WATCH_SEARCH_OVERLAP	3600
/* first poll of a search watch: the last week */
#define WATCH_SEARCH_FIRST	(7 * 86400)
#define WATCH_SEARCH_MAX_PATHS	64

/* What the poll in progress started at, per watch (only the watch thread
   touches it). */
static struct {
	char	 name[128];
	long long started;
} watch_search_pending[32];

static const struct settings_watch *
watch_search_conf(const char *name)
{
	for (size_t i = 0; i < app.settings.nwatches; i++)
		if (!strcmp(app.settings.watches[i].name, name))
			return &app.settings.watches[i];
	return NULL;
}

/* The query: a phrase per path (a directory without its '/'). */
static void
watch_search_query(const char *const *paths, size_t npaths, long long since,
    struct buf *q)
{
	buf_addch(q, '(');
	for (size_t i = 0; i < npaths && i < WATCH_SEARCH_MAX_PATHS; i++) {
		size_t n = strlen(paths[i]);

		if (n && paths[i][n - 1] == '/')
			n--;
		buf_addstr(q, "dfn:\"");
		for (size_t k = 0; k < n; k++)
			if (paths[i][k] != '"')
				buf_addch(q, paths[i][k]);
		buf_addstr(q, "\" OR ");
	}
	buf_addf(q, "kperfci) AND rt:%lld..", since);
}

struct watch_search_msg {
	long long when;
	struct atom_entry e;
};

static int
watch_search_cmp(const void *a, const void *b)
{
	const struct watch_search_msg *x = a, *y = b;

	return x->when < y->when ? 1 : x->when > y->when ? -1 : 0;
}

static void
watch_search_free(struct watch_search_msg *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].e.title);
		free(v[i].e.link);
		free(v[i].e.email);
	}
	free(v);
}

int
watch_search_feed(struct db *db, const char *name, const char *base,
    const char *list, const char *const *paths, size_t npaths,
    struct atom_feed *feed, struct buf *err)
{
	const struct settings_watch *sw = watch_search_conf(name);
	struct buf data = BUF_INIT(LORE_MAX_BYTES), q = BUF_INIT(0);
	struct buf e2 = BUF_INIT(4096);
	struct mbox_iter it = { 0 };
	struct mbox_msg raw;
	struct watch_search_msg *v = NULL;
	long long since = 0, now = time(NULL);
	size_t n = 0, slot;
	int r, rc = -1, got = 0;

	memset(feed, 0, sizeof(*feed));
	if (!sw || !strcmp(sw->search, "no"))
		return 1;
	if (db_mail_search_since(db, name, &since) < 0) {
		buf_addstr(err, "store error");
		return -1;
	}
	since = since ? since - WATCH_SEARCH_OVERLAP : now - WATCH_SEARCH_FIRST;
	watch_search_query(paths, npaths, since, &q);
	r = lore_search(base, list, q.data, app.settings.lore.allow,
	    app.settings.lore.nallow, &data, &e2);
	if (r == 2 || (r < 0 && !strcmp(sw->search, "auto") &&
	    strstr(e2.data ? e2.data : "", "HTTP"))) {
		if (!strcmp(sw->search, "yes")) {
			buf_addstr(err, e2.data);
			goto out;
		}
		log_info("watch %s: %s; reading the Atom feed", name,
		    e2.data ? e2.data : "no search");
		rc = 1;
		goto out;
	}
	if (r < 0) {
		buf_addstr(err, e2.data ? e2.data : "search failed");
		goto out;
	}
	if (data.len && mbox_iter_init(&it, data.data, data.len, err) < 0)
		goto out;
	while (data.len && n < ATOM_MAX_ENTRIES &&
	    (got = mbox_next(&it, &raw, err)) > 0) {
		struct msg m;
		struct buf link = BUF_INIT(8192), pe = BUF_INIT(1024);

		if (msg_parse(raw.data, raw.len, &m, &pe) == 0) {
			if (m.msgid) {
				buf_addf(&link, "%s%s%s/", base,
				    base[strlen(base) - 1] == '/' ? "" : "/",
				    list);
				lore_escape_msgid(&link, m.msgid);
				buf_addch(&link, '/');
				v = xrealloc(v, (n + 1) * sizeof(*v));
				v[n].when = m.date_epoch;
				v[n].e.title = xstrdup(m.subject);
				v[n].e.link = buf_detach(&link, NULL);
				v[n].e.email = *m.from_email ?
				    xstrdup(m.from_email) : NULL;
				n++;
			}
			msg_release(&m);
		}
		buf_release(&link);
		buf_release(&pe);
	}
	if (got < 0) {		/* a bad mbox: none of it is used */
		watch_search_free(v, n);
		v = NULL;
		goto out;
	}
	if (n)		/* qsort(NULL, 0) is undefined (UBSan aborts) */
		qsort(v, n, sizeof(*v), watch_search_cmp);
	feed->v = xcalloc(n + 1, sizeof(*feed->v));
	for (size_t i = 0; i < n; i++)
		feed->v[i] = v[i].e;
	feed->n = n;
	slot = (size_t)(sw - app.settings.watches);
	if (slot < sizeof(watch_search_pending) /
	    sizeof(watch_search_pending[0])) {
		snprintf(watch_search_pending[slot].name,
		    sizeof(watch_search_pending[slot].name), "%s", name);
		watch_search_pending[slot].started = now;
	}
	log_debug("watch %s: search since %lld: %zu messages", name, since, n);
	rc = 0;
out:
	free(v);
	mbox_iter_release(&it);
	buf_release(&data);
	buf_release(&q);
	buf_release(&e2);
	return rc;
}

void
watch_search_commit(struct db *db, const char *name)
{
	const struct settings_watch *sw = watch_search_conf(name);
	size_t slot;

	if (!sw)
		return;
	slot = (size_t)(sw - app.settings.watches);
	if (slot >= sizeof(watch_search_pending) /
	    sizeof(watch_search_pending[0]) ||
	    strcmp(watch_search_pending[slot].name, name) ||
	    !watch_search_pending[slot].started)
		return;
	db_mail_search_set(db, name, watch_search_pending[slot].started);
	watch_search_pending[slot].started = 0;
}
