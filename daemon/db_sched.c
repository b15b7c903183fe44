/*
 * db_sched: the SQL of the A/B scheduler (schema/0004-comparisons.sql):
 * submission requests, comparisons, and the read side of a comparison's
 * jobs (rows of 0003's jobs and job_attempts, which the agent layer
 * writes; the scheduler only reads them here).  Declared in db_sched.h.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "daemon/db_sched.h"
#include "lib/log.h"
#include "lib/xalloc.h"

int
db_sched_request_set(struct db *db, long long sid, const char *matrix,
    int boots)
{
	sqlite3_stmt *st = db_prep(db, "INSERT OR REPLACE INTO sched_requests "
	    "(series_id, matrix, boots) VALUES (?,?,?)");

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, sid);
	db_bind_text(st, 2, matrix);
	if (boots > 0 || boots == SCHED_BOOTS_AUTO)
		sqlite3_bind_int(st, 3, boots);
	else
		sqlite3_bind_null(st, 3);
	return db_step_done(db, st, NULL);
}

int
db_sched_request_get(struct db *db, long long sid, char **matrix, int *boots)
{
	sqlite3_stmt *st = db_prep(db, "SELECT matrix, boots FROM sched_requests "
	    "WHERE series_id=?");
	int rc;

	*matrix = NULL;
	*boots = 0;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, sid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*matrix = db_col_dup(st, 0);
		*boots = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_sched_insert(struct db *db, const struct db_sched_new *n, long long now,
    long long *id)
{
	sqlite3_stmt *st = db_prep(db, "INSERT INTO comparisons (series_id, "
	    "base_kernel, patched_kernel, matrix, class, priority, boots, "
	    "boot_step, max_boots, looks, planned, max_replacements, created, "
	    "updated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, n->series_id);
	sqlite3_bind_int64(st, 2, n->base_kernel);
	sqlite3_bind_int64(st, 3, n->patched_kernel);
	db_bind_text(st, 4, n->matrix);
	db_bind_text(st, 5, n->class);
	sqlite3_bind_int(st, 6, n->priority);
	sqlite3_bind_int(st, 7, n->boots);
	sqlite3_bind_int(st, 8, n->boot_step);
	sqlite3_bind_int(st, 9, n->max_boots);
	sqlite3_bind_int(st, 10, n->looks);
	sqlite3_bind_int(st, 11, n->boots);
	sqlite3_bind_int(st, 12, n->max_replacements);
	sqlite3_bind_int64(st, 13, now);
	sqlite3_bind_int64(st, 14, now);
	if (db_step_done(db, st, NULL) == -1)
		return -1;
	*id = sqlite3_last_insert_rowid(db_handle(db));
	return 0;
}

int
db_sched_get(struct db *db, long long sid, long long id,
    struct sched_comparison *c)
{
	sqlite3_stmt *st;
	int rc;

	memset(c, 0, sizeof(*c));
	st = db_prep(db, sid ? "SELECT id, series_id, state, class, matrix, "
	    "summary, result, priority, boots, boot_step, max_boots, looks, "
	    "look, planned, replacements, max_replacements, created, updated, "
	    "base_kernel, patched_kernel FROM comparisons WHERE series_id=?" :
	    "SELECT id, series_id, state, class, matrix, "
	    "summary, result, priority, boots, boot_step, max_boots, looks, "
	    "look, planned, replacements, max_replacements, created, updated, "
	    "base_kernel, patched_kernel FROM comparisons WHERE id=?");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, sid ? sid : id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		c->id = sqlite3_column_int64(st, 0);
		c->series_id = sqlite3_column_int64(st, 1);
		c->state = db_col_dup(st, 2);
		c->class = db_col_dup(st, 3);
		c->matrix = db_col_dup(st, 4);
		c->summary = db_col_dup(st, 5);
		c->result = db_col_dup(st, 6);
		c->priority = sqlite3_column_int(st, 7);
		c->boots = sqlite3_column_int(st, 8);
		c->boot_step = sqlite3_column_int(st, 9);
		c->max_boots = sqlite3_column_int(st, 10);
		c->looks = sqlite3_column_int(st, 11);
		c->look = sqlite3_column_int(st, 12);
		c->planned = sqlite3_column_int(st, 13);
		c->replacements = sqlite3_column_int(st, 14);
		c->max_replacements = sqlite3_column_int(st, 15);
		c->created = sqlite3_column_int64(st, 16);
		c->updated = sqlite3_column_int64(st, 17);
		c->base.kernel_id = sqlite3_column_int64(st, 18);
		c->patched.kernel_id = sqlite3_column_int64(st, 19);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return error("db: %s", sqlite3_errmsg(db_handle(db)));
}

int
db_sched_jobs(struct db *db, long long cid, struct sched_job **out,
    size_t *n)
{
	/* replaced: a newer job of the same (side, boot) exists. */
	sqlite3_stmt *st = db_prep(db, "SELECT j.id, j.side, j.boot, j.priority, "
	    "j.state, j.reason, COALESCE(j.agent, (SELECT a.agent FROM "
	    "job_attempts a WHERE a.job_id=j.id ORDER BY a.attempt DESC "
	    "LIMIT 1)), j.attempts, EXISTS (SELECT 1 FROM jobs k WHERE "
	    "k.comparison_id=j.comparison_id AND k.side=j.side AND "
	    "k.boot=j.boot AND k.id > j.id), EXISTS (SELECT 1 FROM "
	    "job_attempts a WHERE a.job_id=j.id AND a.attempt=j.attempts AND "
	    "a.console IS NOT NULL), j.class, j.progress FROM jobs j WHERE "
	    "j.comparison_id=? ORDER BY j.id");
	struct sched_job *v = NULL, *j;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, cid);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *side = (const char *)sqlite3_column_text(st, 1);

		if (*n == cap) {
			cap = cap ? 2 * cap : 32;
			v = xrealloc(v, cap * sizeof(*v));
		}
		j = &v[(*n)++];
		memset(j, 0, sizeof(*j));
		j->id = sqlite3_column_int64(st, 0);
		snprintf(j->side, sizeof(j->side), "%s", side ? side : "");
		j->boot = sqlite3_column_int(st, 2);
		j->priority = sqlite3_column_int(st, 3);
		j->state = db_col_dup(st, 4);
		j->reason = db_col_dup(st, 5);
		j->agent = db_col_dup(st, 6);
		j->attempts = sqlite3_column_int(st, 7);
		j->replaced = sqlite3_column_int(st, 8);
		j->console = sqlite3_column_int(st, 9);
		j->class = db_col_dup(st, 10);
		j->progress = db_col_dup(st, 11);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_sched_jobs_free(v, *n);
		*n = 0;
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	}
	*out = v;
	return 0;
}

