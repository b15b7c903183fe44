/*
 * api_series: the series JSON API and /healthz.
 *
 *	POST /api/v1/series		{"url", "version"?, "base"?, "boots"?,
 *					"matrix"?, "priority"?, "suites"?,
 *					"reply"?} or an application/mbox
 *					body (?version=&base=&boots=
 *					&priority=&suites=&reply=)
 *					-> 202 {"id", "state": "queued"}
 *					(a submitter: see auth.h; 503 when
 *					the store cannot take writes)
 *	GET  /api/v1/series		list, newest first (?limit=N, 1..500,
 *					default 100; more is a 400)
 *	GET  /api/v1/series/{id}	one series with patches and trailers
 *	GET  /healthz			{"status": "ok"} when the store answers
 *					and takes writes, else 503 naming the
 *					path and the cause
 *
 * A full series object carries, after its patches, the comparison
 * (api_comparison.c), the base and builds, the boot plan ("schedule") and
 * the owner: each from its own function below, in that order.  The page
 * of the same series is ui_series.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/api_series.h"
#include "daemon/app.h"
#include "daemon/auth.h"
#include "daemon/config.h"
#include "daemon/db_exercise.h"
#include "daemon/exercise_series.h"
#include "daemon/db.h"
#include "daemon/report.h"
#include "daemon/db_build.h"
#include "daemon/db_auth.h"
#include "daemon/intake.h"
#include "daemon/limits.h"
#include "daemon/mail.h"
#include "daemon/pipeline.h"
#include "daemon/routes.h"
#include "daemon/sched.h"
#include "lib/xalloc.h"

/* An uploaded mbox may be as large as a thread fetched from lore. */
#define API_SERIES_MAX_UPLOAD	(64u << 20)
/* The most series one GET of the list returns (a larger ?limit is a 400). */
#define API_SERIES_MAX_LIMIT	500

static json_t *
jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* ---- the sections of a series object -------------------------------- */

static int
api_series_builds(struct db *db, long long series_id, json_t *obj)
{
	struct db_series_build sb;
	struct db_build b;
	json_t *o, *arr;
	int r = db_build_series_get(db, series_id, &sb);

	if (r < 0)
		return -1;
	if (r == 1) {
		json_object_set_new(obj, "builds", json_null());
		return 0;
	}
	o = json_object();
	json_object_set_new(o, "tree", jstr(sb.tree));
	{
		char *fs = NULL, *fe = NULL;

		if (db_build_tree_fetch_get(db, sb.tree, &fs, &fe) == 0 && fs)
			json_object_set_new(o, "tree_fetch", json_pack(
			    "{s:s,s:o}", "state", fs, "error", jstr(fe)));
		free(fs);
		free(fe);
	}
	json_object_set_new(o, "base_commit", jstr(sb.base_commit));
	json_object_set_new(o, "base_choice", jstr(sb.base_kind));
	json_object_set_new(o, "base_reason", jstr(sb.base_reason));
	json_object_set_new(o, "patched_commit", jstr(sb.patched_commit));
	json_object_set_new(o, "ref", jstr(sb.ref));
	arr = json_array();
	for (size_t i = 0; i < sb.npaths; i++)
		json_array_append_new(arr, json_pack("{s:i,s:s}", "patch",
		    sb.counters[i], "applied_by", sb.paths[i]));
	json_object_set_new(o, "apply", arr);
	if (sb.base_build && db_build_get(db, sb.base_build, &b) == 0) {
		json_object_set_new(o, "base", api_build_json(&b));
		db_build_release(&b);
	} else
		json_object_set_new(o, "base", json_null());
	if (sb.patched_build && db_build_get(db, sb.patched_build, &b) == 0) {
		json_object_set_new(o, "patched", api_build_json(&b));
		db_build_release(&b);
	} else
		json_object_set_new(o, "patched", json_null());
	json_object_set_new(obj, "builds", o);
	db_series_build_release(&sb);
	return 0;
}

