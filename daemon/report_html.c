/*
 * report_html: the comparison section of the series page (a <section
 * id="result">, drawn into ui_series.c's page): the verdict, the claims,
 * the kernels and the machine, progress, the result table with per-boot
 * and scaling charts (inline SVG, core/svg.c), the lock contention tables,
 * the lock profiles, the boots with their console logs, the job
 * definition and how to reproduce.  Pure: a function of the model, every
 * outside string escaped (html.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/html.h"
#include "daemon/report.h"
#include "daemon/report_int.h"
#include "core/svg.h"
#include "lib/xalloc.h"

/* The class name of a verdict word, for CSS ("regression", "failed"). */
static const char *
report_verdict_class(const char *v)
{
	static const char *const k[] = { "regression", "improvement",
	    "no change", "inconclusive", "failed", "mixed", "running",
	    "waiting", "not exercised" };
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!strncmp(v, k[i], strlen(k[i])))
			return i == 2 ? "nochange" : i == 8 ? "notexercised" :
			    k[i];
	return "other";
}

static void
report_html_progress(const struct report *r, struct buf *b)
{
	int s, pct;

	buf_addstr(b, "<div class=\"progress\">\n");
	for (s = 0; s < 2; s++) {
		const struct report_kernel *k = &r->kernel[s];
		const struct report_side *d = &r->side[s];

		buf_addf(b, "<div class=\"side side-%s\"><span class=\"label\">"
		    "%s</span> ", report_side_name(s), report_side_name(s));
		if (k->build_id && k->build_state && strcmp(k->build_state,
		    "done")) {
			buf_addf(b, "<a href=\"/builds/%lld\">build</a> ",
			    k->build_id);
			html_txt(b, k->build_state);
			if (k->build_progress >= 0)
				buf_addf(b, " %d%%", k->build_progress);
			buf_addstr(b, "; ");
		}
		pct = d->planned > 0 ? 100 * (d->done + d->failed) /
		    d->planned : 0;
		buf_addf(b, "<progress max=\"100\" value=\"%d\"></progress> "
		    "%d/%d boots done", pct > 100 ? 100 : pct, d->done,
		    d->planned);
		if (d->failed)
			buf_addf(b, ", <span class=\"bad\">%d failed</span>",
			    d->failed);
		if (d->running)
			buf_addf(b, ", %d running", d->running);
		buf_addstr(b, "</div>\n");
	}
	if (r->agent) {
		buf_addstr(b, "<div>current agent: ");
		html_txt(b, r->agent);
		buf_addstr(b, "</div>\n");
	}
	buf_addstr(b, "</div>\n");
}

static void
report_html_header(const struct report *r, struct buf *b)
{
	int s;

	buf_addstr(b, "<dl class=\"meta\">\n<dt>series</dt><dd>");
	html_txt(b, r->subject ? r->subject : "(no subject)");
	if (r->version)
		buf_addf(b, " <span class=\"ver\">v%d</span>", r->version);
	if (r->author) {
		buf_addstr(b, " by ");
		html_txt(b, r->author);
	}
	buf_addstr(b, "</dd>\n");
	if (r->base_commit) {
		buf_addstr(b, "<dt>base</dt><dd><code>");
		html_txt(b, r->base_commit);
		buf_addstr(b, "</code>");
		if (r->tree) {
			buf_addstr(b, " in ");
			html_txt(b, r->tree);
		}
		if (r->base_kind || r->base_reason) {
			buf_addstr(b, " <span class=\"note\">(");
			html_txt(b, r->base_kind ? r->base_kind : "");
			if (r->base_kind && r->base_reason)
				buf_addstr(b, ": ");
			html_txt(b, r->base_reason ? r->base_reason : "");
			buf_addstr(b, ")</span>");
		}
		buf_addstr(b, "</dd>\n");
	}
	buf_addstr(b, "<dt>kernels</dt><dd>");
	for (s = 0; s < 2; s++) {
		const struct report_kernel *k = &r->kernel[s];

		buf_addf(b, "%s%s: ", s ? "<br>" : "", report_side_name(s));
		if (k->commit) {
			buf_addstr(b, "<code>");
			html_txt(b, k->commit);
			buf_addstr(b, "</code> ");
		}
		if (k->build_id) {
			buf_addf(b, "<a href=\"/builds/%lld\">build %lld</a> ",
			    k->build_id, k->build_id);
			html_txt(b, k->build_state ? k->build_state : "");
		} else {
			buf_addstr(b, "<span class=\"note\">not built yet"
			    "</span>");
		}
		if (k->build_error) {
			buf_addstr(b, " <span class=\"bad\">");
			html_txt(b, k->build_error);
			buf_addstr(b, "</span>");
		}
	}
	buf_addstr(b, "</dd>\n<dt>machine</dt><dd>");
	if (r->hw_class) {
		buf_addstr(b, "<code>");
		html_txt(b, r->hw_class);
		buf_addstr(b, "</code>");
	} else {
		buf_addstr(b, "<span class=\"note\">not assigned yet</span>");
	}
	if (r->topology) {
		buf_addstr(b, " &middot; ");
		html_txt(b, r->topology);
	}
	buf_addstr(b, "</dd>\n</dl>\n");
}

