/*
 * db_limits: the SQL of daemon/limits.c (schema/0006-submitter.sql,
 * 0023-stored-bytes.sql): who submitted a series, and how many bytes a
 * submitter's series keep, in the store and beside it.
 */
#include <string.h>

#include <sqlite3.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "daemon/db_limits.h"
#include "lib/log.h"

/*
 * One statement, so that the four sums are read from one snapshot.  The
 * series of who (s), their comparisons (c) and those comparisons' jobs
 * (j); a sample counts its text and 24 bytes for its numbers and row id.
 * Builds: the patched build of each series (the base build is the tree's,
 * shared by everyone who tests against that commit).
 */
int
db_limits_held(struct db *db, const char *who, struct db_limits_held *h)
{
	sqlite3_stmt *st = db_prep(db, "WITH "
	    "s AS (SELECT id FROM series WHERE submitter=?1), "
	    "c AS (SELECT id, patched_kernel FROM comparisons WHERE "
	    "series_id IN (SELECT id FROM s)), "
	    "j AS (SELECT id FROM jobs WHERE comparison_id IN "
	    "(SELECT id FROM c)) "
	    "SELECT "
	    "COALESCE((SELECT SUM(COALESCE(length(upload), 0) + "
	    "COALESCE(length(cover_body), 0)) FROM series WHERE "
	    "submitter=?1), 0) + "
	    "COALESCE((SELECT SUM(length(p.message)) + SUM(length(p.diff)) "
	    "FROM patches p WHERE p.series_id IN (SELECT id FROM s)), 0), "
	    "COALESCE((SELECT SUM(length(workload) + length(params) + "
	    "length(metric) + length(unit) + length(better) + 24) FROM "
	    "samples WHERE job_id IN (SELECT id FROM j)), 0) + "
	    "COALESCE((SELECT SUM(length(profile)) FROM lock_profiles WHERE "
	    "job_id IN (SELECT id FROM j)), 0) + "
	    "COALESCE((SELECT SUM(COALESCE(length(topology), 0) + "
	    "COALESCE(length(reason), 0) + COALESCE(length(probe_hits), 0) + "
	    "COALESCE(length(environment), 0) + COALESCE(length(splat), 0)) "
	    "FROM job_attempts WHERE job_id IN (SELECT id FROM j)), 0) + "
	    "COALESCE((SELECT SUM(COALESCE(length(result), 0) + "
	    "COALESCE(length(profiles), 0) + COALESCE(length(changes), 0) + "
	    "COALESCE(length(probes), 0) + COALESCE(length(summary), 0)) "
	    "FROM comparisons WHERE id IN (SELECT id FROM c)), 0), "
	    "COALESCE((SELECT SUM(console_bytes) FROM job_attempts WHERE "
	    "job_id IN (SELECT id FROM j)), 0), "
	    "COALESCE((SELECT SUM(COALESCE(b.artifact_bytes, 0) + "
	    "COALESCE(length(b.log_tail), 0) + COALESCE(length(b.error), 0)) "
	    "FROM series_builds sb JOIN builds b ON b.id = sb.patched_build "
	    "WHERE sb.series_id IN (SELECT id FROM s)), 0) + "
	    "COALESCE((SELECT SUM(k.size) FROM c JOIN kernels k ON "
	    "k.id = c.patched_kernel), 0)");
	int rc;

	memset(h, 0, sizeof(*h));
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, who);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		h->mail = sqlite3_column_int64(st, 0);
		h->results = sqlite3_column_int64(st, 1);
		h->consoles = sqlite3_column_int64(st, 2);
		h->builds = sqlite3_column_int64(st, 3);
	}
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
