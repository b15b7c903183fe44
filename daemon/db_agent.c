/*
 * db_agent: SQL for agents, kernels, jobs, attempts, samples and lock
 * profiles (see db_agent.h).  Parameterised statements only.  Every change
 * that spans tables (a lease, an upload, an expiry) is one transaction, so
 * a crash never leaves a job half leased or half stored.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "daemon/db_exercise.h"
#include "daemon/db_agent.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

static json_t *
ctext(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? json_string((const char *)s) : json_null();
}

int
db_agent_register(struct db *db, const char *name, const char *class,
    const char *backend, const char *release, const json_t *t, long long now)
{
	sqlite3_stmt *st;
	char *topo = json_dumps(t, JSON_COMPACT | JSON_SORT_KEYS);
	int rc;

	st = db_prep(db, "INSERT INTO agents (name, class, backend, "
	    "kernel_release, sockets, nodes, cpus, cores, cpu_model, "
	    "memory_mb, topology, state, registered, last_seen) VALUES "
	    "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,'idle',?12,?12) "
	    "ON CONFLICT(name) DO UPDATE SET class=?2, backend=?3, "
	    "kernel_release=?4, sockets=?5, nodes=?6, cpus=?7, cores=?8, "
	    "cpu_model=?9, memory_mb=?10, topology=?11, last_seen=?12");
	if (st) {
		db_bind_text(st, 1, name);
		db_bind_text(st, 2, class);
		db_bind_text(st, 3, backend);
		db_bind_text(st, 4, release);
		sqlite3_bind_int64(st, 5, json_integer_value(json_object_get(t,
		    PROTO_SOCKETS)));
		sqlite3_bind_int64(st, 6, json_integer_value(json_object_get(t,
		    PROTO_NODES)));
		sqlite3_bind_int64(st, 7, json_integer_value(json_object_get(t,
		    PROTO_CPUS)));
		sqlite3_bind_int64(st, 8, json_integer_value(json_object_get(t,
		    PROTO_CORES)));
		db_bind_text(st, 9, json_string_value(json_object_get(t,
		    PROTO_CPU_MODEL)));
		sqlite3_bind_int64(st, 10, json_integer_value(json_object_get(t,
		    PROTO_MEMORY_MB)));
		db_bind_text(st, 11, topo);
		sqlite3_bind_int64(st, 12, now);
	}
	rc = db_step_done(db, st, NULL);
	free(topo);
	return rc;
}

int
db_agent_class(struct db *db, const char *name, char **class)
{
	sqlite3_stmt *st = db_prep(db, "SELECT class FROM agents WHERE name=?");
	int rc;

	*class = NULL;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*class = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

int
db_agent_touch(struct db *db, const char *name, long long now)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE agents SET last_seen=? "
	    "WHERE name=?");

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	db_bind_text(st, 2, name);
	if (db_step_done(db, st, NULL) == -1)
		return -1;
	return sqlite3_changes(db_handle(db)) ? 0 : 1;
}

int
db_agent_list(struct db *db, json_t **out)
{
	return db_agent_list_at(db, 0, 0, out);
}

int
db_agent_list_at(struct db *db, long long now, int offline_after,
    json_t **out)
{
	sqlite3_stmt *st = db_prep(db, "SELECT name, class, backend, "
	    "kernel_release, sockets, nodes, cpus, cores, cpu_model, "
	    "memory_mb, topology, state, job_id, registered, last_seen "
	    "FROM agents ORDER BY name");
	int rc;

	*out = json_array();
	if (st == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object(), *t;

		json_object_set_new(o, "name", ctext(st, 0));
		json_object_set_new(o, "class", ctext(st, 1));
		json_object_set_new(o, "backend", ctext(st, 2));
		json_object_set_new(o, "kernel_release", ctext(st, 3));
		json_object_set_new(o, "sockets", json_integer(
		    sqlite3_column_int64(st, 4)));
		json_object_set_new(o, "nodes", json_integer(
		    sqlite3_column_int64(st, 5)));
		json_object_set_new(o, "cpus", json_integer(
		    sqlite3_column_int64(st, 6)));
		json_object_set_new(o, "cores", json_integer(
		    sqlite3_column_int64(st, 7)));
		json_object_set_new(o, "cpu_model", ctext(st, 8));
		json_object_set_new(o, "memory_mb", json_integer(
		    sqlite3_column_int64(st, 9)));
		t = json_loads((const char *)sqlite3_column_text(st, 10), 0,
		    NULL);
		json_object_set_new(o, "topology", t ? t : json_null());
		/* Not heard from within a lease: it went away. */
		if (offline_after > 0 && sqlite3_column_int64(st, 14) <
		    now - offline_after)
			json_object_set_new(o, "state", json_string("offline"));
		else
			json_object_set_new(o, "state", ctext(st, 11));
		json_object_set_new(o, "job", sqlite3_column_type(st, 12) ==
		    SQLITE_NULL ? json_null() :
		    json_integer(sqlite3_column_int64(st, 12)));
		json_object_set_new(o, "registered", json_integer(
		    sqlite3_column_int64(st, 13)));
		json_object_set_new(o, "last_seen", json_integer(
		    sqlite3_column_int64(st, 14)));
		json_array_append_new(*out, o);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_kernel_insert(struct db *db, const char *sha, long long size,
    const char *path, const char *release, const char *note, long long *id)
{
	sqlite3_stmt *st;
	int rc;

	st = db_prep(db, "INSERT INTO kernels (sha256, size, path, release, note, "
	    "created) VALUES (?,?,?,?,?,strftime('%s','now')) "
	    "ON CONFLICT(sha256) DO NOTHING");
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, sha);
	sqlite3_bind_int64(st, 2, size);
	db_bind_text(st, 3, path);
	db_bind_text(st, 4, release);
	db_bind_text(st, 5, note);
	if (db_step_done(db, st, NULL) == -1)
		return -1;
	if ((st = db_prep(db, "SELECT id FROM kernels WHERE sha256=?")) == NULL)
		return -1;
	db_bind_text(st, 1, sha);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : error("db: kernel %s vanished", sha);
}