static void
report_html_row(const struct report *r, const struct stats_row *row,
    struct buf *b)
{
	const char *miss = report_row_missing(row);
	char s1[64], s2[64], chg[96], need[128];

	report_fmt_side(s1, sizeof(s1), &row->base);
	report_fmt_side(s2, sizeof(s2), &row->test);
	report_fmt_change(chg, sizeof(chg), row);
	buf_addf(b, "<tr class=\"v-%s%s\"><td class=\"num\">",
	    report_verdict_class(report_row_verdict(r, row)),
	    row->significant ? " sig" : "");
	html_txt(b, s1);
	buf_addstr(b, "</td><td class=\"num chg\">");
	html_txt(b, chg);
	if (row->significant)
		buf_addstr(b, " <span class=\"mark\" title=\"significant\">*"
		    "</span>");
	buf_addstr(b, "</td><td class=\"num\">");
	html_txt(b, s2);
	buf_addstr(b, "</td><td class=\"metric\">");
	html_txt(b, row->metric);
	if (row->params && *row->params) {
		buf_addstr(b, " <span class=\"params\">");
		html_txt(b, row->params);
		buf_addstr(b, "</span>");
	}
	if (row->unit && *row->unit) {
		buf_addstr(b, " <span class=\"unit\">(");
		html_txt(b, row->unit);
		buf_addstr(b, ")</span>");
	}
	if (!row->primary)
		buf_addstr(b, " <span class=\"secondary\" title=\"not a "
		    "metric this workload is judged by: shown, never in the "
		    "headline\">secondary</span>");
	buf_addstr(b, "</td><td class=\"row-verdict\" title=\"");
	html_attr(b, row->reason);
	buf_addstr(b, "\">");
	html_txt(b, miss ? miss : report_row_verdict(r, row));
	if (!miss && report_boots_needed(row, need, sizeof(need))) {
		buf_addstr(b, " <span class=\"boots-needed\">");
		html_txt(b, need);
		buf_addstr(b, "</span>");
	}
	if (!miss && row->significant &&
	    r->ex.state == REPORT_EX_NOT_EXERCISED)
		buf_addstr(b, " <span class=\"suspicious\" title=\"significant "
		    "although none of the changed functions ran\">(suspicious)"
		    "</span>");
	if (r->ex.emulated)
		buf_addstr(b, " <span class=\"emulated\" title=\"TCG with "
		    "icount: contention is emulated\">emulated</span>");
	buf_addstr(b, "</td></tr>\n");
}

