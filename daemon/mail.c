/*
 * mail: replies in the thread and commands in replies (see mail.h).
 *
 * DESIGN: one queue thread, fed through the store.  A hook inserts a row
 * whose Message-ID derives from what it is about:
 *
 *	result      <kperfci.result.C<cid>.L<look>.<h>@<domain>>
 *	regression  <kperfci.regression.R<id>.<h>@<domain>>
 *	answer      <kperfci.answer.<h>@<domain>>   (h of the command's id)
 *
 * where h is a short sha256 of the thread's root Message-ID and the ids,
 * so a store rebuilt from nothing does not reuse another thread's id.
 * The row's UNIQUE msgid makes every hook idempotent: a re-run, a restart
 * that replays a stage, or a hook called twice stores nothing new.
 *
 * The thread takes rows through new -> queued -> sending -> sent.  It
 * renders a 'new' row (the report model, report_mail.c) and decides: the
 * series' reply policy, the recipients (the root message's From as To, its
 * To/Cc as Cc, trimmed by [mail] cc and cc_max; nobody else), the per-day
 * caps.  It marks a row 'sending' and commits before the transport is
 * called, and 'sent' after.  A crash in between leaves 'sending': at the
 * next pass such a row is first looked up on the list (lore has the
 * Message-ID: it was sent) and only then sent again, with the same
 * Message-ID, which lists and mail readers deduplicate.  A relay that
 * refuses temporarily is retried after [mail] retry seconds, doubling, at
 * most six hours, with the reason on the row (the page shows it); a 5xx
 * fails the row.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "daemon/db_exercise.h"
#include "daemon/exercise_series.h"
#include "core/lore.h"
#include "core/mailcmd.h"
#include "core/mbox.h"
#include "core/mime.h"
#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/db_auth.h"
#include "daemon/db_mail.h"
#include "daemon/db_track.h"
#include "daemon/http.h"
#include "daemon/intake.h"
#include "daemon/mail.h"
#include "daemon/report.h"
#include "daemon/report_mail.h"
#include "daemon/sched.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/sha256.h"
#include "lib/smtp.h"
#include "lib/strvec.h"
#include "lib/xalloc.h"

#define MAIL_MAX_BACKOFF	(6 * 3600)
#define MAIL_BATCH		16
#define MAIL_MAX_BYTES		(1u << 20)

static pthread_mutex_t mail_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mail_cond = PTHREAD_COND_INITIALIZER;
static pthread_t mail_thread;
static int mail_running, mail_stopping, mail_kicked;

/* ---- small helpers ----------------------------------------------------- */

static int
mail_on(void)
{
	const char *send = app.settings.mail.send;

	/* NULL: settings never loaded (a test's bare app), so no mail */
	return send && strcmp(send, "none") != 0;
}

static void
mail_kick(void)
{
	pthread_mutex_lock(&mail_lock);
	mail_kicked = 1;
	pthread_cond_broadcast(&mail_cond);
	pthread_mutex_unlock(&mail_lock);
}

/* The absolute base of links, ending in '/'. */
static char *
mail_public_url(void)
{
	const char *u = app.settings.mail.public_url;

	if (u)
		return xasprintf("%s%s", u, u[strlen(u) - 1] == '/' ? "" : "/");
	return xasprintf("http://%s:%d/", app.settings.daemon.listen,
	    app.settings.daemon.port);
}

static void
mail_hash(const char *a, const char *b, char out[13])
{
	struct buf s = BUF_INIT(0);
	char hex[65];

	buf_addf(&s, "%s\n%s", a ? a : "", b ? b : "");
	sha256_hex(s.data, s.len, hex);
	memcpy(out, hex, 12);
	out[12] = '\0';
	buf_release(&s);
}

static const char *
mail_domain(void)
{
	static char dom[256];
	char a[256];
	const char *at;

	if (config_addr_spec(app.settings.mail.from, a, sizeof(a)) < 0 ||
	    !(at = strchr(a, '@')))
		return "localhost";
	snprintf(dom, sizeof(dom), "%s", at + 1);
	return dom;
}

/* A header value from outside: no CR, LF or other control bytes. */
static void
mail_hdr(struct buf *b, const char *name, const char *v)
{
	int ascii = 1;

	for (const char *p = v; *p; p++)
		if ((unsigned char)*p >= 0x80)
			ascii = 0;
	buf_addf(b, "%s: ", name);
	if (ascii || strcmp(name, "Subject")) {
		for (const char *p = v; *p; p++)
			buf_addch(b, (unsigned char)*p < 0x20 || *p == 0x7f ?
			    ' ' : *p);
	} else {
		/* RFC 2047 B-words of at most 45 bytes each */
		static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh"
		    "ijklmnopqrstuvwxyz0123456789+/";
		size_t n = strlen(v);

		for (size_t i = 0; i < n;) {
			size_t k = n - i > 45 ? 45 : n - i;

			/* do not split a UTF-8 sequence */
			while (k < n - i && k > 1 &&
			    ((unsigned char)v[i + k] & 0xc0) == 0x80)
				k--;
			buf_addstr(b, i ? "\n =?UTF-8?B?" : "=?UTF-8?B?");
			for (size_t j = 0; j < k; j += 3) {
				unsigned c0 = (unsigned char)v[i + j];
				unsigned c1 = j + 1 < k ?
				    (unsigned char)v[i + j + 1] : 0;
				unsigned c2 = j + 2 < k ?
				    (unsigned char)v[i + j + 2] : 0;
				unsigned t = c0 << 16 | c1 << 8 | c2;

				buf_addch(b, b64[t >> 18 & 63]);
				buf_addch(b, b64[t >> 12 & 63]);
				buf_addch(b, j + 1 < k ? b64[t >> 6 & 63] : '=');
				buf_addch(b, j + 2 < k ? b64[t & 63] : '=');
			}
			buf_addstr(b, "?=");
			i += k;
		}
	}
	buf_addch(b, '\n');
}

