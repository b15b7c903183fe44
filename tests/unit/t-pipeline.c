/*
 * Unit tests for daemon/pipeline.c with a test stage table and the real
 * store and worker threads: a stage that succeeds, fails with a reason,
 * waits, rests (and is looked at again after a restart), moves a series
 * itself; many waiting series do not starve a new one; a build stage on
 * its own queue never holds the workers of the other stages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/pipeline.h"
#include "lib/run.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-pipeline.XXXXXX";
static volatile int wait_calls, rest_calls;

static int
st_ok(struct stage_ctx *c)
{
	return STAGE_OK;
}

static int
st_fail(struct stage_ctx *c)
{
	buf_addstr(&c->err, "patch 2/3 does not apply");
	return STAGE_FAIL;
}

static int
st_wait(struct stage_ctx *c)
{
	__atomic_add_fetch(&wait_calls, 1, __ATOMIC_SEQ_CST);
	return STAGE_WAIT;
}

static int
st_rest(struct stage_ctx *c)
{
	__atomic_add_fetch(&rest_calls, 1, __ATOMIC_SEQ_CST);
	buf_addstr(&c->err, "no [tree] configured");
	return STAGE_REST;
}

/* Moves the series itself, to a state other than the row's to_state. */
static int
st_self(struct stage_ctx *c)
{
	db_series_set_state(c->db, c->series_id, c->from, "elsewhere", NULL);
	return STAGE_OK;
}

static const struct stage stages[] = {
	{ "s-ok", st_ok, "s-ok-done" },
	{ "s-fail", st_fail, "never" },
	{ "s-wait", st_wait, "never" },
	{ "s-rest", st_rest, "never" },
	{ "s-self", st_self, "never" },
};

static long long
new_series(const char *state)
{
	struct db_series_req r;
	int64_t id;

	memset(&r, 0, sizeof(r));
	r.source = "upload";
	if (db_series_insert(app_db(), &r, &id) < 0)
		return 0;
	db_series_set_state(app_db(), id, "queued", state, NULL);
	return id;
}

static char *
state_of(long long id, char **err, char **rest)
{
	struct db_series s;
	char *st;

	if (db_series_get(app_db(), id, 0, &s) != 0)
		return NULL;
	st = s.state;
	if (err)
		*err = s.error ? xstrdup(s.error) : NULL;
	if (rest)
		*rest = s.rest ? xstrdup(s.rest) : NULL;
	s.state = NULL;
	db_series_release(&s);
	return st;
}

/* Polls until series id is in state want (10 s at most). */
static int
wait_state(long long id, const char *want)
{
	char *st;
	int i, same;

	for (i = 0; i < 1200; i++) {
		st = state_of(id, NULL, NULL);
		same = st && !strcmp(st, want);
		free(st);
		if (same)
			return 1;
		usleep(50 * 1000);
	}
	return 0;
}

/* A "build" that holds its worker until the test releases it. */
static volatile int build_release, builds_running;

static int
st_build(struct stage_ctx *c)
{
	int i;

	__atomic_add_fetch(&builds_running, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < 400 && !build_release && !*c->stop; i++)
		usleep(25 * 1000);
	__atomic_sub_fetch(&builds_running, 1, __ATOMIC_SEQ_CST);
	return STAGE_OK;
}

/* fetch and apply (main queue) -> build (build queue) -> schedule (main) */
static const struct stage queued_stages[] = {
	{ "q-queued", st_ok, "q-fetched" },
	{ "q-fetched", st_ok, "q-applied" },
	{ "q-applied", st_build, "q-built", PIPELINE_Q_BUILD },
	{ "q-built", st_ok, "q-done" },
};

