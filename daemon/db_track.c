/*
 * db_track: SQL of the nightly runs, history, regressions and bisect steps
 * (see db_track.h).  Statements are parameterised; strings read back are
 * owned by the structs.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "daemon/db_track.h"
#include "lib/log.h"
#include "lib/xalloc.h"

static int
dbt_err(struct db *db, sqlite3_stmt *st)
{
	error("db: %s", sqlite3_errmsg(db_handle(db)));
	if (st)
		sqlite3_finalize(st);
	return -1;
}

/* ---- releasing --------------------------------------------------------- */

void
track_run_release(struct track_run *r)
{
	free(r->track);
	free(r->trigger);
	free(r->state);
	free(r->error);
	free(r->note);
	free(r->head);
	free(r->prev_head);
	free(r->build_key);
	free(r->build_dir);
	memset(r, 0, sizeof(*r));
}

void
track_runs_free(struct track_run *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		track_run_release(&r[i]);
	free(r);
}

void
track_points_free(struct track_point *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].workload);
		free(p[i].params);
		free(p[i].metric);
		free(p[i].unit);
	}
	free(p);
}

void
track_regression_release(struct track_regression *g)
{
	free(g->track);
	free(g->tree);
	free(g->workload);
	free(g->params);
	free(g->metric);
	free(g->unit);
	free(g->good_commit);
	free(g->bad_commit);
	free(g->state);
	free(g->error);
	free(g->first_bad);
	free(g->subject);
	free(g->author);
	free(g->link);
	free(g->suspects);
	free(g->verified);
	memset(g, 0, sizeof(*g));
}

void
track_regressions_free(struct track_regression *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		track_regression_release(&g[i]);
	free(g);
}

void
bisect_steps_free(struct bisect_step *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(s[i].commit_id);
		free(s[i].state);
		free(s[i].verdict);
		free(s[i].reason);
		free(s[i].role);
	}
	free(s);
}

void
track_reg_metrics_free(struct track_reg_metric *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(m[i].workload);
		free(m[i].params);
		free(m[i].metric);
		free(m[i].unit);
		free(m[i].why);
	}
	free(m);
}

/* ---- tracks and runs ---------------------------------------------------- */

int
db_track_since(struct db *db, const char *track, long long now,
    long long *since)
{
	sqlite3_stmt *st = db_prep(db, "INSERT OR IGNORE INTO tracks (name, "
	    "since) VALUES (?, ?)");

	if (!st)
		return -1;
	db_bind_text(st, 1, track);
	sqlite3_bind_int64(st, 2, now);
	if (db_step_done(db, st, "track") < 0)
		return -1;
	st = db_prep(db, "SELECT since FROM tracks WHERE name=?");
	if (!st)
		return -1;
	db_bind_text(st, 1, track);
	if (sqlite3_step(st) != SQLITE_ROW)
		return dbt_err(db, st);
	*since = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

#define RUN_COLS "id, track, trigger, state, error, note, head, prev_head, " \
	"build_key, build_dir, kernel_id, boots, created, updated"

static void
dbt_run_read(sqlite3_stmt *st, struct track_run *r)
{
	r->id = sqlite3_column_int64(st, 0);
	r->track = db_col_dup(st, 1);
	r->trigger = db_col_dup(st, 2);
	r->state = db_col_dup(st, 3);
	r->error = db_col_dup(st, 4);
	r->note = db_col_dup(st, 5);
	r->head = db_col_dup(st, 6);
	r->prev_head = db_col_dup(st, 7);
	r->build_key = db_col_dup(st, 8);
	r->build_dir = db_col_dup(st, 9);
	r->kernel_id = sqlite3_column_int64(st, 10);
	r->boots = sqlite3_column_int(st, 11);
	r->created = sqlite3_column_int64(st, 12);
	r->updated = sqlite3_column_int64(st, 13);
}

/* Reads every row of st into *out. */
static int
dbt_runs_all(struct db *db, sqlite3_stmt *st, struct track_run **out,
    size_t *n)
{
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		memset(&(*out)[*n], 0, sizeof(**out));
		dbt_run_read(st, &(*out)[(*n)++]);
	}
	if (rc != SQLITE_DONE)
		return dbt_err(db, st);
	sqlite3_finalize(st);
	return 0;
}