/* ---- threads on the lore ------------------------------------------------ */

void
mail_root_release(struct mail_root *r)
{
	free(r->msgid);
	free(r->subject);
	free(r->from_name);
	free(r->from_email);
	for (size_t i = 0; i < r->nrefs; i++)
		free(r->refs[i]);
	free(r->refs);
	for (size_t i = 0; i < r->naddrs; i++)
		free(r->addrs[i]);
	free(r->addrs);
	free(r->body);
	memset(r, 0, sizeof(*r));
}

/*
 * Fetches the thread of `in` from the lore and fills *out from the
 * message `want` in it.  0, 1 when the thread has no such message, -1
 * with err (a lore error, or an mbox mbox_next() refuses before it).
 */
static int
mail_fetch_root(const char *base, const char *list, const char *in,
    const char *want, struct mail_root *out, struct buf *err)
{
	struct buf data = BUF_INIT(LORE_MAX_BYTES);
	struct mbox_iter it = { 0 };
	struct mbox_msg raw;
	int rc = 1, r = 0;

	memset(out, 0, sizeof(*out));
	if (lore_fetch_thread_allow(base, list, in, app.settings.lore.allow,
	    app.settings.lore.nallow, &data, err) < 0 ||
	    mbox_iter_init(&it, data.data ? data.data : "", data.len,
	    err) < 0) {
		rc = -1;
		goto out;
	}
	while (rc == 1 && (r = mbox_next(&it, &raw, err)) > 0) {
		struct msg m;
		struct buf e = BUF_INIT(1024);

		if (msg_parse(raw.data, raw.len, &m, &e) == 0) {
			if (m.msgid && !strcmp(m.msgid, want)) {
				out->msgid = xstrdup(m.msgid);
				out->subject = xstrdup(m.subject);
				out->from_name = xstrdup(m.from_name);
				out->from_email = xstrdup(m.from_email);
				out->refs = m.references;
				out->nrefs = m.nreferences;
				m.references = NULL;
				m.nreferences = 0;
				out->body = xstrdup(m.body ? m.body : "");
				msg_recipients(raw.data, raw.len, &out->addrs,
				    &out->naddrs);
				rc = 0;
			}
			msg_release(&m);
		}
		buf_release(&e);
	}
	if (r < 0)
		rc = -1;	/* the mbox's sentence is in err */
out:
	mbox_iter_release(&it);
	buf_release(&data);
	return rc;
}

/* Whether addr matches a [mail] cc / command_from entry (an address, or
   "@domain"). */
static int
mail_addr_matches(const char *addr, const char *const *pat, size_t n)
{
	size_t al = strlen(addr);

	for (size_t i = 0; i < n; i++) {
		size_t pl = strlen(pat[i]);

		if (pat[i][0] == '@' ? al > pl &&
		    !strcasecmp(addr + al - pl, pat[i]) :
		    !strcasecmp(addr, pat[i]))
			return 1;
	}
	return 0;
}

int
mail_recipients(const struct mail_root *root, struct buf *rcpt,
    struct buf *hdr)
{
	const struct settings *set = &app.settings;
	struct buf cc = BUF_INIT(0);
	int ncc = 0;
	char a[256];

	if (!root->from_email || config_addr_spec(root->from_email, a,
	    sizeof(a)) < 0)
		return -1;
	buf_addf(rcpt, "%s\n", a);
	if (root->from_name && *root->from_name && strcmp(root->from_name, a))
	{
		struct buf to = BUF_INIT(0);

		buf_addch(&to, '"');
		for (const char *p = root->from_name; *p; p++)
			if (*p != '"' && *p != '\\')
				buf_addch(&to, *p);
		buf_addf(&to, "\" <%s>", a);
		mail_hdr(hdr, "To", to.data);
		buf_release(&to);
	} else
		mail_hdr(hdr, "To", a);
	for (size_t i = 0; i < root->naddrs && ncc < set->mail.cc_max; i++) {
		const char *c = root->addrs[i];

		if (config_addr_spec(c, a, sizeof(a)) < 0 ||
		    !strcasecmp(a, root->from_email))
			continue;
		if (set->mail.ncc && !mail_addr_matches(a, set->mail.cc,
		    set->mail.ncc))
			continue;
		buf_addf(&cc, "%s%s", ncc ? ", " : "", a);
		buf_addf(rcpt, "%s\n", a);
		ncc++;
	}
	if (ncc)
		mail_hdr(hdr, "Cc", cc.data);
	buf_release(&cc);
	return 0;
}

void
mail_headers(struct buf *b, const char *msgid, const struct mail_root *root,
    const char *extra_ref, const char *subject)
{
	char date[64];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	mail_hdr(b, "From", app.settings.mail.from);
	mail_hdr(b, "Subject", subject);
	mail_hdr(b, "Date", date);
	buf_addf(b, "Message-ID: <%s>\n", msgid);
	if (root && root->msgid) {
		buf_addf(b, "In-Reply-To: <%s>\n", extra_ref ? extra_ref :
		    root->msgid);
		buf_addstr(b, "References:");
		for (size_t i = 0; i < root->nrefs && i < 32; i++)
			buf_addf(b, " <%s>", root->refs[i]);
		buf_addf(b, " <%s>", root->msgid);
		if (extra_ref)
			buf_addf(b, " <%s>", extra_ref);
		buf_addch(b, '\n');
	}
	buf_addstr(b, "MIME-Version: 1.0\nContent-Type: text/plain; "
	    "charset=utf-8\nContent-Transfer-Encoding: 8bit\n"
	    "X-Mailer: kperfci\nAuto-Submitted: auto-replied\n");
}

