/*
 * report_claims: the author's claims at the top of a series' result (page,
 * JSON, report.txt): what the cover letter and changelogs claim
 * (core/claims.c), whether the measurement agrees, and how many boots
 * per side it would take to tell on this agent class.
 *
 * The boots a claim needs come from the boot-to-boot spread its row showed
 * in this comparison (the pooled %stddev of the per-boot means of both
 * sides), at the level the row was tested at (its share of the
 * comparison's alpha at that look) and 95 % power, for the t test on
 * per-boot means the statistics use.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/claims.h"
#include "daemon/claims_series.h"
#include "daemon/db.h"
#include "daemon/html.h"
#include "daemon/noise.h"
#include "daemon/report.h"
#include "core/series.h"
#include "core/stats.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

#define REPORT_CLAIMS_POWER	0.95

/* What report_claims_load() keeps on the report. */
struct report_claims {
	struct claims	 claims;
	struct noise	 noise;		/* the class's past comparisons */
	struct claim_row *rows;		/* one per result row */
	size_t		 nrows;
};

int
report_claims_load(struct db *db, struct report *r)
{
	r->claims = xcalloc(1, sizeof(*r->claims));
	claims_series_extract(db, r->series_id, &r->claims->claims);
	/* the noise the boots to tell a claim rest on: the class's own
	   history when it has one (comparisons before this one) */
	if (r->claims->claims.n && r->hw_class)
		noise_class(db, r->hw_class, r->comparison_id,
		    &r->claims->noise);
	return 0;
}

void
report_claims_free(struct report *r)
{
	if (!r->claims)
		return;
	claims_release(&r->claims->claims);
	noise_release(&r->claims->noise);
	free(r->claims->rows);
	free(r->claims);
	r->claims = NULL;
}

/* The result rows as claim checks see them (built once, on first use). */
static const struct claim_row *
report_claims_rows(const struct report *r, size_t *n)
{
	struct report_claims *rc = r->claims;

	if (!rc->rows && r->have_result && r->result.n) {
		rc->rows = xcalloc(r->result.n, sizeof(*rc->rows));
		for (size_t i = 0; i < r->result.n; i++) {
			const struct stats_row *s = &r->result.rows[i];
			struct claim_row *c = &rc->rows[rc->nrows++];
			const char *v = report_row_verdict(r, s);

			c->workload = s->workload;
			c->params = s->params;
			c->metric = s->metric;
			c->verdict = v;
			c->better = s->better;
			c->change_pct = s->pct_change;
			c->ci_lo = s->ci_lo;
			c->ci_hi = s->ci_hi;
			c->cv_pct = sqrt((s->base.pct_stddev *
			    s->base.pct_stddev + s->test.pct_stddev *
			    s->test.pct_stddev) / 2);
			c->exercised = strcmp(v, "not exercised") != 0;
			c->alpha = isfinite(s->alpha_look) &&
			    s->alpha_look > 0 ? s->alpha_look :
			    r->result.opts.alpha;
		}
	}
	*n = rc->nrows;
	return rc->rows;
}

struct report_claim_view {
	const struct claim	*c;
	struct claim_check	 k;
	const struct claim_row	*row;	/* NULL: none */
	int			 boots;	/* per side to tell; -1 unknown */
	double			 cv;	/* the per-boot spread it rests on */
	int			 history; /* comparisons of the class behind
					   cv; 0: this comparison's own */
};

static void
report_claim_view(const struct report *r, size_t i,
    struct report_claim_view *v)
{
	size_t n;
	const struct claim_row *rows = report_claims_rows(r, &n);

	memset(v, 0, sizeof(*v));
	v->c = &r->claims->claims.v[i];
	claims_check(v->c, rows, n, &v->k);
	v->row = v->k.row >= 0 ? &rows[v->k.row] : NULL;
	v->boots = -1;
	v->cv = NAN;
	if (!v->row || !v->k.has_expected)
		return;
	{
		const struct noise_row *h = noise_find(&r->claims->noise,
		    v->row->workload, v->row->params, v->row->metric);

		if (h && h->dof >= 2) {
			v->cv = h->cv_pct;
			v->history = h->ncomparisons;
		} else {
			v->cv = v->row->cv_pct;
		}
	}
	if (isfinite(v->cv))
		v->boots = claims_boots_needed(v->cv, v->k.expected_pct,
		    v->row->alpha, REPORT_CLAIMS_POWER);
}

/* " on CLASS (its spread over 4 past comparisons, 1.3%)" */
static void
report_claim_basis(const struct report *r, const struct report_claim_view *v,
    struct buf *b)
{
	if (r->hw_class)
		buf_addf(b, " on %s", r->hw_class);
	if (v->history)
		buf_addf(b, " (its per-boot spread over %d past comparison%s, "
		    "%.2f%%)", v->history, v->history == 1 ? "" : "s", v->cv);
	else
		buf_addf(b, " (this comparison's per-boot spread, %.2f%%)",
		    v->cv);
}

static const char *
report_claim_verdict(const struct report *r,
    const struct report_claim_view *v)
{
	if (!r->have_result && v->k.verdict != CLAIM_NOT_UNDERSTOOD &&
	    v->k.verdict != CLAIM_CONTEXT)
		return "not measured yet";
	return claim_verdict_name(v->k.verdict);
}

size_t
report_claims_count(const struct report *r)
{
	return r->claims ? r->claims->claims.n : 0;
}

