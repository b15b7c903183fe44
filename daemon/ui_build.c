/*
 * ui_build: the page of one kernel build, /builds/{id}: what was built
 * (tree, commit, config), its live state (queued, configuring, building N%,
 * done, failed), the sha256 and artifacts, the first error and the log
 * tail.  The page refreshes itself until the build ends.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/db_build.h"
#include "daemon/html.h"
#include "daemon/http.h"
#include "daemon/routes.h"
#include "lib/buf.h"

static void
ui_build_row(struct buf *b, const char *term, const char *val)
{
	buf_addstr(b, "<dt>");
	html_txt(b, term);
	buf_addstr(b, "</dt><dd>");
	html_txt(b, val ? val : "");
	buf_addstr(b, "</dd>\n");
}

static int
ui_build(struct http_req *req, struct http_resp *resp)
{
	const char *idp = http_param(req, "id");
	struct buf b = BUF_INIT(0), t = BUF_INIT(0);
	struct db_build bd;
	long long id;
	int r, final;

	if (!idp || !*idp || strspn(idp, "0123456789") != strlen(idp) ||
	    strlen(idp) > 18 || (id = atoll(idp)) < 1) {
		html_error_page(resp, 400, "build id must be a positive integer");
		return 0;
	}
	if (!req->db) {
		html_error_page(resp, 503, "store not available");
		return 0;
	}
	r = db_build_get(req->db, id, &bd);
	if (r != 0) {
		buf_addf(&t, r == 1 ? "no build %lld" : "cannot read build %lld",
		    id);
		html_error_page(resp, r == 1 ? 404 : 500, t.data);
		buf_release(&t);
		return 0;
	}
	final = !strcmp(bd.state, "done") || !strcmp(bd.state, "failed");
	buf_addf(&t, "Build %lld", id);
	html_page_begin(&b, t.data, "series", final ? 0 : 15);
	buf_addf(&b, "<h1>Build %lld</h1>\n<p class=\"state ", id);
	html_attr(&b, bd.state);
	buf_addstr(&b, "\">");
	html_txt(&b, bd.state);
	if (!strcmp(bd.state, "building") && bd.progress >= 0)
		buf_addf(&b, " %d%%", bd.progress);
	buf_addstr(&b, "</p>\n<dl>\n");
	ui_build_row(&b, "tree", bd.tree);
	ui_build_row(&b, "commit", bd.commit_id);
	ui_build_row(&b, "config", bd.config);
	ui_build_row(&b, "cache key", bd.key);
	if (bd.base_build) {
		buf_addf(&b, "<dt>incremental from</dt><dd><a href=\"/builds/"
		    "%lld\">build %lld</a></dd>\n", (long long)bd.base_build,
		    (long long)bd.base_build);
	}
	if (bd.sha256)
		ui_build_row(&b, "bzImage sha256", bd.sha256);
	if (final) {
		char s[64];

		snprintf(s, sizeof(s), "%.1f s, %d compiler steps", bd.seconds,
		    bd.cc_lines);
		ui_build_row(&b, "duration", s);
	}
	buf_addstr(&b, "</dl>\n");
	if (!strcmp(bd.state, "done")) {
		buf_addstr(&b, "<p>Artifacts:");
		for (const char *const *a = (const char *const[]){ "bzImage",
		    "System.map", "config", "build.log", NULL }; *a; a++)
			buf_addf(&b, " <a href=\"/api/v1/builds/%lld/%s\">%s</a>",
			    id, *a, *a);
		buf_addstr(&b, "</p>\n");
	}
	if (bd.error) {
		buf_addstr(&b, "<h2>Error</h2>\n<pre class=\"error\">");
		html_txt(&b, bd.error);
		buf_addstr(&b, "</pre>\n");
	}
	if (bd.log_tail) {
		buf_addf(&b, "<h2>Log tail</h2>\n<pre>");
		html_txt(&b, bd.log_tail);
		buf_addf(&b, "</pre>\n<p><a href=\"/api/v1/builds/%lld/build.log\">"
		    "whole log</a></p>\n", id);
	}
	html_page_end(&b);
	html_reply(resp, 200, &b);
	db_build_release(&bd);
	buf_release(&t);
	return 0;
}

const struct route ui_build_routes[] = {
	{ "GET", "/builds/{id}", ui_build, ROUTE_HTML, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
