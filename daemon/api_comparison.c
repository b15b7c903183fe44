/*
 * api_comparison: the comparison of a series as data.
 *
 *	GET /api/v1/series/{id}/comparison	everything on the result page
 *						as JSON (report_json);
 *						?result=0: progress only (no
 *						rows, no statistics: cheap)
 *	GET /series/{id}/report.txt		the plain-text report, kernel
 *						test robot style, for replying
 *						to the thread (report_text)
 *
 * Both answer for any series, also before its comparison exists (state,
 * builds, "running"), so a client can poll one URL from submission to
 * verdict.  The series JSON gets links to both ("result").  Neither runs
 * the statistics: a finished comparison's result is read from the store,
 * a live one's is recomputed only after a new upload (report_load).
 */
#include <stdio.h>
#include <string.h>

#include "daemon/http.h"
#include "daemon/report.h"
#include "lib/log.h"

/* Loads the report of the {id} parameter; 0, or -1 with resp filled. */
static int
api_comparison_load(struct http_req *req, struct http_resp *resp,
    struct report *r, int text)
{
	const char *q;
	long long id;
	int rc, with;

	report_init(r);
	if (http_param_id(req, resp, "id", &id) < 0)
		return -1;
	if (!req->db) {
		http_reply_error(resp, 503, "store not available");
		return -1;
	}
	/* ?result=0: progress only (cheap), for clients that poll */
	with = !text && (q = http_query(req, "result")) && !strcmp(q, "0") ?
	    0 : REPORT_NOWAIT;
	if ((rc = report_load(req->db, id, with, r)) == 0) {
		/* an answer without the newest result is not cached */
		if (r->computing)
			http_resp_header(resp, "Cache-Control", "no-store");
		return 0;
	}
	if (text)
		http_reply_text(resp, rc == 1 ? 404 : 500,
		    "text/plain; charset=utf-8", rc == 1 ? "no such series\n" :
		    "the comparison could not be read from the store\n");
	else if (rc == 1)
		http_reply_error(resp, 404, "id: no series %lld", id);
	else
		http_reply_error(resp, 500, "the comparison of series %lld "
		    "could not be read from the store", id);
	return -1;
}

static int
api_comparison_get(struct http_req *req, struct http_resp *resp)
{
	struct report r;

	if (api_comparison_load(req, resp, &r, 0) == 0)
		http_reply_json(resp, 200, report_json(&r));
	report_release(&r);
	return 0;
}

/*
 * The base URL for links in the text report, from the Host header: only
 * a plain host[:port] (letters, digits, '.', '-', ':', '[', ']') is used,
 * anything else gives no links rather than text a client chose.
 */
static void
api_comparison_server(const struct http_req *req, char *out, size_t sz)
{
	const char *h = http_header(req, "Host");

	out[0] = '\0';
	if (!h || !*h || strlen(h) > 255 || strspn(h, "abcdefghijklmnopqrstuv"
	    "wxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]") != strlen(h))
		return;
	snprintf(out, sz, "http://%s", h);
}

static int
api_comparison_text(struct http_req *req, struct http_resp *resp)
{
	struct buf b = BUF_INIT(0);
	struct report r;
	char server[300];

	if (api_comparison_load(req, resp, &r, 1) == 0) {
		api_comparison_server(req, server, sizeof(server));
		report_text(&r, *server ? server : NULL, &b);
		http_reply_text(resp, 200, "text/plain; charset=utf-8",
		    b.data ? b.data : "");
	}
	buf_release(&b);
	report_release(&r);
	return 0;
}

int
api_comparison_series_json(struct db *db, long long series_id, json_t *obj)
{
	json_t *o = json_object();

	json_object_set_new(o, "comparison", json_sprintf(
	    "/api/v1/series/%lld/comparison", series_id));
	json_object_set_new(o, "report", json_sprintf(
	    "/series/%lld/report.txt", series_id));
	json_object_set_new(o, "page", json_sprintf("/series/%lld#result",
	    series_id));
	json_object_set_new(obj, "result", o);
	return 0;
}

const struct route api_comparison_routes[] = {
	{ "GET", "/api/v1/series/{id}/comparison", api_comparison_get,
	    ROUTE_CACHE, 0, "result" },
	{ "GET", "/series/{id}/report.txt", api_comparison_text,
	    ROUTE_CACHE, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
