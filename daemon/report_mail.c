/*
 * report_mail: a comparison or a regression as plain-text mail
 * (report_mail.h).  It reads the model and writes text; who gets the mail
 * and when is mail.c's business.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "daemon/db_track.h"
#include "daemon/report.h"
#include "daemon/report_int.h"
#include "daemon/report_mail.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

#define REPORT_MAIL_MAX_ROWS	20

/* One logical line of at most width columns, broken at blanks. */
static void
report_mail_wrap_line(const char *l, size_t n, size_t width, struct buf *out)
{
	size_t indent = 0, col = 0, i = 0, cont;

	while (indent < n && l[indent] == ' ')
		indent++;
	cont = indent + 2 < width / 2 ? indent + 2 : indent;
	if (n <= width) {
		buf_add(out, l, n);
		buf_addch(out, '\n');
		return;
	}
	buf_add(out, l, indent);
	col = indent;
	i = indent;
	while (i < n) {
		size_t s = i, w;

		while (i < n && l[i] != ' ')
			i++;
		w = i - s;
		if (col > cont && col + 1 + w > width) {
			buf_addch(out, '\n');
			for (size_t k = 0; k < cont; k++)
				buf_addch(out, ' ');
			col = cont;
		} else if (col > indent && s > indent) {
			buf_addch(out, ' ');
			col++;
		}
		buf_add(out, l + s, w);
		col += w;
		while (i < n && l[i] == ' ')
			i++;
	}
	buf_addch(out, '\n');
}

void
report_mail_wrap(const char *text, size_t width, struct buf *out)
{
	struct buf clean = BUF_INIT(0);
	const char *p, *nl;

	for (p = text; *p; p++) {
		unsigned char c = (unsigned char)*p;

		buf_addch(&clean, c == '\t' ? ' ' : c == '\n' || c >= 0x20 ?
		    (c == 0x7f ? '?' : c) : '?');
	}
	buf_addstr(&clean, "");
	for (p = clean.data; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		report_mail_wrap_line(p, nl ? (size_t)(nl - p) : strlen(p),
		    width, out);
		if (!nl)
			break;
	}
	buf_release(&clean);
}

static void
report_mail_num(struct buf *b, double v)
{
	if (!isfinite(v))
		buf_addf(b, " %12s", "-");
	else if (fabs(v) >= 1e9)
		buf_addf(b, " %12.4g", v);
	else
		buf_addf(b, " %12.2f", v);
}

/* The significant rows, robot style: base, %stddev, %change, %stddev,
   patched, the row's name on the next line (72 columns). */
static size_t
report_mail_table(const struct report *r, struct buf *b)
{
	size_t shown = 0;

	for (size_t i = 0; r->have_result && i < r->result.n; i++) {
		const struct stats_row *row = &r->result.rows[i];

		if (!row->significant)
			continue;
		if (!shown)
			buf_addstr(b, "          base  %stddev     %change  "
			    "%stddev       patched\n  ------------ -------- "
			    "----------- -------- ------------\n");
		if (shown == REPORT_MAIL_MAX_ROWS) {
			buf_addstr(b, "  (more rows on the page)\n");
			break;
		}
		report_mail_num(b, row->base.mean);
		buf_addf(b, " %7.1f%%", isfinite(row->base.pct_stddev) ?
		    row->base.pct_stddev : 0.0);
		if (isfinite(row->pct_change))
			buf_addf(b, " %+10.1f%%", row->pct_change);
		else
			buf_addf(b, " %11s", "-");
		buf_addf(b, " %7.1f%%", isfinite(row->test.pct_stddev) ?
		    row->test.pct_stddev : 0.0);
		report_mail_num(b, row->test.mean);
		buf_addf(b, "\n      %s.%s%s%s (%s)\n", row->workload,
		    row->metric, row->params && *row->params ? " " : "",
		    row->params ? row->params : "", report_row_verdict(r, row));
		shown++;
	}
	return shown;
}

static void
report_mail_environment(const struct report *r, const struct report_mail *m,
    struct buf *b)
{
	const struct report_side *bs = &r->side[REPORT_BASE];
	const struct report_side *ps = &r->side[REPORT_PATCHED];

