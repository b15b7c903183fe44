/*
 * ui_track: the nightly pages.
 *
 *	/tracks			each tracked tree, its last run, regressions
 *	/tracks/{name}		per metric a history chart (per-boot means as
 *				dots, per-run means joined, change points as
 *				vertical lines, regressions linked), the runs
 *	/regressions/{id}	the regression, the bisect's steps and result,
 *				and report.txt as it would be sent
 *
 * Charts are inline SVG from svg.c, as on the series page.  The change
 * points drawn are the regressions the track thread stored when it judged
 * a night: a GET runs no detection (ui_track_chart).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/app.h"
#include "daemon/config.h"
#include "daemon/db_track.h"
#include "daemon/html.h"
#include "daemon/http.h"
#include "daemon/routes.h"
#include "core/svg.h"
#include "daemon/tracks.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

static void
ui_track_time(struct buf *b, long long t)
{
	char s[32];
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M UTC", &tm);
	buf_addstr(b, s);
}

static void
ui_track_run_row(struct buf *b, const struct track_run *r)
{
	buf_addf(b, "<tr class=\"run\"><td>%lld</td><td>", r->id);
	ui_track_time(b, r->created);
	buf_addstr(b, "</td><td>");
	html_txt(b, r->trigger);
	buf_addstr(b, "</td><td class=\"state ");
	html_attr(b, r->state);
	buf_addstr(b, "\">");
	html_txt(b, r->state);
	buf_addstr(b, "</td><td><code>");
	if (r->head)
		html_txtf(b, "%.12s", r->head);
	buf_addstr(b, "</code></td><td>");
	if (r->kernel_id)
		buf_addf(b, "%d", r->boots);
	buf_addstr(b, "</td><td>");
	html_txt(b, r->error ? r->error : r->note ? r->note : "");
	buf_addstr(b, "</td></tr>\n");
}

static int
ui_tracks(struct http_req *req, struct http_resp *resp)
{
	struct buf b = BUF_INIT(0);
	struct track_conf tc;
	const char *name;
	size_t i, j;

	html_page_begin(&b, "Tracked trees", "nightly", 0);
	buf_addstr(&b, "<h1>Tracked trees</h1>\n<table class=\"tracks\">\n"
	    "<tr><th>track</th><th>tree</th><th>branch</th><th>when</th>"
	    "<th>last run</th><th>regressions</th></tr>\n");
	for (i = 0; i < app.settings.ntracks &&
	    (name = app.settings.tracks[i].name); i++) {
		struct track_run *runs = NULL;
		struct track_regression *regs = NULL;
		size_t nr = 0, ng = 0;

		if (tracks_conf_get(name, &tc) != 0)
			continue;
		if (req->db) {
			db_track_runs(req->db, name, 1, &runs, &nr);
			db_track_regressions(req->db, name, &regs, &ng);
		}
		buf_addstr(&b, "<tr class=\"track\"><td><a href=\"/tracks/");
		html_url_escape(&b, name);
		buf_addstr(&b, "\">");
		html_txt(&b, name);
		buf_addstr(&b, "</a></td><td>");
		html_txt(&b, tc.tree);
		buf_addstr(&b, "</td><td>");
		html_txt(&b, tc.branch);
		buf_addstr(&b, "</td><td>");
		if (tc.at_min >= 0)
			buf_addf(&b, "at %02d:%02d", tc.at_min / 60,
			    tc.at_min % 60);
		else if (tc.every_sec)
			buf_addf(&b, "every %ld s", tc.every_sec);
		else
			buf_addstr(&b, "manual");
		buf_addstr(&b, "</td><td>");
		if (nr) {
			buf_addf(&b, "%lld ", runs[0].id);
			html_txt(&b, runs[0].state);
			if (runs[0].note || runs[0].error) {
				buf_addstr(&b, ": ");
				html_txt(&b, runs[0].error ? runs[0].error :
				    runs[0].note);
			}
		} else {
			buf_addstr(&b, "none yet");
		}
		buf_addstr(&b, "</td><td>");
		for (j = 0; j < ng; j++) {
			buf_addf(&b, "%s<a href=\"/regressions/%lld\">#%lld ",
			    j ? ", " : "", regs[j].id, regs[j].id);
			html_txtf(&b, "%s %+.1f%% (%s)", regs[j].metric,
			    regs[j].pct_change, regs[j].state);
			buf_addstr(&b, "</a>");
		}
		buf_addstr(&b, "</td></tr>\n");
		track_runs_free(runs, nr);
		track_regressions_free(regs, ng);
		tracks_conf_release(&tc);
	}
	buf_addstr(&b, "</table>\n");
	if (i == 0)
		buf_addstr(&b, "<p>No <code>[track]</code> is configured.</p>\n");
	html_page_end(&b);
	html_reply(resp, 200, &b);
	return 0;
}

/* 1 if regression g was opened on the chart's (workload, params, metric). */
static int
ui_track_reg_is(const struct track_regression *g, const struct track_point *p)
{
	return !strcmp(g->workload, p->workload) &&
	    !strcmp(g->params, p->params) && !strcmp(g->metric, p->metric);
}