int
db_track_run_new(struct db *db, const char *track, const char *trigger,
    int boots, long long now, long long *id, int *existing)
{
	sqlite3_stmt *st;
	int rc;

	*existing = 0;
	if (db_begin(db) < 0)
		return -1;
	st = db_prep(db, "SELECT id FROM track_runs WHERE track=? AND state "
	    "NOT IN ('done', 'failed') ORDER BY id LIMIT 1");
	if (!st)
		goto fail;
	db_bind_text(st, 1, track);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*existing = 1;
		sqlite3_finalize(st);
		return db_commit(db);
	}
	sqlite3_finalize(st);
	st = db_prep(db, "INSERT INTO track_runs (track, trigger, boots, "
	    "created, updated) VALUES (?,?,?,?,?)");
	if (!st)
		goto fail;
	db_bind_text(st, 1, track);
	db_bind_text(st, 2, trigger);
	sqlite3_bind_int(st, 3, boots);
	sqlite3_bind_int64(st, 4, now);
	sqlite3_bind_int64(st, 5, now);
	if (db_step_done(db, st, "track run") < 0)
		goto fail;
	*id = sqlite3_last_insert_rowid(db_handle(db));
	return db_commit(db);
fail:
	db_rollback(db);
	return -1;
}

int
db_track_run_get(struct db *db, long long id, struct track_run *r)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " RUN_COLS " FROM track_runs "
	    "WHERE id=?");
	int rc;

	memset(r, 0, sizeof(*r));
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		dbt_run_read(st, r);
	else if (rc != SQLITE_DONE)
		return dbt_err(db, st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : 1;
}

int
db_track_runs(struct db *db, const char *track, size_t max,
    struct track_run **out, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " RUN_COLS " FROM track_runs "
	    "WHERE track=? ORDER BY id DESC LIMIT ?");

	if (!st)
		return -1;
	db_bind_text(st, 1, track);
	sqlite3_bind_int64(st, 2, max ? (long long)max : -1);
	return dbt_runs_all(db, st, out, n);
}

int
db_track_runs_active(struct db *db, struct track_run **out, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " RUN_COLS " FROM track_runs "
	    "WHERE state NOT IN ('done', 'failed') ORDER BY id");

	if (!st)
		return -1;
	return dbt_runs_all(db, st, out, n);
}

int
db_track_run_save(struct db *db, struct track_run *r, long long now)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE track_runs SET state=?, "
	    "error=?, note=?, head=?, prev_head=?, build_key=?, build_dir=?, "
	    "kernel_id=?, updated=?, boots=? WHERE id=?");

	if (!st)
		return -1;
	r->updated = now;
	db_bind_text(st, 1, r->state);
	db_bind_text(st, 2, r->error);
	db_bind_text(st, 3, r->note);
	db_bind_text(st, 4, r->head);
	db_bind_text(st, 5, r->prev_head);
	db_bind_text(st, 6, r->build_key);
	db_bind_text(st, 7, r->build_dir);
	sqlite3_bind_int64(st, 8, r->kernel_id);
	sqlite3_bind_int64(st, 9, now);
	sqlite3_bind_int(st, 10, r->boots);
	sqlite3_bind_int64(st, 11, r->id);
	return db_step_done(db, st, "track run");
}