int
db_kernel_get(struct db *db, long long id, char **sha, long long *size,
    char **path)
{
	sqlite3_stmt *st = db_prep(db, "SELECT sha256, size, path FROM kernels "
	    "WHERE id=?");
	int rc;

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*sha = xstrdup((const char *)sqlite3_column_text(st, 0));
		*size = sqlite3_column_int64(st, 1);
		*path = xstrdup((const char *)sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : error("db: %s",
	    sqlite3_errmsg(db_handle(db)));
}

int
db_job_insert(struct db *db, const struct db_job_new *j, long long now,
    long long *id)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = db_prep(db, "SELECT 1 FROM kernels WHERE id=?")) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, j->kernel_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 1 : -1;
	st = db_prep(db, "INSERT INTO jobs (kernel_id, matrix, cmdline, priority, "
	    "comparison_id, side, boot, class, max_attempts, created, updated) "
	    "VALUES (?,?,?,?,?,?,?,?,?,?,?)");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, j->kernel_id);
	db_bind_text(st, 2, j->matrix);
	db_bind_text(st, 3, j->cmdline ? j->cmdline : "");
	sqlite3_bind_int(st, 4, j->priority);
	if (j->comparison_id)
		sqlite3_bind_int64(st, 5, j->comparison_id);
	else
		sqlite3_bind_null(st, 5);
	db_bind_text(st, 6, j->side);
	sqlite3_bind_int(st, 7, j->boot);
	db_bind_text(st, 8, j->class);
	sqlite3_bind_int(st, 9, j->max_attempts > 0 ? j->max_attempts : 3);
	sqlite3_bind_int64(st, 10, now);
	sqlite3_bind_int64(st, 11, now);
	if (db_step_done(db, st, NULL) == -1)
		return -1;
	*id = sqlite3_last_insert_rowid(db_handle(db));
	return 0;
}

/*
 * Ends the current attempt of leased jobs matching `where` and re-queues
 * them (or fails them past max_attempts).  Inside a transaction.  why is
 * NULL for a lease that expired, else the agent's words for a job it gave
 * back (the attempt is `released`).  ?1 is now, ?2 the agent, ?3 why; a
 * release's where names ?4 (the job) and ?5 (the attempt).
 */