/*
 * One metric's chart: points pts[0..n) of one (workload, params, metric).
 * Its change points are the regressions the nightly rule opened and
 * stored when their runs finished (track.c), drawn where their first bad
 * run begins: a GET never runs the detection, and the page shows the
 * points the daemon acted on, not a detection of its own.
 */
static void
ui_track_chart(struct buf *b, const struct track_point *pts, size_t n,
    const struct track_regression *regs, size_t ng)
{
	double *x = xcalloc(n, sizeof(double)), *y = xcalloc(n, sizeof(double));
	double *mx = xcalloc(n, sizeof(double)), *my = xcalloc(n, sizeof(double));
	double *vx = xcalloc(4 * n + 4, sizeof(double));
	double *vy = xcalloc(4 * n + 4, sizeof(double));
	size_t *start = xcalloc(n + 1, sizeof(size_t)), nn = 0, i, k, nv = 0;
	long long *run = xcalloc(n, sizeof(long long));
	double lo = INFINITY, hi = -INFINITY;
	struct svg_series s[3];
	struct svg_chart c;
	char title[512];

	for (i = 0; i < n; i++) {
		x[i] = (double)pts[i].run_id;
		y[i] = pts[i].value;
		lo = y[i] < lo ? y[i] : lo;
		hi = y[i] > hi ? y[i] : hi;
		if (!nn || run[nn - 1] != pts[i].run_id) {
			start[nn] = i;
			run[nn++] = pts[i].run_id;
		}
		start[nn] = i + 1;
	}
	for (k = 0; k < nn; k++) {
		double sum = 0;

		for (i = start[k]; i < start[k + 1]; i++)
			sum += y[i];
		mx[k] = (double)run[k];
		my[k] = sum / (start[k + 1] - start[k]);
	}
	memset(s, 0, sizeof(s));
	s[0].label = "per-boot means";
	s[0].x = x;
	s[0].y = y;
	s[0].n = n;
	s[0].dots = 1;
	s[0].mean = NAN;
	s[1].label = "per-run mean";
	s[1].x = mx;
	s[1].y = my;
	s[1].n = nn;
	s[1].line = 1;
	s[1].mean = NAN;
	s[1].side = 0;
	/* change points: a vertical segment just before the first bad run */
	for (k = 0; k < ng && nv + 2 <= 4 * n + 4; k++) {
		double at = (double)regs[k].bad_run - 0.5;

		if (!ui_track_reg_is(&regs[k], &pts[0]))
			continue;
		for (i = 1; i < nn; i++)
			if (run[i] == regs[k].bad_run)
				at = (mx[i - 1] + mx[i]) / 2;
		vx[nv] = at;
		vy[nv++] = lo;
		vx[nv] = at;
		vy[nv++] = hi;
	}
	s[2].label = "change point";
	s[2].side = 1;
	s[2].x = vx;
	s[2].y = vy;
	s[2].n = nv;
	s[2].line = 1;
	s[2].mean = NAN;
	snprintf(title, sizeof(title), "%s %s%s%s (%s)", pts[0].workload,
	    pts[0].metric, *pts[0].params ? " " : "", pts[0].params,
	    pts[0].unit);
	memset(&c, 0, sizeof(c));
	c.title = title;
	c.xlabel = "run";
	c.ylabel = pts[0].unit;
	c.width = 560;
	c.height = 240;
	c.x_integer = 1;
	c.series = s;
	c.nseries = nv ? 3 : 2;
	buf_addstr(b, "<figure class=\"history\">\n");
	svg_chart(b, &c);
	buf_addstr(b, "<figcaption>");
	for (k = 0; k < ng; k++) {
		if (!ui_track_reg_is(&regs[k], &pts[0]))
			continue;
		html_txtf(b, "change point at run %lld: %+.1f%% [%+.1f%%, "
		    "%+.1f%%], p = %.3f: ", regs[k].bad_run,
		    regs[k].pct_change, regs[k].ci_lo, regs[k].ci_hi,
		    regs[k].p_value);
		buf_addf(b, "<a class=\"regression\" href=\"/regressions/"
		    "%lld\">regression #%lld</a>. ", regs[k].id, regs[k].id);
	}
	buf_addstr(b, "</figcaption>\n</figure>\n");
	free(x);
	free(y);
	free(mx);
	free(my);
	free(vx);
	free(vy);
	free(start);
	free(run);
}