/* Per-boot means of both sides of one row, as a chart. */
static void
report_html_boots_chart(const struct stats_row *row, struct buf *b)
{
	struct svg_series sr[2];
	struct svg_chart c;
	struct buf title = BUF_INIT(0);
	double *x[2];
	size_t i;
	int s;

	for (s = 0; s < 2; s++) {
		const struct stats_side *d = s ? &row->test : &row->base;

		x[s] = xcalloc(d->nboots ? d->nboots : 1, sizeof(double));
		/* x is the boot number: a failed boot leaves a gap */
		for (i = 0; d->present && i < d->nboots; i++)
			x[s][i] = (double)d->boot_ids[i];
		memset(&sr[s], 0, sizeof(sr[s]));
		sr[s].label = report_side_name(s);
		sr[s].side = s;
		sr[s].x = x[s];
		sr[s].y = d->boot_means;
		sr[s].n = d->present ? d->nboots : 0;
		sr[s].dots = 1;
		sr[s].mean = d->present ? d->mean : NAN;
	}
	buf_addf(&title, "%s", row->metric);
	memset(&c, 0, sizeof(c));
	c.title = title.data;
	c.subtitle = row->params && *row->params ? row->params : NULL;
	c.xlabel = "boot";
	c.ylabel = row->unit;
	c.x_integer = 1;
	c.series = sr;
	c.nseries = 2;
	svg_chart(b, &c);
	buf_release(&title);
	free(x[0]);
	free(x[1]);
}

static void
report_html_curve(const struct report_curve *cv, struct buf *b)
{
	struct svg_series sr[2];
	struct svg_chart c;
	struct buf title = BUF_INIT(0);
	int s;

	for (s = 0; s < 2; s++) {
		memset(&sr[s], 0, sizeof(sr[s]));
		sr[s].label = report_side_name(s);
		sr[s].side = s;
		sr[s].x = cv->x;
		sr[s].y = cv->y[s];
		sr[s].n = cv->n;
		sr[s].dots = sr[s].line = 1;
		sr[s].mean = NAN;
	}
	buf_addf(&title, "scaling: %s", cv->metric);
	memset(&c, 0, sizeof(c));
	c.title = title.data;
	c.subtitle = *cv->rest ? cv->rest : NULL;
	c.xlabel = "tasks";
	c.ylabel = cv->unit;
	c.x_integer = 1;
	c.y_zero = 1;
	c.series = sr;
	c.nseries = 2;
	svg_chart(b, &c);
	buf_release(&title);
}

static void
report_html_results(const struct report *r, struct buf *b)
{
	const struct stats_result *res = &r->result;
	struct report_curve *cv;
	size_t i, k, nc, start;
	const char *wl;
	char note[512];

	nc = report_curves(r, &cv);
	buf_addstr(b, "<table class=\"result\">\n<thead><tr>"
	    "<th>base<br>mean ±%stddev</th><th>%change [95% CI]</th>"
	    "<th>patched<br>mean ±%stddev</th><th>metric</th><th>verdict</th>"
	    "</tr></thead>\n");
	for (i = 0; i < res->n; i = k) {
		wl = res->rows[i].workload;
		for (k = i; k < res->n && !strcmp(res->rows[k].workload, wl);
		    k++)
			;
		buf_addstr(b, "<tbody><tr class=\"workload\"><th colspan=\"5\">");
		html_txt(b, wl);
		buf_addstr(b, "</th></tr>\n");
		for (start = i; start < k; start++)
			report_html_row(r, &res->rows[start], b);
		buf_addstr(b, "</tbody>\n");
	}
	buf_addstr(b, "</table>\n<p class=\"note\">* ");
	html_txt(b, stats_rule_text(res, note, sizeof(note)));
	buf_addstr(b, " The boot is the unit of replication.</p>\n");

	/* charts, per workload in table order */
	buf_addstr(b, "<h3>Per-boot means</h3>\n");
	for (i = 0; i < res->n; i = k) {
		wl = res->rows[i].workload;
		for (k = i; k < res->n && !strcmp(res->rows[k].workload, wl);
		    k++)
			;
		buf_addstr(b, "<figure class=\"charts\"><figcaption>");
		html_txt(b, wl);
		buf_addstr(b, "</figcaption>\n");
		for (start = i; start < k; start++)
			report_html_boots_chart(&res->rows[start], b);
		for (start = 0; start < nc; start++)
			if (!strcmp(cv[start].workload, wl))
				report_html_curve(&cv[start], b);
		buf_addstr(b, "</figure>\n");
	}
	report_curves_free(cv, nc);
}