static int
end_lease_where(struct db *db, const char *where, long long now,
    const char *agent, const char *why, long long id, int attempt, int *n)
{
	/* each statement is its text, then where, then ")" or "" */
	static const char *const sql_pre[][2] = {
		{ "UPDATE job_attempts SET ended=?1, status=CASE WHEN ?3 IS "
		  "NULL THEN 'expired' ELSE 'released' END, reason=COALESCE(?3, "
		  "'lease expired') WHERE ended IS NULL AND (job_id, attempt) "
		  "IN (SELECT id, attempts FROM jobs WHERE state='leased' AND ",
		  ")" },
		{ "UPDATE agents SET state='idle', job_id=NULL WHERE job_id IN "
		  "(SELECT id FROM jobs WHERE state='leased' AND ", ")" },
		{ "UPDATE jobs SET "
		  "state = CASE WHEN attempts >= max_attempts THEN 'failed' "
		  "ELSE 'queued' END, "
		  "reason = CASE WHEN ?3 IS NULL THEN CASE WHEN attempts >= "
		  "max_attempts THEN 'lease expired ' || attempts || ' times: "
		  "no agent finished it' ELSE 'lease of attempt ' || attempts "
		  "|| ' expired; re-queued' END ELSE CASE WHEN attempts >= "
		  "max_attempts THEN 'given back ' || attempts || ' times, "
		  "last: ' || ?3 ELSE 'attempt ' || attempts || ' given back "
		  "(' || ?3 || '); re-queued' END END, "
		  "agent=NULL, lease_expires=NULL, progress=NULL, updated=?1 "
		  "WHERE state='leased' AND ", "" },
	};
	sqlite3_stmt *st;
	int rc = 0;

	for (size_t i = 0; i < sizeof(sql_pre) / sizeof(sql_pre[0]); i++) {
		char *sql = xasprintf("%s%s%s", sql_pre[i][0], where,
		    sql_pre[i][1]);

		st = db_prep(db, sql);
		free(sql);
		if (st == NULL)
			return -1;
		sqlite3_bind_int64(st, 1, now);
		if (agent)
			db_bind_text(st, 2, agent);
		if (why)
			db_bind_text(st, 3, why);
		if (sqlite3_bind_parameter_count(st) >= 5) {
			sqlite3_bind_int64(st, 4, id);
			sqlite3_bind_int(st, 5, attempt);
		}
		if ((rc = db_step_done(db, st, NULL)) == -1)
			return -1;
	}
	if (n)
		*n = sqlite3_changes(db_handle(db));
	return rc;
}

static int
expire_where(struct db *db, const char *where, long long now,
    const char *agent, int *n)
{
	return end_lease_where(db, where, now, agent, NULL, 0, 0, n);
}

/* A job whose holder has power control is settled by daemon/power.c
   (power-cycled, boot-failed) past its margin, never re-queued by the
   lease timer: a hung machine does not give its job back. */
#define NOT_POWERED "NOT EXISTS (SELECT 1 FROM agents pa WHERE " \
	"pa.name = jobs.agent AND pa.power_margin > 0)"

int
db_job_expire(struct db *db, long long now, int *n)
{
	if (db_begin(db) == -1)
		return -1;
	if (expire_where(db, "lease_expires < ?1 AND " NOT_POWERED, now, NULL,
	    n) == -1) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db);
}

int
db_job_release(struct db *db, long long id, int attempt, const char *agent,
    const char *reason, long long now)
{
	char *why = xasprintf("by %s: %s", agent, reason);
	int n = 0;

	if (db_begin(db) == -1) {
		free(why);
		return -1;
	}
	if (end_lease_where(db, "id = ?4 AND attempts = ?5 AND agent = ?2",
	    now, agent, why, id, attempt, &n) == -1) {
		free(why);
		db_rollback(db);
		return -1;
	}
	free(why);
	if (db_commit(db) == -1)
		return -1;
	return n ? 0 : 1;
}

