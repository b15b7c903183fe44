/*
 * db_limits: the SQL of daemon/limits.c (schema/0006-submitter.sql):
 * who submitted a series, and how many uploaded bytes a submitter holds.
 */
#include <sqlite3.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "daemon/db_limits.h"
#include "lib/log.h"

int
db_limits_upload_bytes(struct db *db, const char *who, long long *bytes)
{
	sqlite3_stmt *st = db_prep(db, "SELECT COALESCE((SELECT "
	    "SUM(COALESCE(length(upload), 0) + COALESCE(length(cover_body), "
	    "0)) FROM series WHERE submitter=?1), 0) + "
	    "COALESCE((SELECT SUM(length(p.message)) + SUM(length(p.diff)) "
	    "FROM patches p JOIN series s ON s.id = p.series_id WHERE "
	    "s.submitter=?1), 0)");
	int rc;

	*bytes = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, who);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*bytes = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_limits_set_submitter(struct db *db, long long id, const char *who)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE series SET submitter=? "
	    "WHERE id=?");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, who);
	sqlite3_bind_int64(st, 2, id);
	return db_step_done(db, st, NULL);
}

int
db_limits_series_upload(struct db *db, long long id, long long *bytes)
{
	sqlite3_stmt *st = db_prep(db, "SELECT COALESCE(length(upload), 0) "
	    "FROM series WHERE id=?");
	int rc;

	*bytes = 0;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*bytes = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 1;
	if (rc != SQLITE_ROW)
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	return 0;
}
