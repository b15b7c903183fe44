/*
 * t-sched: the A/B scheduler with simulated agents.  Each test runs on a
 * fresh real store; agents are simulated by calling the agent layer's own
 * lease, expiry and upload functions (db_agent.h) the way api_agent.c
 * does, with a clock the test moves.  Samples are generated: identical
 * sides for "no change", a 3% drop with 3% boot noise for the adaptive
 * test (4 boots per side cannot reach the first look's level, 8 can).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "daemon/agent.h"
#include "daemon/app.h"
#include "daemon/api_series.h"
#include "daemon/db.h"
#include "daemon/routes.h"
#include "daemon/db_agent.h"
#include "daemon/db_build.h"
#include "daemon/http.h"
#include "daemon/http_cache.h"
#include "daemon/pipeline.h"
#include "daemon/noise.h"
#include "core/claims.h"
#include "core/series.h"
#include "daemon/sched.h"
#include "core/matrix_check.h"
#include "core/stats.h"
#include "lib/buf.h"
#include "lib/proto.h"
#include "lib/run.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-sched.XXXXXX";
static int ndb;
static struct db *db;
static long long kbase, kpatched;
static long long clk;

/* A fresh store for each test, so agents and jobs of one do not leak
   into the next. */
static void
fresh_store(void)
{
	app_db_close_thread();
	free(app.db_path);
	app.db_path = xasprintf("%s/t%d.db", dir, ++ndb);
	db = app_db();
	if (!db || db_migrate(db, app.schema_dir) < 0)
		printf("# cannot create %s\n", app.db_path);
	clk = (long long)time(NULL);
}

/* A fake bzImage: what agent_kernel_add accepts ("HdrS" at 0x202). */
static long long
fake_kernel(const char *tag)
{
	struct buf err = BUF_INIT(1024);
	char img[0x400];
	long long id = 0;

	memset(img, 0, sizeof(img));
	memcpy(img + 0x202, "HdrS", 4);
	snprintf(img + 0x300, 0x100, "%s", tag);
	if (agent_kernel_add(db, img, sizeof(img), tag, &id, &err) < 0)
		printf("# kernel: %s\n", err.data);
	buf_release(&err);
	return id;
}

/* A series in state `built` with priority prio. */
static long long
built_series(int prio)
{
	struct db_series_req r = { .source = "upload" };
	int64_t id = 0;

	db_series_insert(db, &r, &id);
	db_series_set_state(db, id, "queued", "built", NULL);
	db_sched_set_priority(db, id, prio);
	return id;
}

static long long
compare(long long sid)
{
	struct buf err = BUF_INIT(1024);
	struct sched_comparison c;
	long long cid = 0;

	kbase = fake_kernel("base");
	kpatched = fake_kernel("patched");
	if (sched_create(db, sid, kbase, kpatched, "built", "running",
	    &err) < 0)
		printf("# sched_create: %s\n", err.data);
	if (sched_get(db, sid, &c) == 0) {
		cid = c.id;
		sched_comparison_release(&c);
	}
	buf_release(&err);
	return cid;
}

static void
agent(const char *name, const char *class)
{
	json_t *topo = json_pack("{s:i,s:i,s:i,s:s}", "sockets", 2, "nodes",
	    2, "cpus", 4, "cpu_model", class);

	db_agent_register(db, name, class, "qemu", "6.12.0", topo, clk);
	json_decref(topo);
}

struct lease {
	long long id;
	int	 attempt;
	char	 side[8];
	int	 boot;
	long long kernel;
};

/* 1 when the agent got a job (filled in l), 0 when none. */
static int
lease(const char *name, const char *class, struct lease *l)
{
	json_t *j = NULL, *row = NULL;
	int rc = db_job_lease(db, name, class, clk, 600, &j);

	memset(l, 0, sizeof(*l));
	if (rc != 0)
		return 0;
	l->id = json_integer_value(json_object_get(j, PROTO_ID));
	l->attempt = (int)json_integer_value(json_object_get(j, PROTO_ATTEMPT));
	l->kernel = json_integer_value(json_object_get(json_object_get(j,
	    PROTO_KERNEL), PROTO_ID));
	if (db_job_get(db, l->id, &row) == 0) {
		snprintf(l->side, sizeof(l->side), "%s", json_string_value(
		    json_object_get(row, "side")));
		l->boot = (int)json_integer_value(json_object_get(row,
		    "boot"));
	}
	json_decref(row);
	json_decref(j);
	return 1;
}

/* Deterministic noise in [-1, 1). */
static double
noise(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return ((*s >> 8) & 0xffff) / 32768.0 - 1.0;
}

/*
 * Uploads the job's results: status "done" with 3 iterations of one
 * metric around mean (relative noise rel), or a failure status with a
 * reason and a console log.
 */
static int
upload(const char *name, const struct lease *l, const char *status,
    double mean, double rel)
{
	json_t *up, *samples = json_array();
	unsigned seed = (unsigned)(l->id * 7919 + l->attempt);
	double bm;
	int it, rc;

	if (!strcmp(status, "done")) {
		bm = mean * (1 + rel * noise(&seed));
		for (it = 0; it < 3; it++)
			json_array_append_new(samples, json_pack("{s:s,s:s,"
			    "s:i,s:s,s:f,s:s,s:s}", "workload", "fault-free",
			    "params", "mode=shmem,tasks=2", "iteration", it,
			    "metric", "pages_per_sec", "value", bm * (1 +
			    rel / 4 * noise(&seed)), "unit", "pages/s",
			    "better", "higher"));
	}
	up = json_pack("{s:s,s:i,s:s,s:o,s:[{s:s,s:s}]}", PROTO_AGENT, name,
	    PROTO_ATTEMPT, l->attempt, PROTO_STATUS, status, PROTO_SAMPLES,
	    samples, PROTO_PROFILES, "workload", "fault-free", "lock",
	    "lru_lock");
	if (strcmp(status, "done"))
		json_object_set_new(up, PROTO_REASON, json_string(
		    !strcmp(status, "boot-failed") ? "kernel panic" :
		    "download failed: sha256 mismatch"));
	rc = db_job_store(db, l->id, up, strcmp(status, "done") ?
	    "console/fake.log" : NULL, clk, 0);
	json_decref(up);
	return rc;
}