int
db_job_lease(struct db *db, const char *agent, const char *class,
    long long now, int lease_seconds, json_t **job)
{
	sqlite3_stmt *st = NULL;
	long long id, kid;
	int attempt, rc;
	json_t *k;

	*job = NULL;
	if (db_begin(db) == -1)
		return -1;
	if (expire_where(db, "lease_expires < ?1 AND " NOT_POWERED, now, NULL,
	    NULL) == -1 ||
	    expire_where(db, "?1 = ?1 AND agent = ?2", now, agent, NULL) == -1)
		goto fail;
	/* Job order (doc/statistics.md, the scheduler): priority, then the submission
	   time of the job's series (a comparison started earlier finishes
	   before a later one starts, extra looks included), then the boot
	   (a replacement keeps its place), then creation order (the side
	   interleaving within a boot).  A job of no comparison counts as
	   submitted when it was created. */
	st = db_prep(db, "SELECT j.id, j.attempts + 1, j.matrix, j.cmdline, "
	    "k.id, k.sha256, k.size FROM jobs j JOIN kernels k ON "
	    "k.id = j.kernel_id LEFT JOIN comparisons c ON "
	    "c.id = j.comparison_id LEFT JOIN series s ON s.id = c.series_id "
	    "WHERE j.state='queued' AND (j.class IS NULL OR j.class = ?) "
	    "ORDER BY j.priority DESC, COALESCE(s.submitted, j.created), "
	    "COALESCE(s.id, 0), j.comparison_id, j.boot, j.id LIMIT 1");
	if (st == NULL)
		goto fail;
	db_bind_text(st, 1, class);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_finalize(st);
		if (db_commit(db) == -1)
			return -1;
		return 1;
	}
	if (rc != SQLITE_ROW) {
		error("db: %s", sqlite3_errmsg(db_handle(db)));
		goto fail;
	}
	id = sqlite3_column_int64(st, 0);
	attempt = sqlite3_column_int(st, 1);
	kid = sqlite3_column_int64(st, 4);
	k = json_object();
	json_object_set_new(k, PROTO_ID, json_integer(kid));
	json_object_set_new(k, PROTO_SHA256, ctext(st, 5));
	json_object_set_new(k, PROTO_SIZE, json_integer(
	    sqlite3_column_int64(st, 6)));
	json_object_set_new(k, PROTO_URL, json_sprintf(PROTO_PATH_KERNELS
	    "%lld/bzImage", kid));
	*job = json_object();
	json_object_set_new(*job, PROTO_ID, json_integer(id));
	json_object_set_new(*job, PROTO_ATTEMPT, json_integer(attempt));
	json_object_set_new(*job, PROTO_KERNEL, k);
	json_object_set_new(*job, PROTO_MATRIX, ctext(st, 2));
	json_object_set_new(*job, PROTO_CMDLINE, ctext(st, 3));
	json_object_set_new(*job, PROTO_LEASE_SECONDS,
	    json_integer(lease_seconds));
	sqlite3_finalize(st);
	{
		/* the changed functions its comparison counts (exercise.h) */
		json_t *pr = db_exercise_job_probes(db, id);

		if (pr)
			json_object_set_new(*job, PROTO_PROBES, pr);
	}
	st = db_prep(db, "UPDATE jobs SET state='leased', attempts=?, agent=?, "
	    "lease_expires=?, progress='leased', updated=? WHERE id=?");
	if (st == NULL)
		goto fail;
	sqlite3_bind_int(st, 1, attempt);
	db_bind_text(st, 2, agent);
	sqlite3_bind_int64(st, 3, now + lease_seconds);
	sqlite3_bind_int64(st, 4, now);
	sqlite3_bind_int64(st, 5, id);
	if (db_step_done(db, st, NULL) == -1)
		goto fail;
	st = db_prep(db, "INSERT INTO job_attempts (job_id, attempt, agent, "
	    "started) VALUES (?,?,?,?)");
	if (st == NULL)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, attempt);
	db_bind_text(st, 3, agent);
	sqlite3_bind_int64(st, 4, now);
	if (db_step_done(db, st, NULL) == -1)
		goto fail;
	st = db_prep(db, "UPDATE agents SET state='busy', job_id=?, last_seen=? "
	    "WHERE name=?");
	if (st == NULL)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, now);
	db_bind_text(st, 3, agent);
	if (db_step_done(db, st, NULL) == -1 || db_commit(db) == -1)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	json_decref(*job);
	*job = NULL;
	return -1;
}

int
db_job_heartbeat(struct db *db, long long id, int attempt, const char *agent,
    const char *progress, long long now, int lease_seconds)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE jobs SET lease_expires=?, "
	    "progress=coalesce(?, progress), updated=? WHERE id=? AND "
	    "state='leased' AND attempts=? AND agent=?");

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, now + lease_seconds);
	db_bind_text(st, 2, progress);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_int64(st, 4, id);
	sqlite3_bind_int(st, 5, attempt);
	db_bind_text(st, 6, agent);
	if (db_step_done(db, st, NULL) == -1)
		return -1;
	return sqlite3_changes(db_handle(db)) ? 0 : 1;
}