char *
mail_re(const char *subject)
{
	if (!strncasecmp(subject, "Re:", 3))
		return xstrdup(subject);
	return xasprintf("Re: %s", subject);
}

/* ---- caps ---------------------------------------------------------------- */

/* NULL when within every per-day cap, else why not (static storage). */
static const char *
mail_over_cap(struct db *db, const char *rcpt, const char *list)
{
	static __thread char why[320];
	long long since = time(NULL) - 86400, n;
	const char *l, *nl;

	if (list && *list && db_mail_count_list(db, list, since, &n) == 0 &&
	    n >= app.settings.mail.per_day_list) {
		snprintf(why, sizeof(why), "%lld mails to %s today, the "
		    "per_day_list cap", n, list);
		return why;
	}
	for (l = rcpt; l && *l; l = nl ? nl + 1 : NULL) {
		char a[256];
		size_t len;

		nl = strchr(l, '\n');
		len = nl ? (size_t)(nl - l) : strlen(l);
		if (!len || len >= sizeof(a))
			continue;
		memcpy(a, l, len);
		a[len] = '\0';
		if (db_mail_count_rcpt(db, a, since, &n) == 0 &&
		    n >= app.settings.mail.per_day_recipient) {
			snprintf(why, sizeof(why), "%lld mails to %s today, the "
			    "per_day_recipient cap", n, a);
			return why;
		}
	}
	return NULL;
}

/* ---- the hooks ----------------------------------------------------------- */

void
mail_comparison_done(struct db *db, long long sid, long long cid, int look)
{
	struct db_series s;
	struct mail_row m = { 0 };
	char h[13], *cidlook;
	int added;

	if (!mail_on() || db_series_get(db, sid, 0, &s) != 0)
		return;
	cidlook = xasprintf("%lld.%d", cid, look);
	mail_hash(s.cover_msgid ? s.cover_msgid : s.msgid, cidlook, h);
	m.msgid = xasprintf("kperfci.result.C%lld.L%d.%s@%s", cid, look, h,
	    mail_domain());
	m.kind = "result";
	m.series_id = sid;
	m.comparison_id = cid;
	m.look = look;
	if (db_mail_add(db, &m, time(NULL), &added) == 0 && added) {
		log_info("mail: series %lld: reply <%s> queued", sid, m.msgid);
		mail_kick();
	}
	free(m.msgid);
	free(cidlook);
	db_series_release(&s);
}

void
mail_regression_opened(struct db *db, long long id)
{
	struct mail_row m = { 0 };
	char h[13], ids[32];
	int added;

	if (!mail_on())
		return;
	snprintf(ids, sizeof(ids), "%lld", id);
	mail_hash("regression", ids, h);
	m.msgid = xasprintf("kperfci.regression.R%lld.%s@%s", id, h,
	    mail_domain());
	m.kind = "regression";
	m.regression_id = id;
	if (db_mail_add(db, &m, time(NULL), &added) == 0 && added)
		mail_kick();
	free(m.msgid);
}

void
mail_series_watched(struct db *db, long long sid, const char *watch)
{
	for (size_t i = 0; i < app.settings.nwatches; i++)
		if (!strcmp(app.settings.watches[i].name, watch))
			db_mail_policy_set(db, sid, app.settings.watches[i].reply,
			    NULL);
}

int
mail_series_reply(struct db *db, long long sid, const char *reply,
    struct buf *err)
{
	if (!reply || !*reply)
		reply = app.settings.mail.reply;
	if (config_check_reply(reply, err) < 0)
		return -1;
	return db_mail_policy_set(db, sid, reply, NULL);
}

/* ---- rendering ------------------------------------------------------------ */

static int
mail_verdict_is_regression(const char *v)
{
	return !strncmp(v, "regression", 10) || !strncmp(v, "mixed", 5);
}

/*
 * Renders a result row.  0 with the row rendered (queued or skipped), 1
 * to look again later (the lore could not be read), -1.
 */
