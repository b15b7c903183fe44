/*
 * db_build: SQL for trees, builds, series_builds and patch_apply (see
 * db_build.h and schema/0002-trees-builds.sql).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "daemon/db_build.h"
#include "core/series.h"
#include "lib/log.h"
#include "lib/xalloc.h"

static int
dbb_fail(struct db *db, const char *what)
{
	return error("db: %s: %s", what, sqlite3_errmsg(db_handle(db)));
}

void
db_build_release(struct db_build *b)
{
	free(b->key);
	free(b->tree);
	free(b->commit_id);
	free(b->config);
	free(b->state);
	free(b->dir);
	free(b->sha256);
	free(b->error);
	free(b->log_tail);
	memset(b, 0, sizeof(*b));
}

void
db_series_build_release(struct db_series_build *s)
{
	free(s->tree);
	free(s->base_commit);
	free(s->base_kind);
	free(s->base_reason);
	free(s->patched_commit);
	free(s->ref);
	for (size_t i = 0; i < s->npaths; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->counters);
	memset(s, 0, sizeof(*s));
}

int
db_build_tree_upsert(struct db *db, const char *name, const char *url,
    const char *path, const char *branch)
{
	sqlite3_stmt *st = db_prep(db, "INSERT INTO trees (name, url, path, "
	    "branch) VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
	    "url = excluded.url, path = excluded.path, "
	    "branch = excluded.branch");

	if (!st)
		return -1;
	db_bind_text(st, 1, name);
	db_bind_text(st, 2, url);
	db_bind_text(st, 3, path);
	db_bind_text(st, 4, branch);
	return db_step_done(db, st, "tree upsert");
}

int
db_build_tree_fetch_state(struct db *db, const char *name, const char *state,
    const char *err, const char *head)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE trees SET fetch_state = ?, "
	    "fetch_error = ?, fetched = ?, head = coalesce(?, head) "
	    "WHERE name = ?");

	if (!st)
		return -1;
	db_bind_text(st, 1, state);
	db_bind_text(st, 2, err);
	sqlite3_bind_int64(st, 3, time(NULL));
	db_bind_text(st, 4, head);
	db_bind_text(st, 5, name);
	return db_step_done(db, st, "tree fetch state");
}

int
db_build_tree_fetch_get(struct db *db, const char *name, char **state,
    char **err)
{
	sqlite3_stmt *st = db_prep(db, "SELECT fetch_state, fetch_error "
	    "FROM trees WHERE name = ?");
	int r;

	*state = *err = NULL;
	if (!st)
		return -1;
	db_bind_text(st, 1, name);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		*state = db_col_dup(st, 0);
		*err = db_col_dup(st, 1);
	}
	sqlite3_finalize(st);
	if (r == SQLITE_ROW)
		return 0;
	return r == SQLITE_DONE ? 1 : dbb_fail(db, "tree fetch get");
}

int
db_build_claim(struct db *db, const char *key, const char *tree,
    const char *commit, const char *config, int64_t base_build, int64_t *id)
{
	sqlite3_stmt *st;
	long long now = time(NULL);
	int r;

	st = db_prep(db, "INSERT INTO builds (key, tree, commit_id, config, "
	    "base_build, state, created, updated) VALUES (?, ?, ?, ?, ?, "
	    "'queued', ?, ?) ON CONFLICT(key) DO UPDATE SET "
	    "state = CASE WHEN state = 'failed' THEN 'queued' ELSE state END, "
	    "error = CASE WHEN state = 'failed' THEN NULL ELSE error END, "
	    "updated = excluded.updated");
	if (!st)
		return -1;
	db_bind_text(st, 1, key);
	db_bind_text(st, 2, tree);
	db_bind_text(st, 3, commit);
	db_bind_text(st, 4, config);
	if (base_build > 0)
		sqlite3_bind_int64(st, 5, base_build);
	else
		sqlite3_bind_null(st, 5);
	sqlite3_bind_int64(st, 6, now);
	sqlite3_bind_int64(st, 7, now);
	if (db_step_done(db, st, "build claim") != 0)
		return -1;
	if (!(st = db_prep(db, "SELECT id FROM builds WHERE key = ?")))
		return -1;
	db_bind_text(st, 1, key);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return r == SQLITE_ROW ? 0 : dbb_fail(db, "build claim id");
}

int
db_build_set_state(struct db *db, int64_t id, const char *state, int progress)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE builds SET state = ?, "
	    "progress = ?, updated = ? WHERE id = ?");

	if (!st)
		return -1;
	db_bind_text(st, 1, state);
	if (progress >= 0)
		sqlite3_bind_int(st, 2, progress);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int64(st, 3, time(NULL));
	sqlite3_bind_int64(st, 4, id);
	return db_step_done(db, st, "build state");
}

int
db_build_finish(struct db *db, int64_t id, const char *state, const char *dir,
    const char *sha256, const char *err, const char *log_tail, double seconds,
    int cc_lines)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE builds SET state = ?, "
	    "progress = CASE WHEN ? = 'done' THEN 100 ELSE progress END, "
	    "dir = ?, sha256 = ?, error = ?, log_tail = ?, seconds = ?, "
	    "cc_lines = ?, updated = ? WHERE id = ?");

	if (!st)
		return -1;
	db_bind_text(st, 1, state);
	db_bind_text(st, 2, state);
	db_bind_text(st, 3, dir);
	db_bind_text(st, 4, sha256);
	db_bind_text(st, 5, err);
	db_bind_text(st, 6, log_tail);
	sqlite3_bind_double(st, 7, seconds);
	sqlite3_bind_int(st, 8, cc_lines);
	sqlite3_bind_int64(st, 9, time(NULL));
	sqlite3_bind_int64(st, 10, id);
	return db_step_done(db, st, "build finish");
}

int
db_build_set_bytes(struct db *db, int64_t id, long long bytes)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE builds SET artifact_bytes = ? "
	    "WHERE id = ?");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bytes);
	sqlite3_bind_int64(st, 2, id);
	return db_step_done(db, st, "build bytes");
}

static int
dbb_get(struct db *db, sqlite3_stmt *st, struct db_build *b)
{
	int r = sqlite3_step(st);

	memset(b, 0, sizeof(*b));
	if (r == SQLITE_ROW) {
		b->id = sqlite3_column_int64(st, 0);
		b->key = db_col_dup(st, 1);
		b->tree = db_col_dup(st, 2);
		b->commit_id = db_col_dup(st, 3);
		b->config = db_col_dup(st, 4);
		b->base_build = sqlite3_column_int64(st, 5);
		b->state = db_col_dup(st, 6);
		b->progress = sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 :
		    sqlite3_column_int(st, 7);
		b->dir = db_col_dup(st, 8);
		b->sha256 = db_col_dup(st, 9);
		b->error = db_col_dup(st, 10);
		b->log_tail = db_col_dup(st, 11);
		b->seconds = sqlite3_column_double(st, 12);
		b->cc_lines = sqlite3_column_int(st, 13);
		b->created = sqlite3_column_int64(st, 14);
		b->updated = sqlite3_column_int64(st, 15);
	}
	sqlite3_finalize(st);
	if (r == SQLITE_ROW)
		return 0;
	if (r == SQLITE_DONE)
		return 1;
	return dbb_fail(db, "build get");
}

#define DBB_COLS "id, key, tree, commit_id, config, base_build, state, " \
	"progress, dir, sha256, error, log_tail, seconds, cc_lines, created, " \
	"updated"

int
db_build_get(struct db *db, int64_t id, struct db_build *b)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " DBB_COLS " FROM builds "
	    "WHERE id = ?");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	return dbb_get(db, st, b);
}

int
db_build_get_key(struct db *db, const char *key, struct db_build *b)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " DBB_COLS " FROM builds "
	    "WHERE key = ?");

	if (!st)
		return -1;
	db_bind_text(st, 1, key);
	return dbb_get(db, st, b);
}

int
db_build_keys(struct db *db, char ***keys, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT key FROM builds ORDER BY id");
	size_t alloc = 0;
	int r;

	*keys = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			*keys = xrealloc(*keys, alloc * sizeof(**keys));
		}
		(*keys)[(*n)++] = db_col_dup(st, 0);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE) {
		for (size_t i = 0; i < *n; i++)
			free((*keys)[i]);
		free(*keys);
		*keys = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

int
db_build_series_set(struct db *db, int64_t series_id, const char *tree,
    const char *base_commit, const char *base_kind, const char *base_reason,
    const char *patched_commit, const char *ref, const int *counters,
    const char *const *paths, size_t n)
{
	sqlite3_stmt *st;

	if (db_begin(db) != 0)
		return -1;
	if (!(st = db_prep(db, "INSERT OR REPLACE INTO series_builds "
	    "(series_id, tree, base_commit, base_kind, base_reason, "
	    "patched_commit, ref) VALUES (?, ?, ?, ?, ?, ?, ?)")))
		goto fail;
	sqlite3_bind_int64(st, 1, series_id);
	db_bind_text(st, 2, tree);
	db_bind_text(st, 3, base_commit);
	db_bind_text(st, 4, base_kind);
	db_bind_text(st, 5, base_reason);
	db_bind_text(st, 6, patched_commit);
	db_bind_text(st, 7, ref);
	if (db_step_done(db, st, "series build") != 0)
		goto fail;
	if (!(st = db_prep(db, "DELETE FROM patch_apply WHERE series_id = ?")))
		goto fail;
	sqlite3_bind_int64(st, 1, series_id);
	if (db_step_done(db, st, "patch apply delete") != 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		if (!paths[i])
			continue;
		if (!(st = db_prep(db, "INSERT INTO patch_apply (series_id, "
		    "counter, path) VALUES (?, ?, ?)")))
			goto fail;
		sqlite3_bind_int64(st, 1, series_id);
		sqlite3_bind_int(st, 2, counters[i]);
		db_bind_text(st, 3, paths[i]);
		if (db_step_done(db, st, "patch apply") != 0)
			goto fail;
	}
	return db_commit(db);
fail:
	db_rollback(db);
	return -1;
}

int
db_build_series_set_builds(struct db *db, int64_t series_id,
    int64_t base_build, int64_t patched_build)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE series_builds SET "
	    "base_build = ?, patched_build = ? WHERE series_id = ?");

	if (!st)
		return -1;
	if (base_build > 0)
		sqlite3_bind_int64(st, 1, base_build);
	else
		sqlite3_bind_null(st, 1);
	if (patched_build > 0)
		sqlite3_bind_int64(st, 2, patched_build);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int64(st, 3, series_id);
	return db_step_done(db, st, "series builds");
}

int
db_build_series_get(struct db *db, int64_t series_id,
    struct db_series_build *s)
{
	sqlite3_stmt *st;
	int r;

	memset(s, 0, sizeof(*s));
	if (!(st = db_prep(db, "SELECT tree, base_commit, base_kind, "
	    "base_reason, patched_commit, ref, base_build, patched_build "
	    "FROM series_builds WHERE series_id = ?")))
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		s->tree = db_col_dup(st, 0);
		s->base_commit = db_col_dup(st, 1);
		s->base_kind = db_col_dup(st, 2);
		s->base_reason = db_col_dup(st, 3);
		s->patched_commit = db_col_dup(st, 4);
		s->ref = db_col_dup(st, 5);
		s->base_build = sqlite3_column_int64(st, 6);
		s->patched_build = sqlite3_column_int64(st, 7);
	}
	sqlite3_finalize(st);
	if (r == SQLITE_DONE)
		return 1;
	if (r != SQLITE_ROW)
		return dbb_fail(db, "series build get");
	if (!(st = db_prep(db, "SELECT counter, path FROM patch_apply "
	    "WHERE series_id = ? ORDER BY counter")))
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		s->paths = xrealloc(s->paths, (s->npaths + 1) * sizeof(char *));
		s->counters = xrealloc(s->counters, (s->npaths + 1) *
		    sizeof(int));
		s->counters[s->npaths] = sqlite3_column_int(st, 0);
		s->paths[s->npaths++] = db_col_dup(st, 1);
	}
	sqlite3_finalize(st);
	return r == SQLITE_DONE ? 0 : dbb_fail(db, "patch apply get");
}

int
db_build_patches(struct db *db, int64_t series_id, struct patch **out,
    size_t *n)
{
	sqlite3_stmt *st;
	struct patch *v = NULL;
	size_t k = 0;
	int r;

	if (!(st = db_prep(db, "SELECT counter, total, subject, author, "
	    "email, date, date_epoch, msgid, message, diff FROM patches "
	    "WHERE series_id = ? ORDER BY counter")))
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct patch *p;

		v = xrealloc(v, (k + 1) * sizeof(*v));
		p = &v[k++];
		memset(p, 0, sizeof(*p));
		p->counter = sqlite3_column_int(st, 0);
		p->total = sqlite3_column_int(st, 1);
		p->subject = db_col_dup(st, 2);
		p->author = db_col_dup(st, 3);
		p->email = db_col_dup(st, 4);
		p->date = db_col_dup(st, 5);
		p->date_epoch = sqlite3_column_int64(st, 6);
		p->msgid = db_col_dup(st, 7);
		p->message = db_col_dup(st, 8);
		p->diff = db_col_dup(st, 9);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE) {
		db_build_patches_free(v, k);
		return dbb_fail(db, "patches get");
	}
	*out = v;
	*n = k;
	return 0;
}

void
db_build_patches_free(struct patch *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].subject);
		free(v[i].author);
		free(v[i].email);
		free(v[i].date);
		free(v[i].msgid);
		free(v[i].message);
		free(v[i].diff);
	}
	free(v);
}