static void
report_html_share(struct buf *b, double v)
{
	char s[32];

	report_fmt_share(s, sizeof(s), v);
	buf_addf(b, "<td class=\"num\">%s</td>", s);
}

/* One metric of one lock, in the columns of the results table. */
static void
report_html_wait_row(const struct stats_row *row, const char *label,
    struct buf *b)
{
	const char *miss = report_lock_missing(row);
	char s1[64], s2[64], chg[96];

	report_fmt_side(s1, sizeof(s1), &row->base);
	report_fmt_side(s2, sizeof(s2), &row->test);
	report_fmt_change(chg, sizeof(chg), row);
	buf_addf(b, "<tr class=\"v-%s%s\"><td class=\"num\">",
	    report_verdict_class(stats_verdict_name(row->verdict)),
	    row->significant ? " sig" : "");
	html_txt(b, s1);
	buf_addstr(b, "</td><td class=\"num chg\">");
	html_txt(b, chg);
	if (row->significant)
		buf_addstr(b, " <span class=\"mark\" title=\"significant\">*"
		    "</span>");
	buf_addstr(b, "</td><td class=\"num\">");
	html_txt(b, s2);
	buf_addstr(b, "</td><td class=\"metric\">");
	html_txt(b, label);
	buf_addstr(b, " <span class=\"unit\">(");
	html_txt(b, row->unit ? row->unit : "");
	buf_addstr(b, ")</span></td><td class=\"row-verdict\" title=\"");
	html_attr(b, row->reason);
	buf_addstr(b, "\">");
	html_txt(b, miss ? miss : stats_verdict_name(row->verdict));
	buf_addstr(b, "</td></tr>\n");
}

static void
report_html_contention(const struct report *r, struct buf *b)
{
	const char *run = NULL;
	size_t i;
	int m;

	const char *blind = report_lock_blind(r);
	size_t n = 0;

	if (!report_has_lock_pass(r))
		return;
	buf_addstr(b, "<h3>Lock contention</h3>\n");
	if (blind) {
		buf_addstr(b, "<p class=\"lock-blind\"><strong>Cannot show"
		    "</strong>: ");
		html_txt(b, blind);
		buf_addstr(b, "</p>\n");
	}
	for (i = 0; i < r->nlocks; i++) {
		const struct stats_row *row = report_lock_changed(&r->locks[i]);
		struct buf line = BUF_INIT(0);

		if (!row && !(row = report_lock_new(r, &r->locks[i])))
			continue;
		if (!n++)
			buf_addstr(b, "<p class=\"lock-changes\">Contended-lock "
			    "changes:</p>\n<ul class=\"lock-changes\">\n");
		report_lock_change_line(&line, &r->locks[i], row);
		buf_addf(b, "<li class=\"v-%s\">", row->base.present ?
		    report_verdict_class(stats_verdict_name(row->verdict)) :
		    "regression");
		html_txt(b, line.data);
		buf_addstr(b, "</li>\n");
		buf_release(&line);
	}
	if (n)
		buf_addstr(b, "</ul>\n");
	if (!r->nlocks) {
		buf_addstr(b, report_is_live(r) ? "<p class=\"note\">No lock "
		    "waits reported yet.</p>\n" : "<p class=\"note\">No lock "
		    "waited on either side.</p>\n");
		return;
	}
	buf_addstr(b, "<p class=\"note\">From the "
	    "lock:contention_begin/end tracepoints in the guest: per lock "
	    "(static locks by symbol; the lruvec, list_lru and split queue "
	    "locks by name from the functions that take them; the others by "
	    "their first caller) the "
	    "wait time, count and longest wait; wait share = wait total / "
	    "(tasks &times; wall). Same statistics as the results above; "
	    "these rows do not count towards the overall verdict.");
	if (r->ex.emulated)
		buf_addstr(b, " Emulated: under TCG a waiter spins only while "
		    "the holder's vCPU is not running; these waits say where "
		    "contention is, not how long it lasts on hardware.");
	buf_addstr(b, "</p>\n");
	for (i = 0; i < r->nlocks; i++) {
		const struct report_lockrow *l = &r->locks[i];

		if (!run || strcmp(run, l->run)) {
			if (run)
				buf_addstr(b, "</table>\n");
			buf_addstr(b, "<table class=\"result contention\">\n"
			    "<caption>");
			html_txt(b, l->run);
			buf_addstr(b, "</caption>\n<thead><tr><th>base<br>mean "
			    "±%stddev</th><th>%change [95% CI]</th><th>patched"
			    "<br>mean ±%stddev</th><th>metric</th><th>verdict"
			    "</th></tr></thead>\n");
			run = l->run;
		}
		buf_addstr(b, "<tbody><tr class=\"workload\"><th colspan=\"5\">");
		html_txt(b, l->lock);
		buf_addstr(b, "</th></tr>\n");
		for (m = 0; m < REPORT_WAIT_METRICS; m++)
			if (l->m[m])
				report_html_wait_row(l->m[m],
				    report_wait_labels[m], b);
		buf_addstr(b, "</tbody>\n");
	}
	buf_addstr(b, "</table>\n");
}