static int
mail_render_result(struct db *db, const struct mail_row *row)
{
	struct report r;
	struct db_series s;
	struct mail_root root = { 0 };
	struct report_mail rm = { 0 };
	struct buf msg = BUF_INIT(MAIL_MAX_BYTES), body = BUF_INIT(0);
	struct buf rcpt = BUF_INIT(0), hdr = BUF_INIT(0), err = BUF_INIT(1024);
	char verdict[160], *reply = NULL, *irt = NULL, *url = NULL;
	char *pub = mail_public_url(), *subject = NULL, *thread = NULL;
	const char *skip = NULL, *rootid;
	int rc = -1, got_series = 0, got_report = 0;

	if (db_series_get(db, row->series_id, 1, &s) != 0)
		goto out;
	got_series = 1;
	db_mail_policy_get(db, row->series_id, &reply, &irt);
	if (report_load(db, row->series_id, 1, &r) != 0)
		goto out;
	got_report = 1;
	report_verdict(&r, verdict, sizeof(verdict));
	rootid = s.cover_msgid ? s.cover_msgid : s.npatches ?
	    s.patches[0].msgid : s.msgid;
	if (!s.lore_base || !s.lore_list || !rootid)
		skip = "an uploaded series has no thread to reply in";
	else if (!reply || !strcmp(reply, "no"))
		skip = "no reply asked for (reply = no)";
	else if (!strcmp(reply, "regressions") &&
	    !mail_verdict_is_regression(verdict))
		skip = "reply = regressions, and this is not one";
	if (!skip) {
		int f = mail_fetch_root(s.lore_base, s.lore_list, rootid, rootid,
		    &root, &err);

		if (f < 0) {
			log_warnx("mail: series %lld: %s (tried again later)",
			    row->series_id, err.data);
			rc = 1;
			goto out;
		}
		if (f == 1)
			skip = "the thread's first message is not on the lore";
		else if (mail_recipients(&root, &rcpt, &hdr) < 0)
			skip = "the thread's first message has no usable From";
	}
	thread = s.lore_base && s.lore_list && rootid ?
	    xasprintf("%s%s%s/%s/", s.lore_base, s.lore_base[strlen(
	    s.lore_base) - 1] == '/' ? "" : "/", s.lore_list, rootid) : NULL;
	rm.public_url = pub;
	rm.greet = root.from_name && *root.from_name ? root.from_name :
	    s.author;
	rm.thread_url = thread;
	rm.msgid = rootid;
	report_mail_body(&r, &rm, &body);
	subject = mail_re(root.subject && *root.subject ? root.subject :
	    r.subject ? r.subject : "(no subject)");
	mail_headers(&msg, row->msgid, root.msgid ? &root : NULL, irt, subject);
	buf_addstr(&msg, hdr.data ? hdr.data : "");
	buf_addch(&msg, '\n');
	buf_addstr(&msg, body.data ? body.data : "");
	if (!skip)
		skip = mail_over_cap(db, rcpt.data, s.lore_list);
	if (db_mail_rendered(db, row->id, skip ? "skipped" : "queued", skip,
	    subject, rcpt.data, s.lore_list, msg.data, time(NULL)) < 0)
		goto out;
	if (skip)
		log_info("mail: series %lld: no reply: %s", row->series_id,
		    skip);
	rc = 0;
out:
	if (got_report)
		report_release(&r);
	if (got_series)
		db_series_release(&s);
	mail_root_release(&root);
	buf_release(&msg);
	buf_release(&body);
	buf_release(&rcpt);
	buf_release(&hdr);
	buf_release(&err);
	free(reply);
	free(irt);
	free(url);
	free(pub);
	free(subject);
	free(thread);
	return rc;
}

static const char *
mail_track_reply(const char *track, const char **branch)
{
	for (size_t i = 0; i < app.settings.ntracks; i++)
		if (!strcmp(app.settings.tracks[i].name, track)) {
			*branch = app.settings.tracks[i].branch;
			return app.settings.tracks[i].reply;
		}
	return "no";
}

/* "https://lore.../list/msgid/" -> base, list, msgid when allowed. */
static int
mail_link_thread(const char *link, struct lore_url *u)
{
	struct buf e = BUF_INIT(1024);
	int rc;

	rc = link ? lore_parse_url(link, app.settings.lore.allow,
	    app.settings.lore.nallow, u, &e) : -1;
	buf_release(&e);
	return rc;
}

static int
mail_render_regression(struct db *db, const struct mail_row *row)
{
	struct track_regression g;
	struct lore_url u = { 0 };
	struct mail_root root = { 0 };
	struct report_mail rm = { 0 };
	struct buf msg = BUF_INIT(MAIL_MAX_BYTES), body = BUF_INIT(0);
	struct buf rcpt = BUF_INIT(0), hdr = BUF_INIT(0), subj = BUF_INIT(0);
	struct buf err = BUF_INIT(1024);
	const char *branch = "master", *reply, *skip = NULL;
	char *pub = mail_public_url();
	int rc = -1, got = 0, parsed = 0;

	if (db_track_regression_get(db, row->regression_id, &g) != 0)
		goto out;
	got = 1;
	reply = mail_track_reply(g.track, &branch);
	/* mailed once the bisect has a verdict */
	if (!strcmp(reply, "no"))
		skip = "no reply asked for ([track] reply = no)";
	else if (!g.state || (strcmp(g.state, "found") &&
	    strcmp(g.state, "unconfirmed") && strcmp(g.state, "undecided") &&
	    strcmp(g.state, "failed"))) {
		db_mail_set(db, row->id, "new", NULL, 0, time(NULL) +
		    app.settings.daemon.poll * 4, 0);
		rc = 1;
		goto out;
	} else if (strcmp(g.state, "found"))
		skip = "the bisect found no first bad commit";
	else if (!g.link || mail_link_thread(g.link, &u) < 0)
		skip = "the first bad commit has no Link: to an allowed lore";
	else
		parsed = 1;
	if (!skip) {
		int f = mail_fetch_root(u.base, u.list, u.msgid, u.msgid, &root,
		    &err);

		if (f < 0) {
			rc = 1;
			goto out;
		}
		if (f == 1 || mail_recipients(&root, &rcpt, &hdr) < 0)
			skip = "the Link: thread is not on the lore";
	}
	rm.public_url = pub;
	rm.greet = root.from_name;
	report_mail_regression_subject(&g, branch, &subj);
	report_mail_regression_body(&g, branch, &rm, &body);
	mail_headers(&msg, row->msgid, root.msgid ? &root : NULL, NULL,
	    subj.data);
	buf_addstr(&msg, hdr.data ? hdr.data : "");
	buf_addch(&msg, '\n');
	buf_addstr(&msg, body.data ? body.data : "");
	if (!skip)
		skip = mail_over_cap(db, rcpt.data, u.list);
	if (db_mail_rendered(db, row->id, skip ? "skipped" : "queued", skip,
	    subj.data, rcpt.data, u.list, msg.data, time(NULL)) < 0)
		goto out;
	rc = 0;
out:
	if (got)
		track_regression_release(&g);
	if (parsed)
		lore_url_release(&u);
	mail_root_release(&root);
	buf_release(&msg);
	buf_release(&body);
	buf_release(&rcpt);
	buf_release(&hdr);
	buf_release(&subj);
	buf_release(&err);
	free(pub);
	return rc;
}