int
db_track_last_timer(struct db *db, const char *track, long long *when)
{
	sqlite3_stmt *st = db_prep(db, "SELECT MAX(created) FROM track_runs "
	    "WHERE track=? AND trigger='timer'");

	*when = 0;
	if (!st)
		return -1;
	db_bind_text(st, 1, track);
	if (sqlite3_step(st) != SQLITE_ROW)
		return dbt_err(db, st);
	*when = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int
db_track_last_tested(struct db *db, const char *track, struct track_run *r)
{
	return db_track_tested(db, track, 1, r);
}

int
db_track_tested(struct db *db, const char *track, int newest,
    struct track_run *r)
{
	sqlite3_stmt *st = db_prep(db, newest ? "SELECT " RUN_COLS " FROM "
	    "track_runs WHERE track=? AND state='done' AND kernel_id > 0 "
	    "ORDER BY id DESC LIMIT 1" : "SELECT " RUN_COLS " FROM "
	    "track_runs WHERE track=? AND state='done' AND kernel_id > 0 "
	    "AND build_key IS NOT NULL ORDER BY id LIMIT 1");
	int rc;

	memset(r, 0, sizeof(*r));
	if (!st)
		return -1;
	db_bind_text(st, 1, track);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		dbt_run_read(st, r);
	else if (rc != SQLITE_DONE)
		return dbt_err(db, st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : 1;
}

/* ---- jobs and points ---------------------------------------------------- */

int
db_track_job_add(struct db *db, long long run_id, long long step_id,
    long long job_id, int boot)
{
	sqlite3_stmt *st = db_prep(db, "INSERT INTO track_jobs (run_id, "
	    "step_id, job_id, boot) VALUES (?,?,?,?)");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, step_id);
	sqlite3_bind_int64(st, 3, job_id);
	sqlite3_bind_int(st, 4, boot);
	return db_step_done(db, st, "track job");
}

int
db_track_jobs(struct db *db, long long run_id, long long step_id,
    long long **jobs, int **boots, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT job_id, boot FROM track_jobs "
	    "WHERE run_id=? AND step_id=? ORDER BY boot");
	size_t cap = 0;
	int rc;

	*jobs = NULL;
	*boots = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, step_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*jobs = xrealloc(*jobs, cap * sizeof(**jobs));
			*boots = xrealloc(*boots, cap * sizeof(**boots));
		}
		(*jobs)[*n] = sqlite3_column_int64(st, 0);
		(*boots)[(*n)++] = sqlite3_column_int(st, 1);
	}
	if (rc != SQLITE_DONE)
		return dbt_err(db, st);
	sqlite3_finalize(st);
	return 0;
}

int
db_track_points_add(struct db *db, const struct track_point *p, size_t n)
{
	sqlite3_stmt *st;
	size_t i;

	if (db_begin(db) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		st = db_prep(db, "INSERT INTO track_points (run_id, step_id, "
		    "boot, workload, params, metric, unit, better, value) "
		    "VALUES (?,?,?,?,?,?,?,?,?)");
		if (!st)
			goto fail;
		sqlite3_bind_int64(st, 1, p[i].run_id);
		sqlite3_bind_int64(st, 2, p[i].step_id);
		sqlite3_bind_int(st, 3, p[i].boot);
		db_bind_text(st, 4, p[i].workload);
		db_bind_text(st, 5, p[i].params);
		db_bind_text(st, 6, p[i].metric);
		db_bind_text(st, 7, p[i].unit);
		sqlite3_bind_int(st, 8, p[i].better);
		sqlite3_bind_double(st, 9, p[i].value);
		if (db_step_done(db, st, "track point") < 0)
			goto fail;
	}
	return db_commit(db);
fail:
	db_rollback(db);
	return -1;
}

static int
dbt_points_all(struct db *db, sqlite3_stmt *st, struct track_point **out,
    size_t *n)
{
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct track_point *p;

		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		p = &(*out)[(*n)++];
		p->run_id = sqlite3_column_int64(st, 0);
		p->step_id = sqlite3_column_int64(st, 1);
		p->boot = sqlite3_column_int(st, 2);
		p->workload = db_col_dup(st, 3);
		p->params = db_col_dup(st, 4);
		p->metric = db_col_dup(st, 5);
		p->unit = db_col_dup(st, 6);
		p->better = sqlite3_column_int(st, 7);
		p->value = sqlite3_column_double(st, 8);
	}
	if (rc != SQLITE_DONE)
		return dbt_err(db, st);
	sqlite3_finalize(st);
	return 0;
}