static int
insert_samples(struct db *db, long long id, int attempt, const json_t *arr,
    int profiles)
{
	sqlite3_stmt *st;
	size_t i;

	st = db_prep(db, profiles ?
	    "INSERT INTO lock_profiles (job_id, attempt, workload, profile) "
	    "VALUES (?1,?2,?3,?4)" :
	    "INSERT INTO samples (job_id, attempt, workload, params, "
	    "iteration, metric, value, unit, better) VALUES "
	    "(?1,?2,?3,?4,?5,?6,?7,?8,?9)");
	if (st == NULL)
		return -1;
	for (i = 0; i < json_array_size(arr); i++) {
		const json_t *s = json_array_get(arr, i);

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, attempt);
		db_bind_text(st, 3, json_string_value(json_object_get(s,
		    PROTO_S_WORKLOAD)));
		if (profiles) {
			char *text = json_dumps(s, JSON_COMPACT);

			db_bind_text(st, 4, text);
			free(text);
		} else {
			db_bind_text(st, 4, json_string_value(json_object_get(s,
			    PROTO_S_PARAMS)));
			sqlite3_bind_int64(st, 5, json_integer_value(
			    json_object_get(s, PROTO_S_ITERATION)));
			db_bind_text(st, 6, json_string_value(json_object_get(s,
			    PROTO_S_METRIC)));
			sqlite3_bind_double(st, 7, json_number_value(
			    json_object_get(s, PROTO_S_VALUE)));
			db_bind_text(st, 8, json_string_value(json_object_get(s,
			    PROTO_S_UNIT)));
			db_bind_text(st, 9, json_string_value(json_object_get(s,
			    PROTO_S_BETTER)));
		}
		if (sqlite3_step(st) != SQLITE_DONE) {
			error("db: %s", sqlite3_errmsg(db_handle(db)));
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	return 0;
}

/*
 * The result of an attempt that was already settled.  One case is not a
 * duplicate: the daemon power-cycled the machine and ended the attempt
 * itself; the agent, back in its home kernel, now brings the console of
 * the kernel that hung.  It is kept (once), nothing else is.  Inside the
 * caller's transaction, which it commits when it stores.
 */
static int
late_console(struct db *db, long long id, int attempt, const char *agent,
    const char *console, size_t console_bytes)
{
	sqlite3_stmt *st;

	if (console == NULL)
		return DB_DUPLICATE;
	st = db_prep(db, "UPDATE job_attempts SET console=?1, "
	    "console_bytes=?5 WHERE job_id=?2 AND attempt=?3 AND agent=?4 AND "
	    "console IS NULL AND EXISTS (SELECT 1 FROM power_cycles p WHERE "
	    "p.job_id=?2 AND p.attempt=?3)");
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, console);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_int(st, 3, attempt);
	db_bind_text(st, 4, agent);
	sqlite3_bind_int64(st, 5, (long long)console_bytes);
	if (db_step_done(db, st, NULL) == -1)
		return -1;
	if (sqlite3_changes(db_handle(db)) == 0)
		return DB_DUPLICATE;
	return db_commit(db) == -1 ? -1 : DB_LATE_CONSOLE;
}

/* The distinct rows the samples of job id's comparison make (0 for a
   job of no comparison), or -1. */
static long long
comparison_rows(struct db *db, long long id)
{
	sqlite3_stmt *st = db_prep(db, "SELECT count(*) FROM (SELECT DISTINCT "
	    "workload, params, metric FROM samples WHERE job_id IN (SELECT "
	    "j.id FROM jobs j, jobs me WHERE me.id = ? AND j.comparison_id = "
	    "me.comparison_id))");
	long long n = -1;

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	else
		error("db: %s", sqlite3_errmsg(db_handle(db)));
	sqlite3_finalize(st);
	return n;
}