/* Runs the wait stage once as the pipeline would and applies its outcome
   to the series.  Returns STAGE_*; err (may be NULL) gets the sentence. */
static int
wait_stage(long long sid, struct buf *err)
{
	struct stage_ctx ctx;
	volatile int stop = 0;
	int rc;

	memset(&ctx, 0, sizeof(ctx));
	ctx.db = db;
	ctx.series_id = sid;
	ctx.from = "running";
	ctx.to = "done";
	ctx.stop = &stop;
	buf_init(&ctx.err, 4096);
	rc = stage_sched_wait(&ctx);
	if (rc == STAGE_OK)
		db_series_set_state(db, sid, "running", "done", NULL);
	else if (rc == STAGE_FAIL)
		db_series_set_state(db, sid, "running", "failed",
		    ctx.err.data);
	if (err)
		buf_addstr(err, ctx.err.data ? ctx.err.data : "");
	buf_release(&ctx.err);
	return rc;
}

static char *
series_state(long long sid)
{
	struct db_series s;
	char *st;

	if (db_series_get(db, sid, 0, &s) != 0)
		return xstrdup("?");
	st = xstrdup(s.state);
	db_series_release(&s);
	return st;
}

static void
test_interleave_one_agent(void)
{
	struct sched_comparison c;
	struct buf jl = BUF_INIT(0);
	struct lease l;
	long long sid, cid;
	char order[64] = "", *st;
	int n = 0, ok_kernels = 1, lines = 0, bad_boot = 0;
	size_t i;

	fresh_store();
	agent("one", "c-one");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	cid = compare(sid);
	ok(cid > 0, "one agent: comparison created");
	st = series_state(sid);
	is_str(st, "running", "one agent: series is running");
	free(st);
	is_int(wait_stage(sid, NULL), STAGE_WAIT, "one agent: waits for jobs");
	while (lease("one", "c-one", &l)) {
		order[n++] = l.side[0] == 'b' ? 'A' : 'B';
		if (l.kernel != (l.side[0] == 'b' ? kbase : kpatched))
			ok_kernels = 0;
		upload("one", &l, "done", 1000, 0.002);
		if (n == 3) {
			sched_get(db, sid, &c);
			is_int(c.base.done + c.patched.done, 3,
			    "one agent: progress counts 3 boots done");
			is_int(c.base.planned, 4, "one agent: 4 planned per side");
			sched_comparison_release(&c);
		}
	}
	is_str(order, "ABABABAB", "one agent: leases alternate A B A B");
	ok(ok_kernels, "one agent: base jobs boot the base kernel, patched "
	    "jobs the patched one");
	is_int(wait_stage(sid, NULL), STAGE_OK, "one agent: finishes");
	st = series_state(sid);
	is_str(st, "done", "one agent: series done");
	free(st);
	sched_get(db, sid, &c);
	is_str(c.state, "done", "one agent: comparison done");
	is_int(c.look, 1, "one agent: decided at the first look");
	ok(c.summary && strstr(c.summary, "1 no change"), "one agent: summary "
	    "says no change: %s", c.summary ? c.summary : "(null)");
	ok(c.result && strstr(c.result, "\"rows\""), "one agent: stats "
	    "result stored");
	sched_comparison_release(&c);
	sched_side_jsonl(db, cid, "patched", &jl);
	for (i = 0; i < jl.len; i++)
		if (jl.data[i] == '\n')
			lines++;
	is_int(lines, 4 * 3, "one agent: patched JSONL has 4 boots x 3 runs");
	for (i = 1; i <= 4; i++) {
		char want[32];

		snprintf(want, sizeof(want), "\"boot\":%zu,", i);
		if (!jl.data || !strstr(jl.data, want))
			bad_boot = 1;
	}
	ok(!bad_boot, "one agent: JSONL boots are the job boot numbers 1..4");
	ok(jl.data && !strstr(jl.data, "\"attempt\""), "one agent: JSONL is "
	    "the stats format (no attempt)");
	buf_release(&jl);
}

static void
test_interleave_two_agents(void)
{
	struct sched_comparison c;
	struct lease l;
	const char *names[2] = { "left", "right" };
	char seq[64] = "", per[2][32] = { "", "" };
	int n = 0, k, pairs_ok = 1, alt_ok = 1;
	long long sid;
	size_t i;

	fresh_store();
	agent("left", "c-two");
	agent("right", "c-two");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	compare(sid);
	sched_get(db, sid, &c);
	is_str(c.class, "c-two", "two agents: pinned to their class");
	sched_comparison_release(&c);
	/* the two agents lease in turn, as two equal machines would */
	for (k = 0; lease(names[k], "c-two", &l); k ^= 1) {
		char s = l.side[0] == 'b' ? 'A' : 'B';

		seq[n++] = s;
		per[k][strlen(per[k])] = s;
		upload(names[k], &l, "done", 1000, 0.002);
	}
	is_int(n, 8, "two agents: every job leased");
	for (i = 0; i + 1 < (size_t)n; i += 2)
		if (seq[i] == seq[i + 1])
			pairs_ok = 0;
	ok(pairs_ok, "two agents: every two consecutive leases are one A and "
	    "one B (%s)", seq);
	for (k = 0; k < 2; k++)
		for (i = 0; per[k][i] && per[k][i + 1]; i++)
			if (per[k][i] == per[k][i + 1])
				alt_ok = 0;
	ok(alt_ok, "two agents: each agent alternates sides (%s, %s)",
	    per[0], per[1]);
	is_int(wait_stage(sid, NULL), STAGE_OK, "two agents: finishes");
}

