/*
 * ui_series: the series page, all of it, in the order a reader wants it.
 *
 *	GET /series/{id}	title, state, metadata, cover letter, patches
 *				with trailers; then the comparison (verdict,
 *				rows, charts, lock table, claims, boots with
 *				console logs: report_html, from the stored
 *				result of a finished look), the base and the
 *				builds, the boot plan, and the manage buttons.
 *				A live series refreshes itself.
 *
 * The same series as JSON is api_series.c; the comparison's own JSON and
 * report.txt are api_comparison.c.  Nothing here writes to the store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lore.h"
#include "daemon/app.h"
#include "daemon/auth.h"
#include "daemon/db.h"
#include "daemon/db_build.h"
#include "daemon/html.h"
#include "daemon/mail.h"
#include "daemon/pipeline.h"
#include "daemon/report.h"
#include "daemon/routes.h"
#include "daemon/sched.h"
#include "lib/log.h"
#include "lib/xalloc.h"

/*
 * A live series page reloads itself this often: builds take minutes and a
 * boot tens of seconds, and each reload reads the store (the comparison's
 * statistics only when an upload changed them: report_cache.c).
 */
#define UI_REFRESH_SECONDS	20

/* ---- the comparison --------------------------------------------------- */

/* 1 when the result shown is not the newest (another request is
   computing it: report_cache.c), so that the page is not cached. */
static int
ui_series_result(struct db *db, long long series_id, struct buf *out)
{
	struct report r;
	int rc, computing;

	rc = report_load(db, series_id, REPORT_NOWAIT, &r);
	if (rc == 0 && (r.comparison_id || r.kernel[REPORT_BASE].build_id))
		report_html(&r, out);
	else if (rc < 0)
		buf_addstr(out, "<section id=\"result\"><p class=\"error\">The "
		    "comparison could not be read from the store.</p>"
		    "</section>\n");
	computing = r.computing;
	report_release(&r);
	return computing;
}

/* ---- the base and the builds ------------------------------------------ */

static void
ui_series_build_row(struct buf *out, struct db *db, const char *what,
    int64_t id)
{
	struct db_build b;

	buf_addf(out, "<tr><th>");
	html_txt(out, what);
	buf_addf(out, "</th>");
	if (!id || db_build_get(db, id, &b) != 0) {
		buf_addstr(out, "<td colspan=\"3\">not started</td></tr>\n");
		return;
	}
	buf_addf(out, "<td><a href=\"/builds/%lld\">build %lld</a></td><td "
	    "class=\"state ", (long long)b.id, (long long)b.id);
	html_attr(out, b.state);
	buf_addstr(out, "\">");
	html_txt(out, b.state);
	if (b.progress >= 0 && !strcmp(b.state, "building"))
		buf_addf(out, " %d%%", b.progress);
	buf_addstr(out, "</td><td>");
	if (b.sha256) {
		buf_addstr(out, "sha256 <code>");
		html_txt(out, b.sha256);
		buf_addstr(out, "</code>");
	} else if (b.error) {
		html_txt(out, b.error);
	}
	buf_addstr(out, "</td></tr>\n");
	db_build_release(&b);
}