int
api_series_schedule(struct db *db, long long sid, json_t *obj)
{
	struct sched_comparison c;
	int rc = sched_get(db, sid, &c);

	if (rc == 1)
		return 0;
	if (rc == -1)
		return -1;
	json_object_set_new(obj, "schedule", sched_json(&c));
	sched_comparison_release(&c);
	return 0;
}

static int
api_series_owner(struct db *db, long long id, json_t *obj)
{
	char *owner = NULL;

	if (db_series_owner(db, id, &owner) < 0)
		return -1;
	json_object_set_new(obj, "owner", owner ? json_string(owner) :
	    json_null());
	free(owner);
	return 0;
}

/* ---- the series object -------------------------------------------------- */

json_t *
api_series_json(struct db *db, const struct db_series *s, int full)
{
	json_t *o, *arr, *p, *tr;
	size_t i, k;

	o = json_object();
	json_object_set_new(o, "id", json_integer(s->id));
	json_object_set_new(o, "state", jstr(s->state));
	json_object_set_new(o, "final", json_boolean(
	    pipeline_series_rests(s)));
	json_object_set_new(o, "rest", jstr(s->rest));
	json_object_set_new(o, "error", jstr(s->error));
	json_object_set_new(o, "source", jstr(s->source));
	/* where it came from: "url", "upload", or "watch NAME" */
	json_object_set_new(o, "origin", json_string(s->origin ? s->origin :
	    s->source && !strcmp(s->source, "upload") ? "upload" : "url"));
	json_object_set_new(o, "lore_base", jstr(s->lore_base));
	json_object_set_new(o, "msgid", jstr(s->msgid));
	json_object_set_new(o, "requested_version", s->req_version ?
	    json_integer(s->req_version) : json_null());
	json_object_set_new(o, "requested_base", jstr(s->req_base));
	json_object_set_new(o, "version", s->version ?
	    json_integer(s->version) : json_null());
	json_object_set_new(o, "total", s->total ? json_integer(s->total) :
	    json_null());
	json_object_set_new(o, "subject", jstr(s->cover_subject));
	json_object_set_new(o, "title", jstr(s->title));
	json_object_set_new(o, "author", jstr(s->author));
	json_object_set_new(o, "email", jstr(s->email));
	json_object_set_new(o, "submitted", json_integer(s->submitted));
	json_object_set_new(o, "updated", json_integer(s->updated));
	if (!full)
		return o;
	json_object_set_new(o, "cover", json_pack("{s:o,s:o,s:o}",
	    "subject", jstr(s->cover_subject), "body", jstr(s->cover_body),
	    "msgid", jstr(s->cover_msgid)));
	json_object_set_new(o, "change_id", jstr(s->change_id));
	json_object_set_new(o, "base_commit", jstr(s->base_commit));
	json_object_set_new(o, "versions", jstr(s->versions));
	arr = json_array();
	for (i = 0; i < s->npatches; i++) {
		const struct db_patch *dp = &s->patches[i];

		p = json_object();
		json_object_set_new(p, "counter", json_integer(dp->counter));
		json_object_set_new(p, "total", json_integer(dp->total));
		json_object_set_new(p, "subject", jstr(dp->subject));
		json_object_set_new(p, "author", jstr(dp->author));
		json_object_set_new(p, "email", jstr(dp->email));
		json_object_set_new(p, "date", jstr(dp->date));
		json_object_set_new(p, "msgid", jstr(dp->msgid));
		json_object_set_new(p, "from_version",
		    json_integer(dp->from_version));
		tr = json_array();
		for (k = 0; k < dp->ntrailers; k++)
			json_array_append_new(tr, json_pack("{s:s,s:s}",
			    "name", dp->trailers[k].name ?
			    dp->trailers[k].name : "",
			    "value", dp->trailers[k].value ?
			    dp->trailers[k].value : ""));
		json_object_set_new(p, "trailers", tr);
		json_array_append_new(arr, p);
	}
	json_object_set_new(o, "patches", arr);
	api_comparison_series_json(db, s->id, o);
	api_series_builds(db, s->id, o);
	api_series_schedule(db, s->id, o);
	api_series_owner(db, s->id, o);
	/* the reply in the series' thread: {state, reason, msgid, id} */
	json_object_set_new(o, "mail", (p = mail_series_json(db, s->id)) ?
	    p : json_null());
	return o;
}