void
db_sched_jobs_free(struct sched_job *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].state);
		free(v[i].reason);
		free(v[i].agent);
		free(v[i].class);
		free(v[i].progress);
	}
	free(v);
}

int
db_sched_set_look(struct db *db, long long id, int look, int planned,
    long long now)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE comparisons SET look=?, planned=?, "
	    "updated=? WHERE id=?");

	if (st == NULL)
		return -1;
	sqlite3_bind_int(st, 1, look);
	sqlite3_bind_int(st, 2, planned);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_int64(st, 4, id);
	return db_step_done(db, st, NULL);
}

int
db_sched_add_replacement(struct db *db, long long id, long long now)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE comparisons SET "
	    "replacements = replacements + 1, updated=? WHERE id=?");

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	return db_step_done(db, st, NULL);
}

int
db_sched_finish(struct db *db, long long id, const char *state,
    const char *summary, const char *result, long long now)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE comparisons SET state=?, "
	    "summary=?, result=?, updated=? WHERE id=?");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, state);
	db_bind_text(st, 2, summary);
	db_bind_text(st, 3, result);
	sqlite3_bind_int64(st, 4, now);
	sqlite3_bind_int64(st, 5, id);
	return db_step_done(db, st, NULL);
}

int
db_sched_best_class(struct db *db, long long since, char **class, int *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT class, count(*) FROM agents WHERE "
	    "last_seen >= ? GROUP BY class ORDER BY count(*) DESC, "
	    "max(last_seen) DESC, class LIMIT 1");
	int rc;

	*class = NULL;
	*n = 0;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, since);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*class = db_col_dup(st, 0);
		*n = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_sched_class_agents(struct db *db, const char *class, long long since,
    int *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT count(*) FROM agents WHERE "
	    "class=? AND last_seen >= ?");
	int rc;

	*n = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, class);
	sqlite3_bind_int64(st, 2, since);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	return 0;
}

int
db_sched_set_priority(struct db *db, long long sid, int priority)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE series SET priority=? WHERE id=?");

	if (st == NULL)
		return -1;
	sqlite3_bind_int(st, 1, priority);
	sqlite3_bind_int64(st, 2, sid);
	return db_step_done(db, st, NULL);
}

int
db_sched_class_results(struct db *db, const char *class, long long before_id,
    int max, char ***out, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT result FROM comparisons WHERE "
	    "class=?1 AND state='done' AND result IS NOT NULL AND "
	    "(?2 = 0 OR id < ?2) ORDER BY id DESC LIMIT ?3");
	int rc;

	*out = NULL;
	*n = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, class);
	sqlite3_bind_int64(st, 2, before_id);
	sqlite3_bind_int(st, 3, max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = db_col_dup(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		while (*n)
			free((*out)[--*n]);
		free(*out);
		*out = NULL;
		return error("db: %s", sqlite3_errmsg(db_handle(db)));
	}
	return 0;
}
