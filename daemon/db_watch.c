/*
 * db_watch: the SQL of daemon/watch.c (schema/0012-watch.sql,
 * 0016-watch-author.sql).
 */
#include <stdio.h>

#include <sqlite3.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "daemon/db_watch.h"
#include "lib/log.h"

int
db_watch_seen(struct db *db, const char *watch, const char *msgid)
{
	sqlite3_stmt *st = db_prep(db, "SELECT 1 FROM watch_seen WHERE "
	    "watch=? AND msgid=?");
	int rc;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, watch);
	db_bind_text(st, 2, msgid);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return error("db: watch_seen: %s", sqlite3_errmsg(db_handle(db)));
}

int
db_watch_mark(struct db *db, const char *watch, const char *msgid,
    const char *outcome, int64_t now)
{
	sqlite3_stmt *st = db_prep(db, "INSERT OR IGNORE INTO watch_seen "
	    "(watch, msgid, seen, outcome) VALUES (?, ?, ?, ?)");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, watch);
	db_bind_text(st, 2, msgid);
	sqlite3_bind_int64(st, 3, now);
	db_bind_text(st, 4, outcome);
	return db_step_done(db, st, "watch_seen");
}

int
db_watch_count_since(struct db *db, const char *watch, int64_t since,
    long long *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT COUNT(*) FROM watch_series "
	    "WHERE watch=? AND submitted>=?");
	int rc;

	*n = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, watch);
	sqlite3_bind_int64(st, 2, since);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("db: watch count: %s",
		    sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_watch_count_author_since(struct db *db, const char *watch,
    const char *author, int64_t since, long long *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT COUNT(*) FROM watch_series "
	    "WHERE watch=? AND author=? AND submitted>=?");
	int rc;

	*n = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, watch);
	db_bind_text(st, 2, author);
	sqlite3_bind_int64(st, 3, since);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("db: watch author count: %s",
		    sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_watch_submitted(struct db *db, int64_t series_id, const char *watch,
    const struct db_watch_key *k, int version, int priority, int64_t now)
{
	sqlite3_stmt *st;
	char origin[160];

	if (db_begin(db) < 0)
		return -1;
	snprintf(origin, sizeof(origin), "watch %s", watch);
	st = db_prep(db, "UPDATE series SET origin=?, priority=? WHERE id=?");
	if (st) {
		db_bind_text(st, 1, origin);
		sqlite3_bind_int(st, 2, priority);
		sqlite3_bind_int64(st, 3, series_id);
	}
	if (db_step_done(db, st, "series origin") < 0)
		goto fail;
	st = db_prep(db, "INSERT INTO watch_series (series_id, watch, "
	    "subject_key, version, submitted, author, change_id) VALUES "
	    "(?, ?, ?, ?, ?, ?, ?)");
	if (st) {
		sqlite3_bind_int64(st, 1, series_id);
		db_bind_text(st, 2, watch);
		db_bind_text(st, 3, k->subject_key);
		sqlite3_bind_int(st, 4, version);
		sqlite3_bind_int64(st, 5, now);
		db_bind_text(st, 6, k->author);
		db_bind_text(st, 7, k->change_id);
	}
	if (db_step_done(db, st, "watch_series") < 0)
		goto fail;
	return db_commit(db);
fail:
	db_rollback(db);
	return -1;
}

int
db_watch_older(struct db *db, const char *watch,
    const struct db_watch_key *k, int version, int64_t *ids, size_t max,
    size_t *n)
{
	/* the same author always: a subject or a change-id anyone may copy */
	sqlite3_stmt *st = db_prep(db, "SELECT w.series_id FROM watch_series w "
	    "JOIN series s ON s.id = w.series_id WHERE w.watch=?1 AND "
	    "w.author=?2 AND (w.subject_key=?3 OR w.change_id=?4) AND "
	    "w.version<?5 AND s.state IN ('queued', 'fetched', 'applied', "
	    "'built') ORDER BY w.series_id");
	int rc;

	*n = 0;
	if (st == NULL)
		return -1;
	if (!k->author || !*k->author) {
		sqlite3_finalize(st);
		return 0;		/* nobody known: nothing to replace */
	}
	db_bind_text(st, 1, watch);
	db_bind_text(st, 2, k->author);
	db_bind_text(st, 3, k->subject_key);
	db_bind_text(st, 4, k->change_id);
	sqlite3_bind_int(st, 5, version);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max)
		ids[(*n)++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("db: watch older: %s",
		    sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_watch_counts(struct db *db, const char *watch, long long *seen,
    long long *submitted)
{
	sqlite3_stmt *st = db_prep(db, "SELECT (SELECT COUNT(*) FROM "
	    "watch_seen WHERE watch=?1), (SELECT COUNT(*) FROM watch_series "
	    "WHERE watch=?1)");
	int rc;

	*seen = *submitted = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, watch);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*seen = sqlite3_column_int64(st, 0);
		*submitted = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("db: watch counts: %s",
		    sqlite3_errmsg(db_handle(db)));
	return 0;
}