/* 0, or -1 with 503 naming the path and the cause. */
static int
api_store_writable(struct http_req *req, struct http_resp *resp)
{
	struct buf err = BUF_INIT(1024);
	int rc = 0;

	if (!req->db) {
		http_reply_error(resp, 503, "store not available: %s cannot "
		    "be opened (see the daemon log)", app.db_path);
		return -1;
	}
	if (db_store_writable(req->db, app.data_dir, &err) < 0) {
		http_reply_error(resp, 503, "store cannot take writes: %s",
		    err.data);
		rc = -1;
	}
	buf_release(&err);
	return rc;
}

static int
api_healthz(struct http_req *req, struct http_resp *resp)
{
	if (!req->db || db_user_version(req->db) < 1)
		return http_reply_error(resp, 503, "store not available");
	if (api_store_writable(req, resp) < 0)
		return 0;
	return http_reply_json(resp, 200, json_pack("{s:s,s:i}", "status",
	    "ok", "schema", db_user_version(req->db)));
}

/* A submission's suites: checked against etc/suites/ (exercise.h). */
static int
api_series_suites_check(const json_t *suites, struct http_resp *resp)
{
	struct buf err = BUF_INIT(512);
	char *etc = exercise_etc_dir();
	int rc = exercise_suites_check(suites, etc, &err);

	if (rc < 0)
		http_reply_error(resp, 400, "%s", err.data);
	free(etc);
	buf_release(&err);
	return rc;
}