static void
report_html_profiles(const struct report *r, struct buf *b)
{
	size_t i, k, c;

	if (!r->nprofiles)
		return;
	buf_addstr(b, "<h3>Lock profile</h3>\n");
	for (i = 0; i < r->nprofiles; i++) {
		const struct report_profile *p = &r->profiles[i];

		buf_addstr(b, "<table class=\"locks\">\n<caption>");
		html_txt(b, p->params);
		buf_addf(b, " &middot; share of kernel samples, mean of %d base "
		    "and %d patched profiles</caption>\n<thead><tr><th>lock / "
		    "caller</th><th>base</th><th>patched</th></tr></thead>\n"
		    "<tbody>\n", p->nprofiles[0], p->nprofiles[1]);
		for (k = 0; k < p->nlocks && k < REPORT_TOP_LOCKS; k++) {
			const struct report_lock *l = &p->locks[k];

			buf_addstr(b, "<tr class=\"lock\"><td>");
			html_txt(b, l->lock);
			buf_addstr(b, " <span class=\"note\">");
			html_txt(b, l->symbol);
			buf_addstr(b, "</span></td>");
			report_html_share(b, l->share[0]);
			report_html_share(b, l->share[1]);
			buf_addstr(b, "</tr>\n");
			for (c = 0; c < l->ncallers && c < REPORT_TOP_CALLERS;
			    c++) {
				buf_addstr(b, "<tr class=\"caller\"><td>");
				html_txt(b, l->callers[c].symbol);
				buf_addstr(b, "</td>");
				report_html_share(b, l->callers[c].share[0]);
				report_html_share(b, l->callers[c].share[1]);
				buf_addstr(b, "</tr>\n");
			}
		}
		buf_addstr(b, "</tbody></table>\n");
	}
}