#define POINT_COLS "p.run_id, p.step_id, p.boot, p.workload, p.params, " \
	"p.metric, p.unit, p.better, p.value"

int
db_track_points_of(struct db *db, long long run_id, long long step_id,
    struct track_point **out, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " POINT_COLS " FROM "
	    "track_points p WHERE p.run_id=? AND p.step_id=? ORDER BY "
	    "p.workload, p.params, p.metric, p.boot");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, step_id);
	return dbt_points_all(db, st, out, n);
}

int
db_track_history(struct db *db, const char *track, struct track_point **out,
    size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " POINT_COLS " FROM "
	    "track_points p JOIN track_runs r ON r.id = p.run_id WHERE "
	    "r.track=? AND r.state='done' AND p.step_id=0 ORDER BY "
	    "p.workload, p.params, p.metric, p.run_id, p.boot");

	if (!st)
		return -1;
	db_bind_text(st, 1, track);
	return dbt_points_all(db, st, out, n);
}

/* ---- regressions and steps ----------------------------------------------- */

#define REG_COLS "id, track, tree, workload, params, metric, unit, better, " \
	"good_run, bad_run, good_commit, bad_commit, pct_change, ci_lo, " \
	"ci_hi, p_value, state, error, first_bad, subject, author, link, " \
	"suspects, created, updated, verified"

static void
dbt_reg_read(sqlite3_stmt *st, struct track_regression *g)
{
	g->id = sqlite3_column_int64(st, 0);
	g->track = db_col_dup(st, 1);
	g->tree = db_col_dup(st, 2);
	g->workload = db_col_dup(st, 3);
	g->params = db_col_dup(st, 4);
	g->metric = db_col_dup(st, 5);
	g->unit = db_col_dup(st, 6);
	g->better = sqlite3_column_int(st, 7);
	g->good_run = sqlite3_column_int64(st, 8);
	g->bad_run = sqlite3_column_int64(st, 9);
	g->good_commit = db_col_dup(st, 10);
	g->bad_commit = db_col_dup(st, 11);
	g->pct_change = sqlite3_column_double(st, 12);
	g->ci_lo = sqlite3_column_double(st, 13);
	g->ci_hi = sqlite3_column_double(st, 14);
	g->p_value = sqlite3_column_double(st, 15);
	g->state = db_col_dup(st, 16);
	g->error = db_col_dup(st, 17);
	g->first_bad = db_col_dup(st, 18);
	g->subject = db_col_dup(st, 19);
	g->author = db_col_dup(st, 20);
	g->link = db_col_dup(st, 21);
	g->suspects = db_col_dup(st, 22);
	g->created = sqlite3_column_int64(st, 23);
	g->updated = sqlite3_column_int64(st, 24);
	g->verified = db_col_dup(st, 25);
}

int
db_track_regression_add(struct db *db, const struct track_regression *g,
    long long now, long long *id)
{
	sqlite3_stmt *st = db_prep(db, "INSERT INTO regressions (track, tree, "
	    "workload, params, metric, unit, better, good_run, bad_run, "
	    "good_commit, bad_commit, pct_change, ci_lo, ci_hi, p_value, "
	    "created, updated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");

	if (!st)
		return -1;
	db_bind_text(st, 1, g->track);
	db_bind_text(st, 2, g->tree);
	db_bind_text(st, 3, g->workload);
	db_bind_text(st, 4, g->params);
	db_bind_text(st, 5, g->metric);
	db_bind_text(st, 6, g->unit);
	sqlite3_bind_int(st, 7, g->better);
	sqlite3_bind_int64(st, 8, g->good_run);
	sqlite3_bind_int64(st, 9, g->bad_run);
	db_bind_text(st, 10, g->good_commit);
	db_bind_text(st, 11, g->bad_commit);
	sqlite3_bind_double(st, 12, g->pct_change);
	sqlite3_bind_double(st, 13, g->ci_lo);
	sqlite3_bind_double(st, 14, g->ci_hi);
	sqlite3_bind_double(st, 15, g->p_value);
	sqlite3_bind_int64(st, 16, now);
	sqlite3_bind_int64(st, 17, now);
	if (db_step_done(db, st, "regression") < 0)
		return -1;
	*id = sqlite3_last_insert_rowid(db_handle(db));
	return 0;
}

