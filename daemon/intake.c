/*
 * intake: submissions (URL or mbox) and the fetch stage (see intake.h).
 */
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/intake.h"
#include "core/lore.h"
#include "core/mbox.h"
#include "core/mime.h"
#include "daemon/pipeline.h"
#include "core/series.h"
#include "lib/log.h"
#include "lib/xalloc.h"

static int
intake_fetch_lore(const struct db_series *s, struct buf *mbox,
    struct buf *err)
{
	return lore_fetch_thread_allow(s->lore_base, s->lore_list, s->msgid,
	    app.settings.lore.allow, app.settings.lore.nallow, mbox, err);
}

int
intake_parse_url(const char *url, char **basep, char **listp, char **msgidp,
    int *version, struct buf *err)
{
	struct lore_url lu;

	memset(&lu, 0, sizeof(lu));
	if (app.settings.lore.nallow == 0) {
		buf_addstr(err, "no lore base is allowed in the configuration "
		    "([lore] allow), so no URL can be fetched");
		return -1;
	}
	if (lore_parse_url(url, app.settings.lore.allow,
	    app.settings.lore.nallow, &lu, err) < 0)
		return -1;
	*basep = lu.base;
	*listp = lu.list;
	*msgidp = lu.msgid;
	if (lu.version)
		*version = lu.version;
	return 0;
}

int
intake_check_rev(const char *rev, struct buf *err)
{
	const char *p;

	if (!*rev || strlen(rev) > 256)
		return buf_addstr(err, "base must be 1 to 256 characters"), -1;
	for (p = rev; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '~' ||
		    *p == '^' || *p == ':' || *p == '\\' ||
		    (p[0] == '.' && p[1] == '.'))
			return buf_addf(err, "base \"%.64s\" is not a valid git "
			    "revision name", rev), -1;
	return 0;
}

static int
intake_check_common(int version, const char *base, struct buf *err)
{
	if (version < 0 || version > 1000)
		return buf_addf(err, "version must be between 1 and 1000, "
		    "not %d", version), -1;
	if (base && intake_check_rev(base, err) < 0)
		return -1;
	return 0;
}

int
intake_submit_url(struct db *db, const char *url, int version,
    const char *base, long long *id, struct buf *err)
{
	char *lbase = NULL, *list = NULL, *msgid = NULL;
	struct db_series_req r;
	int64_t nid;
	int rc = -1, v = 0;

	if (strlen(url) > 4096) {
		buf_addstr(err, "url longer than 4096 bytes");
		return -1;
	}
	if (intake_parse_url(url, &lbase, &list, &msgid, &v, err) < 0)
		goto out;
	if (!version)
		version = v;
	if (intake_check_common(version, base, err) < 0)
		goto out;
	memset(&r, 0, sizeof(r));
	r.source = url;
	r.lore_base = lbase;
	r.lore_list = list;
	r.msgid = msgid;
	r.version = version;
	r.base = base;
	if (db_series_insert(db, &r, &nid) < 0) {
		buf_addstr(err, "cannot store the request (see the daemon "
		    "log)");
		goto out;
	}
	*id = nid;
	pipeline_kick();
	rc = 0;
out:
	free(lbase);
	free(list);
	free(msgid);
	return rc;
}

int
intake_submit_mbox(struct db *db, const void *data, size_t len, int version,
    const char *base, long long *id, struct buf *err)
{
	struct db_series_req r;
	int64_t nid;

	if (len == 0) {
		buf_addstr(err, "empty mbox");
		return -1;
	}
	if (intake_check_common(version, base, err) < 0)
		return -1;
	/* 60 MB of random bytes must never reach the store, nor an mbox
	   the fetch stage would refuse (a message over MBOX_MAX_MESSAGE) */
	if (mbox_looks_like_mail(data, len, err) < 0 ||
	    mbox_check(data, len, err) < 0)
		return -1;
	memset(&r, 0, sizeof(r));
	r.source = "upload";
	r.version = version;
	r.base = base;
	r.upload = data;
	r.upload_len = len;
	if (db_series_insert(db, &r, &nid) < 0) {
		buf_addstr(err, "cannot store the request (see the daemon "
		    "log)");
		return -1;
	}
	*id = nid;
	pipeline_kick();
	return 0;
}

