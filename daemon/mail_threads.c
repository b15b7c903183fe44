/*
 * mail_threads: commands in the threads of series submitted by lore URL.
 *
 * A watch reads its list's replies as they come (watch.c hands each to
 * mail_watch_reply); a series submitted by its lore URL has no watch, so
 * a "#kperfci retest" in its thread went unread.  Every [mail]
 * thread_poll seconds the watch thread calls mail_threads_poll, which for
 * the newest MAIL_THREADS_MAX series submitted by URL in the last
 * MAIL_THREADS_DAYS days fetches the thread (t.mbox.gz, from the series'
 * own lore base, which the allowlist admitted when it was submitted) and
 * hands every message of it whose body holds a command line to
 * mail_watch_reply: the same checks (who may command), the same store of
 * commands read (each acted on once, answered in the thread).  Messages
 * without a command cost nothing more than the thread fetch.
 *
 * Layer: a service of the mail face's, called from the watch thread; it
 * calls down into the store (db.h) and the lore client (core/lore.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/lore.h"
#include "core/mailcmd.h"
#include "core/mbox.h"
#include "core/mime.h"
#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/mail.h"
#include "daemon/mail_threads.h"
#include "lib/buf.h"
#include "lib/log.h"

/* One thread: its messages with a command line to mail_watch_reply, one
   message at a time.  The number read, or -1 when the thread could not
   be fetched or read to its end (those before the bad message are). */
static int
mail_threads_one(struct db *db, const struct db_series *s, struct buf *err)
{
	struct buf data = BUF_INIT(64 << 20);
	struct mbox_iter it = { 0 };
	struct mbox_msg raw;
	int n = 0, r = 0;

	if (lore_fetch_thread_allow(s->lore_base, s->lore_list, s->msgid,
	    (const char *const *)app.settings.lore.allow,
	    app.settings.lore.nallow, &data, err) < 0 ||
	    (data.len && mbox_iter_init(&it, data.data, data.len, err) < 0)) {
		buf_release(&data);
		return -1;
	}
	while (data.len && (r = mbox_next(&it, &raw, err)) > 0) {
		struct buf pe = BUF_INIT(1024), why = BUF_INIT(256);
		struct buf out = BUF_INIT(1024), e2 = BUF_INIT(1024);
		struct mailcmd cmd;
		struct msg m;

		if (msg_parse(raw.data, raw.len, &m, &pe) == 0) {
			/* kperfci's own mail, the series' own messages and
			   replies without a command are not commands */
			if (m.msgid && strncmp(m.msgid, "kperfci.", 8) &&
			    strcmp(m.msgid, s->msgid) && m.body &&
			    mailcmd_find(m.body, m.body_len, &cmd, &why) != 0) {
				if (mail_watch_reply(db, "thread", s->lore_base,
				    s->lore_list, m.msgid, &out, &e2) < 0)
					log_warnx("mail: thread of series %lld: "
					    "<%s>: %s", (long long)s->id,
					    m.msgid, e2.data ? e2.data : "");
				else
					n++;
			}
			msg_release(&m);
		}
		buf_release(&pe);
		buf_release(&why);
		buf_release(&out);
		buf_release(&e2);
	}
	mbox_iter_release(&it);
	buf_release(&data);
	return r < 0 ? -1 : n;
}

int
mail_threads_poll(struct db *db)
{
	struct db_series *v;
	size_t n;
	time_t since = time(NULL) - MAIL_THREADS_DAYS * 86400;
	int read = 0;

	if (db_series_list(db, MAIL_THREADS_MAX, &v, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct db_series *s = &v[i];
		struct buf err = BUF_INIT(1024);
		int r;

		/* submitted by URL (a watch reads its own list's replies) */
		if (s->origin || !s->lore_base || !s->lore_list || !s->msgid ||
		    !s->source || !strcmp(s->source, "upload") ||
		    s->submitted < since)
			continue;
		if ((r = mail_threads_one(db, s, &err)) < 0)
			log_warnx("mail: thread of series %lld: %s",
			    (long long)s->id, err.data ? err.data : "");
		else
			read += r;
		buf_release(&err);
	}
	db_series_free_list(v, n);
	return read;
}