int
db_track_regression_get(struct db *db, long long id,
    struct track_regression *g)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " REG_COLS " FROM regressions "
	    "WHERE id=?");
	int rc;

	memset(g, 0, sizeof(*g));
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		dbt_reg_read(st, g);
	else if (rc != SQLITE_DONE)
		return dbt_err(db, st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : 1;
}

int
db_track_regressions(struct db *db, const char *track,
    struct track_regression **out, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " REG_COLS " FROM regressions "
	    "WHERE ?1 IS NULL OR track=?1 ORDER BY id DESC");
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	db_bind_text(st, 1, track);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		memset(&(*out)[*n], 0, sizeof(**out));
		dbt_reg_read(st, &(*out)[(*n)++]);
	}
	if (rc != SQLITE_DONE)
		return dbt_err(db, st);
	sqlite3_finalize(st);
	return 0;
}

int
db_track_regression_save(struct db *db, struct track_regression *g,
    long long now)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE regressions SET state=?, "
	    "error=?, first_bad=?, subject=?, author=?, link=?, suspects=?, "
	    "updated=?, verified=? WHERE id=?");

	if (!st)
		return -1;
	g->updated = now;
	db_bind_text(st, 1, g->state);
	db_bind_text(st, 2, g->error);
	db_bind_text(st, 3, g->first_bad);
	db_bind_text(st, 4, g->subject);
	db_bind_text(st, 5, g->author);
	db_bind_text(st, 6, g->link);
	db_bind_text(st, 7, g->suspects);
	sqlite3_bind_int64(st, 8, now);
	db_bind_text(st, 9, g->verified);
	sqlite3_bind_int64(st, 10, g->id);
	return db_step_done(db, st, "regression");
}

int
db_track_reg_metric_add(struct db *db, long long regression_id,
    const struct track_reg_metric *m)
{
	sqlite3_stmt *st = db_prep(db, "INSERT OR IGNORE INTO "
	    "regression_metrics (regression_id, workload, params, metric, "
	    "unit, better, pct_change, ci_lo, ci_hi, p_value, carries, why) "
	    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, regression_id);
	db_bind_text(st, 2, m->workload);
	db_bind_text(st, 3, m->params);
	db_bind_text(st, 4, m->metric);
	db_bind_text(st, 5, m->unit);
	sqlite3_bind_int(st, 6, m->better);
	sqlite3_bind_double(st, 7, m->pct_change);
	sqlite3_bind_double(st, 8, m->ci_lo);
	sqlite3_bind_double(st, 9, m->ci_hi);
	sqlite3_bind_double(st, 10, m->p_value);
	sqlite3_bind_int(st, 11, m->carries);
	db_bind_text(st, 12, m->why);
	return db_step_done(db, st, "regression metric");
}

int
db_track_reg_metrics(struct db *db, long long regression_id,
    struct track_reg_metric **out, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT m.workload, m.params, "
	    "m.metric, m.unit, m.better, m.pct_change, m.ci_lo, m.ci_hi, "
	    "m.p_value, m.carries, m.why FROM regression_metrics m JOIN "
	    "regressions r ON r.id = m.regression_id WHERE m.regression_id=? "
	    "ORDER BY (m.workload = r.workload AND m.params = r.params AND "
	    "m.metric = r.metric) DESC, m.carries DESC, abs(m.pct_change) "
	    "DESC");
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, regression_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct track_reg_metric *m;

		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		m = &(*out)[(*n)++];
		m->workload = db_col_dup(st, 0);
		m->params = db_col_dup(st, 1);
		m->metric = db_col_dup(st, 2);
		m->unit = db_col_dup(st, 3);
		m->better = sqlite3_column_int(st, 4);
		m->pct_change = sqlite3_column_double(st, 5);
		m->ci_lo = sqlite3_column_double(st, 6);
		m->ci_hi = sqlite3_column_double(st, 7);
		m->p_value = sqlite3_column_double(st, 8);
		m->carries = sqlite3_column_int(st, 9);
		m->why = db_col_dup(st, 10);
	}
	if (rc != SQLITE_DONE)
		return dbt_err(db, st);
	sqlite3_finalize(st);
	return 0;
}

