/*
 * db_exercise: the store of exercise.h -- a comparison's plan and probes,
 * each attempt's probe hits, environment and console splats, and the
 * suites a submitter asked for (schema/0006-exercise.sql).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "daemon/db_exercise.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

static char *
jdump(const json_t *j)
{
	return j ? json_dumps(j, JSON_COMPACT) : NULL;
}

static json_t *
jcol(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? json_loads(s, 0, NULL) : NULL;
}

int
db_exercise_set(struct db *db, long long cid, const json_t *changes,
    const json_t *probes)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE comparisons SET changes=?, "
	    "probes=? WHERE id=?");
	char *c = jdump(changes), *p = jdump(probes);
	int rc;

	if (st) {
		db_bind_text(st, 1, c);
		db_bind_text(st, 2, p);
		sqlite3_bind_int64(st, 3, cid);
	}
	rc = db_step_done(db, st, "comparison plan");
	free(c);
	free(p);
	return rc;
}

int
db_exercise_get(struct db *db, long long cid, json_t **changes)
{
	sqlite3_stmt *st = db_prep(db, "SELECT changes FROM comparisons "
	    "WHERE id=?");

	*changes = NULL;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, cid);
	if (sqlite3_step(st) == SQLITE_ROW)
		*changes = jcol(st, 0);
	sqlite3_finalize(st);
	return 0;
}

json_t *
db_exercise_job_probes(struct db *db, long long job_id)
{
	sqlite3_stmt *st = db_prep(db, "SELECT c.probes FROM jobs j JOIN "
	    "comparisons c ON c.id = j.comparison_id WHERE j.id=?");
	json_t *p = NULL;

	if (st == NULL)
		return NULL;
	sqlite3_bind_int64(st, 1, job_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		p = jcol(st, 0);
	sqlite3_finalize(st);
	if (p && (!json_is_array(p) || json_array_size(p) == 0)) {
		json_decref(p);
		p = NULL;
	}
	return p;
}

int
db_exercise_attempt(struct db *db, long long job_id, int attempt,
    const json_t *up)
{
	const char *con = json_string_value(json_object_get(up, PROTO_CONSOLE));
	sqlite3_stmt *st = db_prep(db, "UPDATE job_attempts SET probe_hits=?, "
	    "environment=?, splats=?, splat=? WHERE job_id=? AND attempt=?");
	char *h = jdump(json_object_get(up, PROTO_PROBE_HITS));
	char *e = jdump(json_object_get(up, PROTO_ENVIRONMENT));
	char first[200];
	int n = con ? exercise_splats(con, strlen(con), first,
	    sizeof(first)) : 0, rc;

	if (st) {
		db_bind_text(st, 1, h);
		db_bind_text(st, 2, e);
		if (con)
			sqlite3_bind_int(st, 3, n);
		else
			sqlite3_bind_null(st, 3);
		db_bind_text(st, 4, con && n ? first : NULL);
		sqlite3_bind_int64(st, 5, job_id);
		sqlite3_bind_int(st, 6, attempt);
	}
	rc = db_step_done(db, st, "attempt probes");
	free(h);
	free(e);
	return rc;
}

int
db_exercise_attempts(struct db *db, long long cid, json_t **out)
{
	sqlite3_stmt *st = db_prep(db, "SELECT j.id, j.side, j.boot, "
	    "a.status, a.probe_hits, a.environment, a.splats, a.splat "
	    "FROM jobs j JOIN job_attempts a ON a.job_id = j.id AND "
	    "a.attempt = j.attempts WHERE j.comparison_id=? AND "
	    "a.status IN ('done', 'failed', 'boot-failed') ORDER BY j.id");
	int rc;

	*out = json_array();
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, cid);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object(), *v;
		const char *s;

		json_object_set_new(o, "job", json_integer(
		    sqlite3_column_int64(st, 0)));
		s = (const char *)sqlite3_column_text(st, 1);
		json_object_set_new(o, "side", json_string(s ? s : ""));
		json_object_set_new(o, "boot", json_integer(
		    sqlite3_column_int(st, 2)));
		s = (const char *)sqlite3_column_text(st, 3);
		json_object_set_new(o, "status", json_string(s ? s : ""));
		if ((v = jcol(st, 4)))
			json_object_set_new(o, "probe_hits", v);
		if ((v = jcol(st, 5)))
			json_object_set_new(o, "environment", v);
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			json_object_set_new(o, "splats", json_integer(
			    sqlite3_column_int(st, 6)));
		if ((s = (const char *)sqlite3_column_text(st, 7)))
			json_object_set_new(o, "splat", json_string(s));
		json_array_append_new(*out, o);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int
db_exercise_request_set(struct db *db, long long sid, const json_t *suites)
{
	sqlite3_stmt *st;
	char *s = jdump(suites);
	int rc;

	/* the row may not exist yet (no matrix, no boots asked) */
	st = db_prep(db, "INSERT OR IGNORE INTO sched_requests (series_id) "
	    "VALUES (?)");
	if (st)
		sqlite3_bind_int64(st, 1, sid);
	if (db_step_done(db, st, "request") == -1) {
		free(s);
		return -1;
	}
	st = db_prep(db, "UPDATE sched_requests SET suites=? WHERE "
	    "series_id=?");
	if (st) {
		db_bind_text(st, 1, s);
		sqlite3_bind_int64(st, 2, sid);
	}
	rc = db_step_done(db, st, "request suites");
	free(s);
	return rc;
}

int
db_exercise_request_get(struct db *db, long long sid, json_t **suites)
{
	sqlite3_stmt *st = db_prep(db, "SELECT suites FROM sched_requests "
	    "WHERE series_id=?");

	*suites = NULL;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, sid);
	if (sqlite3_step(st) == SQLITE_ROW)
		*suites = jcol(st, 0);
	sqlite3_finalize(st);
	return 0;
}

enum exercise_state
exercise_comparison_state(struct db *db, long long cid)
{
	json_t *chg = NULL, *att = NULL;
	enum exercise_state st = EXERCISE_NONE;

	if (db_exercise_get(db, cid, &chg) == 0 &&
	    db_exercise_attempts(db, cid, &att) == 0)
		st = exercise_state_of(chg, att);
	json_decref(chg);
	json_decref(att);
	return st;
}
