/*
 * report_text: the plain-text report (GET /series/{id}/report.txt, kernel
 * test robot style, for replying to the thread) and the results table it
 * shares with `kperfci submit --wait` and the mail (report_table_text).
 * Pure: a function of the model, every outside string stripped of control
 * bytes (report_clean, report_fmt.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/report.h"
#include "daemon/report_int.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

/* "fault-free.pages_per_sec" plus " (mode=shmem,tasks=2)". */
static void
report_row_name(struct buf *b, const struct stats_row *row)
{
	buf_addf(b, "%s.%s", row->workload, row->metric);
	if (row->params && *row->params)
		buf_addf(b, " (%s)", row->params);
}

/* Pads to width display columns ("±" is two bytes, one column). */
static void
report_pad(struct buf *b, const char *s, int width, int right)
{
	int cols = 0, i;
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if ((*p & 0xc0) != 0x80)
			cols++;
	if (right)
		for (i = cols; i < width; i++)
			buf_addch(b, ' ');
	report_clean(b, s);
	if (!right)
		for (i = cols; i < width; i++)
			buf_addch(b, ' ');
}

void
report_table_text(const struct stats_result *res, struct buf *b)
{
	report_table_text_ex(res, NULL, b);
}

void
report_table_text_ex(const struct stats_result *res, const struct report *r,
    struct buf *b)
{
	const char *wl = NULL;
	char s1[64], s2[64], chg[96], note[512], need[128];
	size_t i;

	buf_addstr(b, "              base                                 "
	    "              patched\n");
	buf_addstr(b, "  ----------------  -----------------------------  "
	    "----------------\n");
	buf_addstr(b, "    mean ±%stddev     %change [95% CI]               "
	    "mean ±%stddev  metric\n");
	for (i = 0; i < res->n; i++) {
		const struct stats_row *row = &res->rows[i];
		const char *miss = report_row_missing(row);

		if (!wl || strcmp(wl, row->workload)) {
			buf_addch(b, '\n');
			report_cleanf(b, "%s:\n", row->workload);
			wl = row->workload;
		}
		report_fmt_side(s1, sizeof(s1), &row->base);
		report_fmt_side(s2, sizeof(s2), &row->test);
		report_fmt_change(chg, sizeof(chg), row);
		report_pad(b, s1, 18, 1);
		buf_addstr(b, "  ");
		report_pad(b, chg, 29, 0);
		buf_addstr(b, row->significant ? "*" : " ");
		report_pad(b, s2, 16, 1);
		buf_addstr(b, "  ");
		report_clean(b, row->metric);
		if (row->params && *row->params) {
			buf_addch(b, ' ');
			report_clean(b, row->params);
		}
		if (row->unit && *row->unit)
			report_cleanf(b, " (%s)", row->unit);
		if (!row->primary)
			buf_addstr(b, " [secondary]");
		if (miss)
			report_cleanf(b, "  %s", miss);
		else if (r && r->ex.state == REPORT_EX_NOT_EXERCISED)
			report_cleanf(b, "  not exercised%s",
			    row->significant ? " (suspicious: significant "
			    "although nothing changed ran)" : "");
		else if (row->verdict == STATS_NO_CHANGE)
			buf_addstr(b, "  no change");
		else
			report_cleanf(b, "  %s: %s",
			    stats_verdict_name(row->verdict), row->reason);
		if (!miss && report_boots_needed(row, need, sizeof(need)))
			report_cleanf(b, "; %s", need);
		buf_addstr(b, r && r->ex.emulated ? "  [emulated]\n" : "\n");
	}
	if (res->n == 0)
		buf_addstr(b, "\n(no metrics)\n");
	buf_addf(b, "\n* %s\n", stats_rule_text(res, note, sizeof(note)));
}

/* The words above the lock tables: what cannot show, what is emulated,
   and the significant contended-lock changes. */
static void
report_contention_head_text(const struct report *r, struct buf *b)
{
	const char *blind = report_lock_blind(r);
	size_t i, n = 0;

	if (!report_has_lock_pass(r))
		return;
	buf_addstr(b, "\nLock contention\n");
	if (blind)
		report_cleanf(b, "  %s\n", blind);
	if (r->ex.emulated)
		buf_addstr(b, "  Emulated: under TCG a waiter spins only while "
		    "the holder's vCPU is not running; these waits say where "
		    "contention is, not how long it lasts on hardware.\n");
	for (i = 0; i < r->nlocks; i++) {
		const struct stats_row *row = report_lock_changed(&r->locks[i]);

		if (!row && !(row = report_lock_new(r, &r->locks[i])))
			continue;
		if (!n++)
			buf_addstr(b, "  Contended-lock changes:\n");
		buf_addstr(b, "    ");
		report_lock_change_line(b, &r->locks[i], row);
		buf_addch(b, '\n');
	}
	if (!r->nlocks)
		buf_addstr(b, report_is_live(r) ? "  No lock waits reported "
		    "yet.\n" : "  No lock waited on either side.\n");
	else if (!n && !report_is_live(r))
		buf_addstr(b, "  No significant change in any lock's wait "
		    "share, and no lock new on the patched side.\n");
}

