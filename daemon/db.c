/*
 * db: connection set-up, migrations and the series tables (see db.h).
 * Every statement is prepared with bound parameters; no SQL is ever built
 * from input.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "daemon/db.h"
#include "daemon/db_stmt.h"
#include "core/series.h"
#include "lib/log.h"
#include "lib/xalloc.h"

struct db {
	sqlite3	*h;
	char	*path;
};

struct sqlite3 *
db_handle(struct db *db)
{
	return db->h;
}

/*
 * The store holds agents' leases, uploads and every submitter's series:
 * owner-only.  SQLite creates a new file 0644 and gives the -wal and -shm
 * files the database's mode, so the file is made (or narrowed to) 0600
 * before SQLite opens it.  A symlink is not followed here.
 */
static void
db_make_private(const char *path)
{
	struct stat st;
	int fd;

	if (!*path || !strcmp(path, ":memory:") || !strncmp(path, "file:", 5))
		return;
	/*
	 * Never open() and close() an existing store: every connection of
	 * this process (one per thread) holds POSIX locks on it, and closing
	 * any descriptor of the file drops all of them -- two writers then
	 * corrupt the store.  An existing file is narrowed by path; a new
	 * one is created 0600 before any connection can hold a lock.
	 */
	if (lstat(path, &st) == 0) {
		if (S_ISREG(st.st_mode) && (st.st_mode & 077) &&
		    st.st_uid == geteuid() &&
		    chmod(path, st.st_mode & 0700) == -1)
			log_warn("db: chmod %s", path);
		return;		/* a symlink or other: sqlite3_open_v2 says */
	}
	if ((fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) >= 0)
		close(fd);
}

struct db *
db_open(const char *path)
{
	struct db *db;
	sqlite3 *h = NULL;

	db_make_private(path);
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		error("db: cannot open %s: %s", path,
		    h ? sqlite3_errmsg(h) : "out of memory");
		sqlite3_close(h);
		return NULL;
	}
	sqlite3_busy_timeout(h, 10000);
	db = xcalloc(1, sizeof(*db));
	db->h = h;
	db->path = xstrdup(path);
	if (db_exec(db, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; "
	    "PRAGMA synchronous=NORMAL;") < 0) {
		db_close(db);
		return NULL;
	}
	return db;
}

void
db_close(struct db *db)
{
	if (!db)
		return;
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}

int
db_exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("db: %s", msg ? msg : sqlite3_errmsg(db->h));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int
db_begin(struct db *db)
{
	return db_exec(db, "BEGIN IMMEDIATE");
}

int
db_commit(struct db *db)
{
	return db_exec(db, "COMMIT");
}

int
db_rollback(struct db *db)
{
	return db_exec(db, "ROLLBACK");
}

int
db_user_version(struct db *db)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK)
		return error("db: %s", sqlite3_errmsg(db->h));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* ---- migrations ------------------------------------------------------ */

static int
db_migration_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of NNNN-*.sql files in dir, sorted.  -1 when dir is unreadable. */
static int
db_migration_files(const char *dir, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return error("db: cannot read schema directory %s: %s", dir,
		    strerror(errno));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 9 || strspn(e->d_name, "0123456789") != 4 ||
		    e->d_name[4] != '-' || strcmp(e->d_name + len - 4, ".sql"))
			continue;
		v = xrealloc(v, (k + 1) * sizeof(*v));
		v[k++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(v, k, sizeof(*v), db_migration_cmp);
	/* two files with one number: the second would be skipped silently
	   (user_version already says applied), so refuse both */
	for (size_t i = 1; i < k; i++)
		if (atoi(v[i]) == atoi(v[i - 1])) {
			error("db: schema %s and %s share the number %04d; "
			    "renumber one", v[i - 1], v[i], atoi(v[i]));
			while (k--)
				free(v[k]);
			free(v);
			return -1;
		}
	*out = v;
	*n = k;
	return 0;
}

static void
db_free_names(char **v, size_t n)
{
	while (n--)
		free(v[n]);
	free(v);
}

