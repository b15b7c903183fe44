/*
 * report_fmt: what the comparison's renderings share (report_int.h): the
 * number and share formats, the "needs ~N boots" note, text without
 * control bytes, the contended-lock lines above the lock tables, the
 * commands that reproduce a result, and the scaling curves (rows whose
 * params differ only by their task count) that the page draws and the
 * JSON lists.  Pure functions of the model.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/html.h"
#include "daemon/report.h"
#include "daemon/report_int.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xalloc.h"

/* ---- number formatting shared by the renderers -------------------------- */

void
report_fmt_side(char *out, size_t sz, const struct stats_side *d)
{
	if (!d->present || !isfinite(d->mean))
		snprintf(out, sz, "-");
	else if (d->nboots > 1 && isfinite(d->pct_stddev))
		snprintf(out, sz, "%.6g ±%.0f%%", d->mean, d->pct_stddev);
	else
		snprintf(out, sz, "%.6g", d->mean);
}

void
report_fmt_change(char *out, size_t sz, const struct stats_row *row)
{
	if (!isfinite(row->pct_change))
		snprintf(out, sz, "-");
	else if (!isfinite(row->ci_lo) || !isfinite(row->ci_hi))
		snprintf(out, sz, "%+.1f%%", row->pct_change);
	else
		snprintf(out, sz, "%+.1f%% [%+.1f%%, %+.1f%%]",
		    row->pct_change, row->ci_lo, row->ci_hi);
}

/* A share as a percentage: two decimals below 1% so small shares differ. */
void
report_fmt_share(char *out, size_t sz, double v)
{
	if (!isfinite(v))
		snprintf(out, sz, "-");
	else
		snprintf(out, sz, v < 0.01 ? "%.2f%%" : "%.1f%%", 100 * v);
}

/*
 * What an inconclusive primary row would take (stats_result_boots_needed):
 * "needs ~N boots a side (per-boot spread X %, the class's)"; NULL for
 * every other row.
 */
const char *
report_boots_needed(const struct stats_row *row, char *buf, size_t sz)
{
	if (row->verdict != STATS_INCONCLUSIVE || row->boots_needed <= 0)
		return NULL;
	if (isfinite(row->boots_needed_cv))
		snprintf(buf, sz, "needs ~%d boots a side (per-boot spread "
		    "%.1f %%, %s)", row->boots_needed, row->boots_needed_cv,
		    row->boots_needed_class ? "the class's" :
		    "this comparison's");
	else
		snprintf(buf, sz, "needs ~%d boots a side", row->boots_needed);
	return buf;
}

/* ---- text without control bytes ----------------------------------------- */

/*
 * Appends s with control bytes replaced by '?': the report is shown in
 * terminals (`kperfci submit --wait`), where an escape sequence from a
 * subject or a name could rewrite the screen.  Newlines stay (a name with
 * one only breaks a line).
 */
void
report_clean(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = *s;

		buf_addch(b, (c < 0x20 && c != '\t' && c != '\n') ||
		    c == 0x7f ? '?' : c);
	}
}

void PRINTF(2, 3)
report_cleanf(struct buf *b, const char *fmt, ...)
{
	struct buf t = BUF_INIT(0);
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&t, fmt, ap);
	va_end(ap);
	report_clean(b, t.data);
	buf_release(&t);
}

/* ---- the lock contention lines ------------------------------------------ */

/* A lock absent on one side was not contended there (the pass emits
   only locks with waits). */
const char *
report_lock_missing(const struct stats_row *row)
{
	if (!row->base.present && row->test.present)
		return "no waits on the base side";
	if (row->base.present && !row->test.present)
		return "no waits on the patched side";
	return report_row_missing(row);
}

const char *const report_wait_labels[REPORT_WAIT_METRICS] = {
	"wait share", "wait total", "waits", "wait max",
};

/* Did the matrix ask for a contention pass (a lock-profile run)? */
int
report_has_lock_pass(const struct report *r)
{
	return r->nlocks || (r->matrix && strstr(r->matrix, "lock-profile"));
}

