/*
 * db_report: the SQL of the comparison's stored results (daemon/report_cache.c)
 * (schema/0004-comparisons.sql result, 0007 profiles): what a finished
 * comparison's statistics and lock-profile diff are, once computed, and
 * the key a live comparison's cached result is valid for.
 */
#include <sqlite3.h>
#include <stdio.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "daemon/db_report.h"
#include "lib/log.h"

int
db_report_key(struct db *db, long long cid, char *key, size_t sz)
{
	sqlite3_stmt *st = db_prep(db, "SELECT "
	    "(SELECT COUNT(*) FROM jobs WHERE comparison_id=?1 "
	    "AND state='done'), "
	    "(SELECT COALESCE(MAX(id), 0) FROM jobs WHERE comparison_id=?1), "
	    "(SELECT COUNT(*) FROM samples s JOIN jobs j ON j.id=s.job_id "
	    "WHERE j.comparison_id=?1), "
	    "(SELECT COALESCE(MAX(s.id), 0) FROM samples s JOIN jobs j "
	    "ON j.id=s.job_id WHERE j.comparison_id=?1), "
	    "(SELECT COALESCE(MAX(p.id), 0) FROM lock_profiles p JOIN jobs j "
	    "ON j.id=p.job_id WHERE j.comparison_id=?1)");
	int rc;

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, cid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(key, sz, "done=%lld,jobs=%lld,samples=%lld,last=%lld,"
		    "profile=%lld", sqlite3_column_int64(st, 0),
		    sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
		    sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_report_stored(struct db *db, long long cid, char **result,
    char **profiles)
{
	sqlite3_stmt *st = db_prep(db, "SELECT result, profiles FROM "
	    "comparisons WHERE id=?");
	int rc;

	*result = *profiles = NULL;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, cid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*result = db_col_dup(st, 0);
		*profiles = db_col_dup(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_report_store(struct db *db, long long cid, const char *result,
    const char *profiles)
{
	/* the scheduler's result, when it stored one, stays the result */
	sqlite3_stmt *st = db_prep(db, "UPDATE comparisons SET "
	    "result=COALESCE(result, ?), profiles=? WHERE id=?");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, result);
	db_bind_text(st, 2, profiles);
	sqlite3_bind_int64(st, 3, cid);
	return db_step_done(db, st, "store a comparison's result");
}

int
db_data_version(struct db *db, unsigned long long *v)
{
	sqlite3 *h = db_handle(db);
	sqlite3_stmt *st;
	int rc;

	/* data_version moves with other connections' commits, total_changes
	   with this one's own */
	if (sqlite3_prepare_v2(h, "PRAGMA data_version", -1, &st, NULL) !=
	    SQLITE_OK)
		return error("db: %s", sqlite3_errmsg(h));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = ((unsigned long long)sqlite3_column_int64(st, 0) << 32) ^
		    (unsigned long long)sqlite3_total_changes64(h);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : error("db: %s", sqlite3_errmsg(h));
}