int
db_pending(struct db *db, const char *dir, struct buf *names)
{
	char **files;
	size_t n, i;
	int cur, count = 0;

	if ((cur = db_user_version(db)) < 0)
		return -1;
	if (db_migration_files(dir, &files, &n) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (atoi(files[i]) > cur) {
			if (names)
				buf_addf(names, "%s\n", files[i]);
			count++;
		}
	db_free_names(files, n);
	return count;
}

int
db_migrate(struct db *db, const char *dir)
{
	struct buf sql = BUF_INIT(16 << 20);
	char **files, *path, pragma[64];
	size_t n, i;
	int cur, num, rc = -1;

	if ((cur = db_user_version(db)) < 0)
		return -1;
	if (db_migration_files(dir, &files, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		num = atoi(files[i]);
		if (num <= cur)
			continue;
		path = xasprintf("%s/%s", dir, files[i]);
		buf_reset(&sql);
		if (buf_read_file(&sql, path) < 0) {
			error("db: cannot read %s: %s", path, strerror(errno));
			free(path);
			goto out;
		}
		free(path);
		if (db_begin(db) < 0)
			goto out;
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d",
		    num);
		if (db_exec(db, sql.data) < 0 || db_exec(db, pragma) < 0) {
			error("db: migration %s failed; nothing of it applied",
			    files[i]);
			db_rollback(db);
			goto out;
		}
		if (db_commit(db) < 0)
			goto out;
		log_info("db: applied %s", files[i]);
		cur = num;
	}
	rc = 0;
out:
	db_free_names(files, n);
	buf_release(&sql);
	return rc;
}

/* ---- series ---------------------------------------------------------- */

char *
db_col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

void
db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

sqlite3_stmt *
db_prep(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		error("db: %s", sqlite3_errmsg(db->h));
		return NULL;
	}
	return st;
}

int
db_step_done(struct db *db, sqlite3_stmt *st, const char *what)
{
	int rc;

	if (st == NULL)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return error("db: %s%s%s", what ? what : "", what ? ": " : "",
		    sqlite3_errmsg(db->h));
	return 0;
}

static int
db_fail(struct db *db, const char *what)
{
	return error("db: %s: %s", what, sqlite3_errmsg(db->h));
}