/* ---- transports ----------------------------------------------------------- */

/* mboxrd: "From " lines (and ">From " ones) in the body get one more '>'. */
static int
mail_outbox(const char *msg, struct buf *err)
{
	const char *path = app.settings.mail.outbox;
	char *def = NULL, date[64];
	struct buf b = BUF_INIT(0);
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;
	int rc = -1;

	if (!path)
		path = def = xasprintf("%s/outbox.mbox", app.data_dir);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", &tm);
	buf_addf(&b, "From kperfci %s\n", date);
	for (const char *l = msg, *nl; *l; l = nl + 1) {
		const char *p = l;

		nl = strchr(l, '\n');
		while (*p == '>')
			p++;
		if (!strncmp(p, "From ", 5))
			buf_addch(&b, '>');
		buf_add(&b, l, nl ? (size_t)(nl - l) : strlen(l));
		buf_addch(&b, '\n');
		if (!nl)
			break;
	}
	buf_addch(&b, '\n');
	if (!(f = fopen(path, "a"))) {
		buf_addf(err, "outbox %s: %s", path, strerror(errno));
		goto out;
	}
	if (fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0) {
		buf_addf(err, "outbox %s: write failed", path);
		goto out;
	}
	rc = 0;
out:
	buf_release(&b);
	free(def);
	return rc;
}

static void
mail_split_rcpt(const char *rcpt, char ***v, size_t *n)
{
	*v = NULL;
	*n = 0;
	for (const char *l = rcpt, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl == l)
			continue;
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = nl ? xstrndup(l, nl - l) : xstrdup(l);
		if (!nl)
			break;
	}
}

static int
mail_sendmail(const char *from, char **rcpt, size_t nrcpt, const char *msg,
    int *permanent, struct buf *err)
{
	char *words = xstrdup(app.settings.mail.sendmail), *save = NULL, *w;
	char tmpl[] = "/tmp/kperfci-mail-XXXXXX";
	struct strvec argv = STRVEC_INIT;
	struct run r = { 0 };
	int fd, rc = -1;

	*permanent = 0;
	for (w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t",
	    &save))
		strvec_push(&argv, w);
	strvec_push(&argv, "-f");
	strvec_push(&argv, from);
	strvec_push(&argv, "--");
	for (size_t i = 0; i < nrcpt; i++)
		strvec_push(&argv, rcpt[i]);
	if ((fd = mkstemp(tmpl)) < 0) {
		buf_addf(err, "mkstemp: %s", strerror(errno));
		goto out;
	}
	if (write(fd, msg, strlen(msg)) != (ssize_t)strlen(msg)) {
		buf_addstr(err, "could not write the message for sendmail");
		close(fd);
		goto out_unlink;
	}
	close(fd);
	r.argv = strvec_argv(&argv);
	r.stdin_path = tmpl;
	r.timeout_sec = SMTP_TIMEOUT;
	if (run_cmd(&r) < 0) {
		buf_addf(err, "%s: %s", argv.v[0], run_status(&r));
		/* sendmail's EX_TEMPFAIL (75) is worth a retry; others not */
		*permanent = r.exit_code > 0 && r.exit_code != 75;
		goto out_unlink;
	}
	rc = 0;
out_unlink:
	unlink(tmpl);
out:
	strvec_clear(&argv);
	free(words);
	return rc;
}