/* A significant change of a lock's wait share (not "(all)"). */
const struct stats_row *
report_lock_changed(const struct report_lockrow *l)
{
	const struct stats_row *row = l->m[REPORT_WAIT_SHARE];

	if (!row || !row->significant || !strcmp(l->lock, "(all)") ||
	    (row->verdict != STATS_REGRESSION &&
	    row->verdict != STATS_IMPROVEMENT))
		return NULL;
	return row;
}

/* A lock that waited in every patched boot of its run (as many as the
   run's "(all)" row has, two at least) and in no base boot: there is no
   %change to give.  Its wait share row, or NULL. */
const struct stats_row *
report_lock_new(const struct report *r, const struct report_lockrow *l)
{
	const struct stats_row *row = l->m[REPORT_WAIT_SHARE], *all = NULL;
	size_t i;

	if (!row || strcmp(l->lock, "(all)") == 0 || row->base.present ||
	    !row->test.present || row->test.nboots < 2)
		return NULL;
	for (i = 0; i < r->nlocks && !all; i++)
		if (!strcmp(r->locks[i].run, l->run) &&
		    !strcmp(r->locks[i].lock, "(all)"))
			all = r->locks[i].m[REPORT_WAIT_SHARE];
	if (all && row->test.nboots < all->test.nboots)
		return NULL;
	return row;
}

/* "+1234.5% regression of lru_lock's wait share (RUN)", or for a lock
   new on the patched side "split_queue_lock waits on the patched side
   only: 8.41% wait share in 3 boots, no waits in any base boot (RUN)" */
void
report_lock_change_line(struct buf *b, const struct report_lockrow *l,
    const struct stats_row *row)
{
	if (!row->base.present) {
		report_cleanf(b, "%s waits on the patched side only: %.3g%% "
		    "wait share in each of %zu boots, no waits in any base "
		    "boot (%s)", l->lock, row->test.mean, row->test.nboots,
		    l->run);
		return;
	}
	report_cleanf(b, "%+.1f%% %s of %s's wait share, significant (%s)",
	    isfinite(row->pct_change) ? row->pct_change : 0,
	    stats_verdict_name(row->verdict), l->lock, l->run);
}

/* ---- the commands that reproduce ---------------------------------------- */

/*
 * s as one shell word: in single quotes, each ' written '\'' — nothing
 * inside ($(...), `, ;, spaces) is run or split by the shell.
 */
static void
report_shell_quote(struct buf *b, const char *s)
{
	buf_addch(b, '\'');
	for (; *s; s++)
		if (*s == '\'')
			buf_addstr(b, "'\\''");
		else
			buf_addch(b, *s);
	buf_addch(b, '\'');
}

/* "kperfci [-s 'SERVER'] submit " */
static void
report_repro_kperfci(struct buf *t, const char *server)
{
	buf_addstr(t, "kperfci ");
	if (server) {
		buf_addstr(t, "-s ");
		report_shell_quote(t, server);
		buf_addch(t, ' ');
	}
	buf_addstr(t, "submit ");
}

/* The commands that reproduce the result; every submitted string is
   quoted for the shell (a URL may hold $(...) or ';'). */
void
report_repro_lines(const struct report *r, const char *server,
    struct buf *b, int html)
{
	struct buf t = BUF_INIT(0), u = BUF_INIT(0);