int
db_series_insert(struct db *db, const struct db_series_req *r, int64_t *id)
{
	sqlite3_stmt *st;
	long long now = time(NULL);
	int rc;

	if (sqlite3_prepare_v2(db->h,
	    "INSERT INTO series (source, lore_base, lore_list, msgid, "
	    "req_version, req_base, upload, state, submitted, updated) "
	    "VALUES (?,?,?,?,?,?,?,'queued',?,?)", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "insert series");
	db_bind_text(st, 1, r->source);
	db_bind_text(st, 2, r->lore_base);
	db_bind_text(st, 3, r->lore_list);
	db_bind_text(st, 4, r->msgid);
	sqlite3_bind_int(st, 5, r->version);
	db_bind_text(st, 6, r->base);
	if (r->upload)
		sqlite3_bind_blob64(st, 7, r->upload, r->upload_len,
		    SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 7);
	sqlite3_bind_int64(st, 8, now);
	sqlite3_bind_int64(st, 9, now);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(db, "insert series");
	*id = sqlite3_last_insert_rowid(db->h);
	return 0;
}

#define SERIES_COLS "id, source, lore_base, lore_list, msgid, req_version, " \
	"req_base, state, error, version, total, priority, cover_subject, " \
	"cover_body, cover_msgid, change_id, base_commit, author, email, " \
	"versions, submitted, updated, upload IS NOT NULL, rest, " \
	"COALESCE(cover_subject, (SELECT subject FROM patches p WHERE " \
	"p.series_id = series.id ORDER BY counter LIMIT 1)), origin"

static void
db_series_from_row(sqlite3_stmt *st, struct db_series *s)
{
	memset(s, 0, sizeof(*s));
	s->id = sqlite3_column_int64(st, 0);
	s->source = db_col_dup(st, 1);
	s->lore_base = db_col_dup(st, 2);
	s->lore_list = db_col_dup(st, 3);
	s->msgid = db_col_dup(st, 4);
	s->req_version = sqlite3_column_int(st, 5);
	s->req_base = db_col_dup(st, 6);
	s->state = db_col_dup(st, 7);
	s->error = db_col_dup(st, 8);
	s->version = sqlite3_column_int(st, 9);
	s->total = sqlite3_column_int(st, 10);
	s->priority = sqlite3_column_int(st, 11);
	s->cover_subject = db_col_dup(st, 12);
	s->cover_body = db_col_dup(st, 13);
	s->cover_msgid = db_col_dup(st, 14);
	s->change_id = db_col_dup(st, 15);
	s->base_commit = db_col_dup(st, 16);
	s->author = db_col_dup(st, 17);
	s->email = db_col_dup(st, 18);
	s->versions = db_col_dup(st, 19);
	s->submitted = sqlite3_column_int64(st, 20);
	s->updated = sqlite3_column_int64(st, 21);
	s->has_upload = sqlite3_column_int(st, 22);
	s->rest = db_col_dup(st, 23);
	s->title = db_col_dup(st, 24);
	s->origin = db_col_dup(st, 25);
}

static void
db_patch_release(struct db_patch *p)
{
	size_t i;

	for (i = 0; i < p->ntrailers; i++) {
		free(p->trailers[i].name);
		free(p->trailers[i].value);
	}
	free(p->trailers);
	free(p->subject);
	free(p->author);
	free(p->email);
	free(p->date);
	free(p->msgid);
	free(p->message);
	free(p->diff);
	free(p->notes);
}

void
db_series_release(struct db_series *s)
{
	size_t i;

	for (i = 0; i < s->npatches; i++)
		db_patch_release(&s->patches[i]);
	free(s->patches);
	free(s->source);
	free(s->origin);
	free(s->lore_base);
	free(s->lore_list);
	free(s->msgid);
	free(s->req_base);
	free(s->state);
	free(s->error);
	free(s->cover_subject);
	free(s->cover_body);
	free(s->cover_msgid);
	free(s->change_id);
	free(s->base_commit);
	free(s->author);
	free(s->email);
	free(s->versions);
	free(s->rest);
	free(s->title);
	memset(s, 0, sizeof(*s));
}

void
db_series_free_list(struct db_series *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		db_series_release(&v[i]);
	free(v);
}

static int
db_series_load_patches(struct db *db, struct db_series *s)
{
	sqlite3_stmt *st = NULL, *tt = NULL;
	struct db_patch *p;
	int rc = -1, r;

	if (sqlite3_prepare_v2(db->h, "SELECT id, counter, total, "
	    "from_version, subject, author, email, date, msgid, message, diff, "
	    "notes FROM patches WHERE series_id = ? ORDER BY counter", -1, &st,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "SELECT name, value FROM trailers "
	    "WHERE patch_id = ? ORDER BY pos", -1, &tt, NULL) != SQLITE_OK) {
		db_fail(db, "load patches");
		goto out;
	}
	sqlite3_bind_int64(st, 1, s->id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		s->patches = xrealloc(s->patches,
		    (s->npatches + 1) * sizeof(*s->patches));
		p = &s->patches[s->npatches++];
		memset(p, 0, sizeof(*p));
		p->id = sqlite3_column_int64(st, 0);
		p->counter = sqlite3_column_int(st, 1);
		p->total = sqlite3_column_int(st, 2);
		p->from_version = sqlite3_column_int(st, 3);
		p->subject = db_col_dup(st, 4);
		p->author = db_col_dup(st, 5);
		p->email = db_col_dup(st, 6);
		p->date = db_col_dup(st, 7);
		p->msgid = db_col_dup(st, 8);
		p->message = db_col_dup(st, 9);
		p->diff = db_col_dup(st, 10);
		p->notes = db_col_dup(st, 11);
		sqlite3_reset(tt);
		sqlite3_bind_int64(tt, 1, p->id);
		while ((r = sqlite3_step(tt)) == SQLITE_ROW) {
			p->trailers = xrealloc(p->trailers,
			    (p->ntrailers + 1) * sizeof(*p->trailers));
			p->trailers[p->ntrailers].name = db_col_dup(tt, 0);
			p->trailers[p->ntrailers].value = db_col_dup(tt, 1);
			p->ntrailers++;
		}
		if (r != SQLITE_DONE) {
			db_fail(db, "load trailers");
			goto out;
		}
	}
	if (r != SQLITE_DONE) {
		db_fail(db, "load patches");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(tt);
	return rc;
}

int
db_series_get(struct db *db, int64_t id, int with_patches,
    struct db_series *s)
{
	sqlite3_stmt *st;
	int r;

	memset(s, 0, sizeof(*s));
	if (sqlite3_prepare_v2(db->h, "SELECT " SERIES_COLS
	    " FROM series WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "get series");
	sqlite3_bind_int64(st, 1, id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		db_series_from_row(st, s);
	sqlite3_finalize(st);
	if (r == SQLITE_DONE)
		return 1;
	if (r != SQLITE_ROW)
		return db_fail(db, "get series");
	if (with_patches && db_series_load_patches(db, s) < 0) {
		db_series_release(s);
		return -1;
	}
	return 0;
}

int
db_series_list(struct db *db, size_t max, struct db_series **out, size_t *n)
{
	sqlite3_stmt *st;
	int r;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT " SERIES_COLS
	    " FROM series ORDER BY id DESC LIMIT ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_fail(db, "list series");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)max);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		db_series_from_row(st, &(*out)[(*n)++]);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE) {
		db_series_free_list(*out, *n);
		*out = NULL;
		*n = 0;
		return db_fail(db, "list series");
	}
	return 0;
}

int
db_series_upload(struct db *db, int64_t id, struct buf *out)
{
	sqlite3_stmt *st;
	int r, rc = 0;

	if (sqlite3_prepare_v2(db->h, "SELECT upload FROM series WHERE id = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "read upload");
	sqlite3_bind_int64(st, 1, id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW && sqlite3_column_bytes(st, 0) > 0)
		rc = buf_add(out, sqlite3_column_blob(st, 0),
		    sqlite3_column_bytes(st, 0));
	else if (r != SQLITE_ROW && r != SQLITE_DONE)
		rc = db_fail(db, "read upload");
	sqlite3_finalize(st);
	return rc;
}

int
db_series_in_states(struct db *db, const char *const *states, size_t n,
    size_t skip, int64_t *ids, size_t max, size_t *nids)
{
	sqlite3_stmt *st;
	size_t i;
	int r;

	*nids = 0;
	/* json_each keeps the statement fixed whatever n is */
	if (sqlite3_prepare_v2(db->h, "SELECT id FROM series WHERE rest IS NULL AND "
	    "state IN (SELECT value FROM json_each(?)) ORDER BY priority DESC, id "
	    "LIMIT ? OFFSET ?", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "select by state");
	{
		struct buf arr = BUF_INIT(0);

		buf_addch(&arr, '[');
		for (i = 0; i < n; i++)	/* state names are our own constants */
			buf_addf(&arr, "%s\"%s\"", i ? "," : "", states[i]);
		buf_addch(&arr, ']');
		sqlite3_bind_text(st, 1, arr.data, -1, SQLITE_TRANSIENT);
		buf_release(&arr);
	}
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)skip);
	while ((r = sqlite3_step(st)) == SQLITE_ROW && *nids < max)
		ids[(*nids)++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (r != SQLITE_DONE && r != SQLITE_ROW)
		return db_fail(db, "select by state");
	return 0;
}

int
db_series_set_state(struct db *db, int64_t id, const char *from,
    const char *to, const char *err)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(db->h, "UPDATE series SET state = ?, error = ?, "
	    "rest = NULL, updated = ? WHERE id = ? AND state = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_fail(db, "set state");
	db_bind_text(st, 1, to);
	db_bind_text(st, 2, err);
	sqlite3_bind_int64(st, 3, time(NULL));
	sqlite3_bind_int64(st, 4, id);
	db_bind_text(st, 5, from);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return db_fail(db, "set state");
	return sqlite3_changes(db->h) == 1 ? 0 : 1;
}

int
db_series_set_rest(struct db *db, int64_t id, const char *state,
    const char *reason)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(db->h, "UPDATE series SET rest = ? WHERE id = ? "
	    "AND state = ?", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "set rest");
	db_bind_text(st, 1, reason);
	sqlite3_bind_int64(st, 2, id);
	db_bind_text(st, 3, state);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return db_fail(db, "set rest");
	return 0;
}

int
db_series_clear_rest(struct db *db)
{
	return db_exec(db, "UPDATE series SET rest = NULL WHERE rest IS NOT "
	    "NULL");
}

static int
db_insert_patch(struct db *db, sqlite3_stmt *pst, sqlite3_stmt *tst,
    int64_t series_id, const struct patch *p)
{
	int64_t pid;
	size_t i;

	sqlite3_reset(pst);
	sqlite3_clear_bindings(pst);
	sqlite3_bind_int64(pst, 1, series_id);
	sqlite3_bind_int(pst, 2, p->counter);
	sqlite3_bind_int(pst, 3, p->total);
	db_bind_text(pst, 4, p->subject ? p->subject : "");
	db_bind_text(pst, 5, p->author);
	db_bind_text(pst, 6, p->email);
	db_bind_text(pst, 7, p->date);
	sqlite3_bind_int64(pst, 8, p->date_epoch);
	db_bind_text(pst, 9, p->msgid);
	db_bind_text(pst, 10, p->message);
	db_bind_text(pst, 11, p->diff);
	sqlite3_bind_int(pst, 12, p->from_version);
	db_bind_text(pst, 13, p->notes);
	if (sqlite3_step(pst) != SQLITE_DONE)
		return db_fail(db, "insert patch");
	pid = sqlite3_last_insert_rowid(db->h);
	for (i = 0; i < p->ntrailers; i++) {
		sqlite3_reset(tst);
		sqlite3_bind_int64(tst, 1, pid);
		sqlite3_bind_int(tst, 2, (int)i);
		db_bind_text(tst, 3, p->trailers[i].name);
		db_bind_text(tst, 4, p->trailers[i].value);
		if (sqlite3_step(tst) != SQLITE_DONE)
			return db_fail(db, "insert trailer");
	}
	return 0;
}

int
db_series_store_picked(struct db *db, int64_t id, const struct series *s,
    const char *from, const char *to)
{
	sqlite3_stmt *up = NULL, *del = NULL, *pst = NULL, *tst = NULL;
	struct buf versions = BUF_INIT(0);
	size_t i;
	int rc = -1;

	for (i = 0; i < s->nversions; i++)
		buf_addf(&versions, "%s%d", i ? "," : "", s->versions[i]);
	if (db_begin(db) < 0)
		goto out;
	if (sqlite3_prepare_v2(db->h, "UPDATE series SET state = ?, "
	    "error = NULL, version = ?, total = ?, cover_subject = ?, "
	    "cover_body = ?, cover_msgid = ?, change_id = ?, base_commit = ?, "
	    "author = ?, email = ?, versions = ?, upload = NULL, rest = NULL, "
	    "updated = ? "
	    "WHERE id = ? AND state = ?", -1, &up, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "DELETE FROM patches WHERE series_id = ?",
	    -1, &del, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "INSERT INTO patches (series_id, counter, "
	    "total, subject, author, email, date, date_epoch, msgid, message, "
	    "diff, from_version, notes) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", -1,
	    &pst,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "INSERT INTO trailers (patch_id, pos, "
	    "name, value) VALUES (?,?,?,?)", -1, &tst, NULL) != SQLITE_OK) {
		db_fail(db, "store series");
		goto rollback;
	}
	db_bind_text(up, 1, to);
	sqlite3_bind_int(up, 2, s->version);
	sqlite3_bind_int(up, 3, s->total);
	db_bind_text(up, 4, s->cover_subject);
	db_bind_text(up, 5, s->cover_body);
	db_bind_text(up, 6, s->cover_msgid);
	db_bind_text(up, 7, s->change_id);
	db_bind_text(up, 8, s->base_commit);
	db_bind_text(up, 9, s->author);
	db_bind_text(up, 10, s->email);
	db_bind_text(up, 11, versions.data);
	sqlite3_bind_int64(up, 12, time(NULL));
	sqlite3_bind_int64(up, 13, id);
	db_bind_text(up, 14, from);
	if (sqlite3_step(up) != SQLITE_DONE) {
		db_fail(db, "store series");
		goto rollback;
	}
	if (sqlite3_changes(db->h) != 1) {
		error("db: series %lld is no longer %s", (long long)id, from);
		goto rollback;
	}
	sqlite3_bind_int64(del, 1, id);
	if (sqlite3_step(del) != SQLITE_DONE) {
		db_fail(db, "store series");
		goto rollback;
	}
	for (i = 0; i < s->npatches; i++)
		if (db_insert_patch(db, pst, tst, id, &s->patches[i]) < 0)
			goto rollback;
	if (db_commit(db) < 0)
		goto rollback;
	rc = 0;
	goto out;
rollback:
	db_rollback(db);
out:
	sqlite3_finalize(up);
	sqlite3_finalize(del);
	sqlite3_finalize(pst);
	sqlite3_finalize(tst);
	buf_release(&versions);
	return rc;
}