static void
ui_series_builds(struct db *db, long long series_id, struct buf *out)
{
	struct db_series_build sb;

	if (db_build_series_get(db, series_id, &sb) != 0)
		return;
	buf_addstr(out, "<section id=\"builds\"><h2>Base and builds</h2>\n"
	    "<dl><dt>tree</dt><dd>");
	html_txt(out, sb.tree);
	{
		char *fs = NULL, *fe = NULL;

		/* Trees with a URL: how their last fetch went. */
		if (db_build_tree_fetch_get(db, sb.tree, &fs, &fe) == 0 && fs) {
			buf_addstr(out, " (fetch ");
			html_txt(out, fs);
			if (fe) {
				buf_addstr(out, ": ");
				html_txt(out, fe);
			}
			buf_addstr(out, ")");
		}
		free(fs);
		free(fe);
	}
	buf_addstr(out, "</dd><dt>base</dt><dd><code>");
	html_txt(out, sb.base_commit);
	buf_addstr(out, "</code> (");
	html_txt(out, sb.base_kind);
	buf_addstr(out, "): ");
	html_txt(out, sb.base_reason);
	buf_addstr(out, "</dd>");
	if (sb.patched_commit) {
		buf_addstr(out, "<dt>patched</dt><dd><code>");
		html_txt(out, sb.patched_commit);
		buf_addstr(out, "</code> ");
		html_txt(out, sb.ref);
		buf_addstr(out, "</dd>");
	}
	buf_addstr(out, "</dl>\n");
	if (sb.npaths) {
		buf_addstr(out, "<table><tr><th>patch</th><th>applied by</th>"
		    "</tr>\n");
		for (size_t i = 0; i < sb.npaths; i++) {
			buf_addf(out, "<tr><td>%d</td><td>", sb.counters[i]);
			html_txt(out, sb.paths[i]);
			buf_addstr(out, "</td></tr>\n");
		}
		buf_addstr(out, "</table>\n");
	}
	buf_addstr(out, "<table>\n");
	ui_series_build_row(out, db, "base", sb.base_build);
	ui_series_build_row(out, db, "patched", sb.patched_build);
	buf_addstr(out, "</table></section>\n");
	db_series_build_release(&sb);
}

/* ---- the boot plan ----------------------------------------------------- */

static void
ui_series_side(struct buf *out, const char *name, const struct sched_side *s)
{
	buf_addstr(out, "<tr><th>");
	html_txt(out, name);
	buf_addf(out, "</th><td>%d / %d</td><td>%d</td><td>%d</td><td>%d</td>"
	    "<td>%d</td></tr>\n", s->done, s->planned, s->running, s->queued,
	    s->boot_failed, s->lost);
}

void
ui_series_schedule(struct db *db, long long sid, struct buf *out)
{
	struct sched_comparison c;
	size_t i;

	if (sched_get(db, sid, &c) != 0)
		return;
	buf_addstr(out, "<section class=\"schedule\"><h2>Boots</h2>\n<p>");
	html_txtf(out, "Comparison %lld: %s, look %d of %d, %d boots per side "
	    "planned (up to %d), hardware class %s.", c.id, c.state, c.look,
	    c.looks, c.planned, c.max_boots, c.class ? c.class :
	    "not chosen yet");
	if (c.nagents) {
		buf_addstr(out, " Running on ");
		for (i = 0; i < c.nagents; i++) {
			if (i)
				buf_addstr(out, ", ");
			html_txt(out, c.agents[i]);
		}
		buf_addstr(out, ".");
	}
	if (c.summary) {
		buf_addstr(out, "</p>\n<p>");
		html_txt(out, c.summary);
	}
	buf_addstr(out, "</p>\n<table><tr><th>side</th><th>done / planned</th>"
	    "<th>running</th><th>queued</th><th>failed to boot</th>"
	    "<th>lost</th></tr>\n");
	ui_series_side(out, "base", &c.base);
	ui_series_side(out, "patched", &c.patched);
	buf_addstr(out, "</table>\n<p class=\"note\">Every boot, with its "
	    "state, agent and console log, is listed under the comparison "
	    "above.</p></section>\n");
	sched_comparison_release(&c);
}

/* ---- manage ------------------------------------------------------------ */

/* One button in a form that carries the CSRF token (and a token field
   for submitters on other hosts). */
static void
ui_series_button(struct buf *b, long long id, const char *what,
    const char *label, const char *csrf)
{
	buf_addf(b, "<form class=\"manage\" method=\"post\" "
	    "action=\"/series/%lld/%s\">", id, what);
	buf_addstr(b, "<input type=\"hidden\" name=\"csrf\" value=\"");
	html_attr(b, csrf);
	buf_addstr(b, "\"><input type=\"password\" name=\"token\" "
	    "autocomplete=\"off\" placeholder=\"token (other hosts)\">"
	    "<button type=\"submit\">");
	html_txt(b, label);
	buf_addstr(b, "</button></form>\n");
}