static void
test_lease_expiry(void)
{
	struct sched_comparison c;
	struct lease l, l2;
	long long sid, first;
	int got;
	char *st;

	fresh_store();
	agent("a", "c-x");
	agent("b", "c-x");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	compare(sid);
	lease("a", "c-x", &l);
	first = l.id;
	/* a vanishes; after the lease, b's request re-queues a's job */
	clk += 601;
	lease("b", "c-x", &l2);
	is_int(l2.id, first, "expiry: the expired job goes to the next agent");
	is_int(l2.attempt, 2, "expiry: as its second attempt");
	sched_get(db, sid, &c);
	is_int(c.njobs, 8, "expiry: no new job for a re-queued lease");
	is_int(c.base.running, 1, "expiry: progress shows it running");
	ok(c.nagents == 1 && !strcmp(c.agents[0], "b"), "expiry: current "
	    "agent is b");
	sched_comparison_release(&c);
	/* b vanishes too: max_attempts (2) expiries fail the job */
	clk += 601;
	got = lease("a", "c-x", &l);
	ok(got && l.id != first, "expiry: a gets another job");
	upload("a", &l, "done", 1000, 0.002);
	is_int(wait_stage(sid, NULL), STAGE_WAIT, "expiry: still waiting");
	sched_get(db, sid, &c);
	is_int(c.njobs, 9, "expiry: the failed job got a replacement");
	is_int(c.replacements, 1, "expiry: one replacement counted");
	ok(c.jobs[0].replaced && !strcmp(c.jobs[0].state, "failed"),
	    "expiry: the failed job is marked replaced");
	is_int(c.jobs[8].boot, c.jobs[0].boot, "expiry: replacement keeps "
	    "the boot number");
	is_str(c.jobs[8].side, c.jobs[0].side, "expiry: and the side");
	sched_comparison_release(&c);
	while (lease("a", "c-x", &l))
		upload("a", &l, "done", 1000, 0.002);
	is_int(wait_stage(sid, NULL), STAGE_OK, "expiry: finishes");
	sched_get(db, sid, &c);
	is_int(c.base.done, 4, "expiry: 4 base boots done");
	is_int(c.patched.done, 4, "expiry: 4 patched boots done");
	is_int(c.base.lost + c.patched.lost, 0, "expiry: nothing lost");
	sched_comparison_release(&c);
	st = series_state(sid);
	is_str(st, "done", "expiry: series done");
	free(st);
}

static void
test_infra_vs_kernel_failure(void)
{
	struct sched_comparison c;
	struct lease l;
	long long sid;
	int n = 0, infra = 0, kern = 0;
	size_t i;

	fresh_store();
	agent("a", "c-x");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	compare(sid);
	while (lease("a", "c-x", &l)) {
		n++;
		if (!infra && !strcmp(l.side, "base") && l.boot == 2) {
			upload("a", &l, "failed", 0, 0);
			infra = 1;
			/* the scheduler notices between leases */
			wait_stage(sid, NULL);
		} else if (!kern && !strcmp(l.side, "patched") &&
		    l.boot == 3) {
			upload("a", &l, "boot-failed", 0, 0);
			kern = 1;
			wait_stage(sid, NULL);
		} else {
			upload("a", &l, "done", 1000, 0.002);
		}
	}
	is_int(n, 9, "failures: 8 jobs and one replacement ran");
	is_int(wait_stage(sid, NULL), STAGE_OK, "failures: finishes");
	sched_get(db, sid, &c);
	is_int(c.replacements, 1, "failures: the infrastructure failure was "
	    "replaced");
	is_int(c.base.done, 4, "failures: all 4 base boots done");
	is_int(c.patched.done, 3, "failures: 3 patched boots done");
	is_int(c.patched.boot_failed, 1, "failures: the panic is a result");
	for (i = 0; i < c.njobs; i++)
		if (!strcmp(c.jobs[i].state, "boot-failed"))
			ok(!c.jobs[i].replaced && c.jobs[i].console,
			    "failures: the panicked boot was not retried and "
			    "keeps its console log");
	ok(c.summary && strstr(c.summary, "0 base and 1 patched boots failed "
	    "to boot"), "failures: summary says how many failed: %s",
	    c.summary ? c.summary : "(null)");
	sched_comparison_release(&c);
}

/* Infrastructure failures past [sched] replacements (2): the boots are
   lost; a side with none left fails the series saying so. */
static void
test_infra_exhausted(void)
{
	struct sched_comparison c;
	struct buf err = BUF_INIT(0);
	struct lease l;
	long long sid;
	int rc = STAGE_WAIT, rounds = 0;

	fresh_store();
	agent("a", "c-x");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	compare(sid);
	while (rc == STAGE_WAIT && rounds++ < 10) {
		while (lease("a", "c-x", &l))
			upload("a", &l, !strcmp(l.side, "base") ? "failed" :
			    "done", 1000, 0.002);
		buf_reset(&err);
		rc = wait_stage(sid, &err);
	}
	is_int(rc, STAGE_FAIL, "exhausted: the series fails");
	ok(err.data && strstr(err.data, "no base boot ran: 0 failed to boot, "
	    "4 lost to infrastructure failures"), "exhausted: reason: %s",
	    err.data ? err.data : "(null)");
	sched_get(db, sid, &c);
	is_int(c.replacements, 2, "exhausted: exactly [sched] replacements "
	    "replacements were made");
	is_int(c.njobs, 10, "exhausted: 8 jobs and 2 replacements");
	is_int(c.base.lost, 4, "exhausted: 4 base boots lost");
	sched_comparison_release(&c);
	buf_release(&err);
}

static void
test_every_boot_panicked(void)
{
	struct sched_comparison c;
	struct buf err = BUF_INIT(0);
	struct lease l;
	long long sid;
	char *st;

	fresh_store();
	agent("a", "c-x");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	compare(sid);
	while (lease("a", "c-x", &l))
		upload("a", &l, !strcmp(l.side, "patched") ? "boot-failed" :
		    "done", 1000, 0.002);
	is_int(wait_stage(sid, &err), STAGE_FAIL, "panic: the series fails");
	ok(err.data && !strncmp(err.data, "every patched boot panicked", 27),
	    "panic: reason is the failed sentence: %s", err.data);
	ok(err.data && strstr(err.data, "/console?attempt=1"), "panic: the "
	    "reason links a console log");
	st = series_state(sid);
	is_str(st, "failed", "panic: series state failed");
	free(st);
	sched_get(db, sid, &c);
	is_str(c.state, "failed", "panic: comparison failed");
	is_int(c.patched.boot_failed, 4, "panic: 4 patched boot failures");
	is_int(c.njobs, 8, "panic: kernel failures are not retried");
	sched_comparison_release(&c);
	buf_release(&err);
}

