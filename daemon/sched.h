/*
 * sched: the A/B scheduler.  A series that reached `built` becomes a
 * comparison: its base and patched kernels, a workload matrix, a number of
 * boots per side, and jobs (daemon/agent.h) that agents of ONE hardware
 * class lease, base and patched interleaved.  When every job of a look has
 * finished, the two sides are compared (core/stats.h); an inconclusive
 * comparison with budget left gets another look (more boots per side),
 * otherwise the result is stored and the series is `done`.
 *
 *	built   -> running	stage_sched_start: comparison + first look's jobs
 *	running -> done		stage_sched_wait: wait, compare, maybe look again
 *
 * Budget ([sched] in kperfci.conf): boots per side for the first look
 * (default STATS_DEFAULT_BOOTS), boot_step more per side per extra look, up
 * to max_boots.  A submission may ask for fewer boots (a quick run): its
 * step and maximum are scaled down in the same proportion.  The looks this
 * allows (stats_planned_looks) are fixed when the comparison is created and
 * every look is tested at its share of alpha (stats_alpha_spent: the shares
 * sum to alpha), so the adaptive extra boots do not raise the false-
 * positive rate.  Only an inconclusive primary metric asks for another
 * look (stats_need_more): the verdict is published at the first look where
 * every primary metric is decided.
 *
 * Failures: a job the agent layer gave up on (`failed`: leases expired
 * max_attempts times, download or workload failure) is an infrastructure
 * failure: a replacement job with the same side and boot number is queued,
 * at most max_replacements per comparison.  A `boot-failed` job (panic,
 * boot hang) is a result about the kernel: counted per side, never retried.
 * When no boot of a side produced samples, the series fails ("every patched
 * boot panicked"); otherwise the comparison uses the boots that ran and its
 * summary says how many failed.
 *
 * Read functions for pages and reports: sched_get (the comparison row with
 * progress, jobs and their states), sched_side_jsonl (one side's samples in
 * the stats JSONL format, boot = the job's boot number), sched_side_profiles
 * (lock profiles), sched_result (the statistics, recomputed on read with the
 * comparison's own options: stats_compare is deterministic, so this equals
 * the stored result JSON).
 */
#ifndef KPERFCI_SCHED_H
#define KPERFCI_SCHED_H

#include <jansson.h>

#include "daemon/db_sched.h"
#include "lib/buf.h"

struct db;
struct stats_result;
struct stats_opts;

/* Series priorities (series.priority, copied to every job): interactive
   submissions go before nightly work. */
#define SCHED_PRIO_INTERACTIVE	0
#define SCHED_PRIO_NIGHTLY	(-100)

/* Largest boots a submission may ask for, whatever [sched] says. */
#define SCHED_MAX_BOOTS		1000
/* The power "auto" plans for. */
#define SCHED_AUTO_POWER	0.95

/* The pipeline stages, stage_sched_start and stage_sched_wait, are
   declared with the stage table in pipeline.h. */

/*
 * Whom to tell when a comparison has its verdict (stored, the series about
 * to be done): kperfcid.c sets mail_comparison_done at start-up, so the
 * scheduler never calls up into the mail queue.  NULL: nobody.
 */
void	sched_set_done_hook(void (*)(struct db *, long long sid,
	    long long cid, int look));

/*
 * Creates the comparison of series sid from two agent kernels (ids from
 * agent_kernel_add*), with its first look's jobs, and moves the series
 * from `from` to `to`, in one transaction.  stage_sched_start calls it
 * after registering the built bzImages; tests call it directly.  0, or -1
 * with a sentence in err.
 */
int	sched_create(struct db *, long long sid, long long kbase,
	    long long kpatched, const char *from, const char *to,
	    struct buf *err);

/* ---- submission ------------------------------------------------------- */

/*
 * Checks the optional "matrix" (string, workloads.conf text) and "boots"
 * (integer, 1..[sched] max_boots) members of a POST /api/v1/series body.
 * *matrix (borrowed from body) is NULL and *boots 0 when absent.  0, or -1
 * with a sentence naming the field in err.
 */
int	sched_request_parse(const json_t *body, const char **matrix,
	    int *boots, struct buf *err);
/* The same check of "boots" given as text (?boots=N with an mbox upload);
   NULL or "" leaves *boots 0. */
int	sched_request_boots(const char *text, int *boots, struct buf *err);
/* Stores them for series_id (nothing is stored when both are unset). */
int	sched_request_store(struct db *, long long series_id,
	    const char *matrix, int boots);

/* ---- reading a comparison --------------------------------------------- */

void	sched_comparison_release(struct sched_comparison *);

/* The comparison of a series: 0, 1 when there is none (yet), -1. */
int	sched_get(struct db *, long long series_id, struct sched_comparison *);
/* The same by comparison id. */
int	sched_get_id(struct db *, long long comparison_id,
	    struct sched_comparison *);
/* A new JSON object of c (progress, jobs, but not the result). */
json_t	*sched_json(const struct sched_comparison *);

/*
 * The samples of one side ("base" or "patched") as stats JSON lines, one
 * per sample, "boot" = the job's boot number; only jobs that finished
 * `done` and were not replaced.  Appends to out.  0 or -1.
 */
int	sched_side_jsonl(struct db *, long long comparison_id,
	    const char *side, struct buf *out);
/*
 * The lock profiles of one side: a new array of the profile objects as the
 * agent sent them, each with "boot" and "job" added.  0 or -1.
 */
int	sched_side_profiles(struct db *, long long comparison_id,
	    const char *side, json_t **out);
/*
 * The comparison's statistics over the boots that ran, with the options
 * it is judged by (sched_stats_opts).  0 (release res), or
 * -1 with err (no samples on a side, unreadable samples).
 */
int	sched_result(struct db *, long long comparison_id,
	    struct stats_result *res, struct buf *err);
/* The stats options of comparison c at its current look: its plan (boots,
   boot_step, max_boots) and look, so the look is held to its share of
   alpha (stats_alpha_spent). */
void	sched_stats_opts(struct stats_opts *, const struct sched_comparison *c);
/*
 * The decision after a look: the boots per side of c's next look, or 0
 * when res is the verdict (no primary row inconclusive, the plan's looks
 * or budget spent, or not_exercised: nothing the series changed ran).
 * stage_sched_wait and `make bench-stats` (tests/bench/stats-noise.c)
 * decide with it.
 */
int	sched_next_look(const struct sched_comparison *c,
	    const struct stats_result *res, int not_exercised);

/* Series section (routes.c): "schedule" in the series JSON, and a progress
   <section> on the series page. */

/*
 * Boots per side that check series sid's claims on class: for each claim
 * that maps to a row class has measured before, the boots a two-sided
 * test at alpha needs to find the claimed change with SCHED_AUTO_POWER,
 * given the class's pooled per-boot spread of that row; the largest, at
 * least 2 and at most max.  0 when no claim can be planned for (why says
 * so), else the boots (why names the claim and the noise it rests on).
 */
int	sched_auto_boots(struct db *, long long sid, const char *class,
	    double alpha, int max, struct buf *why);

#endif