static void
ui_series_manage(struct db *db, long long id, struct buf *out)
{
	struct db_series s;
	char csrf[65];

	if (db_series_get(db, id, 0, &s) != 0)
		return;
	auth_csrf_token(csrf);
	buf_addstr(out, "<section class=\"manage\"><h2>Manage</h2>\n");
	if (!pipeline_state_is_final(s.state))
		ui_series_button(out, id, "cancel", "Cancel this series", csrf);
	ui_series_button(out, id, "rerun", "Re-run as a new series", csrf);
	buf_addstr(out, "</section>\n");
	db_series_release(&s);
}

/* ---- the page ---------------------------------------------------------- */

static void
ui_series_dl(struct buf *b, const char *term, const char *val)
{
	if (!val)
		return;
	buf_addstr(b, "<dt>");
	html_txt(b, term);
	buf_addstr(b, "</dt><dd>");
	html_txt(b, val);
	buf_addstr(b, "</dd>\n");
}

static void
ui_series_patches(struct buf *b, const struct db_series *s)
{
	size_t i, k;

	buf_addstr(b, "<h2>Patches</h2>\n<ol class=\"patches\">\n");
	for (i = 0; i < s->npatches; i++) {
		const struct db_patch *p = &s->patches[i];

		buf_addf(b, "<li value=\"%d\"><div class=\"subject\">"
		    "<span class=\"num\">[%d/%d]</span> ", p->counter,
		    p->counter, p->total);
		if (s->lore_base && p->msgid) {
			/* the message on the lore it came from */
			struct buf u = BUF_INIT(0);

			buf_addstr(&u, s->lore_base);
			if (u.len && u.data[u.len - 1] != '/')
				buf_addch(&u, '/');
			buf_addstr(&u, "all/");
			lore_escape_msgid(&u, p->msgid);
			buf_addch(&u, '/');
			html_link(b, u.data, p->subject, (const char *const *)
			    app.settings.lore.allow, app.settings.lore.nallow);
			buf_release(&u);
		} else {
			html_txt(b, p->subject);
		}
		buf_addstr(b, "</div>\n<div class=\"author\">");
		html_txt(b, p->author);
		if (p->email && *p->email) {
			buf_addstr(b, " &lt;");
			html_txt(b, p->email);
			buf_addstr(b, "&gt;");
		}
		if (p->from_version && p->from_version != s->version)
			buf_addf(b, " <span class=\"ver\">from v%d</span>",
			    p->from_version);
		buf_addstr(b, "</div>\n");
		if (p->ntrailers) {
			buf_addstr(b, "<ul class=\"trailers\">\n");
			for (k = 0; k < p->ntrailers; k++) {
				buf_addstr(b, "<li>");
				html_txt(b, p->trailers[k].name);
				buf_addstr(b, ": ");
				html_txt(b, p->trailers[k].value);
				buf_addstr(b, "</li>\n");
			}
			buf_addstr(b, "</ul>\n");
		}
		buf_addstr(b, "</li>\n");
	}
	buf_addstr(b, "</ol>\n");
}