	buf_addstr(b, "Environment\n");
	if (r->hw_class)
		buf_addf(b, "  machine:  class %s%s%s\n", r->hw_class,
		    r->topology ? ": " : "", r->topology ? r->topology : "");
	if (r->ex.emulated)
		buf_addf(b, "            emulated (%s): contention figures are "
		    "not a real machine's\n", r->ex.accel ? r->ex.accel :
		    "qemu TCG");
	if (r->tree || r->base_commit)
		buf_addf(b, "  base:     %s%s%s%s%s\n", r->tree ? "tree " : "",
		    r->tree ? r->tree : "", r->tree ? ", " : "",
		    r->base_commit ? r->base_commit : "(unknown)",
		    r->base_kind ? "" : "");
	if (r->base_kind)
		buf_addf(b, "            chosen by %s%s%s\n", r->base_kind,
		    r->base_reason ? ": " : "", r->base_reason ?
		    r->base_reason : "");
	if (r->kernel[REPORT_PATCHED].commit)
		buf_addf(b, "  patched:  %s\n", r->kernel[REPORT_PATCHED].commit);
	buf_addf(b, "  boots:    %d base and %d patched, interleaved A B A "
	    "B; 95%% confidence intervals over boots\n", bs->done, ps->done);
	(void)m;
}

/*
 * A command line to paste: on one line when it fits, else as shell
 * continuation lines (the options, then the last word, a URL or a
 * Message-ID, alone), so the 72-column wrap never breaks it at a blank
 * the shell would take for the command's end.
 */
static void
report_mail_command(struct buf *b, int indent, const char *cmd,
    const char *opts, const char *last)
{
	size_t n = indent + strlen(cmd) + (opts ? 1 + strlen(opts) : 0) + 1 +
	    strlen(last);

	if (n <= REPORT_MAIL_WIDTH) {
		buf_addf(b, "%*s%s%s%s %s\n", indent, "", cmd, opts ? " " : "",
		    opts ? opts : "", last);
		return;
	}
	buf_addf(b, "%*s%s \\\n", indent, "", cmd);
	if (opts)
		buf_addf(b, "%*s%s \\\n", indent + 2, "", opts);
	buf_addf(b, "%*s%s\n", indent + 2, "", last);
}

static void
report_mail_reproduce(const struct report *r, const struct report_mail *m,
    struct buf *b)
{
	int boots = r->side[REPORT_BASE].done;

	buf_addstr(b, "How to reproduce\n");
	if (m->thread_url) {
		struct buf opt = BUF_INIT(0);

		if (r->base_commit)
			buf_addf(&opt, " --base %s", r->base_commit);
		if (boots > 0)
			buf_addf(&opt, " --boots %d", boots);
		report_mail_command(b, 2, "kperfci submit", opt.data ?
		    opt.data + 1 : NULL, m->thread_url);
		buf_release(&opt);
	}
	if (m->msgid && r->base_commit) {
		char *q = xasprintf("'%s'", m->msgid);

		buf_addstr(b, "  or by hand, in a clone of the tree:\n");
		buf_addf(b, "    git checkout %s\n", r->base_commit);
		report_mail_command(b, 4, "b4 am -o kperfci-series", NULL, q);
		buf_addstr(b, "    git am kperfci-series/*.mbx\n");
		free(q);
	}
	if (r->matrix && *r->matrix) {
		buf_addstr(b, "  the workloads (kperfci-load matrix):\n");
		for (const char *p = r->matrix, *nl; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p);
			if (nl > p && *p != '#')
				buf_addf(b, "    %.*s\n", (int)(nl - p), p);
			if (!*nl)
				break;
		}
	}
}

/* The significant contended-lock changes, as report.txt lists them above
   its lock tables (the lock a series is about reads here by name). */
static void
report_mail_locks(const struct report *r, struct buf *b)
{
	size_t i, n = 0;

	if (!report_has_lock_pass(r))
		return;
	for (i = 0; i < r->nlocks; i++) {
		const struct stats_row *row = report_lock_changed(&r->locks[i]);

		if (!row && !(row = report_lock_new(r, &r->locks[i])))
			continue;
		if (!n++)
			buf_addf(b, "Contended locks (lock:contention_begin/end%s)"
			    "\n", r->ex.emulated ? "; emulated: where "
			    "contention is, not how long it lasts on hardware" :
			    "");
		buf_addstr(b, "  ");
		report_lock_change_line(b, &r->locks[i], row);
		buf_addch(b, '\n');
	}
	if (n)
		buf_addch(b, '\n');
}

void
report_mail_body(const struct report *r, const struct report_mail *m,
    struct buf *out)
{
	struct buf b = BUF_INIT(0);
	char verdict[160];
	size_t shown;