static void
test_queues(void)
{
	long long a, b, c;
	int i;

	pipeline_set_stages(queued_stages, sizeof(queued_stages) /
	    sizeof(queued_stages[0]));
	/* one main worker and one build slot: the starved set-up */
	ok(pipeline_start(1, 1, 1) == 0, "queues: 1 main + 1 build worker");
	a = new_series("q-queued");
	pipeline_kick();
	for (i = 0; i < 200 && !builds_running; i++)
		usleep(25 * 1000);
	is_int(builds_running, 1, "queues: the first series is building");
	b = new_series("q-queued");
	c = new_series("q-queued");
	pipeline_kick();
	ok(wait_state(b, "q-applied") && wait_state(c, "q-applied"),
	    "queues: two more series are fetched and applied while it "
	    "builds");
	is_int(builds_running, 1, "queues: and wait for the build slot only");
	build_release = 1;
	ok(wait_state(a, "q-done") && wait_state(b, "q-done") &&
	    wait_state(c, "q-done"), "queues: all three built and scheduled "
	    "once the slot frees");
	pipeline_stop();
	pipeline_set_stages(stages, sizeof(stages) / sizeof(stages[0]));
}

int
main(void)
{
	struct buf err = BUF_INIT(0);
	const char *rm[] = { "rm", "-rf", dir, NULL };
	struct run rr = { .argv = rm, .timeout_sec = 30 };
	long long ok_id, fail_id, rest_id, self_id, last, i;
	char *conf, *e = NULL, *rest = NULL, *st;
	int calls;

	if (!mkdtemp(dir))
		return 1;
	conf = xasprintf("[daemon]\ndata = %s\n", dir);
	config_init(&app.cfg);
	ok(config_parse(&app.cfg, "test", conf, &err) == 0 &&
	    app_setup(1, &err) == 0 && app_db() &&
	    db_migrate(app_db(), app.schema_dir) == 0, "store ready");
	pipeline_set_stages(stages, sizeof(stages) / sizeof(stages[0]));
	ok(!pipeline_state_is_final("s-ok") &&
	    pipeline_state_is_final("s-ok-done"), "final states from the table");

	/* more waiting series than one page of candidates */
	for (i = 0; i < 150; i++)
		new_series("s-wait");
	ok_id = new_series("s-ok");
	fail_id = new_series("s-fail");
	rest_id = new_series("s-rest");
	self_id = new_series("s-self");
	ok(pipeline_start(2, 0, 1) == 0, "two workers start");
	ok(wait_state(ok_id, "s-ok-done"),
	    "a ready series moves despite 150 waiting ones before it");
	ok(wait_state(fail_id, "failed"), "a failing stage fails the series");
	st = state_of(fail_id, &e, NULL);
	is_str(e, "patch 2/3 does not apply", "with the stage's reason");
	free(st);
	free(e);
	ok(wait_state(self_id, "elsewhere"),
	    "a stage that moved the series itself is not overridden");
	/* waits end on the event; their bound (60 s) only says when to
	   give up on a loaded machine */
	for (i = 0; i < 1200 && !rest_calls; i++)
		usleep(50 * 1000);
	usleep(300 * 1000);
	st = state_of(rest_id, NULL, &rest);
	is_str(st, "s-rest", "a resting series stays in its state");
	is_str(rest, "no [tree] configured", "the reason it rests is stored");
	free(st);
	free(rest);
	calls = rest_calls;
	sleep(2);
	is_int(rest_calls, calls, "a resting series is not run again");
	calls = wait_calls;
	/* about one look per series per second here; a worker spinning on
	   them would make tens of thousands */
	ok(calls >= 150 && calls < 150 * 20,
	    "waiting series are looked at again per poll, not spun on (%d "
	    "calls)", calls);
	pipeline_kick();
	last = new_series("s-ok");
	pipeline_kick();
	ok(wait_state(last, "s-ok-done"), "a kick wakes the workers");
	pipeline_stop();

	/* a restart looks at resting series again */
	calls = rest_calls;
	ok(pipeline_start(1, 0, 1) == 0, "restart");
	for (i = 0; i < 1200 && rest_calls == calls; i++)
		usleep(50 * 1000);
	ok(rest_calls > calls, "a resting series is looked at after a restart");
	pipeline_stop();
	test_queues();
	pipeline_set_stages(NULL, 0);

	app_db_close_thread();
	app_release();
	config_release(&app.cfg);
	buf_release(&err);
	free(conf);
	run_cmd(&rr);
	return tap_done();
}
