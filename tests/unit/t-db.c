/*
 * Unit tests for daemon/db.c: migrations (order, user_version, a failing
 * one rolled back), series storage with patches and trailers, state moves,
 * and states surviving a reopen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/db.h"
#include "core/series.h"
#include "lib/buf.h"
#include "lib/run.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-db.XXXXXX";

static void
write_file(const char *path, const char *text)
{
	buf_write_file(path, text, strlen(text));
}

static void
test_migrations(void)
{
	char *sdir = xasprintf("%s/schema", dir), *p, *dbp;
	struct buf names = BUF_INIT(0);
	struct db *db;

	mkdir(sdir, 0755);
	p = xasprintf("%s/0001-a.sql", sdir);
	write_file(p, "CREATE TABLE a (x INTEGER);\n");
	free(p);
	p = xasprintf("%s/0002-b.sql", sdir);
	write_file(p, "CREATE TABLE b (y INTEGER);\n");
	free(p);
	p = xasprintf("%s/README", sdir);	/* not a migration */
	write_file(p, "nothing");
	free(p);
	dbp = xasprintf("%s/m.db", dir);
	db = db_open(dbp);
	ok(db != NULL, "open a new database");
	is_int(db_pending(db, sdir, &names), 2, "two migrations pending");
	is_str(names.data, "0001-a.sql\n0002-b.sql\n", "pending names in order");
	is_int(db_migrate(db, sdir), 0, "migrate");
	is_int(db_user_version(db), 2, "user_version is the last applied");
	is_int(db_pending(db, sdir, NULL), 0, "nothing pending after");

	/* a broken migration leaves nothing of itself behind */
	p = xasprintf("%s/0003-c.sql", sdir);
	write_file(p, "CREATE TABLE c (z INTEGER);\nTHIS IS NOT SQL;\n");
	free(p);
	is_int(db_migrate(db, sdir), -1, "broken migration fails");
	is_int(db_user_version(db), 2, "user_version unchanged");
	ok(db_exec(db, "SELECT * FROM c") == -1,
	    "half of the broken migration rolled back");
	ok(db_exec(db, "SELECT * FROM a") == 0, "earlier tables kept");
	{
		struct stat st;
		char *w = xasprintf("%s-wal", dbp);

		memset(&st, 0, sizeof(st));
		stat(dbp, &st);
		ok(st.st_mode && (st.st_mode & 077) == 0,
		    "a new store is owner-only (mode %o)", st.st_mode & 0777);
		memset(&st, 0, sizeof(st));
		stat(w, &st);
		ok(st.st_mode && (st.st_mode & 077) == 0,
		    "so is its WAL (mode %o)", st.st_mode & 0777);
		db_close(db);
		chmod(dbp, 0644);
		db = db_open(dbp);
		ok(db && stat(dbp, &st) == 0 && (st.st_mode & 077) == 0,
		    "an existing 0644 store is narrowed to 0600 on open");
		free(w);
	}
	/* two branches that both took number 0003: refused, not skipped */
	p = xasprintf("%s/0003-c.sql", sdir);
	write_file(p, "CREATE TABLE c (z INTEGER);\n");
	free(p);
	p = xasprintf("%s/0003-d.sql", sdir);
	write_file(p, "CREATE TABLE d (w INTEGER);\n");
	free(p);
	is_int(db_migrate(db, sdir), -1, "two migrations with one number: refused");
	is_int(db_pending(db, sdir, NULL), -1, "and -n says so too");
	is_int(db_user_version(db), 2, "nothing applied");
	p = xasprintf("%s/0003-d.sql", sdir);
	unlink(p);
	free(p);
	db_close(db);
	ok(db_open("/nonexistent-dir/x.db") == NULL, "unopenable path fails");
	buf_release(&names);
	free(sdir);
	free(dbp);
}

static void
fill_series(struct series *s)
{
	static struct trailer t1[] = {
		{ "Reviewed-by", "Bob <bob@example.org>" },
		{ "Acked-by", "Carol <carol@example.org>" },
	};
	static struct patch p[2];
	static int versions[] = { 1, 2 };

	memset(s, 0, sizeof(*s));
	memset(p, 0, sizeof(p));
	s->version = 2;
	s->total = 2;
	s->cover_subject = "mm: cover";
	s->cover_body = "why it matters";
	s->change_id = "20240101-x-1234";
	s->base_commit = "0123456789abcdef0123456789abcdef01234567";
	s->author = "Alice";
	s->email = "alice@example.org";
	s->versions = versions;
	s->nversions = 2;
	p[0].counter = 1; p[0].total = 2; p[0].subject = "one";
	p[0].author = "Alice"; p[0].email = "alice@example.org";
	p[0].message = "one\n\nbody\n"; p[0].diff = "diff --git a/x b/x\n";
	p[0].notes = "v2: faster\n";
	p[0].from_version = 2; p[0].trailers = t1; p[0].ntrailers = 2;
	p[1].counter = 2; p[1].total = 2; p[1].subject = "two";
	p[1].from_version = 1;
	s->patches = p;
	s->npatches = 2;
}