static int
ui_track_page(struct http_req *req, struct http_resp *resp)
{
	const char *name = http_param(req, "name");
	struct buf b = BUF_INIT(0), t = BUF_INIT(0);
	struct track_conf tc;
	struct track_run *runs = NULL;
	struct track_regression *regs = NULL;
	struct track_point *pts = NULL;
	size_t nr = 0, ng = 0, np = 0, i, j;

	if (!name || tracks_conf_get(name, &tc) != 0) {
		html_error_page(resp, 404, "no such track is configured");
		return 0;
	}
	if (!req->db) {
		tracks_conf_release(&tc);
		html_error_page(resp, 503, "store not available");
		return 0;
	}
	db_track_runs(req->db, name, 0, &runs, &nr);
	db_track_regressions(req->db, name, &regs, &ng);
	db_track_history(req->db, name, &pts, &np);
	buf_addf(&t, "Track %s", name);
	html_page_begin(&b, t.data, "nightly", 0);
	buf_addstr(&b, "<h1>Track ");
	html_txt(&b, name);
	buf_addstr(&b, "</h1>\n<p>tree ");
	html_txt(&b, tc.tree);
	buf_addstr(&b, ", branch ");
	html_txt(&b, tc.branch);
	buf_addf(&b, ", %d boots per run</p>\n", tc.boots);
	buf_addstr(&b, "<h2>Regressions</h2>\n<ul class=\"regressions\">\n");
	for (i = 0; i < ng; i++) {
		buf_addf(&b, "<li><a href=\"/regressions/%lld\">#%lld</a> ",
		    regs[i].id, regs[i].id);
		html_txtf(&b, "%s %s %s: %+.1f%% between runs %lld and %lld "
		    "(%s)", regs[i].workload, regs[i].params, regs[i].metric,
		    regs[i].pct_change, regs[i].good_run, regs[i].bad_run,
		    regs[i].state);
		if (regs[i].subject)
			html_txtf(&b, ": %.12s \"%s\"", regs[i].first_bad,
			    regs[i].subject);
		buf_addstr(&b, "</li>\n");
	}
	if (!ng)
		buf_addstr(&b, "<li>none</li>\n");
	buf_addstr(&b, "</ul>\n<h2>History</h2>\n");
	for (i = 0; i < np; i = j) {
		for (j = i; j < np && !strcmp(pts[j].workload, pts[i].workload)
		    && !strcmp(pts[j].params, pts[i].params) &&
		    !strcmp(pts[j].metric, pts[i].metric); j++)
			;
		ui_track_chart(&b, pts + i, j - i, regs, ng);
	}
	if (!np)
		buf_addstr(&b, "<p>No run has finished yet.</p>\n");
	buf_addstr(&b, "<h2>Runs</h2>\n<table class=\"runs\">\n<tr><th>run"
	    "</th><th>created</th><th>trigger</th><th>state</th><th>head</th>"
	    "<th>boots</th><th>note</th></tr>\n");
	for (i = 0; i < nr; i++)
		ui_track_run_row(&b, &runs[i]);
	buf_addstr(&b, "</table>\n");
	html_page_end(&b);
	html_reply(resp, 200, &b);
	track_points_free(pts, np);
	track_runs_free(runs, nr);
	track_regressions_free(regs, ng);
	tracks_conf_release(&tc);
	buf_release(&t);
	return 0;
}