	report_repro_kperfci(&t, server);
	if (r->source)
		report_shell_quote(&t, r->source);
	else
		buf_addstr(&t, "--mbox SERIES.mbox");
	buf_addstr(&t, " --wait\n");
	if (!r->matrix)
		;	/* no job definition yet: nothing to run by hand */
	else if (server) {
		buf_addf(&u, "%s/api/v1/series/%lld/comparison", server,
		    r->series_id);
		buf_addstr(&t, "# one boot's workloads by hand, in a guest "
		    "booted with either kernel:\ncurl -s ");
		report_shell_quote(&t, u.data);
		buf_addstr(&t, " | jq -r .matrix > matrix.conf\n");
	} else
		buf_addstr(&t, "# one boot's workloads by hand: save the job "
		    "definition as matrix.conf, then in a guest booted with "
		    "either kernel\n");
	if (r->matrix)
		buf_addstr(&t, "kperfci-load --matrix matrix.conf\n");
	if (html)
		html_txt(b, t.data);
	else
		report_clean(b, t.data);
	buf_release(&t);
	buf_release(&u);
}

/* ---- scaling curves ----------------------------------------------------- */

/* Scaling curves: rows of one workload and metric whose params differ only
   by their task count.  The count is ntasks= (what kperfci-load resolved
   tasks=node / all / 0.5 to on the agent) or else a numeric tasks=; the
   key is the params without either. */
static int
report_tasks_of(const char *params, char *rest, size_t sz, double *tasks)
{
	const char *p = params, *e;
	struct buf o = BUF_INIT(0);
	int found = 0, have_n = 0;
	double v;
	char *end;

	while (p && *p) {
		e = p + strcspn(p, ",");
		if (!strncmp(p, "ntasks=", 7) || !strncmp(p, "tasks=", 6)) {
			int is_n = p[0] == 'n';
			const char *num = p + (is_n ? 7 : 6);

			v = strtod(num, &end);
			if (end != num && end == e && isfinite(v) &&
			    (is_n || !have_n)) {
				*tasks = v;
				found = 1;
				have_n |= is_n;
			}
		} else {
			if (o.len)
				buf_addch(&o, ',');
			buf_add(&o, p, e - p);
		}
		p = *e ? e + 1 : e;
	}
	snprintf(rest, sz, "%s", o.data ? o.data : "");
	buf_release(&o);
	return found;
}

/* Groups r's rows into scaling curves with at least two task counts. */
size_t
report_curves(const struct report *r, struct report_curve **out)
{
	struct report_curve *c = NULL;
	size_t nc = 0, i, k;
	char rest[256];
	double tasks;

	for (i = 0; r->have_result && i < r->result.n; i++) {
		const struct stats_row *row = &r->result.rows[i];

		if (!report_tasks_of(row->params, rest, sizeof(rest), &tasks))
			continue;
		for (k = 0; k < nc; k++)
			if (!strcmp(c[k].workload, row->workload) &&
			    !strcmp(c[k].metric, row->metric) &&
			    !strcmp(c[k].rest, rest))
				break;
		if (k == nc) {
			c = xrealloc(c, (nc + 1) * sizeof(*c));
			memset(&c[nc], 0, sizeof(*c));
			c[nc].workload = row->workload;
			c[nc].metric = row->metric;
			c[nc].unit = row->unit;
			snprintf(c[nc].rest, sizeof(c[nc].rest), "%s", rest);
			nc++;
		}
		c[k].x = xrealloc(c[k].x, (c[k].n + 1) * sizeof(double));
		c[k].y[0] = xrealloc(c[k].y[0], (c[k].n + 1) * sizeof(double));
		c[k].y[1] = xrealloc(c[k].y[1], (c[k].n + 1) * sizeof(double));
		c[k].x[c[k].n] = tasks;
		c[k].y[0][c[k].n] = row->base.present ? row->base.mean : NAN;
		c[k].y[1][c[k].n] = row->test.present ? row->test.mean : NAN;
		c[k].n++;
	}
	/* a curve needs two points */
	for (i = k = 0; i < nc; i++) {
		if (c[i].n >= 2) {
			c[k++] = c[i];
		} else {
			free(c[i].x);
			free(c[i].y[0]);
			free(c[i].y[1]);
		}
	}
	*out = c;
	return k;
}

void
report_curves_free(struct report_curve *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(c[i].x);
		free(c[i].y[0]);
		free(c[i].y[1]);
	}
	free(c);
}