static void
report_html_jobs(const struct report *r, struct buf *b)
{
	size_t i;

	if (!r->njobs)
		return;
	buf_addstr(b, "<details class=\"jobs\"");
	for (i = 0; i < r->njobs; i++)
		if (r->jobs[i].state && strcmp(r->jobs[i].state, "done") &&
		    strcmp(r->jobs[i].state, "queued") &&
		    strcmp(r->jobs[i].state, "leased"))
			break;
	/* open when some boot failed: that is what a reader looks for */
	if (i < r->njobs)
		buf_addstr(b, " open");
	buf_addf(b, "><summary>Boots (%zu jobs, base and patched interleaved)"
	    "</summary>\n<table class=\"list\"><thead><tr><th>job</th>"
	    "<th>side</th><th>boot</th><th>state</th><th>agent</th>"
	    "<th>logs</th></tr></thead>\n<tbody>\n", r->njobs);
	for (i = 0; i < r->njobs; i++) {
		const struct report_job *j = &r->jobs[i];

		buf_addf(b, "<tr><td><a href=\"/jobs/%lld\">%lld</a>"
		    "</td><td>%s</td><td>%d</td><td><span class=\"state "
		    "state-", j->id, j->id, report_side_name(j->side), j->boot);
		html_attr(b, j->state ? j->state : "unknown");
		buf_addstr(b, "\">");
		html_txt(b, j->state ? j->state : "unknown");
		buf_addstr(b, "</span>");
		if (j->progress) {
			buf_addstr(b, " (");
			html_txt(b, j->progress);
			buf_addstr(b, ")");
		}
		if (j->reason) {
			buf_addstr(b, " ");
			html_txt(b, j->reason);
		}
		buf_addstr(b, "</td><td>");
		html_txt(b, j->agent ? j->agent : "");
		buf_addstr(b, "</td><td>");
		if (j->console) {
			buf_addstr(b, "<a href=\"");
			html_attr(b, j->console);
			buf_addstr(b, "\">console</a>");
		}
		buf_addstr(b, "</td></tr>\n");
	}
	buf_addstr(b, "</tbody></table>\n</details>\n");
}

void
report_html(const struct report *r, struct buf *b)
{
	char v[256];
	size_t k;
	int s;

	report_verdict(r, v, sizeof(v));
	buf_addstr(b, "<section id=\"result\" class=\"result\">\n"
	    "<h2>Comparison</h2>\n");
	buf_addf(b, "<p class=\"verdict verdict-%s\">Verdict: <strong>",
	    report_verdict_class(v));
	html_txt(b, v);
	buf_addstr(b, "</strong>");
	if (report_is_live(r))
		buf_addstr(b, " <span class=\"note\">(running; this page "
		    "refreshes itself)</span>");
	if (r->stale)
		buf_addstr(b, " <span class=\"note\">(the statistics of an "
		    "earlier upload: another request is computing the "
		    "newest)</span>");
	buf_addstr(b, "</p>\n");
	report_claims_html(r, b);
	for (s = 0; s < 2; s++) {
		const char *how = report_side_all_failed(r, s);

		if (!how)
			continue;
		buf_addf(b, "<div class=\"error\">Every %s boot %s. Console "
		    "logs:", report_side_name(s), how);
		for (k = 0; k < r->njobs; k++)
			if (r->jobs[k].side == s && r->jobs[k].console) {
				buf_addstr(b, " <a href=\"");
				html_attr(b, r->jobs[k].console);
				buf_addf(b, "\">boot %d</a>", r->jobs[k].boot);
			}
		buf_addstr(b, "</div>\n");
	}
	if (r->error) {
		buf_addstr(b, "<p class=\"error\">");
		html_txt(b, r->error);
		buf_addstr(b, "</p>\n");
	}
	report_html_header(r, b);
	if (r->comparison_id || r->kernel[0].build_id)
		report_html_progress(r, b);
	if (r->have_result && r->result.n)
		report_html_results(r, b);
	else if (r->comparison_id)
		buf_addstr(b, "<p class=\"note\">No samples yet.</p>\n");
	report_html_contention(r, b);
	if (r->comparison_id)
		report_exercise_html(r, b);
	report_html_profiles(r, b);
	report_html_jobs(r, b);
	if (r->matrix) {
		buf_addstr(b, "<details class=\"matrix\"><summary>Job definition "
		    "(the matrix every boot runs)</summary>\n<pre>");
		html_txt(b, r->matrix);
		buf_addstr(b, "</pre></details>\n");
	}
	buf_addstr(b, "<h3>Reproduce</h3>\n<pre class=\"repro\">");
	report_repro_lines(r, NULL, b, 1);
	buf_addf(b, "</pre>\n<p class=\"links\"><a href=\"/api/v1/series/%lld/"
	    "comparison\">comparison JSON</a> &middot; <a href=\"/series/%lld/"
	    "report.txt\">text report</a></p>\n</section>\n", r->series_id,
	    r->series_id);
}
