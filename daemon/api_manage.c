/*
 * api_manage: what a maintainer does to a series after submitting it:
 * cancel it (its comparison and jobs with it: no agent leases them any
 * more) or re-run it as a new series.  The admin may do either to any
 * series, a submitter (or a trusted loopback client, "local") to its own.
 *
 *	POST /api/v1/series/{id}/cancel	JSON body {} or empty -> 200
 *					{"id", "state": "cancelled"}; 409 when
 *					already at rest
 *	POST /api/v1/series/{id}/rerun	-> 202 {"id": NEW, "state": "queued"}
 *	POST /series/{id}/cancel	the page's buttons (a form with the
 *	POST /series/{id}/rerun		CSRF token) -> 303 to the series page
 *
 * The series page gets the two buttons and the series JSON its "owner"
 * through the "manage" series section (routes.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/app.h"
#include "daemon/auth.h"
#include "daemon/db.h"
#include "daemon/db_auth.h"
#include "daemon/db_limits.h"
#include "daemon/limits.h"
#include "daemon/html.h"
#include "daemon/pipeline.h"
#include "daemon/routes.h"
#include "lib/log.h"
#include "lib/xalloc.h"

/* Reports an error in the form the caller reads (page or JSON). */
static int
manage_fail(struct http_resp *resp, int html, int status, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

static int
manage_fail(struct http_resp *resp, int html, int status, const char *fmt,
    ...)
{
	struct buf msg = BUF_INIT(0);
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (html)
		html_error_page(resp, status, msg.data);
	else
		http_reply_error(resp, status, "%s", msg.data);
	buf_release(&msg);
	return -1;
}

/*
 * The series id of the path, the caller's identity, and whether it may
 * manage that series.  0, or -1 with resp filled.
 */
static int
manage_begin(struct http_req *req, struct http_resp *resp, int html,
    long long *id, struct auth_who *who)
{
	char *owner = NULL;
	int rc;

	if (http_param_id(req, resp, "id", id) < 0) {
		if (html)
			html_error_page(resp, 400, "series id must be a "
			    "positive integer");
		return -1;
	}
	if (!req->db)
		return manage_fail(resp, html, 503, "store not available");
	if (!html && req->body.len) {
		json_t *j = http_json_body(req, resp);
		const char *k;
		json_t *v;

		if (!j)
			return -1;
		json_object_foreach(j, k, v) {
			/* k belongs to j: report before letting go of it */
			manage_fail(resp, 0, 400, "unknown field \"%.64s\" "
			    "(this request takes none)", k);
			json_decref(j);
			return -1;
		}
		json_decref(j);
	}
	if (auth_identify(req, html, who, resp) < 0)
		return html ? manage_fail(resp, 1, 403, "the token is neither "
		    "the admin token nor a configured submitter's") : -1;
	rc = db_series_owner(req->db, *id, &owner);
	if (rc == 1)
		return manage_fail(resp, html, 404, "no series %lld", *id);
	if (rc < 0)
		return manage_fail(resp, html, 500, "cannot read the store");
	rc = auth_may_manage(who, owner);
	if (!rc)
		manage_fail(resp, html, who->role == AUTH_ANON ? 401 : 403,
		    "series %lld was submitted by %s: only they or the admin "
		    "may cancel or re-run it", *id, owner ? owner :
		    "an unknown submitter");
	free(owner);
	return rc ? 0 : -1;
}

static int
manage_cancel(struct http_req *req, struct http_resp *resp, int html)
{
	struct auth_who who;
	char *state = NULL, loc[64];
	long long id;
	int rc;

	if (manage_begin(req, resp, html, &id, &who) < 0)
		return 0;
	rc = db_series_cancel(req->db, id, who.name, &state);
	if (rc == 2)
		manage_fail(resp, html, 409, "series %lld is already %s: "
		    "nothing to cancel", id, state);
	else if (rc == 1)
		manage_fail(resp, html, 404, "no series %lld", id);
	else if (rc < 0)
		manage_fail(resp, html, 500, "series %lld could not be "
		    "cancelled (see the daemon log)", id);
	else {
		log_info("series %lld cancelled by %s", id, who.name);
		if (html) {
			snprintf(loc, sizeof(loc), "/series/%lld", id);
			http_redirect(resp, loc);
		} else {
			http_reply_json(resp, 200, json_pack("{s:I,s:s}", "id",
			    (json_int_t)id, "state", "cancelled"));
		}
	}
	free(state);
	return 0;
}

static int
manage_rerun(struct http_req *req, struct http_resp *resp, int html)
{
	struct auth_who who;
	long long id, nid, up = 0;
	const char *key;
	char loc[64];
	int rc;

	if (manage_begin(req, resp, html, &id, &who) < 0)
		return 0;
	/* a re-run is a submission: the same rate limit, and its copy of
	   an upload counts against the quota of whoever asked for it */
	key = auth_limits_key(req, &who);
	if (db_limits_series_upload(req->db, id, &up) < 0)
		return manage_fail(resp, html, 500, "series %lld could not be "
		    "read (see the daemon log)", id), 0;
	if (limits_http(req->db, key, (size_t)up, resp, html) < 0)
		return 0;
	rc = db_series_rerun(req->db, id, who.name, &nid);
	if (rc != 0)
		limits_release(key, (size_t)up);
	else
		limits_submitted(req->db, key, nid, (size_t)up);
	if (rc == 2)
		return manage_fail(resp, html, 409, "series %lld was an upload "
		    "whose mbox is no longer kept: upload it again", id), 0;
	if (rc == 1)
		return manage_fail(resp, html, 404, "no series %lld", id), 0;
	if (rc < 0)
		return manage_fail(resp, html, 500, "series %lld could not be "
		    "re-run (see the daemon log)", id), 0;
	log_info("series %lld re-run as %lld by %s", id, nid, who.name);
	pipeline_kick();
	if (html) {
		snprintf(loc, sizeof(loc), "/series/%lld", nid);
		return http_redirect(resp, loc);
	}
	snprintf(loc, sizeof(loc), "/api/v1/series/%lld", nid);
	http_resp_header(resp, "Location", loc);
	return http_reply_json(resp, 202, json_pack("{s:I,s:s,s:I}", "id",
	    (json_int_t)nid, "state", "queued", "rerun_of", (json_int_t)id));
}

static int
api_manage_cancel(struct http_req *req, struct http_resp *resp)
{
	return manage_cancel(req, resp, 0);
}

static int
api_manage_rerun(struct http_req *req, struct http_resp *resp)
{
	return manage_rerun(req, resp, 0);
}

static int
ui_manage_cancel(struct http_req *req, struct http_resp *resp)
{
	return manage_cancel(req, resp, 1);
}

static int
ui_manage_rerun(struct http_req *req, struct http_resp *resp)
{
	return manage_rerun(req, resp, 1);
}

const struct route api_manage_routes[] = {
	{ "POST", "/api/v1/series/{id}/cancel", api_manage_cancel, 0, 0 },
	{ "POST", "/api/v1/series/{id}/rerun", api_manage_rerun, 0, 0 },
	{ "POST", "/series/{id}/cancel", ui_manage_cancel,
	    ROUTE_HTML | ROUTE_FORM, 0 },
	{ "POST", "/series/{id}/rerun", ui_manage_rerun,
	    ROUTE_HTML | ROUTE_FORM, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