	report_verdict(r, verdict, sizeof(verdict));
	buf_addf(&b, "Hello%s%s,\n\n", m->greet ? " " : "",
	    m->greet ? m->greet : "");
	if (m->answered)
		buf_addf(&b, "This is the result of \"%s\".\n\n", m->answered);
	buf_addf(&b, "kperfci measured \"%s\"%s and found: %s.\n\n",
	    r->subject ? r->subject : "(no subject)", r->version > 1 ?
	    " (this revision)" : "", verdict);
	buf_addf(&b, "  details:  %sseries/%lld\n\n", m->public_url,
	    r->series_id);
	if (r->claims) {
		report_claims_text(r, &b);
	}
	shown = report_mail_table(r, &b);
	if (shown)
		buf_addch(&b, '\n');
	else if (r->have_result)
		buf_addf(&b, "No metric changed significantly (%zu rows, each "
		    "within its noise).\n\n", r->result.n);
	report_mail_locks(r, &b);
	report_mail_environment(r, m, &b);
	buf_addch(&b, '\n');
	report_mail_reproduce(r, m, &b);
	buf_addf(&b, "\nThe full report: %sseries/%lld/report.txt\n\n",
	    m->public_url, r->series_id);
	buf_addf(&b, "Reply with \"#kperfci retest\", \"#kperfci test suite "
	    "NAME boots N\" or \"#kperfci cancel\" on a line of its own to "
	    "ask for more.\n");
	buf_addf(&b, "\n-- \nkperfci, performance CI for the Linux kernel\n"
	    "%s\n", m->public_url);
	buf_addstr(&b, "");
	report_mail_wrap(b.data, REPORT_MAIL_WIDTH, out);
	buf_release(&b);
}

/* "mm" from "mm: ..." (a short prefix without blanks), else "". */
static void
report_mail_prefix(const char *subject, char *out, size_t sz)
{
	const char *c = subject ? strchr(subject, ':') : NULL;
	size_t n;

	out[0] = '\0';
	if (!c || (n = (size_t)(c - subject)) == 0 || n >= sz || n > 24)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isgraph((unsigned char)subject[i]))
			return;
	memcpy(out, subject, n);
	out[n] = '\0';
}

void
report_mail_regression_subject(const struct track_regression *g,
    const char *branch, struct buf *out)
{
	char pfx[32];
	const char *sha = g->first_bad ? g->first_bad : g->bad_commit;

	report_mail_prefix(g->subject, pfx, sizeof(pfx));
	buf_addf(out, "[%s:%s] ", g->tree && *g->tree ? g->tree : g->track,
	    branch ? branch : "master");
	if (*pfx)
		buf_addf(out, "[%s] ", pfx);
	buf_addf(out, "%.12s: %s.%s %+.1f%% regression", sha ? sha : "",
	    g->workload, g->metric, g->pct_change);
}

void
report_mail_regression_body(const struct track_regression *g,
    const char *branch, const struct report_mail *m, struct buf *out)
{
	struct buf b = BUF_INIT(0);

	buf_addf(&b, "Hello%s%s,\n\n", m->greet ? " " : "", m->greet ?
	    m->greet : "");
	buf_addf(&b, "kperfci noticed a %+.1f%% regression of %s.%s on:\n\n",
	    g->pct_change, g->workload, g->metric);
	buf_addf(&b, "commit: %s (\"%s\")\n", g->first_bad ? g->first_bad :
	    g->bad_commit, g->subject ? g->subject : "");
	buf_addf(&b, "tree:   %s branch %s (nightly track %s)\n\n",
	    g->tree && *g->tree ? g->tree : g->track, branch ? branch :
	    "master", g->track);
	buf_addf(&b, "  workload: %s %s\n  metric:   %s (%s is better)\n",
	    g->workload, g->params ? g->params : "", g->metric,
	    g->better > 0 ? "higher" : "lower");
	buf_addf(&b, "  change:   %+.1f%% [%+.1f%%, %+.1f%%] (95%% CI), "
	    "between nights %s and %s\n\n", g->pct_change, g->ci_lo, g->ci_hi,
	    g->good_commit ? g->good_commit : "?", g->bad_commit ?
	    g->bad_commit : "?");
	buf_addf(&b, "  details:  %sregressions/%lld\n\n", m->public_url,
	    g->id);
	buf_addstr(&b, "How to reproduce\n");
	buf_addf(&b, "  kperfci track show %s\n", g->track);
	buf_addf(&b, "  git checkout %s   # good\n", g->good_commit ?
	    g->good_commit : "");
	buf_addf(&b, "  git checkout %s   # first bad\n", g->first_bad ?
	    g->first_bad : g->bad_commit);
	buf_addf(&b, "\n-- \nkperfci, performance CI for the Linux kernel\n"
	    "%s\n", m->public_url);
	buf_addstr(&b, "");
	report_mail_wrap(b.data, REPORT_MAIL_WIDTH, out);
	buf_release(&b);
}
