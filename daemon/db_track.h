/*
 * db_track: the store of nightly runs, their per-boot history, regressions
 * and bisect steps (schema/0013-track.sql).  Only db_track.c holds their
 * SQL.  Every struct's strings are owned and freed by its _release.
 */
#ifndef KPERFCI_DB_TRACK_H
#define KPERFCI_DB_TRACK_H

#include <stddef.h>

struct db;

struct track_run {
	long long id;
	char	*track, *trigger, *state, *error, *note;
	char	*head, *prev_head, *build_key, *build_dir;
	long long kernel_id;
	int	 boots;
	long long created, updated;
};

struct track_point {
	long long run_id, step_id;
	int	 boot;
	char	*workload, *params, *metric, *unit;
	int	 better;
	double	 value;
};

struct track_regression {
	long long id;
	char	*track, *tree, *workload, *params, *metric, *unit;
	int	 better;
	long long good_run, bad_run;
	char	*good_commit, *bad_commit;
	double	 pct_change, ci_lo, ci_hi, p_value;
	char	*state, *error, *first_bad, *subject, *author, *link;
	char	*suspects;
	char	*verified;	/* what was checked before naming first_bad */
	long long created, updated;
};

/* A metric that moved at a regression's change point. */
struct track_reg_metric {
	char	*workload, *params, *metric, *unit;
	int	 better;
	double	 pct_change, ci_lo, ci_hi, p_value;
	int	 carries;	/* 1: may carry the verdict; 0: evidence */
	char	*why;		/* evidence: why not */
};

struct bisect_step {
	long long id, regression_id;
	char	*commit_id, *state, *verdict, *reason;
	char	*role;		/* "bisect" or "verify" */
	long long kernel_id;
	int	 boots;
	double	 pct_vs_good, ci_good_lo, ci_good_hi;
	double	 pct_vs_bad, ci_bad_lo, ci_bad_hi;
	long long created, updated;
};

void	track_run_release(struct track_run *);
void	track_runs_free(struct track_run *, size_t n);
void	track_points_free(struct track_point *, size_t n);
void	track_regression_release(struct track_regression *);
void	track_regressions_free(struct track_regression *, size_t n);
void	bisect_steps_free(struct bisect_step *, size_t n);
void	track_reg_metrics_free(struct track_reg_metric *, size_t n);

/* First sight of a track name (kept), and when that was. */
int	db_track_since(struct db *, const char *track, long long now,
	    long long *since);

/*
 * A new queued run, unless the track has a run not yet done or failed:
 * then *id is that run and *existing 1 (two runs never overlap).
 */
int	db_track_run_new(struct db *, const char *track, const char *trigger,
	    int boots, long long now, long long *id, int *existing);
/* 0, 1 not found, -1. */
int	db_track_run_get(struct db *, long long id, struct track_run *);
/* Newest first, at most max (0: all). */
int	db_track_runs(struct db *, const char *track, size_t max,
	    struct track_run **out, size_t *n);
/* Runs in a state that is not done/failed, oldest first. */
int	db_track_runs_active(struct db *, struct track_run **out, size_t *n);
/* Writes every field of r back (r->updated = now). */
int	db_track_run_save(struct db *, struct track_run *, long long now);
/* Created time of the newest timer run (0 when none). */
int	db_track_last_timer(struct db *, const char *track, long long *when);
/* The newest done run that tested a kernel (0 found, 1 none, -1). */
int	db_track_last_tested(struct db *, const char *track,
	    struct track_run *);
/* The newest (newest 1) or the oldest built (0) done run that tested a
   kernel. */
int	db_track_tested(struct db *, const char *track, int newest,
	    struct track_run *);

int	db_track_job_add(struct db *, long long run_id, long long step_id,
	    long long job_id, int boot);
int	db_track_jobs(struct db *, long long run_id, long long step_id,
	    long long **jobs, int **boots, size_t *n);

/* Stores points (in one transaction). */
int	db_track_points_add(struct db *, const struct track_point *, size_t n);
/* Points of a run or a step (the other id 0). */
int	db_track_points_of(struct db *, long long run_id, long long step_id,
	    struct track_point **out, size_t *n);
/* Every point of the track's done runs, by (workload, params, metric,
   run, boot). */
int	db_track_history(struct db *, const char *track,
	    struct track_point **out, size_t *n);

int	db_track_regression_add(struct db *, const struct track_regression *,
	    long long now, long long *id);
int	db_track_regression_get(struct db *, long long id,
	    struct track_regression *);
/* Of a track (NULL: all), newest first. */
int	db_track_regressions(struct db *, const char *track,
	    struct track_regression **out, size_t *n);
int	db_track_regression_save(struct db *, struct track_regression *,
	    long long now);

/* A metric of a regression (kept once per (workload, params, metric)). */
int	db_track_reg_metric_add(struct db *, long long regression_id,
	    const struct track_reg_metric *);
/* The metrics of a regression, the verdict's first, then by |change|. */
int	db_track_reg_metrics(struct db *, long long regression_id,
	    struct track_reg_metric **out, size_t *n);

/* role: "bisect" or "verify". */
int	db_track_step_add(struct db *, long long regression_id,
	    const char *commit, const char *role, int boots, long long now,
	    long long *id);
/* Steps of a regression, oldest first. */
int	db_track_steps(struct db *, long long regression_id,
	    struct bisect_step **out, size_t *n);
int	db_track_step_save(struct db *, struct bisect_step *, long long now);

#endif