static void
test_series(void)
{
	char *dbp = xasprintf("%s/s.db", dir);
	struct db_series_req r;
	struct db_series s, *list;
	struct series picked;
	struct buf up = BUF_INIT(0);
	const char *st[] = { "queued" };
	int64_t id, id2, ids[8];
	size_t n;
	struct db *db;

	db = db_open(dbp);
	ok(db && db_migrate(db, KPERFCI_SRCDIR "/schema") == 0,
	    "project schema applies");
	memset(&r, 0, sizeof(r));
	r.source = "http://lore/list/a@b/";
	r.lore_base = "http://lore/";
	r.lore_list = "list";
	r.msgid = "a@b";
	r.version = 3;
	r.base = "v6.12";
	ok(db_series_insert(db, &r, &id) == 0 && id > 0, "insert from URL");
	memset(&r, 0, sizeof(r));
	r.source = "upload";
	r.upload = "From x\n\nbody\n";
	r.upload_len = 13;
	ok(db_series_insert(db, &r, &id2) == 0 && id2 > id, "insert upload");
	is_int(db_series_upload(db, id2, &up), 0, "read upload");
	is_int(up.len, 13, "upload kept byte for byte");
	is_int(db_series_in_states(db, st, 1, 0, ids, 8, &n), 0,
	    "select queued");
	is_int(n, 2, "both queued");
	is_int(ids[0], id, "oldest first");
	ok(db_series_in_states(db, st, 1, 1, ids, 8, &n) == 0 && n == 1 &&
	    ids[0] == id2, "skip pages through the rest");

	is_int(db_series_get(db, id, 0, &s), 0, "get");
	is_str(s.state, "queued", "new series is queued");
	is_str(s.msgid, "a@b", "msgid stored");
	is_int(s.req_version, 3, "requested version stored");
	is_str(s.req_base, "v6.12", "requested base stored");
	db_series_release(&s);
	is_int(db_series_get(db, 999, 0, &s), 1, "unknown id: not found");

	fill_series(&picked);
	is_int(db_series_store_picked(db, id, &picked, "fetched", "x"), -1,
	    "store refused when the series is not in `from`");
	is_int(db_series_store_picked(db, id, &picked, "queued", "fetched"),
	    0, "store picked series");
	is_int(db_series_set_state(db, id2, "queued", "failed",
	    "no patches in thread"), 0, "fail the other one");
	is_int(db_series_set_state(db, id2, "queued", "fetched", NULL), 1,
	    "state move from the wrong state does nothing");
	db_close(db);

	/* everything survives a reopen */
	db = db_open(dbp);
	is_int(db_series_get(db, id, 1, &s), 0, "get after reopen");
	is_str(s.state, "fetched", "state survives reopen");
	is_int(s.version, 2, "version");
	is_str(s.base_commit, "0123456789abcdef0123456789abcdef01234567",
	    "base-commit");
	is_str(s.change_id, "20240101-x-1234", "change-id");
	is_str(s.versions, "1,2", "revisions");
	is_int(s.npatches, 2, "two patches");
	is_str(s.patches[0].subject, "one", "patches in order");
	is_int(s.patches[0].ntrailers, 2, "trailers of patch 1");
	is_str(s.patches[0].trailers[1].name, "Acked-by", "trailer order");
	is_str(s.patches[0].diff, "diff --git a/x b/x\n", "diff kept");
	is_str(s.patches[0].notes, "v2: faster\n", "notes below the cut kept");
	ok(s.patches[1].notes == NULL, "a patch without notes has none");
	is_int(s.patches[1].from_version, 1, "from_version kept");
	db_series_release(&s);
	is_int(db_series_get(db, id2, 0, &s), 0, "get failed one");
	is_str(s.state, "failed", "failed state survives");
	is_str(s.error, "no patches in thread", "reason survives");
	db_series_release(&s);
	is_int(db_series_list(db, 10, &list, &n), 0, "list");
	is_int(n, 2, "list has both");
	is_int(list[0].id, id2, "newest first");
	db_series_free_list(list, n);
	db_close(db);
	buf_release(&up);
	free(dbp);
}

int
main(void)
{
	const char *rm[] = { "rm", "-rf", dir, NULL };
	struct run r = { .argv = rm, .timeout_sec = 30 };

	if (!mkdtemp(dir))
		return 1;
	test_migrations();
	test_series();
	if (run_cmd(&r) < 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
