/*
 * kcidb: the KCIDB export (what maps to what: kcidb.h) and its worker.
 *
 * DESIGN.  One thread, fed by a condition variable (kicked when something
 * finishes) and a timer ([daemon] poll): each pass lists finished objects
 * without an export (db_kcidb_todo), renders each from the same models the
 * pages read (report_load for a comparison, db_track for runs and
 * bisects) and stores it; a stored export is never rewritten, so the
 * submit command sees each result once.  Then the oldest due export is
 * handed to [kcidb] submit (run.c: argv, own process group, timeout, the
 * JSON on stdin); a non-zero exit is retried after 30 s, doubling to at
 * most an hour, [kcidb] retries times, then marked failed with how it
 * ended.  Nothing here runs inside a GET: api_kcidb.c only merges stored
 * bodies.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/app.h"
#include "daemon/db_kcidb.h"
#include "daemon/db_track.h"
#include "daemon/kcidb.h"
#include "daemon/report.h"
#include "daemon/settings.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/xalloc.h"

/* ---- rendering ------------------------------------------------------------ */

json_t *
kcidb_doc(void)
{
	return json_pack("{s:{s:i,s:i},s:[],s:[],s:[]}", "version", "major",
	    KCIDB_MAJOR, "minor", KCIDB_MINOR, "checkouts", "builds",
	    "tests");
}

void
kcidb_merge(json_t *dst, const json_t *src)
{
	static const char *const parts[] = { "checkouts", "builds", "tests" };

	for (size_t i = 0; i < 3; i++) {
		json_t *d = json_object_get(dst, parts[i]);
		json_t *s = json_object_get(src, parts[i]);

		if (json_is_array(d) && json_is_array(s))
			json_array_extend(d, s);
	}
}

/* Text without NUL or control bytes but newline and tab (the schema's
   strings refuse NUL; the rest keeps consumers' terminals sane). */
