/*
 * db_auth: SQL for series owners, cancel and re-run, and the store's
 * writability (see db_auth.h).
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/db.h"
#include "daemon/db_auth.h"
#include "daemon/db_stmt.h"
#include "lib/log.h"
#include "lib/xalloc.h"

int
db_series_set_owner(struct db *db, long long id, const char *owner)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE series SET owner=? WHERE id=?");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, owner);
	sqlite3_bind_int64(st, 2, id);
	return db_step_done(db, st, "set owner");
}

int
db_series_owner(struct db *db, long long id, char **owner)
{
	sqlite3_stmt *st = db_prep(db, "SELECT owner FROM series WHERE id=?");
	int rc;

	*owner = NULL;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*owner = db_col_dup(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : -1;
}

/* The series' state (malloc'd) in *state: 0, 1 none, -1. */
static int
db_auth_state(struct db *db, long long id, char **state)
{
	sqlite3_stmt *st = db_prep(db, "SELECT state FROM series WHERE id=?");
	int rc;

	*state = NULL;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*state = db_col_dup(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : -1;
}

/* One statement with (?1 = series id, ?2 = reason, ?3 = now). */
static int
db_auth_cancel_step(struct db *db, const char *sql, long long id,
    const char *reason)
{
	sqlite3_stmt *st = db_prep(db, sql);

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	db_bind_text(st, 2, reason);
	sqlite3_bind_int64(st, 3, (long long)time(NULL));
	return db_step_done(db, st, "cancel");
}

#define DB_AUTH_JOBS "(SELECT j.id FROM jobs j JOIN comparisons c ON " \
	"c.id = j.comparison_id WHERE c.series_id = ?1 AND j.state IN " \
	"('queued', 'leased'))"

int
db_series_cancel(struct db *db, long long id, const char *who, char **state)
{
	char *reason = xasprintf("cancelled by %s", who);
	int rc;

	*state = NULL;
	if (db_begin(db) < 0) {
		free(reason);
		return -1;
	}
	if ((rc = db_auth_state(db, id, state)) != 0)
		goto rollback;
	if (!strcmp(*state, "done") || !strcmp(*state, "failed") ||
	    !strcmp(*state, "cancelled")) {
		rc = 2;
		goto rollback;
	}
	free(*state);
	*state = NULL;
	rc = -1;
	if (db_auth_cancel_step(db, "UPDATE agents SET state='idle', "
	    "job_id=NULL WHERE job_id IN " DB_AUTH_JOBS, id, reason) < 0 ||
	    db_auth_cancel_step(db, "UPDATE jobs SET state='cancelled', "
	    "reason=?2, lease_expires=NULL, updated=?3 WHERE id IN "
	    DB_AUTH_JOBS, id, reason) < 0 ||
	    db_auth_cancel_step(db, "UPDATE comparisons SET state='cancelled', "
	    "summary=?2, updated=?3 WHERE series_id=?1 AND state='running'",
	    id, reason) < 0 ||
	    db_auth_cancel_step(db, "UPDATE series SET state='cancelled', "
	    "error=?2, rest=NULL, updated=?3 WHERE id=?1", id, reason) < 0)
		goto rollback;
	free(reason);
	return db_commit(db) < 0 ? -1 : 0;
rollback:
	db_rollback(db);
	free(reason);
	return rc;
}

int
db_series_rerun(struct db *db, long long id, const char *owner,
    long long *nid)
{
	sqlite3_stmt *st;
	int rc = -1, step;

	if (db_begin(db) < 0)
		return -1;
	st = db_prep(db, "SELECT source = 'upload' AND upload IS NULL FROM "
	    "series WHERE id=?");
	if (st == NULL)
		goto rollback;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW && sqlite3_column_int(st, 0))
		rc = 2;
	else if (step == SQLITE_DONE)
		rc = 1;
	else if (step == SQLITE_ROW)
		rc = 0;
	sqlite3_finalize(st);
	if (rc != 0)
		goto rollback;
	rc = -1;
	st = db_prep(db, "INSERT INTO series (source, lore_base, lore_list, "
	    "msgid, req_version, req_base, upload, priority, owner, state, "
	    "submitted, updated) SELECT source, lore_base, lore_list, msgid, "
	    "req_version, req_base, upload, priority, ?2, 'queued', ?3, ?3 "
	    "FROM series WHERE id=?1");
	if (st == NULL)
		goto rollback;
	sqlite3_bind_int64(st, 1, id);
	db_bind_text(st, 2, owner);
	sqlite3_bind_int64(st, 3, (long long)time(NULL));
	if (db_step_done(db, st, "rerun") < 0)
		goto rollback;
	*nid = sqlite3_last_insert_rowid(db_handle(db));
	st = db_prep(db, "INSERT INTO sched_requests (series_id, matrix, "
	    "boots) SELECT ?2, matrix, boots FROM sched_requests WHERE "
	    "series_id=?1");
	if (st == NULL)
		goto rollback;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, *nid);
	if (db_step_done(db, st, "rerun request") < 0)
		goto rollback;
	return db_commit(db) < 0 ? -1 : 0;
rollback:
	db_rollback(db);
	return rc;
}

/* -1 with "path: cause" when path cannot be written. */
static int
db_auth_path_writable(const char *path, struct buf *err)
{
	if (access(path, W_OK) == 0)
		return 0;
	buf_addf(err, "%s: %s", path, strerror(errno));
	return -1;
}

int
db_store_writable(struct db *db, const char *data_dir, struct buf *err)
{
	const char *file = sqlite3_db_filename(db_handle(db), "main");
	char *dir, *slash;
	int rc;

	if (file && *file && sqlite3_db_readonly(db_handle(db), "main") == 1) {
		buf_addf(err, "%s: the store is open read-only", file);
		return -1;
	}
	if (file && *file) {
		if (db_auth_path_writable(file, err) < 0)
			return -1;
		dir = xstrdup(file);
		if ((slash = strrchr(dir, '/')))
			*slash = '\0';
		rc = slash ? db_auth_path_writable(dir, err) : 0;
		free(dir);
		if (rc < 0)
			return -1;
	}
	if (data_dir && db_auth_path_writable(data_dir, err) < 0)
		return -1;
	return 0;
}
