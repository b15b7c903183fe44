/*
 * ui: the server-rendered pages of the series intake, cgit style: one
 * function per page, every outside string through html_txt/html_attr.
 *
 *	GET  /			submit form and the list of series
 *	POST /submit		form post (url, version, base) -> 303 to the
 *				series page, or an error page naming the
 *				problem
 *	(GET /series/{id}: ui_series.c)
 *	GET  /static/{file}	web/ files (style.css)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/app.h"
#include "daemon/auth.h"
#include "daemon/db.h"
#include "daemon/db_auth.h"
#include "daemon/html.h"
#include "daemon/intake.h"
#include "daemon/limits.h"
#include "core/lore.h"
#include "daemon/pipeline.h"
#include "daemon/routes.h"
#include "lib/xalloc.h"

static void
ui_submit_form(struct buf *b)
{
	char csrf[65];

	auth_csrf_token(csrf);
	buf_addstr(b, "<form class=\"submit\" method=\"post\" "
	    "action=\"/submit\">\n<input type=\"hidden\" name=\"csrf\" "
	    "value=\"");
	html_attr(b, csrf);
	buf_addstr(b, "\">\n"
	    "<label>lore URL of any message of the series<br>"
	    "<input type=\"url\" name=\"url\" required "
	    "placeholder=\"https://lore.kernel.org/linux-mm/...\"></label>\n"
	    "<div class=\"row\"><label>version (optional)<br>"
	    "<input type=\"number\" name=\"version\" min=\"1\" max=\"1000\">"
	    "</label>\n<label>base (optional)<br>"
	    "<input type=\"text\" name=\"base\" placeholder=\"v6.12 or a "
	    "commit\"></label>\n<label>submitter token (from other "
	    "hosts)<br><input type=\"password\" name=\"token\" "
	    "autocomplete=\"off\"></label></div>\n"
	    "<button type=\"submit\">Submit</button>\n</form>\n");
}

static int
ui_index(struct http_req *req, struct http_resp *resp)
{
	struct buf b = BUF_INIT(0);
	struct db_series *v = NULL;
	size_t n = 0, i;

	if (!req->db || db_series_list(req->db, 200, &v, &n) < 0) {
		html_error_page(resp, 500, "cannot read the store");
		return 0;
	}
	html_page_begin(&b, "Series", "series", 0);
	buf_addstr(&b, "<h1>Submit a series</h1>\n");
	ui_submit_form(&b);
	buf_addstr(&b, "<h1>Series</h1>\n");
	if (n == 0)
		buf_addstr(&b, "<p>Nothing submitted yet.</p>\n");
	else
		buf_addstr(&b, "<table class=\"list\">\n<thead><tr><th>#</th>"
		    "<th>series</th><th>state</th><th>from</th>"
		    "<th>submitted</th></tr>"
		    "</thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		buf_addf(&b, "<tr><td><a href=\"/series/%lld\">%lld</a></td>"
		    "<td><a href=\"/series/%lld\">", (long long)v[i].id,
		    (long long)v[i].id, (long long)v[i].id);
		if (v[i].title)
			html_txt(&b, v[i].title);
		else
			html_txt(&b, v[i].msgid ? v[i].msgid : v[i].source);
		buf_addstr(&b, "</a>");
		if (v[i].version > 1)
			buf_addf(&b, " <span class=\"ver\">v%d</span>",
			    v[i].version);
		buf_addstr(&b, "</td><td>");
		html_state(&b, v[i].state);
		buf_addstr(&b, "</td><td>");
		html_txt(&b, v[i].origin ? v[i].origin : v[i].source &&
		    !strcmp(v[i].source, "upload") ? "upload" : "URL");
		buf_addstr(&b, "</td><td>");
		html_time(&b, v[i].submitted);
		buf_addstr(&b, "</td></tr>\n");
	}
	if (n)
		buf_addstr(&b, "</tbody></table>\n");
	html_page_end(&b);
	html_reply(resp, 200, &b);
	db_series_free_list(v, n);
	return 0;
}

static int
ui_submit(struct http_req *req, struct http_resp *resp)
{
	struct buf err = BUF_INIT(4096);
	struct auth_who who;
	char *url, *ver, *base, loc[64];
	long long id;
	long v = 0, retry;

	url = http_form_field(req, "url");
	ver = http_form_field(req, "version");
	base = http_form_field(req, "base");
	if (!url || !*url) {
		html_error_page(resp, 400, "missing field \"url\": give the "
		    "lore URL of a message of the series");
		goto out;
	}
	if (ver && *ver) {
		char *end;

		v = strtol(ver, &end, 10);
		if (*end || v < 1 || v > 1000) {
			html_error_page(resp, 400, "version must be an integer "
			    "between 1 and 1000");
			goto out;
		}
	}
	if (!req->db) {
		html_error_page(resp, 503, "store not available");
		goto out;
	}
	if (db_store_writable(req->db, app.data_dir, &err) < 0) {
		struct buf m = BUF_INIT(0);

		buf_addf(&m, "store cannot take writes: %s", err.data);
		html_error_page(resp, 503, m.data);
		buf_release(&m);
		goto out;
	}
	/* the guard let it through: a submitter, local or the admin */
	if (auth_identify(req, 1, &who, resp) < 0)
		goto out;
	if (limits_submit(req->db, auth_limits_key(req, &who), 0, &err,
	    &retry) != 0) {
		html_error_page(resp, err.len ? 429 : 500, err.len ? err.data :
		    "the submission limits could not be read from the store");
		goto out;
	}
	if (intake_submit_url(req->db, url, (int)v, base && *base ? base :
	    NULL, &id, &err) < 0) {
		html_error_page(resp, 400, err.data);
		goto out;
	}
	limits_submitted(req->db, auth_limits_key(req, &who), id, 0);
	if (db_series_set_owner(req->db, id, who.name) < 0) {
		html_error_page(resp, 500, "the submission's owner could not "
		    "be stored");
		goto out;
	}
	snprintf(loc, sizeof(loc), "/series/%lld", id);
	http_redirect(resp, loc);