static json_t *
kcidb_str(const char *s)
{
	char *c = xstrdup(s ? s : "");
	json_t *j;

	for (char *p = c; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
			*p = ' ';
	j = json_string(c);
	free(c);
	return j ? j : json_string("?");	/* not UTF-8 */
}

/* A path component: [a-zA-Z0-9_-], everything else '_'. */
static void
kcidb_path_part(struct buf *b, const char *s)
{
	buf_addch(b, '.');
	if (s == NULL || *s == '\0') {
		buf_addstr(b, "none");
		return;
	}
	for (; *s; s++) {
		char c = *s;

		buf_addch(b, ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-') ? c : '_');
	}
}

static json_t *
kcidb_test_path(const char *workload, const char *metric)
{
	struct buf b = BUF_INIT(0);
	json_t *j;

	buf_addstr(&b, "kperfci");
	kcidb_path_part(&b, workload);
	if (metric)
		kcidb_path_part(&b, metric);
	j = json_string(b.data);
	buf_release(&b);
	return j;
}

static int
is_hex40(const char *s)
{
	if (s == NULL || strlen(s) != 40)
		return 0;
	return strspn(s, "0123456789abcdef") == 40;
}

static void
set_num(json_t *o, const char *k, double v)
{
	if (isfinite(v))
		json_object_set_new(o, k, json_real(v));
}

/* "ORIGIN:local" */
static json_t *
kcidb_id(const char *origin, const char *local)
{
	char *s = xasprintf("%s:%s", origin, local);
	json_t *j = json_string(s);

	free(s);
	return j;
}

static json_t *
kcidb_checkout(const char *origin, const char *id, const char *tree,
    const char *commit, const char *comment, int valid)
{
	json_t *c = json_pack("{s:o,s:s,s:b}", "id", kcidb_id(origin, id),
	    "origin", origin, "valid", valid);

	if (tree && *tree)
		json_object_set_new(c, "tree_name", kcidb_str(tree));
	if (is_hex40(commit))
		json_object_set_new(c, "git_commit_hash", json_string(commit));
	if (comment && *comment)
		json_object_set_new(c, "comment", kcidb_str(comment));
	return c;
}

static json_t *
kcidb_build(const char *origin, const char *id, const char *checkout,
    const char *status, const char *comment)
{
	json_t *b = json_pack("{s:o,s:o,s:s,s:s,s:s}", "id", kcidb_id(origin,
	    id), "checkout_id", kcidb_id(origin, checkout), "origin", origin,
	    "architecture", "x86_64", "status", status);

	if (comment && *comment)
		json_object_set_new(b, "comment", kcidb_str(comment));
	return b;
}

static json_t *
kcidb_test(const char *origin, const char *id, const char *build,
    json_t *path, const char *status)
{
	return json_pack("{s:o,s:o,s:s,s:o,s:s}", "id", kcidb_id(origin, id),
	    "build_id", kcidb_id(origin, build), "origin", origin, "path",
	    path, "status", status);
}

static void
kcidb_number(json_t *t, double value, const char *unit)
{
	json_t *n;

	if (!isfinite(value))
		return;
	n = json_pack("{s:f}", "value", value);
	if (unit && *unit)
		json_object_set_new(n, "unit", kcidb_str(unit));
	json_object_set_new(t, "number", n);
}

static const char *
kcidb_build_status(const char *state)
{
	if (state == NULL)
		return "MISS";
	if (!strcmp(state, "done"))
		return "PASS";
	if (!strcmp(state, "failed"))
		return "FAIL";
	return "MISS";
}

static const char *
kcidb_row_status(enum stats_verdict v)
{
	switch (v) {
	case STATS_REGRESSION:	return "FAIL";
	case STATS_IMPROVEMENT:
	case STATS_NO_CHANGE:	return "PASS";
	case STATS_INCONCLUSIVE: return "DONE";
	case STATS_MISSING:	return "MISS";
	default:		return "ERROR";
	}
}

static json_t *
kcidb_environment(const struct report *r)
{
	json_t *e = json_object(), *misc = json_object();

	if (r->topology)
		json_object_set_new(e, "comment", kcidb_str(r->topology));
	if (r->hw_class)
		json_object_set_new(misc, "hw_class", kcidb_str(r->hw_class));
	if (r->ex.emulated)
		json_object_set_new(misc, "emulated", json_true());
	json_object_set_new(e, "misc", misc);
	return e;
}

/* One statistics row as a test per side. */
static void
kcidb_comparison_row(const struct report *r, const char *origin,
    const char *builds[2], size_t i, json_t *tests)
{
	const struct stats_row *row = &r->result.rows[i];
	const struct stats_side *sd[2] = { &row->base, &row->test };

	for (int side = 0; side < 2; side++) {
		char id[96];
		json_t *t, *misc;

		if (!sd[side]->present)
			continue;
		snprintf(id, sizeof(id), "c%lld-%s-r%zu", r->comparison_id,
		    report_side_name(side), i);
		t = kcidb_test(origin, id, builds[side], kcidb_test_path(
		    row->workload, row->metric), side == REPORT_BASE ? "DONE" :
		    kcidb_row_status(row->verdict));
		kcidb_number(t, sd[side]->mean, row->unit);
		misc = json_pack("{s:o,s:s,s:I,s:I}", "params",
		    kcidb_str(row->params), "side", report_side_name(side),
		    "boots", (json_int_t)sd[side]->nboots, "samples",
		    (json_int_t)sd[side]->nsamples);
		set_num(misc, "pct_stddev", sd[side]->pct_stddev);
		if (side == REPORT_PATCHED) {
			json_object_set_new(misc, "verdict", json_string(
			    report_row_verdict(r, row)));
			set_num(misc, "pct_change", row->pct_change);
			set_num(misc, "ci_lo", row->ci_lo);
			set_num(misc, "ci_hi", row->ci_hi);
			set_num(misc, "p_value", row->p_value);
			json_object_set_new(misc, "primary",
			    json_boolean(row->primary));
			if (row->reason[0])
				json_object_set_new(t, "comment",
				    kcidb_str(row->reason));
		}
		json_object_set_new(t, "misc", misc);
		json_object_set_new(t, "environment", kcidb_environment(r));
		json_array_append_new(tests, t);
	}
}

/* Every boot as a kperfci.boot test. */
static void
kcidb_comparison_boots(const struct report *r, const char *origin,
    const char *builds[2], json_t *tests)
{
	for (size_t i = 0; i < r->njobs; i++) {
		const struct report_job *j = &r->jobs[i];
		const char *st;
		char id[64];
		json_t *t;

		if (!strcmp(j->state, "done"))
			st = "PASS";
		else if (!strcmp(j->state, "boot-failed"))
			st = "FAIL";
		else if (!strcmp(j->state, "failed"))
			st = "ERROR";
		else
			continue;	/* queued, leased, cancelled */
		snprintf(id, sizeof(id), "c%lld-job%lld", r->comparison_id,
		    j->id);
		t = kcidb_test(origin, id, builds[j->side ? 1 : 0],
		    kcidb_test_path("boot", NULL), st);
		if (j->reason)
			json_object_set_new(t, "comment", kcidb_str(j->reason));
		json_object_set_new(t, "misc", json_pack("{s:s,s:i,s:o}",
		    "side", report_side_name(j->side ? 1 : 0), "boot", j->boot,
		    "agent", kcidb_str(j->agent)));
		json_array_append_new(tests, t);
	}
}

json_t *
kcidb_comparison(const struct report *r, const char *origin)
{
	json_t *doc = kcidb_doc(), *misc;
	json_t *cos = json_object_get(doc, "checkouts");
	json_t *bs = json_object_get(doc, "builds");
	json_t *ts = json_object_get(doc, "tests");
	char co[2][64], bid[2][64], verdict[160];
	const char *builds[2] = { bid[0], bid[1] };

	for (int side = 0; side < 2; side++) {
		const struct report_kernel *k = &r->kernel[side];
		json_t *c;

		snprintf(co[side], sizeof(co[side]), "c%lld-%s",
		    r->comparison_id, report_side_name(side));
		snprintf(bid[side], sizeof(bid[side]), "c%lld-%s-build",
		    r->comparison_id, report_side_name(side));
		c = kcidb_checkout(origin, co[side], r->tree, r->base_commit,
		    side == REPORT_PATCHED ? r->subject : NULL, 1);
		if (side == REPORT_PATCHED) {
			misc = json_pack("{s:I,s:i}", "series_id",
			    (json_int_t)r->series_id, "version", r->version);
			if (r->author)
				json_object_set_new(misc, "author",
				    kcidb_str(r->author));
			if (r->source)
				json_object_set_new(misc, "source",
				    kcidb_str(r->source));
			json_object_set_new(c, "misc", misc);
		}
		json_array_append_new(cos, c);
		json_array_append_new(bs, kcidb_build(origin, bid[side],
		    co[side], kcidb_build_status(k->build_state),
		    k->build_error));
	}
	report_verdict(r, verdict, sizeof(verdict));
	json_object_set_new(json_array_get(cos, 1), "comment", kcidb_str(
	    r->subject));
	/* _new: the object takes the string (and frees it when there is
	   no misc to hold it); json_object_set leaked it (LeakSanitizer) */
	json_object_set_new(json_object_get(json_array_get(cos, 1), "misc"),
	    "verdict", json_string(verdict));
	if (r->have_result)
		for (size_t i = 0; i < r->result.n; i++)
			kcidb_comparison_row(r, origin, builds, i, ts);
	kcidb_comparison_boots(r, origin, builds, ts);
	return doc;
}

/* ---- track runs and bisects ---------------------------------------------- */

json_t *
kcidb_track_run(const struct track_run *run, const char *tree_url,
    const struct track_point *pts, size_t npts, const char *origin)
{
	json_t *doc = kcidb_doc(), *c;
	char co[64], bid[64];
	int failed = !strcmp(run->state, "failed");
	size_t ntest = 0;
	unsigned char *done = xcalloc(npts + 1, 1);

	snprintf(co, sizeof(co), "t%lld", run->id);
	snprintf(bid, sizeof(bid), "t%lld-build", run->id);
	c = kcidb_checkout(origin, co, run->track, run->head, run->note, 1);
	if (tree_url && !strncmp(tree_url, "https://", 8))
		json_object_set_new(c, "git_repository_url",
		    kcidb_str(tree_url));
	json_object_set_new(c, "misc", json_pack("{s:s,s:o}", "trigger",
	    run->trigger, "state", kcidb_str(run->state)));
	json_array_append_new(json_object_get(doc, "checkouts"), c);
	json_array_append_new(json_object_get(doc, "builds"), kcidb_build(
	    origin, bid, co, run->kernel_id ? "PASS" : "MISS",
	    failed ? run->error : NULL));
	/* one test per (workload, params, metric): the mean of its points */
	for (size_t i = 0; i < npts; i++) {
		const struct track_point *p = &pts[i];
		double sum = 0;
		int n = 0;
		char id[64];
		json_t *t;

		if (done[i])
			continue;
		for (size_t k = i; k < npts; k++)
			if (!done[k] && !strcmp(pts[k].workload, p->workload) &&
			    !strcmp(pts[k].params, p->params) &&
			    !strcmp(pts[k].metric, p->metric)) {
				done[k] = 1;
				if (isfinite(pts[k].value)) {
					sum += pts[k].value;
					n++;
				}
			}
		snprintf(id, sizeof(id), "t%lld-r%zu", run->id, ntest++);
		t = kcidb_test(origin, id, bid, kcidb_test_path(p->workload,
		    p->metric), "DONE");
		if (n)
			kcidb_number(t, sum / n, p->unit);
		json_object_set_new(t, "misc", json_pack("{s:o,s:i,s:i}",
		    "params", kcidb_str(p->params), "boots", n, "better",
		    p->better));
		json_array_append_new(json_object_get(doc, "tests"), t);
	}
	free(done);
	return doc;
}

static const char *
kcidb_step_status(const struct bisect_step *s)
{
	if (s->verdict == NULL)
		return !strcmp(s->state, "skipped") ? "SKIP" : "MISS";
	if (!strcmp(s->verdict, "bad"))
		return "FAIL";
	if (!strcmp(s->verdict, "good"))
		return "PASS";
	return "SKIP";
}

json_t *
kcidb_bisect(const struct track_regression *g, const struct bisect_step *steps,
    size_t nsteps, const char *origin)
{
	json_t *doc = kcidb_doc();

	for (size_t i = 0; i < nsteps; i++) {
		const struct bisect_step *s = &steps[i];
		char co[64], bid[64], id[64];
		json_t *c, *t, *misc;

		snprintf(co, sizeof(co), "s%lld", s->id);
		snprintf(bid, sizeof(bid), "s%lld-build", s->id);
		snprintf(id, sizeof(id), "s%lld-test", s->id);
		c = kcidb_checkout(origin, co, g->tree, s->commit_id, NULL, 1);
		json_object_set_new(c, "misc", json_pack("{s:I,s:o}",
		    "regression_id", (json_int_t)g->id, "track",
		    kcidb_str(g->track)));
		json_array_append_new(json_object_get(doc, "checkouts"), c);
		json_array_append_new(json_object_get(doc, "builds"),
		    kcidb_build(origin, bid, co, s->kernel_id ? "PASS" :
		    "MISS", NULL));
		t = kcidb_test(origin, id, bid, kcidb_test_path(g->workload,
		    g->metric), kcidb_step_status(s));
		kcidb_number(t, s->pct_vs_good, "%");
		misc = json_pack("{s:o,s:o,s:o,s:i}", "params",
		    kcidb_str(g->params), "role", kcidb_str(s->role),
		    "regression_state", kcidb_str(g->state), "boots", s->boots);
		if (s->verdict)
			json_object_set_new(misc, "verdict",
			    kcidb_str(s->verdict));
		set_num(misc, "ci_good_lo", s->ci_good_lo);
		set_num(misc, "ci_good_hi", s->ci_good_hi);
		if (g->first_bad && s->commit_id &&
		    !strcmp(g->first_bad, s->commit_id))
			json_object_set_new(misc, "first_bad", json_true());
		if (s->reason)
			json_object_set_new(t, "comment", kcidb_str(s->reason));
		json_object_set_new(t, "misc", misc);
		json_array_append_new(json_object_get(doc, "tests"), t);
	}
	return doc;
}

/* ---- the worker ------------------------------------------------------------ */

static const char *
kcidb_origin(void)
{
	return app.settings.kcidb.origin ? app.settings.kcidb.origin :
	    "kperfci";
}

/* The export of one finished object, a new doc, or NULL. */
static json_t *
kcidb_render(struct db *db, const struct kcidb_todo *t)
{
	const char *origin = kcidb_origin();
	json_t *doc = NULL;

	if (!strcmp(t->kind, "comparison")) {
		struct report r;

		report_init(&r);
		if (report_load(db, t->series_id, 1, &r) == 0 &&
		    r.comparison_id == t->object_id)
			doc = kcidb_comparison(&r, origin);
		report_release(&r);
	} else if (!strcmp(t->kind, "track_run")) {
		struct track_run run = { 0 };
		struct track_point *pts = NULL;
		size_t n = 0;

		if (db_track_run_get(db, t->object_id, &run) == 0 &&
		    db_track_points_of(db, run.id, 0, &pts, &n) == 0) {
			const struct settings_track *st = settings_track(
			    &app.settings, run.track);
			const struct settings_tree *tr = st ? settings_tree(
			    &app.settings, st->tree) : NULL;

			doc = kcidb_track_run(&run, tr ? tr->url : NULL, pts, n,
			    origin);
		}
		track_points_free(pts, n);
		track_run_release(&run);
	} else if (!strcmp(t->kind, "bisect")) {
		struct track_regression g = { 0 };
		struct bisect_step *steps = NULL;
		size_t n = 0;

		if (db_track_regression_get(db, t->object_id, &g) == 0 &&
		    db_track_steps(db, g.id, &steps, &n) == 0)
			doc = kcidb_bisect(&g, steps, n, origin);
		bisect_steps_free(steps, n);
		track_regression_release(&g);
	}
	return doc;
}

static int
kcidb_export_new(struct db *db, long long now)
{
	struct kcidb_todo *todo;
	size_t n;
	int submit = app.settings.kcidb.submit != NULL;

	if (db_kcidb_todo(db, 64, &todo, &n) == -1)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *doc = kcidb_render(db, &todo[i]);
		char *body;

		if (doc == NULL) {
			log_warnx("kcidb: %s %lld: could not be read; left "
			    "for the next pass", todo[i].kind,
			    todo[i].object_id);
			continue;
		}
		body = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
		if (body && db_kcidb_add(db, todo[i].kind, todo[i].object_id,
		    body, submit, now) == 0)
			log_info("kcidb: exported %s %lld (%zu tests)",
			    todo[i].kind, todo[i].object_id, json_array_size(
			    json_object_get(doc, "tests")));
		free(body);
		json_decref(doc);
	}
	free(todo);
	return 0;
}

/* Backoff of the attempt after `attempts` failed ones. */
static long long
kcidb_backoff(int attempts)
{
	long long s = 30;

	while (attempts-- > 1 && s < 3600)
		s *= 2;
	return s > 3600 ? 3600 : s;
}

/* Runs the submit command on one export; 0 when it exited 0. */
static int
kcidb_submit_one(const char *body, struct buf *how)
{
	const struct settings *set = &app.settings;
	char *path = xasprintf("%s/kcidb-submit.json", set->daemon.data);
	char *log = xasprintf("%s/kcidb-submit.log", set->daemon.data);
	struct run r = { 0 };
	int rc = -1;

	if (buf_write_file(path, body, strlen(body)) == -1) {
		buf_addf(how, "%s: %s", path, strerror(errno));
		goto out;
	}
	r.argv = (const char *const *)set->kcidb.submit;
	r.stdin_path = path;
	r.log_path = log;
	r.timeout_sec = set->kcidb.timeout;
	rc = run_cmd(&r);
	buf_addf(how, "%s", run_status(&r));
out:
	unlink(path);
	free(path);
	free(log);
	return rc;
}

static int
kcidb_submit_due(struct db *db, long long now)
{
	long long id;
	char *body;
	int attempts, rc;

	if (app.settings.kcidb.submit == NULL)
		return 0;
	while ((rc = db_kcidb_due(db, now, &id, &body, &attempts)) == 0) {
		struct buf how = BUF_INIT(512);

		if (kcidb_submit_one(body, &how) == 0) {
			db_kcidb_attempt(db, id, "submitted", 0, NULL);
			log_info("kcidb: export %lld submitted", id);
		} else if (attempts + 1 >= app.settings.kcidb.retries) {
			db_kcidb_attempt(db, id, "failed", 0, how.data);
			log_warnx("kcidb: export %lld: submit %s; giving up "
			    "after %d attempts", id, how.data, attempts + 1);
		} else {
			db_kcidb_attempt(db, id, "pending", now +
			    kcidb_backoff(attempts + 1), how.data);
			log_warnx("kcidb: export %lld: submit %s; retry in "
			    "%lld s", id, how.data, kcidb_backoff(attempts + 1));
		}
		buf_release(&how);
		free(body);
	}
	return rc == -1 ? -1 : 0;
}

int
kcidb_pass(struct db *db, long long now)
{
	int rc = kcidb_export_new(db, now);

	if (kcidb_submit_due(db, now) == -1)
		rc = -1;
	return rc;
}

static pthread_mutex_t kcidb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kcidb_cond = PTHREAD_COND_INITIALIZER;
static pthread_t kcidb_thread;
static int kcidb_running, kcidb_stopping, kcidb_kicked;

static void *
kcidb_main(void *arg)
{
	struct db *db = app_db();

	(void)arg;
	pthread_mutex_lock(&kcidb_lock);
	while (!kcidb_stopping) {
		struct timespec ts;
		long long next = 0, now;

		kcidb_kicked = 0;
		pthread_mutex_unlock(&kcidb_lock);
		if (db) {
			kcidb_pass(db, time(NULL));
			db_kcidb_next(db, &next);
		}
		pthread_mutex_lock(&kcidb_lock);
		if (kcidb_stopping || kcidb_kicked)
			continue;
		now = time(NULL);
		ts.tv_sec = now + app.settings.daemon.poll;
		if (next > now && next < ts.tv_sec)
			ts.tv_sec = next;
		ts.tv_nsec = 0;
		pthread_cond_timedwait(&kcidb_cond, &kcidb_lock, &ts);
	}
	pthread_mutex_unlock(&kcidb_lock);
	app_db_close_thread();
	return NULL;
}

int
kcidb_start(void)
{
	int e;

	kcidb_stopping = 0;
	if ((e = pthread_create(&kcidb_thread, NULL, kcidb_main, NULL))) {
		errno = e;
		log_warn("kcidb: pthread_create");
		return -1;
	}
	kcidb_running = 1;
	return 0;
}

void
kcidb_stop(void)
{
	if (!kcidb_running)
		return;
	pthread_mutex_lock(&kcidb_lock);
	kcidb_stopping = 1;
	pthread_cond_broadcast(&kcidb_cond);
	pthread_mutex_unlock(&kcidb_lock);
	pthread_join(kcidb_thread, NULL);
	kcidb_running = 0;
}

void
kcidb_kick(void)
{
	pthread_mutex_lock(&kcidb_lock);
	kcidb_kicked = 1;
	pthread_cond_broadcast(&kcidb_cond);
	pthread_mutex_unlock(&kcidb_lock);
}