static void
test_adaptive(void)
{
	struct sched_comparison c;
	struct stats_result r;
	struct buf err = BUF_INIT(0);
	struct lease l;
	long long sid, cid;
	size_t i;
	int regress = 0;

	fresh_store();
	agent("a", "c-x");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	cid = compare(sid);
	sched_get(db, sid, &c);
	is_int(c.looks, stats_planned_looks(4, 8, 4), "adaptive: looks "
	    "planned from the budget (4, 8, 4)");
	sched_comparison_release(&c);
	/* patched 3% slower with 3% boot noise: 4 boots per side cannot
	   reach the first look's share of alpha (3%), 8 reach the second's */
	while (lease("a", "c-x", &l))
		upload("a", &l, "done", !strcmp(l.side, "base") ? 1000 : 970,
		    0.03);
	is_int(wait_stage(sid, NULL), STAGE_WAIT, "adaptive: inconclusive "
	    "first look waits for more boots");
	sched_get(db, sid, &c);
	is_int(c.look, 2, "adaptive: second look");
	is_int(c.planned, 8, "adaptive: 8 boots per side planned");
	is_int(c.njobs, 16, "adaptive: 8 more jobs");
	is_int(c.base.queued + c.patched.queued, 8, "adaptive: queued");
	sched_comparison_release(&c);
	while (lease("a", "c-x", &l))
		upload("a", &l, "done", !strcmp(l.side, "base") ? 1000 : 970,
		    0.03);
	is_int(wait_stage(sid, NULL), STAGE_OK, "adaptive: second look "
	    "decides");
	sched_get(db, sid, &c);
	ok(c.summary && strstr(c.summary, "1 regressions"), "adaptive: a "
	    "regression: %s", c.summary ? c.summary : "(null)");
	sched_comparison_release(&c);
	if (sched_result(db, cid, &r, &err) == 0) {
		is_int(r.opts.looks, 2, "adaptive: judged with looks = 2");
		for (i = 0; i < r.n; i++)
			if (r.rows[i].verdict == STATS_REGRESSION &&
			    r.rows[i].base.nboots == 8)
				regress = 1;
		ok(regress, "adaptive: the row is a regression over 8 boots");
		stats_result_release(&r);
	} else {
		ok(0, "adaptive: result: %s", err.data);
	}
	buf_release(&err);
}

/* The comparison a leased job belongs to. */
static long long
lease_comparison(const struct lease *l)
{
	json_t *row;
	long long comp = 0;

	if (db_job_get(db, l->id, &row) == 0) {
		comp = json_integer_value(json_object_get(row, "comparison"));
		json_decref(row);
	}
	return comp;
}

/*
 * Job order: a comparison started earlier finishes before a later one
 * starts.  A's first look is inconclusive; its second look's jobs are
 * created after all of B's, yet the agents lease them before any of B's.
 */
static void
test_job_order(void)
{
	struct sched_comparison c;
	struct lease l;
	long long sa, sb, ca, cb, comp;
	char order[64] = "";
	int n = 0, boots_ok = 1, last_boot = 0, k = 0;
	const char *names[2] = { "a", "b" };

	fresh_store();
	agent("a", "c-x");
	agent("b", "c-x");
	sa = built_series(SCHED_PRIO_INTERACTIVE);
	ca = compare(sa);
	sb = built_series(SCHED_PRIO_INTERACTIVE);
	cb = compare(sb);
	/* two agents take A's first look (A's 8 jobs were created first) */
	while (n < 8 && lease(names[k], "c-x", &l)) {
		ok(lease_comparison(&l) == ca || n != 0, "job order: the first "
		    "lease is the earlier comparison's");
		if (lease_comparison(&l) != ca)
			break;
		upload(names[k], &l, "done", !strcmp(l.side, "base") ? 1000 :
		    970, 0.03);
		n++;
		k ^= 1;
	}
	is_int(n, 8, "job order: A's first look leased before any of B's");
	is_int(wait_stage(sa, NULL), STAGE_WAIT, "job order: A's first look "
	    "is inconclusive: a second look");
	sched_get(db, sa, &c);
	is_int(c.look, 2, "job order: A is at look 2");
	sched_comparison_release(&c);
	/* A's second look (created after B's jobs) goes before B */
	n = 0;
	while (lease(names[k], "c-x", &l) && n < 60) {
		comp = lease_comparison(&l);
		order[n++] = comp == ca ? 'A' : comp == cb ? 'B' : '?';
		if (comp == ca) {
			if (l.boot < last_boot)
				boots_ok = 0;
			last_boot = l.boot;
		}
		upload(names[k], &l, "done", !strcmp(l.side, "base") ? 1000 :
		    970, 0.03);
		k ^= 1;
	}
	order[n] = '\0';
	is_str(order, "AAAAAAAABBBBBBBB", "job order: A's extra look before "
	    "B, which waited");
	ok(boots_ok, "job order: A's extra boots in boot order");
}

static void
test_priority(void)
{
	struct lease l;
	long long nightly, inter;
	struct sched_comparison c;
	int n = 0, order_ok = 1, seen_nightly = 0;
	long long cn, ci;

	fresh_store();
	agent("a", "c-x");
	nightly = built_series(SCHED_PRIO_NIGHTLY);
	cn = compare(nightly);
	inter = built_series(SCHED_PRIO_INTERACTIVE);
	ci = compare(inter);
	while (lease("a", "c-x", &l)) {
		json_t *row;
		long long comp = 0;

		if (db_job_get(db, l.id, &row) == 0) {
			comp = json_integer_value(json_object_get(row,
			    "comparison"));
			json_decref(row);
		}
		if (n == 0)
			is_int(comp, ci, "priority: the first lease is the "
			    "interactive comparison's, though submitted later");
		if (comp == cn)
			seen_nightly = 1;
		else if (seen_nightly)
			order_ok = 0;
		upload("a", &l, "done", 1000, 0.002);
		n++;
	}
	ok(order_ok && seen_nightly, "priority: every interactive job before "
	    "any nightly job");
	sched_get(db, nightly, &c);
	is_int(c.priority, SCHED_PRIO_NIGHTLY, "priority: stored on the "
	    "comparison");
	sched_comparison_release(&c);
}