static int
mail_transport(const struct mail_row *row, int *permanent, struct buf *err)
{
	const struct settings *set = &app.settings;
	char **rcpt = NULL, from[256];
	size_t n = 0;
	int rc = -1;

	*permanent = 0;
	if (config_addr_spec(set->mail.from, from, sizeof(from)) < 0)
		return buf_addstr(err, "[mail] from is not an address"), -1;
	if (!strcmp(set->mail.send, "outbox"))
		return mail_outbox(row->message, err);
	mail_split_rcpt(row->rcpt, &rcpt, &n);
	if (!n) {
		buf_addstr(err, "no recipients");
		*permanent = 1;
		goto out;
	}
	if (!strcmp(set->mail.send, "sendmail")) {
		rc = mail_sendmail(from, rcpt, n, row->message, permanent, err);
	} else {
		struct smtp_relay r = { 0 };
		char *host = xstrdup(set->mail.relay), *c = strrchr(host, ':');
		char *user = NULL, *pass = NULL;

		*c = '\0';
		r.host = host;
		r.port = atoi(c + 1);
		r.starttls = set->mail.starttls;
		r.helo = mail_domain();
		r.ca_file = set->mail.ca_file;
		if (set->mail.auth_file && smtp_read_auth(set->mail.auth_file,
		    &user, &pass, err) < 0) {
			free(host);
			goto out;
		}
		r.user = user;
		r.password = pass;
		rc = smtp_send(&r, from, (const char *const *)rcpt, n,
		    row->message, strlen(row->message), permanent, err);
		free(host);
		free(user);
		free(pass);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(rcpt[i]);
	free(rcpt);
	return rc;
}

/* Did a mail marked 'sending' reach its list already (a crash after the
   relay took it)?  1 yes, 0 no or cannot say. */
static int
mail_on_lore(struct db *db, const struct mail_row *row)
{
	struct db_series s;
	struct track_regression g;
	struct lore_url u = { 0 };
	struct buf data = BUF_INIT(LORE_MAX_BYTES), err = BUF_INIT(1024);
	int rc = 0;

	if (row->series_id) {
		if (db_series_get(db, row->series_id, 0, &s) != 0)
			return 0;
		if (s.lore_base && s.lore_list && lore_fetch_thread_allow(
		    s.lore_base, s.lore_list, row->msgid,
		    app.settings.lore.allow, app.settings.lore.nallow, &data,
		    &err) == 0)
			rc = 1;
		db_series_release(&s);
	} else if (row->regression_id) {
		/* a nightly regression's reply went to its Link: thread */
		if (db_track_regression_get(db, row->regression_id, &g) != 0)
			return 0;
		if (g.link && mail_link_thread(g.link, &u) == 0) {
			if (lore_fetch_thread_allow(u.base, u.list, row->msgid,
			    app.settings.lore.allow, app.settings.lore.nallow,
			    &data, &err) == 0)
				rc = 1;
			lore_url_release(&u);
		}
		track_regression_release(&g);
	}
	buf_release(&data);
	buf_release(&err);
	return rc;
}

static void
mail_send_one(struct db *db, const struct mail_row *row)
{
	struct buf err = BUF_INIT(1024);
	long long now = time(NULL), d;
	int permanent;

	if (!strcmp(row->state, "sending") && mail_on_lore(db, row)) {
		db_mail_set(db, row->id, "sent", "found on the list after a "
		    "restart", 0, now, now);
		log_info("mail: <%s> was sent before the restart", row->msgid);
		goto out;
	}
	if (db_mail_set(db, row->id, "sending", row->reason, 1, now, 0) < 0)
		goto out;
	if (mail_transport(row, &permanent, &err) == 0) {
		db_mail_set(db, row->id, "sent", NULL, 0, now, time(NULL));
		log_info("mail: sent <%s> (%s)", row->msgid, row->subject ?
		    row->subject : "");
		goto out;
	}
	if (permanent) {
		db_mail_set(db, row->id, "failed", err.data, 0, now, 0);
		log_warnx("mail: <%s> refused: %s", row->msgid, err.data);
		goto out;
	}
	d = app.settings.mail.retry;
	for (int k = 0; k < row->attempts && d < MAIL_MAX_BACKOFF; k++)
		d *= 2;
	if (d > MAIL_MAX_BACKOFF)
		d = MAIL_MAX_BACKOFF;
	db_mail_set(db, row->id, "queued", err.data, 0, now + d, 0);
	log_warnx("mail: <%s>: %s; retried in %llds", row->msgid, err.data, d);
out:
	buf_release(&err);
}

/* ---- the queue thread ------------------------------------------------------ */

static void
mail_pass(struct db *db)
{
	static const char *const send_states[] = { "sending", "queued" };
	struct mail_row *rows;
	size_t n;
	long long now = time(NULL);

	if (db_mail_due(db, "new", now, MAIL_BATCH, &rows, &n) == 0) {
		for (size_t i = 0; i < n && !mail_stopping; i++) {
			int r = !strcmp(rows[i].kind, "regression") ?
			    mail_render_regression(db, &rows[i]) :
			    mail_render_result(db, &rows[i]);

			if (r == 1 && strcmp(rows[i].kind, "regression"))
				db_mail_set(db, rows[i].id, "new", NULL, 0, now +
				    app.settings.mail.retry, 0);
			else if (r < 0)
				db_mail_set(db, rows[i].id, "skipped", "could "
				    "not be rendered (see the log)", 0, now, 0);
		}
		mail_rows_free(rows, n);
	}
	for (size_t k = 0; k < 2; k++) {
		if (db_mail_due(db, send_states[k], now, MAIL_BATCH, &rows,
		    &n) < 0)
			continue;
		for (size_t i = 0; i < n && !mail_stopping; i++)
			mail_send_one(db, &rows[i]);
		mail_rows_free(rows, n);
	}
}

static void *
mail_main(void *arg)
{
	struct db *db = app_db();

	(void)arg;
	pthread_mutex_lock(&mail_lock);
	while (!mail_stopping) {
		struct timespec ts;
		long long next = 0, now;

		mail_kicked = 0;
		pthread_mutex_unlock(&mail_lock);
		if (db) {
			mail_pass(db);
			db_mail_next(db, &next);
		}
		pthread_mutex_lock(&mail_lock);
		if (mail_stopping || mail_kicked)
			continue;
		now = time(NULL);
		ts.tv_sec = next && next > now ? next : now +
		    app.settings.daemon.poll;
		if (next && next <= now)
			ts.tv_sec = now + 1;
		if (ts.tv_sec > now + 3600)
			ts.tv_sec = now + 3600;
		ts.tv_nsec = 0;
		pthread_cond_timedwait(&mail_cond, &mail_lock, &ts);
	}
	pthread_mutex_unlock(&mail_lock);
	app_db_close_thread();
	return NULL;
}

int
mail_start(void)
{
	int e;

	if (!mail_on())
		return 0;
	mail_stopping = 0;
	if ((e = pthread_create(&mail_thread, NULL, mail_main, NULL))) {
		errno = e;
		log_warn("mail: pthread_create");
		return -1;
	}
	mail_running = 1;
	log_info("mail: replies in the thread on (send = %s)",
	    app.settings.mail.send);
	return 0;
}

void
mail_stop(void)
{
	if (!mail_running)
		return;
	pthread_mutex_lock(&mail_lock);
	mail_stopping = 1;
	pthread_cond_broadcast(&mail_cond);
	pthread_mutex_unlock(&mail_lock);
	pthread_join(mail_thread, NULL);
	mail_running = 0;
}

/* ---- commands in replies --------------------------------------------------- */

static int
mail_may_command(const char *sender, const struct db_series *s)
{
	const struct settings *set = &app.settings;

	if (!set->mail.ncommand_from)
		return s->email && !strcasecmp(sender, s->email);
	for (size_t i = 0; i < set->mail.ncommand_from; i++)
		if (!strcmp(set->mail.command_from[i], "author") && s->email &&
		    !strcasecmp(sender, s->email))
			return 1;
	return mail_addr_matches(sender, set->mail.command_from,
	    set->mail.ncommand_from);
}

/* Acts on cmd for series s; the answer's text into ans.  New series id
   in *nid (0 none). */
static void
mail_command_act(struct db *db, const struct mailcmd *cmd,
    const struct db_series *s, const char *cmd_msgid, const char *sender,
    long long *nid, struct buf *ans)
{
	struct buf err = BUF_INIT(1024);
	char *pub = mail_public_url(), *state = NULL, *who;
	long long id = 0;

	*nid = 0;
	who = xasprintf("mail from %s", sender);
	if (cmd->verb == MAILCMD_CANCEL) {
		int r = db_series_cancel(db, s->id, who, &state);

		if (r == 0)
			buf_addf(ans, "Cancelled series %lld (%sseries/%lld).\n",
			    (long long)s->id, pub, (long long)s->id);
		else if (r == 2)
			buf_addf(ans, "Not cancelled: series %lld is %s "
			    "already.\n", (long long)s->id, state);
		else
			buf_addstr(ans, "Not cancelled: the store failed; try "
			    "again.\n");
		goto out;
	}
	if (cmd->verb == MAILCMD_RETEST) {
		int r = db_series_rerun(db, s->id, who, &id);

		if (r != 0) {
			buf_addf(ans, "Not accepted: series %lld cannot be run "
			    "again (%s).\n", (long long)s->id, r == 2 ?
			    "its upload is no longer kept" : "store error");
			goto out;
		}
	} else {
		json_t *suites = NULL;
		char *etc;
		int bad = 0;

		if (*cmd->base && intake_check_rev(cmd->base, &err) < 0) {
			buf_addf(ans, "Not accepted: %s\n", err.data);
			goto out;
		}
		if (*cmd->suite) {
			suites = json_pack("[s]", cmd->suite);
			etc = exercise_etc_dir();
			bad = exercise_suites_check(suites, etc, &err) < 0;
			free(etc);
			if (bad) {
				buf_addf(ans, "Not accepted: %s\n", err.data);
				json_decref(suites);
				goto out;
			}
		}
		if (cmd->boots > app.settings.sched.max_boots) {
			buf_addf(ans, "Not accepted: boots %d is more than this "
			    "server's most, %d.\n", cmd->boots,
			    app.settings.sched.max_boots);
			json_decref(suites);
			goto out;
		}
		if (intake_submit_url(db, s->source, s->version, *cmd->base ?
		    cmd->base : s->req_base, &id, &err) < 0 ||
		    (cmd->boots > 0 && sched_request_store(db, id, NULL,
		    cmd->boots) < 0) || (suites &&
		    db_exercise_request_set(db, id, suites) < 0)) {
			buf_addf(ans, "Not accepted: %s\n", err.len ? err.data :
			    "store error");
			json_decref(suites);
			goto out;
		}
		json_decref(suites);
	}
	db_mail_policy_set(db, id, "yes", cmd_msgid);
	*nid = id;
	buf_addf(ans, "Accepted: series %lld runs \"%s\".  Follow it at "
	    "%sseries/%lld; its result will be a reply to your message.\n", id,
	    cmd->line, pub, id);
out:
	buf_release(&err);
	free(pub);
	free(state);
	free(who);
}

/* Queues the answer to a command message (root: the command) read on
   list, within the per-day caps like every other mail: a flood of
   commands (From: is not proof) gets answers up to the caps only. */
static void
mail_answer(struct db *db, const struct mail_root *cmdmsg, long long sid,
    const char *list, const char *text)
{
	struct mail_row m = { 0 };
	struct buf msg = BUF_INIT(MAIL_MAX_BYTES), rcpt = BUF_INIT(0);
	struct buf hdr = BUF_INIT(0), body = BUF_INIT(0), pre = BUF_INIT(0);
	char h[13], *subject = mail_re(cmdmsg->subject ? cmdmsg->subject : "");
	char *pub = mail_public_url();
	const char *skip = NULL;
	int added;

	mail_hash(cmdmsg->msgid, "answer", h);
	m.msgid = xasprintf("kperfci.answer.%s@%s", h, mail_domain());
	if (mail_recipients(cmdmsg, &rcpt, &hdr) < 0)
		skip = "the command has no usable From";
	buf_addf(&pre, "Hello %s,\n\n%s\n-- \nkperfci, performance CI for "
	    "the Linux kernel\n%s\n", cmdmsg->from_name && *cmdmsg->from_name ?
	    cmdmsg->from_name : cmdmsg->from_email, text, pub);
	report_mail_wrap(pre.data, REPORT_MAIL_WIDTH, &body);
	mail_headers(&msg, m.msgid, cmdmsg, NULL, subject);
	/* In-Reply-To is the command itself: the root here is the command */
	buf_addstr(&msg, hdr.data ? hdr.data : "");
	buf_addch(&msg, '\n');
	buf_addstr(&msg, body.data);
	m.kind = "answer";
	m.series_id = sid;
	m.subject = subject;
	m.rcpt = rcpt.data;
	m.message = msg.data;
	if (!skip && !mail_on())
		skip = "[mail] send = none";
	if (!skip)
		skip = mail_over_cap(db, rcpt.data, list);
	if (skip)
		log_info("mail: no answer to <%s>: %s", cmdmsg->msgid, skip);
	m.list = (char *)list;
	m.state = skip ? "skipped" : "queued";
	m.reason = (char *)skip;
	if (db_mail_add(db, &m, time(NULL), &added) == 0 && added)
		mail_kick();
	free(m.msgid);
	free(subject);
	free(pub);
	buf_release(&msg);
	buf_release(&rcpt);
	buf_release(&hdr);
	buf_release(&body);
	buf_release(&pre);
}

int
mail_watch_reply(struct db *db, const char *watch, const char *base,
    const char *list, const char *msgid, struct buf *outcome,
    struct buf *err)
{
	struct mail_root m = { 0 };
	struct mailcmd cmd;
	struct db_series s;
	struct buf why = BUF_INIT(1024), ans = BUF_INIT(0);
	long long sid = 0, nid = 0;
	int r, rc = 0, got = 0;
	char sender[256];

	if (db_mail_command_seen(db, msgid) != 0) {
		buf_addstr(outcome, "a reply (its command was read before)");
		return 0;
	}
	r = mail_fetch_root(base, list, msgid, msgid, &m, err);
	if (r < 0)
		return -1;
	if (r == 1) {
		buf_addstr(outcome, "a reply that is not on the lore");
		goto out;
	}
	r = mailcmd_find(m.body, strlen(m.body), &cmd, &why);
	if (r == 0) {
		buf_addstr(outcome, "a reply");
		goto out;
	}
	if (config_addr_spec(m.from_email, sender, sizeof(sender)) < 0) {
		buf_addstr(outcome, "a command from an unusable address");
		goto out;
	}
	/* the series of the thread: the newest one any reference names */
	for (size_t i = m.nrefs; i-- > 0 && !sid;)
		db_mail_series_for(db, m.refs[i], &sid);
	if (!sid || db_series_get(db, sid, 0, &s) != 0) {
		buf_addstr(&ans, "Not accepted: kperfci has not tested a series "
		    "in this thread.\n");
		sid = 0;
	} else {
		got = 1;
		if (r < 0)
			buf_addf(&ans, "Not accepted: %s.\n\nThe commands are "
			    "\"#kperfci test [suite NAME] [boots N|auto] [base "
			    "REV]\", \"#kperfci retest\" and \"#kperfci "
			    "cancel\".\n", why.data);
		else if (!mail_may_command(sender, &s))
			buf_addf(&ans, "Not accepted: %s may not command kperfci "
			    "on this thread (the series' author and the "
			    "addresses this server lists may).\n", sender);
		else
			mail_command_act(db, &cmd, &s, msgid, sender, &nid,
			    &ans);
	}
	db_mail_command_add(db, msgid, watch, sender, sid, r > 0 ? cmd.line :
	    NULL, ans.data, nid, time(NULL));
	log_info("mail: command <%s> from %s: %s", msgid, sender, ans.data);
	if (sid && mail_may_command(sender, &s))
		mail_answer(db, &m, nid ? nid : sid, list, ans.data);
	else if (sid)
		log_info("mail: no answer to %s (not allowed to command)",
		    sender);
	buf_addf(outcome, "a command: %.200s", ans.data);
	if (outcome->len && outcome->data[outcome->len - 1] == '\n')
		outcome->data[--outcome->len] = '\0';
out:
	if (got)
		db_series_release(&s);
	mail_root_release(&m);
	buf_release(&why);
	buf_release(&ans);
	return rc;
}

/* ---- the series page --------------------------------------------------------- */

json_t *
mail_series_json(struct db *db, long long sid)
{
	struct mail_row *rows;
	size_t n;
	json_t *o = NULL;

	if (db_mail_list(db, sid, 0, &rows, &n) < 0)
		return NULL;
	for (size_t i = 0; i < n && !o; i++)
		if (!strcmp(rows[i].kind, "result"))
			o = json_pack("{s:I,s:s,s:s,s:s?}", "id",
			    (json_int_t)rows[i].id, "msgid", rows[i].msgid,
			    "state", rows[i].state, "reason", rows[i].reason);
	mail_rows_free(rows, n);
	return o;
}

void
mail_series_line(struct db *db, long long sid, struct buf *out)
{
	struct mail_row *rows;
	size_t n;

	if (db_mail_list(db, sid, 0, &rows, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct mail_row *m = &rows[i];

		if (strcmp(m->kind, "result"))
			continue;
		if (!strcmp(m->state, "sent"))
			buf_addf(out, "reply sent <%s>", m->msgid);
		else if (!strcmp(m->state, "queued") && m->reason)
			buf_addf(out, "reply queued (%s: %s)",
			    !strcmp(app.settings.mail.send, "smtp") ? "SMTP" :
			    app.settings.mail.send, m->reason);
		else if (!strcmp(m->state, "skipped"))
			buf_addf(out, "no reply: %s", m->reason ? m->reason :
			    "skipped");
		else if (!strcmp(m->state, "failed"))
			buf_addf(out, "reply refused: %s", m->reason ?
			    m->reason : "");
		else
			buf_addf(out, "reply %s", m->state);
		break;
	}
	mail_rows_free(rows, n);
}