json_t *
report_claims_json(const struct report *r)
{
	json_t *a = json_array(), *one;
	size_t i;

	if (!r->claims)
		return a;
	for (i = 0; i < r->claims->claims.n; i++) {
		struct report_claim_view v;

		report_claim_view(r, i, &v);
		one = claim_to_json(v.c);
		json_object_set_new(one, "verdict", json_string(
		    report_claim_verdict(r, &v)));
		json_object_set_new(one, "why", v.k.why[0] ?
		    json_string(v.k.why) : json_null());
		json_object_set_new(one, "expected_pct", v.k.has_expected ?
		    json_real(v.k.expected_pct) : json_null());
		json_object_set_new(one, "row", v.row ? json_pack(
		    "{s:s,s:s,s:s,s:o,s:o,s:o}", "workload", v.row->workload,
		    "params", v.row->params, "metric", v.row->metric,
		    "pct_change", isfinite(v.row->change_pct) ?
		    json_real(v.row->change_pct) : json_null(),
		    "ci_lo", isfinite(v.row->ci_lo) ? json_real(v.row->ci_lo) :
		    json_null(), "ci_hi", isfinite(v.row->ci_hi) ?
		    json_real(v.row->ci_hi) : json_null()) : json_null());
		json_object_set_new(one, "boots_needed", v.boots > 0 ?
		    json_integer(v.boots) : json_null());
		json_object_set_new(one, "boots_basis", v.boots > 0 ? json_pack(
		    "{s:s,s:f,s:i}", "spread", v.history ? "class history" :
		    "this comparison", "cv_pct", v.cv, "comparisons",
		    v.history) : json_null());
		json_array_append_new(a, one);
	}
	return a;
}

/* "+30.0% of fault-free mode=shmem,... pages_per_sec" */
static void
report_claim_row_text(struct buf *b, const struct report_claim_view *v)
{
	if (!v->row) {
		buf_addstr(b, "-");
		return;
	}
	buf_addf(b, "%s %s %s", v->row->workload, v->row->params,
	    v->row->metric);
	if (isfinite(v->row->change_pct))
		buf_addf(b, ": %+.1f%% [%+.1f%%, %+.1f%%]", v->row->change_pct,
		    v->row->ci_lo, v->row->ci_hi);
}

void
report_claims_text(const struct report *r, struct buf *b)
{
	if (!report_claims_count(r))
		return;
	buf_addstr(b, "The author's claims\n");
	for (size_t i = 0; i < r->claims->claims.n; i++) {
		struct report_claim_view v;
		struct buf t = BUF_INIT(0);

		report_claim_view(r, i, &v);
		for (const char *p = v.c->text; *p && t.len < 160; p++)
			buf_addch(&t, (unsigned char)*p < 0x20 ? ' ' : *p);
		buf_addf(b, "  [%s] %s: \"%s%s\"\n", report_claim_verdict(r, &v),
		    v.c->where, t.data ? t.data : "",
		    strlen(v.c->text) > 160 ? "..." : "");
		if (v.k.has_expected) {
			buf_addf(b, "      claimed %+.1f%%, measured ",
			    v.k.expected_pct);
			report_claim_row_text(b, &v);
			buf_addch(b, '\n');
		}
		if (v.k.why[0])
			buf_addf(b, "      %s\n", v.k.why);
		if (v.boots > 0) {
			buf_addf(b, "      a %.1f%% change in this row needs %d "
			    "boots per side", fabs(v.k.expected_pct), v.boots);
			report_claim_basis(r, &v, b);
			buf_addch(b, '\n');
		}
		buf_release(&t);
	}
	buf_addch(b, '\n');
}

void
report_claims_html(const struct report *r, struct buf *b)
{
	if (!report_claims_count(r))
		return;
	buf_addstr(b, "<section id=\"claims\" class=\"claims\">\n"
	    "<h2>The author's claims</h2>\n<p>Read from the cover letter and "
	    "changelogs; each is mapped to the row it speaks about.  "
	    "<em>context</em> is a level on the author's machine, not a "
	    "change; <em>not understood</em> is a number no rule could "
	    "read.</p>\n<table class=\"claims\">\n<thead><tr><th>claim</th>"
	    "<th>where</th><th>claimed</th><th>measured</th><th>verdict</th>"
	    "<th>boots to tell</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < r->claims->claims.n; i++) {
		struct report_claim_view v;
		struct buf t = BUF_INIT(0);
		const char *verdict;

		report_claim_view(r, i, &v);
		verdict = report_claim_verdict(r, &v);
		buf_addstr(b, "<tr><td>");
		html_txt(b, v.c->text);
		buf_addstr(b, "</td><td>");
		html_txt(b, v.c->where);
		buf_addstr(b, "</td><td>");
		if (v.k.has_expected)
			buf_addf(b, "%+.1f%%", v.k.expected_pct);
		else if (v.c->has_change)
			buf_addf(b, "%+.1f%%", v.c->change_pct);
		buf_addstr(b, "</td><td>");
		report_claim_row_text(&t, &v);
		html_txt(b, t.data ? t.data : "");
		buf_addstr(b, "</td><td class=\"claim-verdict\">");
		html_txt(b, verdict);
		if (v.k.why[0]) {
			buf_addstr(b, "<br><small>");
			html_txt(b, v.k.why);
			buf_addstr(b, "</small>");
		}
		buf_addstr(b, "</td><td>");
		if (v.boots > 0) {
			struct buf w = BUF_INIT(0);

			buf_addf(b, "%d per side<br><small>", v.boots);
			report_claim_basis(r, &v, &w);
			html_txt(b, w.data + (w.data[0] == ' '));
			buf_addstr(b, "</small>");
			buf_release(&w);
		}
		buf_addstr(b, "</td></tr>\n");
		buf_release(&t);
	}
	buf_addstr(b, "</tbody></table>\n</section>\n");
}