static void
test_one_class(void)
{
	struct sched_comparison c;
	struct lease l;
	long long sid;
	int other = 0;
	size_t i, same = 0;

	/* agents known: the best-populated class */
	fresh_store();
	agent("x1", "c-x");
	agent("x2", "c-x");
	agent("y1", "c-y");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	compare(sid);
	sched_get(db, sid, &c);
	is_str(c.class, "c-x", "class: the best-populated class is chosen");
	sched_comparison_release(&c);
	ok(!lease("y1", "c-y", &l), "class: an agent of another class gets "
	    "no job of it");

	/* no agent known yet: the first lease pins the class */
	fresh_store();
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	compare(sid);
	sched_get(db, sid, &c);
	ok(c.class == NULL, "class: open while no agent is known");
	sched_comparison_release(&c);
	agent("y1", "c-y");
	agent("x1", "c-x");
	agent("x2", "c-x");
	ok(lease("y1", "c-y", &l), "class: the first agent leases a job");
	other = lease("x1", "c-x", &l);
	ok(!other, "class: an agent of another class then gets none");
	sched_get(db, sid, &c);
	is_str(c.class, "c-y", "class: pinned to the first agent's class");
	for (i = 0; i < c.njobs; i++)
		if (c.jobs[i].class && !strcmp(c.jobs[i].class, "c-y"))
			same++;
	is_int(same, c.njobs, "class: every job requires that class");
	sched_comparison_release(&c);
}

/* What the project ships passes the daemon's check: the default matrix
   and every suite. */
static void
test_shipped_matrices(void)
{
	static const char *const files[] = { "workloads.conf",
	    "suites/lru-lock.conf", "suites/list-lru.conf",
	    "suites/large-folio.conf", "suites/memcg-flush.conf" };
	struct buf text = BUF_INIT(1 << 20), err = BUF_INIT(0);
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/etc/%s", KPERFCI_SRCDIR,
		    files[i]);
		buf_reset(&text);
		buf_reset(&err);
		ok(buf_read_file(&text, path) == 0 && matrix_check(files[i],
		    text.data, text.len, &err) == 0, "matrix_check accepts "
		    "etc/%s %s", files[i], err.data ? err.data : "");
	}
	buf_release(&text);
	buf_release(&err);
}

static void
test_request(void)
{
	struct buf err = BUF_INIT(0);
	const char *m;
	int b, rc;
	struct {
		const char *json, *want;
	} bad[] = {
		{ "{\"matrix\": 3}", "\"matrix\" must be a string" },
		{ "{\"matrix\": \"\"}", "\"matrix\" must be 1.." },
		{ "{\"matrix\": \"workload = x\\n\"}",
		    "matrix:1: key \"workload\" outside a section" },
		{ "{\"matrix\": \"# c\\n[defaults]\\nseconds = 1\\n\"}",
		    "matrix: no [run" },
		{ "{\"matrix\": \"[run \\\"a\\\"]\\nworkload = null\\nmode\\n\"}",
		    "matrix:3: expected key = value" },
		{ "{\"matrix\": \"[run \\\"a\\\"]\\nseconds = 1\\n\"}",
		    "matrix:1: run \"a\" names no workload" },
		{ "{\"matrix\": \"\\n[run \\\"a\\\"]\\nworkload = nope\\n\"}",
		    "matrix:2: run \"a\": unknown workload \"nope\"" },
		{ "{\"matrix\": \"[run \\\"a\\\"]\\nworkload = fault-free\\n"
		    "frob = 1\\n\"}", "matrix:1: run \"a\": fault-free: unknown "
		    "parameter --frob" },
		{ "{\"matrix\": \"[run \\\"a\\\"]\\nworkload = fault-free\\n"
		    "mode = huge\\n\"}", "matrix:1: run \"a\": fault-free: --mode "
		    "\"huge\" is not one of" },
		{ "{\"matrix\": \"[run \\\"a\\\"]\\nworkload = fault-free\\n"
		    "tasks = lots\\n\"}", "matrix:1: run \"a\": " },
		{ "{\"matrix\": \"[run \\\"a\\\"]\\nworkload = null\\n"
		    "seconds = 0\\n\"}", "matrix:1: run \"a\": --seconds" },
		{ "{\"matrix\": \"[run \\\"a\\\"]\\u0001\"}", "control" },
		{ "{\"boots\": 0}", "\"boots\" must be an integer" },
		{ "{\"boots\": 9}", "between 1 and 8" },
		{ "{\"boots\": \"4\"}", "\"boots\" must be an integer" },
	};
	struct sched_comparison c;
	struct lease l;
	json_t *j;
	long long sid;
	size_t i;

	fresh_store();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		buf_reset(&err);
		j = json_loads(bad[i].json, 0, NULL);
		rc = j ? sched_request_parse(j, &m, &b, &err) : 0;
		ok(rc == -1 && err.data && strstr(err.data, bad[i].want),
		    "request: %s refused: %s", bad[i].json,
		    rc == -1 && err.data ? err.data : "(accepted)");
		json_decref(j);
	}
	is_int(sched_request_boots("3", &b, &err), 0, "request: ?boots=3");
	is_int(b, 3, "request: ?boots=3 is 3");
	is_int(sched_request_boots(NULL, &b, &err) + b, 0, "request: no "
	    "?boots is 0");
	buf_reset(&err);
	rc = sched_request_boots("99999999999999999999", &b, &err);
	ok(rc == -1 && err.data && strstr(err.data, "boots must be"),
	    "request: ?boots overflow refused");
	rc = sched_request_boots("2x", &b, &err);
	ok(rc == -1, "request: ?boots=2x refused");
	rc = sched_request_boots("0", &b, &err);
	ok(rc == -1, "request: ?boots=0 refused");
	j = json_loads("{\"url\": \"x\", \"boots\": 2, \"matrix\": "
	    "\"[run \\\"quick\\\"]\\nworkload = null\\n\"}", 0, NULL);
	ok(sched_request_parse(j, &m, &b, &err) == 0 && b == 2 && m,
	    "request: matrix and boots accepted");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	sched_request_store(db, sid, m, b);
	json_decref(j);
	agent("a", "c-x");
	compare(sid);
	sched_get(db, sid, &c);
	is_int(c.boots, 2, "request: 2 boots per side for a quick run");
	is_int(c.boot_step, 2, "request: step scaled down (4 * 2 / 4)");
	is_int(c.max_boots, 4, "request: max scaled down (8 * 2 / 4)");
	is_int(c.njobs, 4, "request: 4 jobs");
	ok(c.matrix && strstr(c.matrix, "[run \"quick\"]"), "request: the "
	    "submitted matrix is used");
	sched_comparison_release(&c);
	ok(lease("a", "c-x", &l), "request: leased");
	buf_release(&err);
}