/*
 * The end of a regression's <dl> (what the bisect verified) and the
 * metrics that moved at its change point: the rows that carry the verdict,
 * then the lock-contention rows shown beside them as evidence.
 */
static void
ui_track_reg_metrics(struct buf *b, struct db *db,
    const struct track_regression *g)
{
	struct track_reg_metric *m = NULL;
	size_t n = 0, i;

	if (g->verified) {
		buf_addstr(b, "<dt>verified</dt><dd class=\"verified\">");
		html_txt(b, g->verified);
		buf_addstr(b, "</dd>\n");
	}
	buf_addstr(b, "</dl>\n");
	if (db_track_reg_metrics(db, g->id, &m, &n) != 0 || !n)
		goto out;
	buf_addstr(b, "<h2>Metrics that moved</h2>\n<table class=\"moved\">"
	    "\n<tr><th>workload</th><th>params</th><th>metric</th>"
	    "<th>change</th><th>role</th></tr>\n");
	for (i = 0; i < n; i++) {
		buf_addf(b, "<tr class=\"%s\"><td>", m[i].carries ? "verdict" :
		    "evidence");
		html_txt(b, m[i].workload);
		buf_addstr(b, "</td><td>");
		html_txt(b, m[i].params);
		buf_addstr(b, "</td><td>");
		html_txt(b, m[i].metric);
		buf_addstr(b, "</td><td>");
		html_txtf(b, "%+.1f%% [%+.1f%%, %+.1f%%]", m[i].pct_change,
		    m[i].ci_lo, m[i].ci_hi);
		buf_addstr(b, "</td><td>");
		html_txt(b, m[i].carries ? "verdict" : m[i].why ? m[i].why :
		    "evidence");
		buf_addstr(b, "</td></tr>\n");
	}
	buf_addstr(b, "</table>\n");
out:
	track_reg_metrics_free(m, n);
}

