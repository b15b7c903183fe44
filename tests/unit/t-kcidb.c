/*
 * t-kcidb: the KCIDB export (daemon/kcidb.c, db_kcidb.c): a comparison, a
 * track run and a bisect rendered from built models with the statuses and
 * numbers kcidb.h promises, each validated against the kcidb-io schema
 * (tests/fixtures/kcidb/, python3-jsonschema through
 * tests/kcidb-validate.py), a document the schema refuses refused; the
 * store keeps one export per object, serves them by time, and the submit
 * command runs once per export, retried with backoff, then given up.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/db_kcidb.h"
#include "daemon/db_track.h"
#include "daemon/kcidb.h"
#include "daemon/report.h"
#include "lib/buf.h"
#include "lib/run.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

#define SCHEMA	KPERFCI_SRCDIR "/tests/fixtures/kcidb/kcidb-io-v5.3.json"
#define VALIDATE KPERFCI_SRCDIR "/tests/kcidb-validate.py"

static unsigned long long lcg = 777;

static double
noise(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(lcg >> 11) / (double)(1ULL << 53)) - 0.5;
}

static void
gen(struct buf *b, const char *workload, const char *params,
    const char *metric, const char *unit, const char *better, int boots,
    double mean)
{
	for (int i = 1; i <= boots; i++) {
		double bm = mean * (1 + 0.02 * noise());

		for (int k = 1; k <= 3; k++)
			buf_addf(b, "{\"boot\":%d,\"workload\":\"%s\","
			    "\"params\":\"%s\",\"iteration\":%d,\"metric\":"
			    "\"%s\",\"value\":%.3f,\"unit\":\"%s\","
			    "\"better\":\"%s\"}\n", i, workload, params, k,
			    metric, bm * (1 + 0.01 * noise()), unit, better);
	}
}

static char tmp[] = "/tmp/t-kcidb.XXXXXX";

/* Writes doc to tmp/name.json and runs the validator on it: its exit. */
static int
validate(const char *name, const json_t *doc)
{
	char *path = xasprintf("%s/%s.json", tmp, name);
	char *log = xasprintf("%s/%s.log", tmp, name);
	const char *argv[] = { "python3", VALIDATE, SCHEMA, path, NULL };
	struct run r = { .argv = argv, .log_path = log, .timeout_sec = 60 };
	struct buf out = BUF_INIT(0);
	int rc;

	json_dump_file(doc, path, JSON_INDENT(1) | JSON_SORT_KEYS);
	rc = run_cmd(&r);
	if (rc != 0 && buf_read_file(&out, log) == 0 && out.data)
		printf("# %s", out.data);
	buf_release(&out);
	free(path);
	free(log);
	return rc == 0 ? 0 : r.exit_code;
}

/* The test with path p of side s ("base"/"patched"), or NULL. */
static json_t *
find_test(const json_t *doc, const char *path, const char *side)
{
	size_t i;
	json_t *t;

	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		const char *sd = json_string_value(json_object_get(
		    json_object_get(t, "misc"), "side"));

		if (!strcmp(json_string_value(json_object_get(t, "path")),
		    path) && (!side || (sd && !strcmp(sd, side))))
			return t;
	}
	return NULL;
}

static void
add_job(struct report *r, int side, const char *state, const char *reason)
{
	struct report_job *j;

	r->jobs = xrealloc(r->jobs, (r->njobs + 1) * sizeof(*r->jobs));
	j = &r->jobs[r->njobs++];
	memset(j, 0, sizeof(*j));
	j->id = (long long)r->njobs;
	j->side = side;
	j->boot = (int)r->njobs;
	j->state = xstrdup(state);
	j->reason = reason ? xstrdup(reason) : NULL;
	j->agent = xstrdup("lava-1");
}