/*
 * The lock-contention table as text: per run, per lock, its four rows in
 * the columns of the results table.
 */
static void
report_contention_text(const struct report *r, struct buf *b)
{
	const char *run = NULL;
	char s1[64], s2[64], chg[96];
	size_t i;
	int m;

	report_contention_head_text(r, b);
	for (i = 0; i < r->nlocks; i++) {
		const struct report_lockrow *l = &r->locks[i];

		if (!run || strcmp(run, l->run)) {
			report_cleanf(b, "\nLock contention (%s)\n", l->run);
			buf_addstr(b, "  lock:contention_begin/end; wait share = "
			    "wait total / (tasks x wall)\n");
			buf_addstr(b, "    base mean ±%stddev  %change [95% CI]"
			    "              patched mean ±%stddev\n");
			run = l->run;
		}
		buf_addstr(b, "  ");
		report_clean(b, l->lock);
		buf_addch(b, '\n');
		for (m = 0; m < REPORT_WAIT_METRICS; m++) {
			const struct stats_row *row = l->m[m];
			const char *miss;

			if (!row)
				continue;
			miss = report_lock_missing(row);
			report_fmt_side(s1, sizeof(s1), &row->base);
			report_fmt_side(s2, sizeof(s2), &row->test);
			report_fmt_change(chg, sizeof(chg), row);
			report_pad(b, s1, 20, 1);
			buf_addstr(b, "  ");
			report_pad(b, chg, 29, 0);
			buf_addstr(b, row->significant ? "*" : " ");
			report_pad(b, s2, 18, 1);
			report_cleanf(b, "  %s (%s)  %s\n", report_wait_labels[m],
			    row->unit ? row->unit : "", miss ? miss :
			    stats_verdict_name(row->verdict));
		}
	}
}

static void
report_progress_text(const struct report *r, struct buf *b)
{
	int s;

	for (s = 0; s < 2; s++) {
		const struct report_side *d = &r->side[s];

		buf_addf(b, "  %-8s %d/%d boots done", report_side_name(s),
		    d->done, d->planned);
		if (d->failed)
			buf_addf(b, ", %d failed", d->failed);
		if (d->running)
			buf_addf(b, ", %d running", d->running);
		buf_addch(b, '\n');
	}
}

/* The significant rows (suspicious ones when nothing changed ran), or
   the line saying there are none. */
static void
report_text_significant(const struct report *r, struct buf *b)
{
	size_t nsig = 0;

	for (size_t i = 0; r->have_result && i < r->result.n; i++) {
		const struct stats_row *row = &r->result.rows[i];
		struct buf name = BUF_INIT(0);

		if (row->verdict != STATS_REGRESSION &&
		    row->verdict != STATS_IMPROVEMENT)
			continue;
		if (!nsig++)
			buf_addstr(b, r->ex.state == REPORT_EX_NOT_EXERCISED ?
			    "Suspicious (significant, but none of the changed "
			    "functions ran):\n" : "Significant changes:\n");
		report_row_name(&name, row);
		report_cleanf(b, "  %+.1f%% %s of %s%s\n",
		    isfinite(row->pct_change) ? row->pct_change : 0,
		    r->ex.state == REPORT_EX_NOT_EXERCISED ? "difference" :
		    stats_verdict_name(row->verdict), name.data,
		    r->ex.emulated ? " [emulated]" : "");
		buf_release(&name);
	}
	if (nsig)
		buf_addch(b, '\n');
	else if (r->have_result && r->result.n && !report_is_live(r) &&
	    r->ex.state == REPORT_EX_NOT_EXERCISED)
		buf_addstr(b, "Not exercised: none of the changed functions "
		    "ran, so the absence of a difference says nothing about "
		    "the series.\n\n");
	else if (r->have_result && r->result.n && !report_is_live(r))
		buf_addstr(b, "No significant change in any metric.\n\n");
}