int
db_job_store(struct db *db, long long id, const json_t *up,
    const char *console, long long now, long long max_rows)
{
	int attempt = (int)json_integer_value(json_object_get(up,
	    PROTO_ATTEMPT));
	const char *agent = json_string_value(json_object_get(up, PROTO_AGENT));
	const char *status = json_string_value(json_object_get(up,
	    PROTO_STATUS));
	/* what the caller wrote to the file console names (the quota) */
	const char *text = json_string_value(json_object_get(up,
	    PROTO_CONSOLE));
	size_t console_bytes = console && text ? strlen(text) : 0;
	sqlite3_stmt *st;
	char *topo = NULL;
	int rc, ret = -1, ended, cur;
	const char *state, *holder;

	if (db_begin(db) == -1)
		return -1;
	if ((st = db_prep(db, "SELECT state, attempts, agent FROM jobs "
	    "WHERE id=?")) == NULL)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			goto fail;
		db_rollback(db);
		return DB_UNKNOWN_JOB;
	}
	state = (const char *)sqlite3_column_text(st, 0);
	cur = sqlite3_column_int(st, 1);
	holder = (const char *)sqlite3_column_text(st, 2);
	int held = strcmp(state, "leased") == 0 && cur == attempt && holder &&
	    strcmp(holder, agent) == 0;
	sqlite3_finalize(st);
	if ((st = db_prep(db, "SELECT ended IS NOT NULL AND status NOT IN ('expired', "
	    "'released') "
	    "FROM job_attempts WHERE job_id=? AND attempt=?")) == NULL)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, attempt);
	rc = sqlite3_step(st);
	ended = rc == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (ended) {
		if ((rc = late_console(db, id, attempt, agent, console,
		    console_bytes)) !=
		    DB_LATE_CONSOLE)
			db_rollback(db);
		return rc;
	}
	if (!held) {
		db_rollback(db);
		return DB_NOT_HOLDER;
	}
	if (json_object_get(up, PROTO_TOPOLOGY))
		topo = json_dumps(json_object_get(up, PROTO_TOPOLOGY),
		    JSON_COMPACT | JSON_SORT_KEYS);
	st = db_prep(db, "UPDATE job_attempts SET ended=?, status=?, reason=?, "
	    "boot_seconds=?, topology=?, console=?, console_bytes=? WHERE "
	    "job_id=? AND attempt=?");
	if (st == NULL)
		goto fail;
	sqlite3_bind_int64(st, 1, now);
	db_bind_text(st, 2, status);
	db_bind_text(st, 3, json_string_value(json_object_get(up, PROTO_REASON)));
	if (json_is_number(json_object_get(up, PROTO_BOOT_SECONDS)))
		sqlite3_bind_double(st, 4, json_number_value(json_object_get(up,
		    PROTO_BOOT_SECONDS)));
	else
		sqlite3_bind_null(st, 4);
	db_bind_text(st, 5, topo);
	db_bind_text(st, 6, console);
	if (console)
		sqlite3_bind_int64(st, 7, (long long)console_bytes);
	else
		sqlite3_bind_null(st, 7);
	sqlite3_bind_int64(st, 8, id);
	sqlite3_bind_int(st, 9, attempt);
	if (db_step_done(db, st, NULL) == -1)
		goto fail;
	if (insert_samples(db, id, attempt, json_object_get(up, PROTO_SAMPLES),
	    0) == -1 || insert_samples(db, id, attempt, json_object_get(up,
	    PROTO_PROFILES), 1) == -1 ||
	    db_exercise_attempt(db, id, attempt, up) == -1)
		goto fail;
	if (max_rows > 0 && json_array_size(json_object_get(up,
	    PROTO_SAMPLES))) {
		long long rows = comparison_rows(db, id);

		if (rows < 0)
			goto fail;
		if (rows > max_rows) {
			db_rollback(db);
			ret = DB_TOO_MANY_ROWS;
			goto out;
		}
	}
	st = db_prep(db, "UPDATE jobs SET state=?, reason=?, agent=NULL, "
	    "lease_expires=NULL, progress=NULL, updated=? WHERE id=?");
	if (st == NULL)
		goto fail;
	db_bind_text(st, 1, status);
	db_bind_text(st, 2, json_string_value(json_object_get(up, PROTO_REASON)));
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_int64(st, 4, id);
	if (db_step_done(db, st, NULL) == -1)
		goto fail;
	st = db_prep(db, "UPDATE agents SET state='idle', job_id=NULL, "
	    "last_seen=? WHERE name=?");
	if (st == NULL)
		goto fail;
	sqlite3_bind_int64(st, 1, now);
	db_bind_text(st, 2, agent);
	if (db_step_done(db, st, NULL) == -1 || db_commit(db) == -1)
		goto fail;
	ret = DB_STORED;
	goto out;
fail:
	db_rollback(db);
out:
	free(topo);
	return ret;
}

static json_t *
job_row(sqlite3_stmt *st)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(sqlite3_column_int64(st, 0)));
	json_object_set_new(o, "kernel", json_integer(
	    sqlite3_column_int64(st, 1)));
	json_object_set_new(o, "state", ctext(st, 2));
	json_object_set_new(o, "attempts", json_integer(
	    sqlite3_column_int(st, 3)));
	json_object_set_new(o, "agent", ctext(st, 4));
	json_object_set_new(o, "lease_expires", sqlite3_column_type(st, 5) ==
	    SQLITE_NULL ? json_null() : json_integer(
	    sqlite3_column_int64(st, 5)));
	json_object_set_new(o, "progress", ctext(st, 6));
	json_object_set_new(o, "reason", ctext(st, 7));
	json_object_set_new(o, "priority", json_integer(
	    sqlite3_column_int(st, 8)));
	json_object_set_new(o, "comparison", sqlite3_column_type(st, 9) ==
	    SQLITE_NULL ? json_null() : json_integer(
	    sqlite3_column_int64(st, 9)));
	json_object_set_new(o, "side", ctext(st, 10));
	json_object_set_new(o, "boot", json_integer(
	    sqlite3_column_int(st, 11)));
	json_object_set_new(o, "created", json_integer(
	    sqlite3_column_int64(st, 12)));
	json_object_set_new(o, "updated", json_integer(
	    sqlite3_column_int64(st, 13)));
	json_object_set_new(o, "matrix", ctext(st, 14));
	json_object_set_new(o, "cmdline", ctext(st, 15));
	json_object_set_new(o, "kernel_sha256", ctext(st, 16));
	return o;
}

#define JOB_COLS "j.id, j.kernel_id, j.state, j.attempts, j.agent, " \
	"j.lease_expires, j.progress, j.reason, j.priority, j.comparison_id, " \
	"j.side, j.boot, j.created, j.updated, j.matrix, j.cmdline, k.sha256 " \
	"FROM jobs j JOIN kernels k ON k.id = j.kernel_id"