out:
	free(url);
	free(ver);
	free(base);
	buf_release(&err);
	return 0;
}

static int
ui_static(struct http_req *req, struct http_resp *resp)
{
	const char *f = http_param(req, "file"), *ct = "text/plain";
	struct buf data = BUF_INIT(4 << 20);
	char *path;
	size_t n;

	/* one flat directory: no slashes, no dot files */
	if (!f || f[0] == '.' || strspn(f, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(f)) {
		html_error_page(resp, 404, "no such file");
		return 0;
	}
	n = strlen(f);
	if (n > 4 && !strcmp(f + n - 4, ".css"))
		ct = "text/css; charset=utf-8";
	else if (n > 3 && !strcmp(f + n - 3, ".js"))
		ct = "text/javascript; charset=utf-8";
	else if (n > 4 && !strcmp(f + n - 4, ".svg"))
		ct = "image/svg+xml";
	path = xasprintf("%s/%s", app.web_dir, f);
	if (buf_read_file(&data, path) < 0) {
		html_error_page(resp, 404, "no such file");
	} else {
		resp->status = 200;
		resp->content_type = ct;
		buf_release(&resp->body);
		resp->body = data;
		buf_init(&data, 0);
		http_resp_header(resp, "Cache-Control", "max-age=300");
	}
	free(path);
	buf_release(&data);
	return 0;
}

const struct route ui_routes[] = {
	{ "GET", "/", ui_index, ROUTE_HTML, 0 },
	{ "POST", "/submit", ui_submit, ROUTE_HTML | ROUTE_FORM, 0 },
	{ "GET", "/static/{file}", ui_static, ROUTE_HTML, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