static int
ui_series_page(struct http_req *req, struct http_resp *resp)
{
	struct buf b = BUF_INIT(0), title = BUF_INIT(0);
	struct db_series s;
	long long id;
	const char *idp = http_param(req, "id");
	int r, final, computing;

	if (!idp || strspn(idp, "0123456789") != strlen(idp) ||
	    strlen(idp) > 18 || (id = atoll(idp)) < 1) {
		html_error_page(resp, 400, "series id must be a positive "
		    "integer");
		return 0;
	}
	if (!req->db) {
		html_error_page(resp, 503, "store not available");
		return 0;
	}
	r = db_series_get(req->db, id, 1, &s);
	if (r == 1) {
		buf_addf(&title, "no series %lld", id);
		html_error_page(resp, 404, title.data);
		buf_release(&title);
		return 0;
	}
	if (r < 0) {
		html_error_page(resp, 500, "cannot read the store");
		return 0;
	}
	final = pipeline_series_rests(&s);
	buf_addf(&title, "Series %lld", id);
	html_page_begin(&b, title.data, "series", final ? 0 :
	    UI_REFRESH_SECONDS);
	buf_addstr(&b, "<h1>");
	if (s.cover_subject)
		html_txt(&b, s.cover_subject);
	else if (s.npatches)
		html_txt(&b, s.patches[0].subject);
	else
		html_txt(&b, title.data);
	buf_addstr(&b, "</h1>\n<p class=\"status\">State: ");
	html_state(&b, s.state);
	if (!final)
		buf_addstr(&b, " <span class=\"note\">(this page refreshes "
		    "itself)</span>");
	if (s.rest) {
		buf_addstr(&b, " <span class=\"note\">(rests here: ");
		html_txt(&b, s.rest);
		buf_addstr(&b, ")</span>");
	}
	buf_addstr(&b, "</p>\n");
	if (s.error) {
		buf_addstr(&b, "<p class=\"error\">Failed: ");
		html_txt(&b, s.error);
		buf_addstr(&b, "</p>\n");
	}
	buf_addstr(&b, "<dl class=\"meta\">\n");
	buf_addf(&b, "<dt>id</dt><dd>%lld</dd>\n", id);
	if (s.source && strcmp(s.source, "upload")) {
		buf_addstr(&b, "<dt>source</dt><dd>");
		html_link(&b, s.source, NULL, (const char *const *)
		    app.settings.lore.allow, app.settings.lore.nallow);
		buf_addstr(&b, "</dd>\n");
	} else {
		ui_series_dl(&b, "source", "uploaded mbox");
	}
	if (s.version)
		buf_addf(&b, "<dt>version</dt><dd>v%d</dd>\n", s.version);
	ui_series_dl(&b, "revisions in thread", s.versions);
	ui_series_dl(&b, "author", s.author);
	ui_series_dl(&b, "base-commit", s.base_commit);
	ui_series_dl(&b, "requested base", s.req_base);
	ui_series_dl(&b, "change-id", s.change_id);
	buf_addstr(&b, "<dt>submitted</dt><dd>");
	html_time(&b, s.submitted);
	buf_addstr(&b, "</dd>\n");
	/* the reply in the thread: sent, queued (and why), skipped */
	{
		struct buf ml = BUF_INIT(1024);

		mail_series_line(req->db, id, &ml);
		if (ml.len)
			ui_series_dl(&b, "reply", ml.data);
		buf_release(&ml);
	}
	buf_addstr(&b, "</dl>\n");
	if (s.cover_subject || s.cover_body) {
		buf_addstr(&b, "<h2>Cover letter</h2>\n<pre class=\"cover\">");
		html_txt(&b, s.cover_body);
		buf_addstr(&b, "</pre>\n");
	}
	if (s.npatches)
		ui_series_patches(&b, &s);
	computing = ui_series_result(req->db, id, &b);
	ui_series_builds(req->db, id, &b);
	ui_series_schedule(req->db, id, &b);
	ui_series_manage(req->db, id, &b);
	buf_addf(&b, "<p class=\"links\"><a href=\"/api/v1/series/%lld\">"
	    "JSON</a></p>\n", id);
	html_page_end(&b);
	html_reply(resp, 200, &b);
	if (computing)
		http_resp_header(resp, "Cache-Control", "no-store");
	db_series_release(&s);
	buf_release(&title);
	return 0;
}

const struct route ui_series_routes[] = {
	{ "GET", "/series/{id}", ui_series_page, ROUTE_HTML | ROUTE_CACHE, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