int
db_job_get(struct db *db, long long id, json_t **out)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " JOB_COLS " WHERE j.id=?");
	json_t *arr;
	int rc;

	*out = NULL;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = job_row(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 1 : -1;
	st = db_prep(db, "SELECT a.attempt, a.agent, a.started, a.ended, "
	    "a.status, a.reason, a.boot_seconds, a.topology, a.console, "
	    "(SELECT count(*) FROM samples s WHERE s.job_id=a.job_id AND "
	    "s.attempt=a.attempt), (SELECT count(*) FROM lock_profiles p "
	    "WHERE p.job_id=a.job_id AND p.attempt=a.attempt) "
	    "FROM job_attempts a WHERE a.job_id=? ORDER BY a.attempt");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	arr = json_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *a = json_object(), *t = NULL;

		json_object_set_new(a, "attempt", json_integer(
		    sqlite3_column_int(st, 0)));
		json_object_set_new(a, "agent", ctext(st, 1));
		json_object_set_new(a, "started", json_integer(
		    sqlite3_column_int64(st, 2)));
		json_object_set_new(a, "ended", sqlite3_column_type(st, 3) ==
		    SQLITE_NULL ? json_null() : json_integer(
		    sqlite3_column_int64(st, 3)));
		json_object_set_new(a, "status", ctext(st, 4));
		json_object_set_new(a, "reason", ctext(st, 5));
		json_object_set_new(a, "boot_seconds", sqlite3_column_type(st,
		    6) == SQLITE_NULL ? json_null() : json_real(
		    sqlite3_column_double(st, 6)));
		if (sqlite3_column_text(st, 7))
			t = json_loads((const char *)sqlite3_column_text(st, 7),
			    0, NULL);
		json_object_set_new(a, "topology", t ? t : json_null());
		json_object_set_new(a, "console", json_boolean(
		    sqlite3_column_type(st, 8) != SQLITE_NULL));
		json_object_set_new(a, "samples", json_integer(
		    sqlite3_column_int64(st, 9)));
		json_object_set_new(a, "profiles", json_integer(
		    sqlite3_column_int64(st, 10)));
		json_array_append_new(arr, a);
	}
	sqlite3_finalize(st);
	json_object_set_new(*out, "attempts_detail", arr);
	if (db_power_list(db, id, &arr) == 0)
		json_object_set_new(*out, "power_cycles", arr);
	else
		json_decref(arr);
	return 0;
}

int
db_job_list(struct db *db, int max, json_t **out)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " JOB_COLS
	    " ORDER BY j.id DESC LIMIT ?");

	*out = json_array();
	if (st == NULL)
		return -1;
	sqlite3_bind_int(st, 1, max);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(*out, job_row(st));
	sqlite3_finalize(st);
	return 0;
}

int
db_job_results(struct db *db, long long id, json_t **samples,
    json_t **profiles)
{
	sqlite3_stmt *st;

	*samples = json_array();
	*profiles = json_array();
	st = db_prep(db, "SELECT workload, params, iteration, metric, value, "
	    "unit, better, attempt FROM samples WHERE job_id=? ORDER BY id");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *s = json_object();

		json_object_set_new(s, PROTO_S_WORKLOAD, ctext(st, 0));
		json_object_set_new(s, PROTO_S_PARAMS, ctext(st, 1));
		json_object_set_new(s, PROTO_S_ITERATION, json_integer(
		    sqlite3_column_int64(st, 2)));
		json_object_set_new(s, PROTO_S_METRIC, ctext(st, 3));
		json_object_set_new(s, PROTO_S_VALUE, json_real(
		    sqlite3_column_double(st, 4)));
		json_object_set_new(s, PROTO_S_UNIT, ctext(st, 5));
		json_object_set_new(s, PROTO_S_BETTER, ctext(st, 6));
		json_object_set_new(s, PROTO_ATTEMPT, json_integer(
		    sqlite3_column_int(st, 7)));
		json_array_append_new(*samples, s);
	}
	sqlite3_finalize(st);
	st = db_prep(db, "SELECT profile FROM lock_profiles WHERE job_id=? "
	    "ORDER BY id");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *p = json_loads((const char *)sqlite3_column_text(st, 0),
		    0, NULL);

		if (p)
			json_array_append_new(*profiles, p);
	}
	sqlite3_finalize(st);
	return 0;
}

int
db_job_console(struct db *db, long long id, int attempt, char **path)
{
	sqlite3_stmt *st = db_prep(db, "SELECT console FROM job_attempts WHERE "
	    "job_id=? AND attempt=? AND console IS NOT NULL");
	int rc;

	*path = NULL;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, attempt);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*path = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

/* ---- power control (daemon/power.c) ----------------------------------- */