/* What was tested: the series, its author, link, base and kernels. */
static void
report_text_tested(const struct report *r, struct buf *b)
{
	buf_addstr(b, "What was tested\n");
	report_cleanf(b, "  series:   %s%s", r->subject ? r->subject :
	    "(no subject)", "");
	if (r->version > 1)
		buf_addf(b, " (v%d)", r->version);
	buf_addch(b, '\n');
	if (r->author)
		report_cleanf(b, "  author:   %s\n", r->author);
	if (r->source)
		report_cleanf(b, "  link:     %s\n", r->source);
	if (r->base_commit) {
		report_cleanf(b, "  base:     %s", r->base_commit);
		if (r->tree)
			report_cleanf(b, " (tree %s)", r->tree);
		buf_addch(b, '\n');
		if (r->base_kind || r->base_reason)
			report_cleanf(b, "            chosen by %s%s%s\n",
			    r->base_kind ? r->base_kind : "",
			    r->base_kind && r->base_reason ? ": " : "",
			    r->base_reason ? r->base_reason : "");
	}
	for (int s = 0; s < 2; s++) {
		const struct report_kernel *kk = &r->kernel[s];

		if (!kk->commit && !kk->build_id)
			continue;
		report_cleanf(b, "  %-8s  %s", report_side_name(s),
		    kk->commit ? kk->commit : "(no commit yet)");
		if (kk->build_id)
			report_cleanf(b, ", build %lld (%s)", kk->build_id,
			    kk->build_state ? kk->build_state : "?");
		buf_addch(b, '\n');
	}
}

/* On what machine, the boots, and the console logs of a side whose
   every boot failed. */
static void
report_text_machine(const struct report *r, const char *server,
    struct buf *b)
{
	buf_addstr(b, "\nOn what machine\n");
	report_cleanf(b, "  class:    %s\n", r->hw_class ? r->hw_class :
	    "(not assigned yet)");
	if (r->topology)
		report_cleanf(b, "  topology: %s\n", r->topology);
	if (r->agent)
		report_cleanf(b, "  agent:    %s\n", r->agent);
	if (r->comparison_id) {
		buf_addstr(b, "\nBoots (base and patched interleaved)\n");
		report_progress_text(r, b);
	}
	for (int s = 0; s < 2; s++) {
		const char *how = report_side_all_failed(r, s);

		if (!how)
			continue;
		report_cleanf(b, "  every %s boot %s; console logs:\n",
		    report_side_name(s), how);
		for (size_t k = 0; k < r->njobs; k++)
			if (r->jobs[k].side == s && r->jobs[k].console)
				report_cleanf(b, "    %s%s\n", server ? server :
				    "", r->jobs[k].console);
	}
}

/* The lock profiles: each side's share of kernel samples per lock. */
static void
report_text_profiles(const struct report *r, struct buf *b)
{
	for (size_t i = 0; i < r->nprofiles; i++) {
		const struct report_profile *p = &r->profiles[i];

		report_cleanf(b, "\nLock profile (%s), share of kernel samples:"
		    "\n    base  patched  lock (where it spins)\n", p->params);
		for (size_t k = 0; k < p->nlocks && k < REPORT_TOP_LOCKS; k++) {
			const struct report_lock *l = &p->locks[k];
			char a[16], c[16];

			report_fmt_share(a, sizeof(a), l->share[0]);
			report_fmt_share(c, sizeof(c), l->share[1]);
			report_cleanf(b, "  %6s   %6s  %s (%s)\n", a, c,
			    l->lock, l->symbol);
		}
	}
}

/* The job definition, the commands to reproduce, and the link. */
static void
report_text_repro(const struct report *r, const char *server, struct buf *b)
{
	struct buf t = BUF_INIT(0);
	const char *q, *e;

	if (r->matrix) {
		buf_addstr(b, "\nJob definition (each boot runs this matrix)\n");
		for (const char *p = r->matrix; *p;) {
			size_t n = strcspn(p, "\n");
			char *line = xstrndup(p, n);

			report_cleanf(b, "  %s\n", line);
			free(line);
			p += n;
			if (*p)
				p++;
		}
	}
	buf_addstr(b, "\nTo reproduce\n");
	report_repro_lines(r, server, &t, 0);
	for (q = t.data; q && *q; q = *e ? e + 1 : e) {
		e = q + strcspn(q, "\n");
		buf_addstr(b, "  ");
		buf_add(b, q, e - q);
		buf_addch(b, '\n');
	}
	buf_release(&t);
	if (server)
		report_cleanf(b, "\nFull result: %s/series/%lld\n", server,
		    r->series_id);
}

void
report_text(const struct report *r, const char *server, struct buf *b)
{
	char v[256];

	report_verdict(r, v, sizeof(v));
	report_cleanf(b, "kperfci result for series %lld: %s\n\n",
	    r->series_id, v);
	report_claims_text(r, b);
	report_text_significant(r, b);
	report_text_tested(r, b);
	report_text_machine(r, server, b);
	if (r->comparison_id)
		report_exercise_text(r, b);
	if (r->have_result) {
		buf_addstr(b, "\nResults\n\n");
		report_table_text_ex(&r->result, r, b);
	}
	report_contention_text(r, b);
	report_text_profiles(r, b);
	report_text_repro(r, server, b);
}