/*
 * The thread's mbox: the uploaded one, or lore's t.mbox.gz.  0 or -1 with
 * err.
 */
static int
intake_thread_mbox(struct db *db, const struct db_series *s,
    struct buf *mbox, struct buf *err)
{
	if (s->has_upload) {
		if (db_series_upload(db, s->id, mbox) < 0)
			return buf_addstr(err, "cannot read the uploaded mbox "
			    "from the store"), -1;
		return 0;
	}
	if (!s->lore_base || !s->lore_list || !s->msgid)
		return buf_addstr(err, "series has neither an upload nor a "
		    "lore message to fetch"), -1;
	return intake_fetch_lore(s, mbox, err);
}

/*
 * Decoding a thread costs about twice its size: the mbox, read one
 * message at a time (mbox_next), and the decoded messages beside it; no
 * message is over MBOX_MAX_MESSAGE, so decoding the one at hand adds
 * little.  Measured on a 60 MB upload of 600 replies: 153 MB before, when
 * every raw message was copied out first; 134 MB now; one 59 MB message
 * took 305 MB (six times its size in GMime) and is now refused when
 * submitted.  A thread over INTAKE_BIG is still decoded by one fetch
 * worker at a time, and the mbox freed once decoded, so the workers
 * together hold at most one large thread's worth.
 */
#define INTAKE_BIG	(8u << 20)
static pthread_mutex_t intake_big_lock = PTHREAD_MUTEX_INITIALIZER;

static void
intake_skipped(size_t pos, const char *why, void *arg)
{
	log_debug("series %lld: message %zu skipped: %s",
	    *(const long long *)arg, pos, why);
}

/*
 * queued -> fetched: get the thread, split it, decode every message, pick
 * the series, store it.  Messages that cannot be decoded are skipped (the
 * picker says what is missing); a thread where none can be is an error.
 */
int
stage_fetch(struct stage_ctx *ctx)
{
	struct buf mbox = BUF_INIT(LORE_MAX_BYTES);
	struct db_series s;
	struct msg_list msgs = { 0 };
	struct series ser;
	long long id = ctx->series_id;
	int rc = STAGE_FAIL, got, big = 0;

	memset(&ser, 0, sizeof(ser));
	got = db_series_get(ctx->db, ctx->series_id, 0, &s);
	if (got != 0) {
		buf_addstr(&ctx->err, "series vanished from the store");
		return STAGE_FAIL;
	}
	if (intake_thread_mbox(ctx->db, &s, &mbox, &ctx->err) < 0)
		goto out;
	if (mbox.len > INTAKE_BIG) {
		pthread_mutex_lock(&intake_big_lock);
		big = 1;
	}
	if (msg_parse_mbox(mbox.data ? mbox.data : "", mbox.len, &msgs,
	    intake_skipped, &id, &ctx->err) < 0)
		goto out;
	buf_release(&mbox);
	if (msgs.n == 0) {
		buf_addf(&ctx->err, "no readable message in the thread (%zu "
		    "in the mbox)", msgs.nmbox);
		goto out;
	}
	if (series_pick(msgs.v, msgs.n, s.has_upload ? NULL : s.msgid,
	    s.req_version, &ser, &ctx->err) < 0)
		goto out;
	if (db_series_store_picked(ctx->db, s.id, &ser, ctx->from,
	    ctx->to) < 0) {
		buf_addstr(&ctx->err, "cannot store the series (see the "
		    "daemon log)");
		goto out;
	}
	log_info("series %lld: v%d, %zu patches", (long long)s.id,
	    ser.version, ser.npatches);
	rc = STAGE_OK;
out:
	if (big)
		pthread_mutex_unlock(&intake_big_lock);
	msg_list_release(&msgs);
	series_release(&ser);
	db_series_release(&s);
	buf_release(&mbox);
	return rc;
}