int
db_agent_power_margin(struct db *db, const char *name, int margin)
{
	sqlite3_stmt *st;

	st = name ? db_prep(db, "UPDATE agents SET power_margin=? WHERE "
	    "name=?") : db_prep(db, "UPDATE agents SET power_margin=?");
	if (st == NULL)
		return -1;
	sqlite3_bind_int(st, 1, margin);
	if (name)
		db_bind_text(st, 2, name);
	return db_step_done(db, st, NULL);
}

int
db_power_due(struct db *db, long long now, json_t **out)
{
	sqlite3_stmt *st = db_prep(db, "SELECT j.id, j.attempts, j.agent, "
	    "j.lease_expires, j.progress FROM jobs j JOIN agents a ON "
	    "a.name = j.agent WHERE j.state='leased' AND a.power_margin > 0 "
	    "AND j.lease_expires + a.power_margin < ? ORDER BY j.id");
	int rc;

	*out = json_array();
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(*out, json_pack("{s:I,s:i,s:o,s:I,s:o}",
		    "job", (json_int_t)sqlite3_column_int64(st, 0),
		    "attempt", sqlite3_column_int(st, 1),
		    "agent", ctext(st, 2),
		    "lease_expires", (json_int_t)sqlite3_column_int64(st, 3),
		    "progress", ctext(st, 4)));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_power_count(struct db *db, const char *agent, long long since, int *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT count(*) FROM power_cycles "
	    "WHERE agent=? AND at >= ? AND ran = 1");
	int rc;

	*n = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, agent);
	sqlite3_bind_int64(st, 2, since);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : error("db: %s",
	    sqlite3_errmsg(db_handle(db)));
}

int
db_power_record(struct db *db, const char *agent, long long at,
    long long job, int attempt, const char *command, const char *status,
    int ran)
{
	sqlite3_stmt *st = db_prep(db, "INSERT INTO power_cycles (agent, at, "
	    "job_id, attempt, command, status, ran) VALUES (?,?,?,?,?,?,?)");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, agent);
	sqlite3_bind_int64(st, 2, at);
	sqlite3_bind_int64(st, 3, job);
	sqlite3_bind_int(st, 4, attempt);
	db_bind_text(st, 5, command);
	db_bind_text(st, 6, status);
	sqlite3_bind_int(st, 7, ran);
	return db_step_done(db, st, NULL);
}

int
db_job_power_fail(struct db *db, long long id, int attempt,
    const char *agent, const char *reason, long long now)
{
	sqlite3_stmt *st;
	int changed;

	if (db_begin(db) == -1)
		return -1;
	st = db_prep(db, "UPDATE jobs SET state='boot-failed', reason=?, "
	    "agent=NULL, lease_expires=NULL, progress=NULL, updated=? "
	    "WHERE id=? AND state='leased' AND attempts=? AND agent=?");
	if (st == NULL)
		goto fail;
	db_bind_text(st, 1, reason);
	sqlite3_bind_int64(st, 2, now);
	sqlite3_bind_int64(st, 3, id);
	sqlite3_bind_int(st, 4, attempt);
	db_bind_text(st, 5, agent);
	if (db_step_done(db, st, NULL) == -1)
		goto fail;
	if ((changed = sqlite3_changes(db_handle(db))) == 0) {
		/* a late heartbeat or result got there first */
		db_rollback(db);
		return 1;
	}
	st = db_prep(db, "UPDATE job_attempts SET ended=?, status='boot-failed', "
	    "reason=? WHERE job_id=? AND attempt=? AND ended IS NULL");
	if (st == NULL)
		goto fail;
	sqlite3_bind_int64(st, 1, now);
	db_bind_text(st, 2, reason);
	sqlite3_bind_int64(st, 3, id);
	sqlite3_bind_int(st, 4, attempt);
	if (db_step_done(db, st, NULL) == -1)
		goto fail;
	st = db_prep(db, "UPDATE agents SET state='idle', job_id=NULL WHERE "
	    "name=? AND job_id=?");
	if (st == NULL)
		goto fail;
	db_bind_text(st, 1, agent);
	sqlite3_bind_int64(st, 2, id);
	if (db_step_done(db, st, NULL) == -1 || db_commit(db) == -1)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return -1;
}

int
db_power_list(struct db *db, long long job, json_t **out)
{
	sqlite3_stmt *st = db_prep(db, "SELECT attempt, agent, at, command, "
	    "status, ran FROM power_cycles WHERE job_id=? ORDER BY id");
	int rc;

	*out = json_array();
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(*out, json_pack("{s:i,s:o,s:I,s:o,s:o,"
		    "s:b}", "attempt", sqlite3_column_int(st, 0),
		    "agent", ctext(st, 1),
		    "at", (json_int_t)sqlite3_column_int64(st, 2),
		    "command", ctext(st, 3), "status", ctext(st, 4),
		    "ran", sqlite3_column_int(st, 5)));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}