/* ?suites=lru-lock,list-lru on an mbox upload: *out a new array or NULL. */
static int
api_series_suites_query(struct http_req *req, struct http_resp *resp,
    json_t **out)
{
	const char *q = http_query(req, "suites");
	char *copy, *save = NULL, *w;

	*out = NULL;
	if (q == NULL || *q == '\0')
		return 0;
	*out = json_array();
	copy = xstrndup(q, 1024);
	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
		json_array_append_new(*out, json_string(w));
	free(copy);
	if (api_series_suites_check(*out, resp) < 0) {
		json_decref(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static int
api_series_created(struct http_resp *resp, long long id)
{
	char loc[64];

	snprintf(loc, sizeof(loc), "/api/v1/series/%lld", id);
	http_resp_header(resp, "Location", loc);
	return http_reply_json(resp, 202, json_pack("{s:I,s:s}", "id",
	    (json_int_t)id, "state", "queued"));
}

/* ?version=N for mbox uploads: -1 (400 set) on garbage. */
static int
api_query_version(struct http_req *req, struct http_resp *resp, int *v)
{
	const char *q = http_query(req, "version");
	char *end;
	long n;

	*v = 0;
	if (!q || !*q)
		return 0;
	n = strtol(q, &end, 10);
	if (*end || n < 1 || n > 1000) {
		http_reply_error(resp, 400, "version must be an integer "
		    "between 1 and 1000, not \"%.32s\"", q);
		return -1;
	}
	*v = (int)n;
	return 0;
}

/*
 * The submitter's rate limit and upload quota (daemon/limits.h): 0, or -1
 * with a 429 (or a 500) in resp.
 */
static int
api_series_limits(struct http_req *req, struct http_resp *resp,
    const struct auth_who *who, size_t upload_len)
{
	return limits_http(req->db, auth_limits_key(req, who), upload_len,
	    resp, 0);
}

/* Fields a JSON submission may carry; anything else is a 400. */
static const char *const api_series_fields[] = {
	"url", "version", "base", "matrix", "boots", "priority", "suites",
	"reply", NULL
};

static int
api_series_unknown_field(json_t *j, struct http_resp *resp)
{
	const char *k;
	json_t *v;
	size_t i;

	json_object_foreach(j, k, v) {
		for (i = 0; api_series_fields[i]; i++)
			if (!strcmp(k, api_series_fields[i]))
				break;
		if (!api_series_fields[i]) {
			http_reply_error(resp, 400, "unknown field \"%.64s\" "
			    "(known: url, version, base, matrix, boots, "
			    "priority, suites, reply)", k);
			return -1;
		}
	}
	return 0;
}

/*
 * A submission's "reply" (yes | regressions | no, the [mail] reply when
 * absent): checked before anything is stored.  0, or -1 with a 400.
 */
static int
api_series_reply_check(const char *reply, struct http_resp *resp)
{
	struct buf err = BUF_INIT(256);
	int rc = 0;

	if (reply && config_check_reply(reply, &err) < 0) {
		http_reply_error(resp, 400, "%s", err.data);
		rc = -1;
	}
	buf_release(&err);
	return rc;
}

/* Owner, priority and reply policy of a stored submission; 500 on a
   store error. */
static int
api_series_accepted(struct http_req *req, struct http_resp *resp,
    long long id, const struct auth_who *who, int prio, const char *reply)
{
	struct buf err = BUF_INIT(256);
	int r;

	r = mail_series_reply(req->db, id, reply, &err);
	buf_release(&err);
	if (r < 0 || db_series_set_owner(req->db, id, who->name) < 0 ||
	    db_sched_set_priority(req->db, id, prio) < 0) {
		http_reply_error(resp, 500, "the submission's owner, "
		    "priority and reply could not be stored");
		return -1;
	}
	return api_series_created(resp, id);
}

static int
api_series_post(struct http_req *req, struct http_resp *resp)
{
	struct buf err = BUF_INIT(4096);
	const char *url = NULL, *base = NULL, *matrix = NULL, *reply = NULL;
	struct auth_who who;
	int boots = 0, prio = SCHED_PRIO_INTERACTIVE;
	long long id, version = 0;
	size_t max = app.settings.daemon.max_body;
	json_t *j = NULL, *suites = NULL;
	int v;

	if (api_store_writable(req, resp) < 0)
		return 0;
	if (auth_identify(req, 0, &who, resp) < 0)
		return 0;
	if (http_content_type_is(req, "application/mbox")) {
		if (api_query_version(req, resp, &v) < 0)
			goto out;
		base = http_query(req, "base");
		reply = http_query(req, "reply");
		if (api_series_suites_query(req, resp, &suites) < 0 ||
		    api_series_reply_check(reply, resp) < 0)
			goto out;
		if (sched_request_boots(http_query(req, "boots"), &boots,
		    &err) < 0 || auth_priority_text(&who, http_query(req,
		    "priority"), &prio, &err) < 0) {
			http_reply_error(resp, 400, "%s", err.data);
			goto out;
		}
		if (api_series_limits(req, resp, &who, req->body.len) < 0)
			goto out;
		if (intake_submit_mbox(req->db, req->body.data, req->body.len,
		    v, base && *base ? base : NULL, &id, &err) < 0) {
			limits_release(auth_limits_key(req, &who),
			    req->body.len);
			http_reply_error(resp, 400, "%s", err.data);
			goto out;
		}
		limits_submitted(req->db, auth_limits_key(req, &who), id,
		    req->body.len);
		if (sched_request_store(req->db, id, NULL, boots) < 0 ||
		    (suites && db_exercise_request_set(req->db, id,
		    suites) < 0)) {
			http_reply_error(resp, 500, "the submission's boots "
			    "and suites could not be stored");
			goto out;
		}
		api_series_accepted(req, resp, id, &who, prio, reply);
		goto out;
	}
	if (req->body.len > max) {
		http_reply_error(resp, 413, "request body larger than the "
		    "limit of %zu bytes", max);
		goto out;
	}
	if (!(j = http_json_body(req, resp)))
		goto out;
	if (api_series_unknown_field(j, resp) < 0)
		goto out;
	if (auth_priority(&who, json_object_get(j, "priority"), &prio,
	    &err) < 0) {
		http_reply_error(resp, 400, "%s", err.data);
		goto out;
	}
	if (http_json_str(j, "url", 1, &url, resp) < 0 ||
	    http_json_int(j, "version", 0, &version, resp) < 0 ||
	    http_json_str(j, "base", 0, &base, resp) < 0 ||
	    http_json_str(j, "reply", 0, &reply, resp) < 0 ||
	    api_series_reply_check(reply, resp) < 0)
		goto out;
	/* scheduler options: "matrix" (workloads.conf text), "boots" */
	if (sched_request_parse(j, &matrix, &boots, &err) < 0) {
		http_reply_error(resp, 400, "%s", err.data);
		goto out;
	}
	/* "suites": ["lru-lock", ...] instead of the touched ones */
	if ((suites = json_incref(json_object_get(j, "suites"))) &&
	    !json_is_null(suites) && api_series_suites_check(suites, resp) < 0)
		goto out;
	if (json_is_null(suites)) {
		json_decref(suites);
		suites = NULL;
	}
	if (version < 0 || version > 1000) {
		http_reply_error(resp, 400, "field \"version\" must be between "
		    "1 and 1000");
		goto out;
	}
	if (api_series_limits(req, resp, &who, 0) < 0)
		goto out;
	if (intake_submit_url(req->db, url, (int)version,
	    base && *base ? base : NULL, &id, &err) < 0) {
		http_reply_error(resp, 400, "%s", err.data);
		goto out;
	}
	limits_submitted(req->db, auth_limits_key(req, &who), id, 0);
	if (sched_request_store(req->db, id, matrix, boots) < 0 ||
	    (suites && db_exercise_request_set(req->db, id, suites) < 0)) {
		http_reply_error(resp, 500, "the submission's matrix, boots "
		    "and suites could not be stored");
		goto out;
	}
	api_series_accepted(req, resp, id, &who, prio, reply);
out:
	json_decref(j);
	json_decref(suites);
	buf_release(&err);
	return 0;
}

static int
api_series_list(struct http_req *req, struct http_resp *resp)
{
	struct db_series *v;
	const char *lq = http_query(req, "limit");
	size_t n, i, limit = 100;
	json_t *arr;

	if (lq) {
		char *end;
		long l = strtol(lq, &end, 10);

		if (!*lq || *end || l < 1 || l > API_SERIES_MAX_LIMIT)
			return http_reply_error(resp, 400, "limit must be an "
			    "integer between 1 and %d, not \"%.32s\"",
			    API_SERIES_MAX_LIMIT, lq);
		limit = l;
	}
	if (!req->db || db_series_list(req->db, limit, &v, &n) < 0)
		return http_reply_error(resp, 500, "cannot read the store");
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, api_series_json(req->db, &v[i], 0));
	db_series_free_list(v, n);
	return http_reply_json(resp, 200, json_pack("{s:o}", "series", arr));
}

static int
api_series_get(struct http_req *req, struct http_resp *resp)
{
	struct db_series s;
	long long id;
	int r;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	if (!req->db)
		return http_reply_error(resp, 503, "store not available");
	r = db_series_get(req->db, id, 1, &s);
	if (r == 1)
		return http_reply_error(resp, 404, "no series %lld", id);
	if (r < 0)
		return http_reply_error(resp, 500, "cannot read the store");
	http_reply_json(resp, 200, api_series_json(req->db, &s, 1));
	db_series_release(&s);
	return 0;
}

const struct route api_series_routes[] = {
	{ "GET", "/healthz", api_healthz, 0, 0 },
	{ "POST", "/api/v1/series", api_series_post, 0,
	    API_SERIES_MAX_UPLOAD },
	{ "GET", "/api/v1/series", api_series_list, ROUTE_CACHE, 0,
	    "limit" },
	{ "GET", "/api/v1/series/{id}", api_series_get, ROUTE_CACHE, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