static void
test_comparison(void)
{
	struct buf bs = BUF_INIT(0), ts = BUF_INIT(0), err = BUF_INIT(0);
	struct report r;
	json_t *doc, *t;
	char *s;

	report_init(&r);
	r.series_id = 7;
	r.series_state = xstrdup("done");
	r.series_final = 1;
	r.subject = xstrdup("[PATCH 0/1] mm/swap: a \x01 delay");
	r.author = xstrdup("A U Thor <a@example.org>");
	r.version = 2;
	r.tree = xstrdup("linux-6.12");
	r.base_commit = xstrdup("33a4cc079d3dc54287187c1e748798f838012c19");
	r.kernel[0].build_id = 1;
	r.kernel[0].build_state = xstrdup("done");
	r.kernel[1].build_id = 2;
	r.kernel[1].build_state = xstrdup("done");
	r.comparison_id = 3;
	r.state = xstrdup("done");
	r.hw_class = xstrdup("2s-2n-4c-abcd");
	r.topology = xstrdup("2 sockets, 2 NUMA nodes, 4 CPUs");
	gen(&bs, "fault-free", "mode=shmem,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 6, 100000);
	gen(&ts, "fault-free", "mode=shmem,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 6, 61800);
	gen(&bs, "memcg-flush", "groups=16", "p99_us", "us", "lower", 6, 50);
	gen(&ts, "memcg-flush", "groups=16", "p99_us", "us", "lower", 6, 50);
	ok(report_compute(&r, bs.data, bs.len, ts.data, ts.len, NULL,
	    &err) == 0, "a comparison computed");
	add_job(&r, 0, "done", NULL);
	add_job(&r, 1, "boot-failed", "Kernel panic - not syncing: VFS");
	add_job(&r, 1, "queued", NULL);

	doc = kcidb_comparison(&r, "kperfci");
	is_int(json_array_size(json_object_get(doc, "checkouts")), 2,
	    "two checkouts: base and patched");
	is_int(json_array_size(json_object_get(doc, "builds")), 2,
	    "a build each");
	t = find_test(doc, "kperfci.fault-free.pages_per_sec", "patched");
	is_str(json_string_value(json_object_get(t, "status")), "FAIL",
	    "the regressed row's patched test: FAIL");
	ok(fabs(json_real_value(json_object_get(json_object_get(t, "number"),
	    "value")) - 61800) < 3000, "its number: the patched mean");
	is_str(json_string_value(json_object_get(json_object_get(t,
	    "number"), "unit")), "pages/s", "with its unit");
	ok(json_real_value(json_object_get(json_object_get(t, "misc"),
	    "pct_change")) < -30, "misc has the %%change");
	t = find_test(doc, "kperfci.fault-free.pages_per_sec", "base");
	is_str(json_string_value(json_object_get(t, "status")), "DONE",
	    "the base side's test: DONE");
	t = find_test(doc, "kperfci.memcg-flush.p99_us", "patched");
	ok(t && strcmp(json_string_value(json_object_get(t, "status")),
	    "FAIL"), "an unchanged row is not FAIL");
	t = find_test(doc, "kperfci.boot", "patched");
	is_str(json_string_value(json_object_get(t, "status")), "FAIL",
	    "a boot-failed job: kperfci.boot FAIL");
	ok(strstr(json_string_value(json_object_get(t, "comment")),
	    "Kernel panic") != NULL, "with its reason");
	is_int(json_array_size(json_object_get(doc, "tests")), 6,
	    "4 row tests and 2 boots (the queued job is not one)");
	s = json_dumps(doc, 0);
	ok(s && !strchr(s, '\x01'), "control bytes are stripped");
	free(s);
	is_int(validate("comparison", doc), 0,
	    "the comparison validates against kcidb-io v5.3");
	json_decref(doc);

	/* a comparison that failed before any result */
	r.have_result = 0;
	free(r.kernel[1].build_state);
	r.kernel[1].build_state = xstrdup("failed");
	doc = kcidb_comparison(&r, "kperfci");
	is_str(json_string_value(json_object_get(json_array_get(
	    json_object_get(doc, "builds"), 1), "status")), "FAIL",
	    "a failed build: FAIL");
	is_int(validate("comparison-failed", doc), 0,
	    "a failed comparison validates");
	json_decref(doc);
	r.have_result = 1;	/* report_release frees the result it has */
	report_release(&r);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
}

static void
test_track(void)
{
	struct track_run run = { .id = 5, .track = "mm", .trigger = "timer",
	    .state = "done", .head = "0123456789abcdef0123456789abcdef01234567",
	    .kernel_id = 9, .boots = 2 };
	struct track_point p[4] = {
		{ .workload = "page_fault1", .params = "tasks=4",
		    .metric = "ops_per_sec", .unit = "ops/s", .value = 10 },
		{ .workload = "page_fault1", .params = "tasks=4",
		    .metric = "ops_per_sec", .unit = "ops/s", .value = 20 },
		{ .workload = "page_fault1", .params = "tasks=8",
		    .metric = "ops_per_sec", .unit = "ops/s", .value = 7 },
		{ .workload = "memcg flush", .params = "",
		    .metric = "p99/us", .unit = "us", .value = NAN },
	};
	struct track_regression g = { .id = 2, .track = "mm", .tree = "mm",
	    .workload = "page_fault1", .params = "tasks=4",
	    .metric = "ops_per_sec", .state = "found",
	    .first_bad = "1111111111111111111111111111111111111111" };
	struct bisect_step st[3] = {
		{ .id = 1, .commit_id = "1111111111111111111111111111111111111111",
		    .state = "done", .verdict = "bad", .role = "bisect",
		    .kernel_id = 3, .boots = 2, .pct_vs_good = -12.5,
		    .ci_good_lo = NAN, .ci_good_hi = NAN },
		{ .id = 2, .commit_id = "2222222222222222222222222222222222222222",
		    .state = "done", .verdict = "good", .role = "verify",
		    .kernel_id = 4, .boots = 2, .pct_vs_good = 0.4,
		    .ci_good_lo = -1, .ci_good_hi = 1.5 },
		{ .id = 3, .commit_id = "nothex", .state = "skipped",
		    .role = "bisect", .pct_vs_good = NAN,
		    .ci_good_lo = NAN, .ci_good_hi = NAN },
	};
	json_t *doc, *t;

	doc = kcidb_track_run(&run, "https://git.kernel.org/x/mm.git", p, 4,
	    "kperfci");
	is_int(json_array_size(json_object_get(doc, "tests")), 3,
	    "a track run: one test per (workload, params, metric)");
	t = json_array_get(json_object_get(doc, "tests"), 0);
	ok(fabs(json_real_value(json_object_get(json_object_get(t, "number"),
	    "value")) - 15) < 1e-9, "the mean of the run's boots");
	is_str(json_string_value(json_object_get(t, "status")), "DONE",
	    "status DONE");
	ok(json_object_get(json_array_get(json_object_get(doc, "tests"), 2),
	    "number") == NULL, "no number where every point is NaN");
	is_str(json_string_value(json_object_get(json_array_get(
	    json_object_get(doc, "tests"), 2), "path")),
	    "kperfci.memcg_flush.p99_us", "path parts are [a-zA-Z0-9_-]");
	is_int(validate("track", doc), 0, "the track run validates");
	json_decref(doc);

	doc = kcidb_bisect(&g, st, 3, "kperfci");
	is_str(json_string_value(json_object_get(json_array_get(
	    json_object_get(doc, "tests"), 0), "status")), "FAIL",
	    "a bad step: FAIL");
	is_str(json_string_value(json_object_get(json_array_get(
	    json_object_get(doc, "tests"), 1), "status")), "PASS",
	    "a good step: PASS");
	is_str(json_string_value(json_object_get(json_array_get(
	    json_object_get(doc, "tests"), 2), "status")), "SKIP",
	    "a skipped step: SKIP");
	ok(json_object_get(json_array_get(json_object_get(doc, "checkouts"),
	    2), "git_commit_hash") == NULL, "no hash that is not 40 hex");
	is_int(validate("bisect", doc), 0, "the bisect validates");
	json_decref(doc);

	doc = kcidb_doc();
	json_array_append_new(json_object_get(doc, "tests"), json_pack(
	    "{s:s,s:s,s:s,s:s}", "id", "kperfci:x", "build_id", "kperfci:y",
	    "origin", "Bad Origin", "status", "BROKEN"));
	ok(validate("refused", doc) == 1,
	    "the validator refuses a document the schema does not allow");
	json_decref(doc);
}

static void
test_store(void)
{
	char *path = xasprintf("%s/t.db", tmp), *out = xasprintf("%s/sub", tmp);
	char *body, **bodies;
	long long *created, id, n, when;
	const char *sub_ok[] = { "sh", "-c", "cat >> \"$0\"", out, NULL };
	const char *sub_bad[] = { "false", NULL };
	struct buf b = BUF_INIT(0);
	struct db *db = db_open(path);
	size_t nb;
	int attempts;

	ok(db && db_migrate(db, KPERFCI_SRCDIR "/schema") == 0,
	    "a store with the schema");
	if (!db)
		goto out;
	ok(db_kcidb_add(db, "comparison", 1, "{\"a\":1}", 1, 100) == 0 &&
	    db_kcidb_add(db, "comparison", 1, "{\"a\":2}", 1, 200) == 0 &&
	    db_kcidb_add(db, "track_run", 1, "{\"b\":1}", 1, 150) == 0,
	    "exports stored");
	db_kcidb_count(db, NULL, &n);
	is_int((int)n, 2, "one export per object (a second is ignored)");
	db_kcidb_since(db, 120, 10, &bodies, &created, &nb);
	ok(nb == 1 && !strcmp(bodies[0], "{\"b\":1}") && created[0] == 150,
	    "since: what came after");
	for (size_t i = 0; i < nb; i++)
		free(bodies[i]);
	free(bodies);
	free(created);

	/* the submit command: once per export */
	app.settings.daemon.data = tmp;
	app.settings.kcidb.origin = "kperfci";
	app.settings.kcidb.submit = (char **)sub_ok;
	app.settings.kcidb.retries = 3;
	app.settings.kcidb.timeout = 30;
	ok(kcidb_pass(db, 1000) == 0, "a pass");
	db_kcidb_count(db, "submitted", &n);
	is_int((int)n, 2, "both exports submitted");
	kcidb_pass(db, 2000);
	buf_read_file(&b, out);
	is_str(b.data, "{\"a\":1}{\"b\":1}", "each handed over once, on stdin");

	/* a command that fails: retried with backoff, then given up */
	app.settings.kcidb.submit = (char **)sub_bad;
	db_kcidb_add(db, "bisect", 4, "{\"c\":1}", 1, 3000);
	kcidb_pass(db, 3000);
	ok(db_kcidb_due(db, 3000, &id, &body, &attempts) == 1,
	    "a failed submit is not due at once");
	db_kcidb_next(db, &when);
	is_int((int)(when - 3000), 30, "first retry after 30 s");
	kcidb_pass(db, when);
	db_kcidb_next(db, &when);
	ok(when > 3030 + 30, "the next after longer");
	kcidb_pass(db, when);
	db_kcidb_count(db, "failed", &n);
	is_int((int)n, 1, "given up after [kcidb] retries attempts");
	app.settings.kcidb.submit = NULL;
	db_close(db);
out:
	buf_release(&b);
	free(path);
	free(out);
}

int
main(void)
{
	if (!mkdtemp(tmp))
		return 1;
	test_comparison();
	test_track();
	test_store();
	if (!tap_failed) {
		char *cmd = xasprintf("rm -rf %s", tmp);

		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmp);
		free(cmd);
	}
	return tap_done();
}