/*
 * "boots": "auto": the boots a series' claim needs on a class, from the
 * spread the class showed in a finished comparison of the same row.
 */
static const char *m_unused;

static void
test_auto_boots(void)
{
	struct series sr;
	struct sched_comparison c;
	struct buf err = BUF_INIT(0), why = BUF_INIT(0);
	struct stats_opts o;
	struct noise nz;
	const struct noise_row *nr;
	struct lease l;
	long long sid, sid2;
	json_t *j;
	int b, want;

	fresh_store();
	j = json_loads("{\"url\": \"x\", \"boots\": \"auto\"}", 0, NULL);
	ok(sched_request_parse(j, &m_unused, &b, &err) == 0 &&
	    b == SCHED_BOOTS_AUTO, "auto: \"boots\": \"auto\" accepted");
	json_decref(j);
	ok(sched_request_boots("auto", &b, &err) == 0 && b == SCHED_BOOTS_AUTO,
	    "auto: ?boots=auto accepted");
	buf_reset(&err);
	j = json_loads("{\"url\": \"x\", \"boots\": \"lots\"}", 0, NULL);
	ok(sched_request_parse(j, &m_unused, &b, &err) == -1 && err.data &&
	    strstr(err.data, "\"auto\""), "auto: other words refused, "
	    "naming auto");
	json_decref(j);

	/* no history on the class yet: [sched] boots, and why */
	agent("a", "c-x");
	stats_opts_init(&o);
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	is_int(sched_auto_boots(db, sid, "c-x", o.alpha, 8, &why), 0,
	    "auto: no history, no boots computed");
	ok(why.data && strstr(why.data, "no finished comparison"), "auto: "
	    "says why: %s", why.data ? why.data : "");

	/* one finished comparison on c-x: 8 boots per side, 2%% boot noise */
	sched_request_store(db, sid, NULL, 8);
	compare(sid);
	while (lease("a", "c-x", &l))
		upload("a", &l, "done", !strcmp(l.side, "base") ? 1000 : 700,
		    0.02);
	is_int(wait_stage(sid, NULL), STAGE_OK, "auto: the first comparison "
	    "finished");
	ok(noise_class(db, "c-x", 0, &nz) == 0 && nz.ncomparisons == 1,
	    "auto: the class has one finished comparison");
	/* a stored result that does not parse is skipped, the rest kept */
	noise_add_result(&nz, "{\"rows\": 7");
	noise_add_result(&nz, "[1, 2]");
	noise_add_result(&nz, NULL);
	ok(nz.ncomparisons == 1 && nz.n >= 1, "auto: unparseable results "
	    "are skipped, nothing pooled is lost");
	nr = noise_find(&nz, "fault-free", "mode=shmem,tasks=2",
	    "pages_per_sec");
	ok(nr && nr->dof == 14 && nr->cv_pct > 0.3 && nr->cv_pct < 3,
	    "auto: pooled spread of the row over 2 x 7 dof: %.2f%%",
	    nr ? nr->cv_pct : -1.0);
	/* what a 4%% claim needs at that spread, in one look at alpha */
	want = nr ? claims_boots_needed(nr->cv_pct, 4, o.alpha,
	    SCHED_AUTO_POWER) : -1;
	if (want < 2)
		want = 2;

	/* a series claiming 4%% more fault-free pages/s, boots auto */
	memset(&sr, 0, sizeof(sr));
	sr.version = 1;
	sr.cover_subject = "[PATCH 0/1] mm: faster shmem faults";
	sr.cover_body = "With threads on all CPUs, fault-free shmem pages/s "
	    "improve by 4%.\n";
	{
		struct db_series_req r = { .source = "upload" };
		int64_t id = 0;

		db_series_insert(db, &r, &id);
		db_series_store_picked(db, id, &sr, "queued", "built");
		db_sched_set_priority(db, id, SCHED_PRIO_INTERACTIVE);
		sid2 = id;
	}
	buf_reset(&why);
	b = sched_auto_boots(db, sid2, "c-x", o.alpha, 1000, &why);
	is_int(b, want, "auto: the boots a 4%% claim needs: %s",
	    why.data ? why.data : "");
	buf_reset(&why);
	b = sched_auto_boots(db, sid2, "c-x", o.alpha, 3, &why);
	ok(b == 3 && why.data && strstr(why.data, "capped"), "auto: capped "
	    "by the budget: %s", why.data ? why.data : "");
	sched_request_store(db, sid2, NULL, SCHED_BOOTS_AUTO);
	compare(sid2);
	sched_get(db, sid2, &c);
	b = want > app.settings.sched.max_boots ?
	    app.settings.sched.max_boots : want;
	is_int(c.boots, b, "auto: the comparison plans those boots");
	is_int(c.looks, 1, "auto: in one look (all of alpha there)");
	sched_comparison_release(&c);
	noise_release(&nz);
	buf_release(&why);
	buf_release(&err);
}