static int
ui_regression(struct http_req *req, struct http_resp *resp)
{
	const char *idp = http_param(req, "id");
	struct buf b = BUF_INIT(0), t = BUF_INIT(0), rep = BUF_INIT(0);
	struct track_regression g;
	struct bisect_step *steps = NULL;
	size_t n = 0, i;
	long long id;
	int r;

	if (!idp || !*idp || strspn(idp, "0123456789") != strlen(idp) ||
	    strlen(idp) > 18 || (id = atoll(idp)) < 1) {
		html_error_page(resp, 400, "regression id must be a positive "
		    "integer");
		return 0;
	}
	if (!req->db) {
		html_error_page(resp, 503, "store not available");
		return 0;
	}
	r = db_track_regression_get(req->db, id, &g);
	if (r != 0) {
		html_error_page(resp, r == 1 ? 404 : 500, r == 1 ?
		    "no such regression" : "cannot read the regression");
		return 0;
	}
	db_track_steps(req->db, id, &steps, &n);
	buf_addf(&t, "Regression %lld", id);
	html_page_begin(&b, t.data, "nightly", strcmp(g.state, "bisecting") ?
	    0 : 10);
	buf_addf(&b, "<h1>Regression %lld</h1>\n<p class=\"state ", id);
	html_attr(&b, g.state);
	buf_addstr(&b, "\">");
	html_txt(&b, g.state);
	if (g.error) {
		buf_addstr(&b, ": ");
		html_txt(&b, g.error);
	}
	buf_addstr(&b, "</p>\n<dl>\n<dt>track</dt><dd><a href=\"/tracks/");
	html_url_escape(&b, g.track);
	buf_addstr(&b, "\">");
	html_txt(&b, g.track);
	buf_addstr(&b, "</a></dd>\n<dt>metric</dt><dd>");
	html_txtf(&b, "%s %s %s (%s, %s is better)", g.workload, g.params,
	    g.metric, g.unit, g.better < 0 ? "lower" : "higher");
	buf_addstr(&b, "</dd>\n<dt>size</dt><dd>");
	html_txtf(&b, "%+.1f%% [95%% CI %+.1f%%, %+.1f%%]", g.pct_change,
	    g.ci_lo, g.ci_hi);
	buf_addstr(&b, "</dd>\n<dt>last good</dt><dd>");
	html_txtf(&b, "run %lld, %s", g.good_run, g.good_commit);
	buf_addstr(&b, "</dd>\n<dt>first bad</dt><dd>");
	html_txtf(&b, "run %lld, %s", g.bad_run, g.bad_commit);
	buf_addstr(&b, "</dd>\n");
	if (g.first_bad) {
		buf_addstr(&b, "<dt>first bad commit</dt><dd class=\"first-bad\">"
		    "<code>");
		html_txt(&b, g.first_bad);
		buf_addstr(&b, "</code> ");
		html_txt(&b, g.subject ? g.subject : "");
		buf_addstr(&b, "<br>");
		html_txt(&b, g.author ? g.author : "");
		if (g.link) {
			/* the commit's Link: trailer: a link only when http(s) */
			buf_addstr(&b, "<br>");
			html_link(&b, g.link, NULL, NULL, 0);
		}
		buf_addstr(&b, "</dd>\n");
	}
	ui_track_reg_metrics(&b, req->db, &g);
	buf_addstr(&b, "<h2>Bisect</h2>\n<table class=\"steps\">\n<tr>"
	    "<th>commit</th><th>state</th><th>verdict</th><th>boots</th>"
	    "<th>vs last good</th><th>first bad vs it</th><th>why</th></tr>\n");
	for (i = 0; i < n; i++) {
		buf_addstr(&b, "<tr class=\"step\"><td><code>");
		html_txtf(&b, "%.12s", steps[i].commit_id);
		buf_addstr(&b, "</code></td><td>");
		html_txtf(&b, "%s%s", steps[i].state, steps[i].role &&
		    !strcmp(steps[i].role, "verify") ? " (verify)" : "");
		buf_addstr(&b, "</td><td>");
		html_txt(&b, steps[i].verdict ? steps[i].verdict : "");
		buf_addf(&b, "</td><td>%d</td><td>", steps[i].boots);
		html_txtf(&b, "%+.1f%% [%+.1f%%, %+.1f%%]",
		    steps[i].pct_vs_good, steps[i].ci_good_lo,
		    steps[i].ci_good_hi);
		buf_addstr(&b, "</td><td>");
		html_txtf(&b, "%+.1f%% [%+.1f%%, %+.1f%%]", steps[i].pct_vs_bad,
		    steps[i].ci_bad_lo, steps[i].ci_bad_hi);
		buf_addstr(&b, "</td><td>");
		html_txt(&b, steps[i].reason ? steps[i].reason : "");
		buf_addstr(&b, "</td></tr>\n");
	}
	buf_addstr(&b, "</table>\n");
	tracks_report(&rep, &g, steps, n);
	buf_addf(&b, "<h2>Report</h2>\n<p><a href=\"/regressions/%lld/"
	    "report.txt\">report.txt</a></p>\n<pre class=\"report\">", id);
	html_txt(&b, rep.data);
	buf_addstr(&b, "</pre>\n");
	html_page_end(&b);
	html_reply(resp, 200, &b);
	bisect_steps_free(steps, n);
	track_regression_release(&g);
	buf_release(&t);
	buf_release(&rep);
	return 0;
}

const struct route ui_track_routes[] = {
	{ "GET", "/tracks", ui_tracks, ROUTE_HTML, 0 },
	{ "GET", "/tracks/{name}", ui_track_page, ROUTE_HTML, 0 },
	{ "GET", "/regressions/{id}", ui_regression, ROUTE_HTML, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
