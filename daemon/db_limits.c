/*
 * db_limits: the SQL of daemon/limits.c (schema/0006-submitter.sql):
 * who submitted a series, and how many uploaded bytes a submitter holds.
 */
#include <sqlite3.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "daemon/limits.h"
#include "lib/log.h"

int
db_limits_upload_bytes(struct db *db, const char *who, long long *bytes)
{
	sqlite3_stmt *st = db_prep(db, "SELECT COALESCE(SUM(length(upload)), "
	    "0) FROM series WHERE submitter=?");
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