/* built -> running through the pipeline, from recorded builds. */
static void
test_stage_from_builds(void)
{
	struct sched_comparison c;
	struct buf html = BUF_INIT(0);
	char img[0x400], *bdir, *pdir, *p;
	int64_t bb, pb;
	long long sid;
	json_t *o;
	char *st;

	fresh_store();
	agent("a", "c-x");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	memset(img, 0, sizeof(img));
	memcpy(img + 0x202, "HdrS", 4);
	bdir = xasprintf("%s/b1", dir);
	pdir = xasprintf("%s/b2", dir);
	mkdir(bdir, 0755);
	mkdir(pdir, 0755);
	p = xasprintf("%s/bzImage", bdir);
	buf_write_file(p, img, sizeof(img));
	free(p);
	img[0x300] = 'p';
	p = xasprintf("%s/bzImage", pdir);
	buf_write_file(p, img, sizeof(img));
	free(p);
	db_build_claim(db, "k1", "t", "c1", "tinyconfig", 0, &bb);
	db_build_finish(db, bb, "done", bdir, "s1", NULL, NULL, 1, 1);
	db_build_claim(db, "k2", "t", "c2", "tinyconfig", bb, &pb);
	db_build_finish(db, pb, "done", pdir, "s2", NULL, NULL, 1, 1);
	db_build_series_set(db, sid, "t", "c1", "branch-head", "why", "c2",
	    "refs/kperfci/series/1", NULL, NULL, 0);
	db_build_series_set_builds(db, sid, bb, pb);
	ok(pipeline_run_once(db) >= 1, "stage: the pipeline ran a stage");
	st = series_state(sid);
	is_str(st, "running", "stage: built -> running");
	free(st);
	ok(sched_get(db, sid, &c) == 0, "stage: comparison stored");
	is_int(c.njobs, 8, "stage: first look's jobs queued");
	ok(c.base.kernel_id > 0 && c.patched.kernel_id > 0 &&
	    c.base.kernel_id != c.patched.kernel_id, "stage: both bzImages "
	    "registered as distinct kernels");
	ok(c.matrix && strstr(c.matrix, "[run "), "stage: default matrix");
	sched_comparison_release(&c);
	o = json_object();
	api_series_schedule(db, sid, o);
	ok(json_integer_value(json_object_get(json_object_get(json_object_get(
	    o, "schedule"), "base"), "planned")) == 4, "stage: series JSON "
	    "has schedule.base.planned");
	json_decref(o);
	ui_series_schedule(db, sid, &html);
	ok(html.data && strstr(html.data, "<h2>Boots</h2>"), "stage: series "
	    "page section");
	buf_release(&html);
	free(bdir);
	free(pdir);
}

/* POST /api/v1/series through the real route tables. */
static int
post_series(const char *json, struct buf *body)
{
	struct http_req r;
	struct http_resp resp;
	int status;

	http_req_init(&r, "POST", "/api/v1/series", 1 << 20);
	http_req_add_header(&r, "Content-Type", "application/json");
	buf_addstr(&r.body, json);
	r.db = db;
	r.peer = "127.0.0.1";	/* a trusted loopback submitter */
	http_resp_init(&resp);
	http_route_dispatch(NULL, &r, &resp);
	status = resp.status;
	buf_addstr(body, resp.body.data ? resp.body.data : "");
	http_resp_release(&resp);
	http_req_release(&r);
	return status;
}

static void
test_api(void)
{
	struct buf body = BUF_INIT(0);
	json_t *j;
	char *m = NULL;
	int b = 0, status;
	long long id;

	fresh_store();
	status = post_series("{\"url\": \"http://127.0.0.1:9/linux-mm/"
	    "1.a@example.org/\", \"boots\": 0}", &body);
	is_int(status, 400, "api: boots 0 refused");
	ok(body.data && strstr(body.data, "\\\"boots\\\""), "api: the error "
	    "names the field: %s", body.data);
	buf_reset(&body);
	status = post_series("{\"url\": \"http://127.0.0.1:9/linux-mm/"
	    "1.a@example.org/\", \"boots\": 3, \"matrix\": "
	    "\"[run \\\"n\\\"]\\nworkload = null\\n\"}", &body);
	is_int(status, 202, "api: matrix and boots accepted");
	j = json_loads(body.data ? body.data : "", 0, NULL);
	id = json_integer_value(json_object_get(j, "id"));
	json_decref(j);
	db_sched_request_get(db, id, &m, &b);
	is_int(b, 3, "api: boots stored with the series");
	ok(m && !strcmp(m, "[run \"n\"]\nworkload = null\n"), "api: matrix "
	    "stored with the series");
	free(m);
	buf_release(&body);
}

/* GET path through the real route tables (the response cache included):
   the body's length when 200, else 0. */
static size_t
get_len(const char *path)
{
	struct http_req r;
	struct http_resp resp;
	size_t len;

	http_req_init(&r, "GET", path, 0);
	http_req_add_header(&r, "Host", "127.0.0.1:8080");
	r.db = db;
	r.peer = "127.0.0.1";
	http_resp_init(&resp);
	http_route_dispatch(NULL, &r, &resp);
	len = resp.status == 200 ? resp.body.len : 0;
	if (resp.status != 200)
		printf("# GET %s: %d\n", path, resp.status);
	http_resp_release(&resp);
	http_req_release(&r);
	return len;
}

/* An upload of job l with rows (workload, params, metric) distinct rows,
   3 iterations each: params "row=<first + i>". */
static json_t *
rows_upload(const char *name, const struct lease *l, int first, int rows)
{
	json_t *samples = json_array();
	char params[32];
	int i, it;

	for (i = 0; i < rows; i++) {
		snprintf(params, sizeof(params), "row=%d", first + i);
		for (it = 0; it < 3; it++)
			json_array_append_new(samples, json_pack("{s:s,s:s,"
			    "s:i,s:s,s:f,s:s,s:s}", "workload", "fault-free",
			    "params", params, "iteration", it, "metric",
			    "pages_per_sec", "value", 1000.0 + it + (i % 7) +
			    (double)(l->id % 5) / 10,
			    "unit", "pages/s", "better", "higher"));
	}
	return json_pack("{s:s,s:i,s:s,s:o}", PROTO_AGENT, name, PROTO_ATTEMPT,
	    l->attempt, PROTO_STATUS, "done", PROTO_SAMPLES, samples);
}

/* POST /api/v1/jobs/{id}/results as agent "capped"; the status, the
   body in out. */
static int
post_results(long long id, const json_t *up, struct buf *out)
{
	struct http_req r;
	struct http_resp resp;
	char *path = xasprintf("/api/v1/jobs/%lld/results", id);
	char *body = json_dumps(up, JSON_COMPACT);
	int status;

	http_req_init(&r, "POST", path, PROTO_MAX_BODY);
	http_req_add_header(&r, "Content-Type", "application/json");
	http_req_add_header(&r, "Authorization", "Bearer t-sched-capped");
	buf_addstr(&r.body, body);
	r.db = db;
	r.peer = "127.0.0.1";
	http_resp_init(&resp);
	http_route_dispatch(NULL, &r, &resp);
	status = resp.status;
	buf_addstr(out, resp.body.data ? resp.body.data : "");
	http_resp_release(&resp);
	http_req_release(&r);
	free(body);
	free(path);
	return status;
}

