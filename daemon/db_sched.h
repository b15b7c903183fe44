/*
 * db_sched: the store of the A/B scheduler (daemon/sched.h): submission
 * requests (matrix, boots), comparisons and the read side of their jobs
 * (schema/0004-comparisons.sql).  The rows a comparison reads back are
 * declared here, where they are filled; sched.c adds progress and side
 * counts.  Only db_sched.c holds their SQL.
 */
#ifndef KPERFCI_DB_SCHED_H
#define KPERFCI_DB_SCHED_H

#include <stddef.h>

struct db;

/* A submission's "boots": "auto": enough to check its claims (noise.h). */
#define SCHED_BOOTS_AUTO	(-1)

/* One job of a comparison, with its newest attempt. */
struct sched_job {
	long long id;
	char	 side[8];		/* "base" | "patched" */
	int	 boot;
	int	 priority;
	char	*state;			/* queued leased done failed
					   boot-failed */
	char	*reason;		/* NULL */
	char	*agent;			/* who holds it or ran it, NULL */
	int	 attempts;
	int	 replaced;		/* 1: a newer job took its boot */
	int	 console;		/* 1: the newest attempt has a console
					   log: /api/v1/jobs/ID/console
					   ?attempt=attempts */
	char	*class;			/* required class, NULL: any */
	char	*progress;		/* the agent's last heartbeat, NULL */
};

struct sched_side {
	long long kernel_id;
	int	 planned;		/* boots scheduled (= comparison's) */
	int	 done;			/* boots with samples */
	int	 boot_failed;		/* kernel failures */
	int	 lost;			/* infrastructure failures not
					   replaced (budget spent) */
	int	 running, queued;
};

struct sched_comparison {
	long long id, series_id;
	char	*state;			/* running | done | failed */
	char	*class;			/* NULL until pinned */
	char	*matrix;
	char	*summary;		/* NULL while running */
	char	*result;		/* stats JSON text when done, or NULL */
	int	 priority;
	int	 boots, boot_step, max_boots, looks, look, planned;
	int	 replacements, max_replacements;
	long long created, updated;
	struct sched_side base, patched;
	char	**agents;		/* agents holding a job now */
	size_t	 nagents;
	struct sched_job *jobs;		/* in creation (= lease) order */
	size_t	 njobs;
};

int	db_sched_request_set(struct db *, long long series_id,
	    const char *matrix, int boots);
/* *matrix malloc'd or NULL, *boots 0 when unset.  0 (also when no row). */
int	db_sched_request_get(struct db *, long long series_id, char **matrix,
	    int *boots);

struct db_sched_new {
	long long series_id, base_kernel, patched_kernel;
	const char *matrix, *class;
	int	 priority, boots, boot_step, max_boots, looks;
	int	 max_replacements;
};
/* Inserts a comparison (look 1, planned = boots).  0 or -1. */
int	db_sched_insert(struct db *, const struct db_sched_new *,
	    long long now, long long *id);
/* The row (not jobs, agents or side counts).  0, 1 none, -1. */
int	db_sched_get(struct db *, long long series_id, long long id,
	    struct sched_comparison *);
/* Jobs of a comparison in id order, with replaced flags.  0 or -1. */
int	db_sched_jobs(struct db *, long long comparison_id,
	    struct sched_job **jobs, size_t *n);
void	db_sched_jobs_free(struct sched_job *, size_t n);
int	db_sched_set_look(struct db *, long long id, int look, int planned,
	    long long now);
int	db_sched_add_replacement(struct db *, long long id, long long now);
int	db_sched_finish(struct db *, long long id, const char *state,
	    const char *summary, const char *result, long long now);
/*
 * The hardware class with most agents seen since `since` (ties: the one
 * seen last); *class NULL when there is none.  *n its agent count.
 */
int	db_sched_best_class(struct db *, long long since, char **class,
	    int *n);
/* Agents of class seen since `since`. */
int	db_sched_class_agents(struct db *, const char *class, long long since,
	    int *n);
/*
 * The stored results (stats JSON text) of class's finished comparisons
 * with id below before_id (0: any), newest first, at most max: *out is an
 * array of n strings, each and the array freed by the caller.
 */
int	db_sched_class_results(struct db *, const char *class,
	    long long before_id, int max, char ***out, size_t *n);
/* Sets a series' priority (nightly runs lower theirs). */
int	db_sched_set_priority(struct db *, long long series_id, int priority);

#endif
