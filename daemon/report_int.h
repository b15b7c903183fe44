/*
 * report_int: what the files of the comparison report share with each
 * other and with nobody else (their callers' interface is report.h):
 *	report.c	the model: freeing its parts, the contention rows
 *			split out and merged back, the profile diff rebuilt
 *			from its JSON, the parts of the verdicts
 *	report_fmt.c	what the renderings share: number formats, text
 *			without control bytes, the contended-lock lines, the
 *			commands that reproduce, the scaling curves
 *	report_json.c	the profile diff as JSON (also its stored form)
 *	report_cache.c	the statistics of a comparison, computed once
 *	report_load.c	(calls the others)
 *
 * It names the model's structs without including daemon/report.h: report.c
 * includes this header, and an include back would be a circle to t0010.
 */
#ifndef KPERFCI_REPORT_INT_H
#define KPERFCI_REPORT_INT_H

#include <stddef.h>

#include <jansson.h>

#include "core/stats.h"
#include "lib/buf.h"
#include "lib/log.h"

struct db;
struct report;
struct report_lockrow;
struct report_profile;
struct sched_comparison;

/* Lock-profile diff: at most this many locks, and callers per lock. */
#define REPORT_TOP_LOCKS	8
#define REPORT_TOP_CALLERS	4

/* ---- report.c: the model ------------------------------------------------ */

void	report_profiles_free(struct report_profile *p, size_t n);
/* Frees r->locks and r->contention. */
void	report_contention_free(struct report *r);
/* The string member k of o, or NULL. */
const char *report_jstr(json_t *o, const char *k);
/* The profile diff back from report_profiles_json's JSON, into r. */
void	report_profiles_from_json(struct report *r, const json_t *a);
/* The contention pass's metrics, by REPORT_WAIT_* (report.h). */
extern const char *const report_wait_metrics[];
/* Moves the contention rows of r->result into r->contention. */
void	report_split_contention(struct report *r);
/* r->result and r->contention as one result (rows shallow-copied: free
   only all->rows). */
void	report_merge_contention(const struct report *r,
	    struct stats_result *all);
/* How a side's boots failed ("panicked", "hung", "failed") when every
   boot failed, else NULL. */
const char *report_side_all_failed(const struct report *r, int side);
/* Why a row has no numbers: which side lacks the metric, or NULL. */
const char *report_row_missing(const struct stats_row *row);

/* ---- report_fmt.c: what the renderings share ---------------------------- */

/* "mean ±N%", "-" when absent or not finite. */
void	report_fmt_side(char *out, size_t sz, const struct stats_side *d);
/* "+1.2% [+0.5%, +1.9%]", "-" when not finite. */
void	report_fmt_change(char *out, size_t sz, const struct stats_row *row);
/* A share as a percentage, "-" when not finite. */
void	report_fmt_share(char *out, size_t sz, double v);
/* "needs ~N boots a side (...)" for an inconclusive primary row, into buf,
   else NULL. */
const char *report_boots_needed(const struct stats_row *row, char *buf,
	    size_t sz);
/* s with control bytes replaced by '?' (newlines and tabs kept). */
void	report_clean(struct buf *b, const char *s);
void	report_cleanf(struct buf *b, const char *fmt, ...) PRINTF(2, 3);
/* Why a lock's row has no numbers ("no waits on the base side"), or
   NULL. */
const char *report_lock_missing(const struct stats_row *row);
/* The contention metrics' labels, by REPORT_WAIT_*. */
extern const char *const report_wait_labels[];
/* Did the matrix ask for a contention pass (a lock-profile run)? */
int	report_has_lock_pass(const struct report *r);
/* A significant change of a lock's wait share (not "(all)"), or NULL. */
const struct stats_row *report_lock_changed(const struct report_lockrow *l);
/* The wait share row of a lock that waited only on the patched side, in
   every boot of its run, or NULL. */
const struct stats_row *report_lock_new(const struct report *r,
	    const struct report_lockrow *l);
/* The line saying how a lock changed (report_lock_changed or
   report_lock_new's row), control bytes stripped. */
void	report_lock_change_line(struct buf *b, const struct report_lockrow *l,
	    const struct stats_row *row);
/* The commands that reproduce the result, escaped for HTML (html) or
   stripped of control bytes. */
void	report_repro_lines(const struct report *r, const char *server,
	    struct buf *b, int html);

/* A scaling curve: the means of one workload and metric per task count
   (the strings borrowed from r's rows). */
struct report_curve {
	const char *workload, *metric, *unit;
	char	 rest[256];
	double	*x, *y[2];
	size_t	 n;
};

/* Groups r's rows into scaling curves with at least two task counts;
   free *out with report_curves_free. */
size_t	report_curves(const struct report *r, struct report_curve **out);
void	report_curves_free(struct report_curve *c, size_t n);

/* ---- report_json.c ------------------------------------------------------ */

/* The lock-profile diff, at most top locks of topc callers each (SIZE_MAX:
   all, the form report_cache.c stores). */
json_t	*report_profiles_json(const struct report *r, size_t top,
	    size_t topc);

/* ---- report_cache.c ----------------------------------------------------- */

/* c's statistics and profile diff into r: stored, cached or computed
   once (nowait: REPORT_NOWAIT's r->computing).  0, or -1 (logged). */
int	report_load_result(struct db *db, struct report *r,
	    const struct sched_comparison *c, int nowait);

#endif