static long long
job_samples(long long id)
{
	json_t *s = NULL, *p = NULL;
	long long n;

	db_job_results(db, id, &s, &p);
	n = (long long)json_array_size(s);
	json_decref(s);
	json_decref(p);
	return n;
}

/*
 * [sched] max_rows caps the distinct rows of one comparison, over all
 * its uploads: a boot that brings rows of its own past the cap is refused
 * (400 naming the cap) and what was stored stays; boots of the same rows
 * go in.  A comparison at the default cap finishes and its page, JSON and
 * report.txt are answered from the response cache on the second GET.
 */
static void
test_row_cap(void)
{
	struct buf body = BUF_INIT(0);
	struct lease l;
	unsigned long h0, m0, h1, m1;
	long long sid, first = 0;
	int cap = app.settings.sched.max_rows, n = 0, st;
	const char *pre[] = { "/series/", "/api/v1/series/", "/series/" };
	const char *suf[] = { "", "/comparison", "/report.txt" };
	size_t i;
	json_t *up;

	fresh_store();
	is_int(cap, 1024, "row cap: [sched] max_rows defaults to 1024");
	agent("capped", "c-cap");
	sid = built_series(SCHED_PRIO_INTERACTIVE);
	compare(sid);
	while (lease("capped", "c-cap", &l)) {
		if (n == 1) {
			/* rows of its own: 1024 + 1 past the cap */
			up = rows_upload("capped", &l, 1, cap);
			buf_reset(&body);
			st = post_results(l.id, up, &body);
			json_decref(up);
			is_int(st, 400, "row cap: a boot whose rows would take "
			    "its comparison past max_rows is refused");
			ok(body.data && strstr(body.data, "[sched] max_rows") &&
			    strstr(body.data, "1024"), "row cap: naming the "
			    "cap: %s", body.data ? body.data : "");
			is_int(job_samples(l.id), 0, "row cap: nothing of it "
			    "stored");
			is_int(job_samples(first), 3 * cap, "row cap: the "
			    "first boot's samples kept");
		}
		up = rows_upload("capped", &l, 0, cap);
		buf_reset(&body);
		st = post_results(l.id, up, &body);
		json_decref(up);
		if (st != 200)
			printf("# job %lld: %d %s\n", l.id, st, body.data);
		if (n == 0)
			first = l.id;
		if (n++ == 1)
			is_int(st, 200, "row cap: the same rows again are "
			    "stored");
	}
	is_int(n, 8, "row cap: every boot uploaded");
	is_int(wait_stage(sid, NULL), STAGE_OK, "row cap: the comparison at "
	    "the cap finishes");
	/* the first view stores the lock-profile diff beside the statistics
	   (report_cache.c: compute once); that answer is not kept, the
	   store moved under it */
	{
		char *p = xasprintf("/series/%lld", sid);

		ok(get_len(p) > 0, "row cap: the first view of the page");
		free(p);
	}
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		char *p;

		p = xasprintf("%s%lld%s", pre[i], sid, suf[i]);
		size_t len1, len2;

		http_cache_stats(&h0, &m0);
		len1 = get_len(p);
		len2 = get_len(p);
		http_cache_stats(&h1, &m1);
		ok(len1 > 0 && len1 == len2 && h1 == h0 + 1 && m1 == m0 + 1,
		    "row cap: %s at %d rows (%zu bytes) is computed once, then "
		    "served from the cache (hits %lu, misses %lu)", p, cap,
		    len1, h1 - h0, m1 - m0);
		free(p);
	}
	buf_release(&body);
}

/* The [sched] defaults are the ones the statistics were validated with. */
static void
test_defaults(void)
{
	struct config cfg;
	struct buf err = BUF_INIT(0);

	config_init(&cfg);
	config_parse(&cfg, "empty", "", &err);
	is_int(config_int(&cfg, "sched", NULL, "boots"), STATS_DEFAULT_BOOTS,
	    "defaults: [sched] boots");
	is_int(config_int(&cfg, "sched", NULL, "boot_step"),
	    STATS_DEFAULT_BOOT_STEP, "defaults: [sched] boot_step");
	is_int(config_int(&cfg, "sched", NULL, "max_boots"),
	    STATS_DEFAULT_MAX_BOOTS, "defaults: [sched] max_boots");
	config_release(&cfg);
	buf_release(&err);
}

int
main(void)
{
	struct buf err = BUF_INIT(0);
	const char *rm[] = { "rm", "-rf", dir, NULL };
	struct run rr = { .argv = rm, .timeout_sec = 30 };
	char *conf, capped[65];

	if (!mkdtemp(dir))
		return 1;
	sha256_hex("t-sched-capped", 14, capped);
	conf = xasprintf("[daemon]\ndata = %s\n"
	    "[agent \"a\"]\ntoken_sha256 = %064d\n"
	    "[agent \"capped\"]\ntoken_sha256 = %s\n"
	    "[agents]\nmax_attempts = 2\n[lore]\nallow = http://127.0.0.1:9/\n"
	    "[sched]\nboots = 4\nboot_step = 4\nmax_boots = 8\n"
	    "replacements = 2\n", dir, 0, capped);
	config_init(&app.cfg);
	ok(config_parse(&app.cfg, "test", conf, &err) == 0, "config: %s",
	    err.data ? err.data : "");
	ok(app_setup(1, &err) == 0, "paths");
	test_defaults();
	test_interleave_one_agent();
	test_interleave_two_agents();
	test_lease_expiry();
	test_infra_vs_kernel_failure();
	test_every_boot_panicked();
	test_infra_exhausted();
	test_adaptive();
	test_job_order();
	test_priority();
	test_one_class();
	test_shipped_matrices();
	test_request();
	test_auto_boots();
	test_stage_from_builds();
	test_api();
	test_row_cap();
	app_db_close_thread();
	app_release();
	config_release(&app.cfg);
	free(conf);
	buf_release(&err);
	run_cmd(&rr);
	return tap_done();
}