int
db_track_step_add(struct db *db, long long regression_id, const char *commit,
    const char *role, int boots, long long now, long long *id)
{
	sqlite3_stmt *st = db_prep(db, "INSERT INTO bisect_steps "
	    "(regression_id, commit_id, boots, created, updated, role) VALUES "
	    "(?,?,?,?,?,?)");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, regression_id);
	db_bind_text(st, 2, commit);
	sqlite3_bind_int(st, 3, boots);
	sqlite3_bind_int64(st, 4, now);
	sqlite3_bind_int64(st, 5, now);
	db_bind_text(st, 6, role);
	if (db_step_done(db, st, "bisect step") < 0)
		return -1;
	*id = sqlite3_last_insert_rowid(db_handle(db));
	return 0;
}

int
db_track_steps(struct db *db, long long regression_id,
    struct bisect_step **out, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT id, regression_id, commit_id, "
	    "state, verdict, reason, kernel_id, boots, pct_vs_good, "
	    "ci_good_lo, ci_good_hi, pct_vs_bad, ci_bad_lo, ci_bad_hi, "
	    "created, updated, role FROM bisect_steps WHERE regression_id=? "
	    "ORDER BY id");
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, regression_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct bisect_step *s;

		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		s = &(*out)[(*n)++];
		s->id = sqlite3_column_int64(st, 0);
		s->regression_id = sqlite3_column_int64(st, 1);
		s->commit_id = db_col_dup(st, 2);
		s->state = db_col_dup(st, 3);
		s->verdict = db_col_dup(st, 4);
		s->reason = db_col_dup(st, 5);
		s->kernel_id = sqlite3_column_int64(st, 6);
		s->boots = sqlite3_column_int(st, 7);
		s->pct_vs_good = sqlite3_column_double(st, 8);
		s->ci_good_lo = sqlite3_column_double(st, 9);
		s->ci_good_hi = sqlite3_column_double(st, 10);
		s->pct_vs_bad = sqlite3_column_double(st, 11);
		s->ci_bad_lo = sqlite3_column_double(st, 12);
		s->ci_bad_hi = sqlite3_column_double(st, 13);
		s->created = sqlite3_column_int64(st, 14);
		s->updated = sqlite3_column_int64(st, 15);
		s->role = db_col_dup(st, 16);
	}
	if (rc != SQLITE_DONE)
		return dbt_err(db, st);
	sqlite3_finalize(st);
	return 0;
}

int
db_track_step_save(struct db *db, struct bisect_step *s, long long now)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE bisect_steps SET state=?, "
	    "verdict=?, reason=?, kernel_id=?, boots=?, pct_vs_good=?, "
	    "ci_good_lo=?, ci_good_hi=?, pct_vs_bad=?, ci_bad_lo=?, "
	    "ci_bad_hi=?, updated=? WHERE id=?");

	if (!st)
		return -1;
	s->updated = now;
	db_bind_text(st, 1, s->state);
	db_bind_text(st, 2, s->verdict);
	db_bind_text(st, 3, s->reason);
	sqlite3_bind_int64(st, 4, s->kernel_id);
	sqlite3_bind_int(st, 5, s->boots);
	sqlite3_bind_double(st, 6, s->pct_vs_good);
	sqlite3_bind_double(st, 7, s->ci_good_lo);
	sqlite3_bind_double(st, 8, s->ci_good_hi);
	sqlite3_bind_double(st, 9, s->pct_vs_bad);
	sqlite3_bind_double(st, 10, s->ci_bad_lo);
	sqlite3_bind_double(st, 11, s->ci_bad_hi);
	sqlite3_bind_int64(st, 12, now);
	sqlite3_bind_int64(st, 13, s->id);
	return db_step_done(db, st, "bisect step");
}
