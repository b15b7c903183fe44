/*
 * db_kcidb: the SQL of daemon/kcidb.c (schema/0021-kcidb.sql).  What is
 * "finished" is read here from the scheduler's and the tracks' tables:
 * a comparison done or failed, a track run done or failed, a regression
 * whose bisect no longer runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/db.h"
#include "daemon/db_kcidb.h"
#include "daemon/db_stmt.h"
#include "lib/log.h"
#include "lib/xalloc.h"

static const char todo_sql[] =
	"SELECT kind, oid, sid FROM ("
	" SELECT 'comparison' AS kind, c.id AS oid, c.series_id AS sid,"
	"  c.updated AS t FROM comparisons c"
	"  WHERE c.state IN ('done', 'failed') AND NOT EXISTS (SELECT 1"
	"  FROM kcidb_exports e WHERE e.kind = 'comparison' AND"
	"  e.object_id = c.id)"
	" UNION ALL"
	" SELECT 'track_run', r.id, 0, r.updated FROM track_runs r"
	"  WHERE r.state IN ('done', 'failed') AND r.kernel_id IS NOT NULL"
	"  AND NOT EXISTS (SELECT 1 FROM kcidb_exports e WHERE"
	"  e.kind = 'track_run' AND e.object_id = r.id)"
	" UNION ALL"
	" SELECT 'bisect', g.id, 0, g.updated FROM regressions g"
	"  WHERE g.state <> 'bisecting' AND NOT EXISTS (SELECT 1 FROM"
	"  kcidb_exports e WHERE e.kind = 'bisect' AND e.object_id = g.id)"
	") ORDER BY t, kind, oid LIMIT ?";

int
db_kcidb_todo(struct db *db, size_t max, struct kcidb_todo **out, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, todo_sql);
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kcidb_todo *t;

		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		t = &(*out)[(*n)++];
		memset(t, 0, sizeof(*t));
		snprintf(t->kind, sizeof(t->kind), "%s",
		    (const char *)sqlite3_column_text(st, 0));
		t->object_id = sqlite3_column_int64(st, 1);
		t->series_id = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return error("db: kcidb todo: %s",
		    sqlite3_errmsg(db_handle(db)));
	}
	return 0;
}

int
db_kcidb_add(struct db *db, const char *kind, long long object_id,
    const char *body, int submit, long long now)
{
	sqlite3_stmt *st = db_prep(db, "INSERT OR IGNORE INTO kcidb_exports "
	    "(kind, object_id, created, body, submit_state, next_try) "
	    "VALUES (?, ?, ?, ?, ?, ?)");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, kind);
	sqlite3_bind_int64(st, 2, object_id);
	sqlite3_bind_int64(st, 3, now);
	db_bind_text(st, 4, body);
	db_bind_text(st, 5, submit ? "pending" : "none");
	sqlite3_bind_int64(st, 6, now);
	return db_step_done(db, st, "kcidb add");
}

int
db_kcidb_since(struct db *db, long long since, size_t max, char ***bodies,
    long long **created, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT body, created FROM "
	    "kcidb_exports WHERE created > ? ORDER BY created, id LIMIT ?");
	size_t cap = 0;
	int rc;

	*bodies = NULL;
	*created = NULL;
	*n = 0;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*bodies = xrealloc(*bodies, cap * sizeof(**bodies));
			*created = xrealloc(*created, cap * sizeof(**created));
		}
		(*bodies)[*n] = db_col_dup(st, 0);
		(*created)[*n] = sqlite3_column_int64(st, 1);
		(*n)++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("db: kcidb since: %s",
		    sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_kcidb_due(struct db *db, long long now, long long *id, char **body,
    int *attempts)
{
	sqlite3_stmt *st = db_prep(db, "SELECT id, body, attempts FROM "
	    "kcidb_exports WHERE submit_state = 'pending' AND next_try <= ? "
	    "ORDER BY next_try, id LIMIT 1");
	int rc;

	*body = NULL;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*body = db_col_dup(st, 1);
		*attempts = sqlite3_column_int(st, 2);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return error("db: kcidb due: %s", sqlite3_errmsg(db_handle(db)));
}

int
db_kcidb_next(struct db *db, long long *when)
{
	sqlite3_stmt *st = db_prep(db, "SELECT MIN(next_try) FROM "
	    "kcidb_exports WHERE submit_state = 'pending'");
	int rc;

	*when = 0;
	if (st == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*when = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : error("db: kcidb next: %s",
	    sqlite3_errmsg(db_handle(db)));
}

int
db_kcidb_attempt(struct db *db, long long id, const char *state,
    long long next_try, const char *err)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE kcidb_exports SET "
	    "submit_state = ?, attempts = attempts + 1, next_try = ?, "
	    "last_error = ? WHERE id = ?");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, state);
	sqlite3_bind_int64(st, 2, next_try);
	db_bind_text(st, 3, err);
	sqlite3_bind_int64(st, 4, id);
	return db_step_done(db, st, "kcidb attempt");
}

int
db_kcidb_count(struct db *db, const char *state, long long *n)
{
	sqlite3_stmt *st = db_prep(db, state ? "SELECT COUNT(*) FROM "
	    "kcidb_exports WHERE submit_state = ?" :
	    "SELECT COUNT(*) FROM kcidb_exports");
	int rc;

	*n = 0;
	if (st == NULL)
		return -1;
	if (state)
		db_bind_text(st, 1, state);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : error("db: kcidb count: %s",
	    sqlite3_errmsg(db_handle(db)));
}
