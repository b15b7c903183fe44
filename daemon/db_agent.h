/*
 * db_agent: the SQL of the agent pool, kernel artifacts, jobs, attempts,
 * samples and lock profiles (schema/0003-agents-jobs.sql).  Callers are
 * daemon/agent.c and daemon/api_agent.c, ui_agent.c; the scheduler goes
 * through daemon/agent.h.
 *
 * Times are epoch seconds passed in by the caller, so tests move a clock.
 * JSON results are new references the caller owns.
 */
#ifndef KPERFCI_DB_AGENT_H
#define KPERFCI_DB_AGENT_H

#include <jansson.h>

struct db;

/* Inserts or updates the agent (idle, last seen now). */
int	db_agent_register(struct db *, const char *name, const char *class,
	    const char *backend, const char *release, const json_t *topology,
	    long long now);
/* The agent's class (malloc'd): 0, 1 when not registered, -1. */
int	db_agent_class(struct db *, const char *name, char **class);
/* Updates last_seen; 0, 1 when the agent is not registered, -1. */
int	db_agent_touch(struct db *, const char *name, long long now);
/* Every agent as proto-like objects (plus class, state, job, last_seen). */
int	db_agent_list(struct db *, json_t **out);
/* The same; state is "offline" for agents not seen for offline_after
   seconds before now. */
int	db_agent_list_at(struct db *, long long now, int offline_after,
	    json_t **out);

/* Inserts a kernel unless its sha256 is known; *id either way. */
int	db_kernel_insert(struct db *, const char *sha256, long long size,
	    const char *path, const char *release, const char *note,
	    long long *id);
/* 0 found (strings malloc'd), 1 unknown, -1. */
int	db_kernel_get(struct db *, long long id, char **sha256,
	    long long *size, char **path);

struct db_job_new {
	long long kernel_id;
	const char *matrix;
	const char *cmdline;		/* NULL: "" */
	int	 priority;
	long long comparison_id;	/* 0: none */
	const char *side;		/* NULL: none */
	int	 boot;
	const char *class;		/* NULL: any agent */
	int	 max_attempts;		/* 0: 3 */
};
/* 0, 1 when the kernel is unknown, -1. */
int	db_job_insert(struct db *, const struct db_job_new *, long long now,
	    long long *id);

/*
 * Re-queues every job whose lease expired before now (the attempt ends as
 * "expired"; past max_attempts the job fails).  *n: how many.  Runs inside
 * db_job_lease too.
 */
int	db_job_expire(struct db *, long long now, int *n);
/*
 * The agent gives its attempt back unrun (reason: its own words, "lava-run:
 * Infrastructure error: ..."): the attempt ends "released" and the job is
 * queued again now (past max_attempts it fails, as an expired one does).
 * 0, 1 when agent does not hold attempt's lease, -1.
 */
int	db_job_release(struct db *, long long id, int attempt,
	    const char *agent, const char *reason, long long now);
/*
 * Leases the best queued job for agent (highest priority, then oldest,
 * matching its class).  Jobs the same agent still held are re-queued
 * first: an agent that asks for work has given them up.  0 with *job a
 * proto_job object, 1 when there is none, -1.
 */
int	db_job_lease(struct db *, const char *agent, const char *class,
	    long long now, int lease_seconds, json_t **job);
/* Extends the lease.  0, 1 when agent does not hold attempt's lease, -1. */
int	db_job_heartbeat(struct db *, long long id, int attempt,
	    const char *agent, const char *progress, long long now,
	    int lease_seconds);

enum db_store {
	DB_STORED = 0,
	DB_UNKNOWN_JOB = 1,
	DB_DUPLICATE = 2,		/* that attempt already has results */
	DB_NOT_HOLDER = 3,		/* lease gone, another attempt's */
	DB_LATE_CONSOLE = 4,		/* power-cycled attempt: its console
					   kept, nothing else */
	DB_TOO_MANY_ROWS = 5,		/* its comparison would pass
					   max_rows: nothing stored */
};
/*
 * Stores one attempt's results in one transaction (samples, profiles,
 * attempt row, job state).  upload is a checked proto_upload_req; console
 * the log file's path relative to the data dir, or NULL (the length of
 * upload's console text is recorded beside it for the storage quota).
 * max_rows: the most distinct (workload, params, metric) rows the samples
 * of all the jobs of the job's comparison may make, counted in the same
 * transaction with the upload's ([sched] max_rows; 0: no cap; a job of no
 * comparison is not capped here).  Returns an enum db_store, or -1.
 */
int	db_job_store(struct db *, long long id, const json_t *upload,
	    const char *console, long long now, long long max_rows);

/* One job with its attempts: 0, 1 unknown, -1. */
int	db_job_get(struct db *, long long id, json_t **out);
/* Newest first, at most max. */
int	db_job_list(struct db *, int max, json_t **out);
/* Samples and profiles of the job's stored attempt (arrays). */
int	db_job_results(struct db *, long long id, json_t **samples,
	    json_t **profiles);
/* The console path of (id, attempt) relative to the data dir: 0, 1, -1. */
int	db_job_console(struct db *, long long id, int attempt, char **path);

/*
 * Power control (daemon/power.c, schema/0020-agent-power.sql).
 *
 * db_agent_power_margin sets agents.power_margin of name (NULL: of every
 * agent); 0 turns power control off.  db_power_due lists the leased jobs
 * whose holder has a margin and missed its lease by more: [{job, attempt,
 * agent, lease_expires, progress}].  db_power_count: cycles that ran for
 * agent since then.  db_power_record notes one cycle (ran 0: refused).
 * db_job_power_fail ends the attempt and the job as boot-failed with
 * reason: 0, 1 when the job moved on meanwhile, -1.  db_power_list: the
 * job's cycles [{attempt, agent, at, command, status, ran}].
 */
int	db_agent_power_margin(struct db *, const char *name, int margin);
int	db_power_due(struct db *, long long now, json_t **out);
int	db_power_count(struct db *, const char *agent, long long since, int *n);
int	db_power_record(struct db *, const char *agent, long long at,
	    long long job, int attempt, const char *command,
	    const char *status, int ran);
int	db_job_power_fail(struct db *, long long id, int attempt,
	    const char *agent, const char *reason, long long now);
int	db_power_list(struct db *, long long job, json_t **out);

#endif
