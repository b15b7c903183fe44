/*
 * track: the nightly runs, their history, regressions and bisects (see
 * track.h).
 *
 * DESIGN
 *
 * Two threads, a queue each (redis bio.c's rule: a queue per kind of
 * work).  Everything here blocks (git fetch, kernel builds, waiting for
 * agents), so it runs on threads of its own and never on a pipeline worker
 * or an HTTP thread: a nightly build never holds the worker that would
 * fetch the next series.  The "track" thread loops over (1) timers: a due
 * [track] gets a queued run; (2) runs not done or failed, each advanced by
 * one state.  The "bisect" thread advances regressions being bisected, one
 * step state each, so a long bisect (a build and boots per step) never
 * delays the next track's nightly run.  A finished run kicks both: its
 * analysis may have opened a regression.  States live in the store only,
 * so a restart resumes every run and bisect where it stood.  Since runs are
 * created only when the track has none in progress (db_track_run_new, in a
 * transaction) and one thread advances them, two runs of a track never
 * overlap; one thread advances every bisect, so two steps of one
 * regression never overlap either.
 *
 * A run: queued -> fetched (git fetch for a url tree, then the branch
 * head; the same head as the last tested run is `done` with "no new
 * commits" and costs nothing) -> built (build_run, the series' builder,
 * incremental from the track's first (full) build, see track_base; the
 * bzImage registered with the agent layer) -> running (boots jobs of the
 * track's matrix at the track's priority, behind interactive series) ->
 * done (per-boot means of every (workload, params, metric) stored as the
 * run's points, via stats_set so uploads are checked as for series) |
 * failed (the reason: fetch error, build error, every boot failed).
 *
 * History and regressions: for every metric of the track the per-boot
 * values (the median of a boot's runs) of all done runs form a history (one
 * night per run), and the online rule (core/changepoint.c,
 * changepoint_online) judges tonight against the nights before: the
 * candidates are the last four nights, each tested one-sided against a
 * baseline of up to 30 nights with the boot-to-boot and night-to-night
 * variance it shows, at p <= 1e-5 and a 1.5 % effect.  Before a run is
 * done its points are judged once: a row that is suspect (p <= 0.1) makes
 * tonight's kernel boot `boots` more, up to max_boots, and the night is
 * judged again (track_wants_boots); a change opens only with 6 boots or
 * more behind it.  Re-running detection every night is what the rule is
 * measured under (bench-changepoint), so a flat metric does not get a new
 * chance each night.  The metrics opening at one first bad run are one
 * regression: headed by the row it is surest of, every opening metric
 * listed, its range the nights the change may have started (good run: the
 * night before the earliest, bad run: the latest), one bisect; a listed
 * row's baseline starts again at its bad run.  A row of the
 * lock-contention pass (lock=NAME, wait_*) is listed as evidence but
 * opens nothing unless its own night-to-night spread makes the change
 * four sigmas (track_row_carries).
 *
 * Bisect: candidates are the commits between the two runs' heads (git
 * rev-list --parents, bisect.c walks first parents by default).  A step
 * builds its commit (incremental from the track's base build), boots it
 * `boots` times with only the matrix runs of the regressed workload, and
 * compares it with the existing statistics (stats_compare, bootstrap CI)
 * against both ends: good when the CI of (step -> bad) lies beyond half the
 * regression in its direction, bad when the CI of (good -> step) does; else
 * more boots (boots at a time) up to max_boots, then the end it is nearer
 * to.  A commit that does not build or boots no kernel is skipped.  Before
 * a commit is named (a one-commit range included, which needs no bisect
 * step), it must have read bad and its parent good in boots of their own:
 * bisect steps, or "verify" steps booted for it (track_verify); else the
 * regression is `unconfirmed` with the commit as suspect, and what was
 * checked is kept in `verified` either way.  The named commit gets its
 * subject, author and Link: trailer.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "daemon/agent.h"
#include "daemon/app.h"
#include "core/bisect.h"
#include "core/build.h"
#include "core/changepoint.h"
#include "daemon/config.h"
#include "daemon/db.h"
#include "daemon/db_build.h"
#include "daemon/db_track.h"
#include "daemon/kernels.h"
#include "daemon/mail.h"
#include "daemon/sched.h"
#include "daemon/trees.h"
#include "core/stats.h"
#include "daemon/track.h"
#include "core/tree.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/run.h"
#include "lib/xalloc.h"

#define TRACK_OK	0
#define TRACK_FAIL	(-1)
#define TRACK_WAIT	1

struct track_point;
static int	track_wants_boots(struct db *, const char *track, long long run,
		    const struct track_point *, size_t);

/* ---- the timer rule ---------------------------------------------------- */

int
track_due(const struct track_conf *tc, time_t since, time_t last, time_t now)
{
	time_t slot;

	if (tc->every_sec > 0) {
		if (now < since + tc->every_sec)
			return 0;
		slot = since + (now - since) / tc->every_sec * tc->every_sec;
	} else if (tc->at_min >= 0) {
		struct tm tm;

		localtime_r(&now, &tm);
		tm.tm_hour = tc->at_min / 60;
		tm.tm_min = tc->at_min % 60;
		tm.tm_sec = 0;
		tm.tm_isdst = -1;
		slot = mktime(&tm);
		if (slot > now)
			slot -= 86400;	/* yesterday's (DST: close enough) */
	} else {
		return 0;		/* manual runs only */
	}
	return slot > since && slot > last;
}

/* ---- git (the CLI, through tree.c's runner) ---------------------------- */

/* git -C repo args..., stdout in out.  0 or -1 with err. */
static int
track_git(const char *repo, const char *const *args, struct buf *out,
    struct buf *err)
{
	return tree_run_git(repo, args, 300, out, err);
}

static int
track_hex40(const char *s)
{
	return strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

/* ---- the threads: a queue per kind of work ----------------------------- */

static int track_pass_runs(struct db *, volatile int *stop);
static int track_pass_bisects(struct db *, volatile int *stop);

struct track_queue {
	const char	*name;
	int		(*pass)(struct db *, volatile int *stop);
	pthread_mutex_t	 lock;
	pthread_cond_t	 cond;
	pthread_t	 thread;
	int		 running;
	unsigned	 kicks;
};

static struct track_queue tr_queues[] = {
	{ "track", track_pass_runs, PTHREAD_MUTEX_INITIALIZER,
	    PTHREAD_COND_INITIALIZER, 0, 0, 0 },
	{ "bisect", track_pass_bisects, PTHREAD_MUTEX_INITIALIZER,
	    PTHREAD_COND_INITIALIZER, 0, 0, 0 },
};
#define TRACK_NQUEUES	(sizeof(tr_queues) / sizeof(tr_queues[0]))

static int tr_poll = 5;
static volatile int tr_stop;

/* A run moved: its analysis may have opened a regression to bisect. */
static void
track_kick_bisects(void)
{
	struct track_queue *q = &tr_queues[1];

	pthread_mutex_lock(&q->lock);
	q->kicks++;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void
track_kick(void)
{
	for (size_t i = 0; i < TRACK_NQUEUES; i++) {
		struct track_queue *q = &tr_queues[i];

		pthread_mutex_lock(&q->lock);
		q->kicks++;
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
	}
}

static void *
track_main(void *arg)
{
	struct track_queue *q = arg;
	struct db *db = app_db();
	unsigned seen;
	int did;

	if (!db) {
		error("%s: no database; nightly work stopped", q->name);
		return NULL;
	}
	while (!tr_stop) {
		pthread_mutex_lock(&q->lock);
		seen = q->kicks;
		pthread_mutex_unlock(&q->lock);
		did = q->pass(db, &tr_stop);
		pthread_mutex_lock(&q->lock);
		if (!tr_stop && !did && seen == q->kicks) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += tr_poll;
			pthread_cond_timedwait(&q->cond, &q->lock, &ts);
		}
		pthread_mutex_unlock(&q->lock);
	}
	app_db_close_thread();
	return NULL;
}

int
track_start(int poll_sec)
{
	int e;

	tr_poll = poll_sec > 0 ? poll_sec : 5;
	tr_stop = 0;
	tracks_set_kick(track_kick);	/* a manual run (tracks.c) wakes us */
	for (size_t i = 0; i < TRACK_NQUEUES; i++) {
		struct track_queue *q = &tr_queues[i];

		e = pthread_create(&q->thread, NULL, track_main, q);
		if (e) {
			errno = e;
			log_warn("%s: cannot start the thread", q->name);
			track_stop();
			return -1;
		}
		q->running = 1;
	}
	return 0;
}

void
track_stop(void)
{
	tr_stop = 1;
	for (size_t i = 0; i < TRACK_NQUEUES; i++) {
		struct track_queue *q = &tr_queues[i];

		if (!q->running)
			continue;
		pthread_mutex_lock(&q->lock);
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->thread, NULL);
		q->running = 0;
	}
}

/* ---- builds and jobs ----------------------------------------------------- */

/* The matrix text of a track (its file, else the scheduler's default). */
static char *
track_matrix(const struct track_conf *tc, struct buf *err)
{
	const char *cfg = app.settings.sched.matrix;
	struct buf b = BUF_INIT(PROTO_MAX_MATRIX);
	char *p;

	if (tc->matrix)
		p = xstrdup(tc->matrix);
	else
		p = cfg ? xstrdup(cfg) :
		    xasprintf("%s/../etc/workloads.conf", app.schema_dir);
	if (buf_read_file(&b, p) == -1) {
		buf_addf(err, "matrix %s: %s", p, b.overflow ? "too large" :
		    "cannot be read");
		free(p);
		buf_release(&b);
		return NULL;
	}
	free(p);
	return buf_detach(&b, NULL);
}

/*
 * Only the [run] sections of matrix whose workload is w (plus everything
 * outside [run] sections): a bisect step re-runs just the regressed runs.
 * Falls back to the whole matrix when no section matches.
 */
static char *
track_matrix_only(const char *matrix, const char *w)
{
	struct buf out = BUF_INIT(0), sect = BUF_INIT(0);
	const char *p = matrix, *nl;
	int in_run = 0, keep = 0, any = 0;

	for (; *p; p = nl) {
		size_t len;
		char line[512], *s;

		nl = strchr(p, '\n');
		nl = nl ? nl + 1 : p + strlen(p);
		len = (size_t)(nl - p);
		snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len :
		    511), p);
		for (s = line; isspace((unsigned char)*s); s++)
			;
		if (*s == '[') {
			if (in_run && keep)
				buf_add(&out, sect.data, sect.len);
			buf_reset(&sect);
			in_run = !strncmp(s, "[run", 4);
			keep = 0;
		}
		if (in_run) {
			char k[64], v[256];

			buf_add(&sect, p, len);
			if (sscanf(s, " %63[a-z_] = %255s", k, v) == 2 &&
			    !strcmp(k, "workload") && !strcmp(v, w))
				keep = any = 1;
		} else {
			buf_add(&out, p, len);
		}
	}
	if (in_run && keep)
		buf_add(&out, sect.data, sect.len);
	buf_release(&sect);
	if (!any) {
		buf_release(&out);
		return xstrdup(matrix);
	}
	return buf_detach(&out, NULL);
}

/*
 * Builds commit of tree tc (incremental from base_commit/base_key when
 * given) through the daemon's one build path (kernels.c: the sandbox, the
 * store hidden, the [build] limits) and registers its bzImage.  key and
 * *kernel_id out.  0, -1 with err, 1 interrupted.
 */
static int
track_build(struct db *db, const struct tree_conf *tc, const char *commit,
    const char *base_commit, const char *base_key, char key[65],
    long long *kernel_id, char **dir, volatile int *stop, struct buf *err)
{
	struct kernels_request req = { 0 };
	struct buf why = BUF_INIT(1024);
	char *bdir = NULL, *path, *note;
	int64_t bid = 0;
	int rc;

	req.tree = tc;
	req.commit = commit;
	req.base_commit = base_commit;
	req.base_key = base_key;
	req.stop = stop;
	rc = kernels_build(db, &req, &bid, key, &bdir, &why);
	if (rc != 0) {
		if (rc < 0)
			buf_addf(err, "build of %.12s failed: %s", commit,
			    why.data ? why.data : "");
		goto out;
	}
	path = xasprintf("%s/bzImage", bdir);
	note = xasprintf("track %s %.12s", tc->name, commit);
	rc = agent_kernel_add_file(db, path, note, kernel_id, err);
	free(path);
	free(note);
	if (dir) {
		*dir = bdir;
		bdir = NULL;
	}
out:
	free(bdir);
	buf_release(&why);
	return rc;
}

/* Queues boots jobs [from, to) of kernel for a run or step. */
static int
track_enqueue(struct db *db, long long run_id, long long step_id,
    long long kernel, const char *matrix, int priority, int from, int to,
    struct buf *err)
{
	struct agent_job_spec s = { 0 };
	long long id;
	int b;

	s.kernel_id = kernel;
	s.matrix = matrix;
	s.priority = priority;
	s.side = "track";
	for (b = from; b < to; b++) {
		s.boot = b + 1;
		if (agent_enqueue(db, &s, &id, err) != 0)
			return -1;
		if (db_track_job_add(db, run_id, step_id, id, b + 1) != 0)
			return -1;
	}
	return 0;
}

static int
track_dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * A boot's value: the median of its runs, so that one slow run of three
 * (2-5 % of runs are 10-20 % slow on a real machine) does not move the
 * boot; bench-changepoint's real-machine model measures the difference.
 */
static double
track_median(const double *v, size_t n)
{
	double *c = xmalloc(n * sizeof(*c)), m;

	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), track_dbl_cmp);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

/*
 * Waits for the jobs of a run or step.  TRACK_WAIT while some run; else
 * the per-boot means of the finished ones in *pts (run_id/step_id set),
 * *nfailed the boots without samples and a reason in why.
 */
static int
track_collect(struct db *db, long long run_id, long long step_id,
    struct track_point **pts, size_t *npts, int *nfailed, struct buf *why)
{
	long long *jobs;
	int *boots;
	size_t n, i, j, cap = 0;
	struct stats_set set;
	int rc = TRACK_OK;
	char err[256];

	*pts = NULL;
	*npts = 0;
	*nfailed = 0;
	if (db_track_jobs(db, run_id, step_id, &jobs, &boots, &n) != 0)
		return TRACK_FAIL;
	for (i = 0; i < n; i++) {
		char *state = NULL, *reason = NULL;

		if (agent_job_state(db, jobs[i], &state, &reason) != 0 ||
		    !strcmp(state, "queued") || !strcmp(state, "leased"))
			rc = TRACK_WAIT;
		free(state);
		free(reason);
	}
	if (rc == TRACK_WAIT)
		goto out;
	stats_set_init(&set);
	for (i = 0; i < n; i++) {
		char *state = NULL, *reason = NULL;
		json_t *samples = NULL, *profiles = NULL, *o;
		size_t before = set.nsamples, idx;

		agent_job_state(db, jobs[i], &state, &reason);
		if (strcmp(state, "done") || agent_fetch_results(db, jobs[i],
		    &samples, &profiles) != 0) {
			if (!why->len)
				buf_addf(why, "boot %d: %s%s%s", boots[i],
				    state, reason ? ": " : "",
				    reason ? reason : "");
			(*nfailed)++;
			goto next;
		}
		json_array_foreach(samples, idx, o) {
			struct stats_sample s = { 0 };
			const char *b = json_string_value(json_object_get(o,
			    "better"));

			if (json_object_get(o, "type") && strcmp(
			    json_string_value(json_object_get(o, "type")) ?
			    json_string_value(json_object_get(o, "type")) : "",
			    "sample"))
				continue;
			s.boot = boots[i];
			s.workload = json_string_value(json_object_get(o,
			    "workload"));
			s.params = json_string_value(json_object_get(o,
			    "params"));
			s.metric = json_string_value(json_object_get(o,
			    "metric"));
			s.unit = json_string_value(json_object_get(o, "unit"));
			s.better = b && !strcmp(b, "lower") ? STATS_LOWER :
			    STATS_HIGHER;
			s.iteration = (long)json_integer_value(json_object_get(o,
			    "iteration"));
			s.value = json_number_value(json_object_get(o,
			    "value"));
			if (!s.workload || !s.metric || !s.unit)
				continue;
			if (!s.params)
				s.params = "";
			stats_set_add(&set, &s, err, sizeof(err));
		}
		if (set.nsamples == before)
			(*nfailed)++;
next:
		json_decref(samples);
		json_decref(profiles);
		free(state);
		free(reason);
	}
	for (i = 0; i < set.n; i++) {
		const struct stats_series *se = &set.series[i];

		for (j = 0; j < se->nboots; j++) {
			struct track_point *p;

			if (!se->boots[j].n)
				continue;
			if (*npts == cap) {
				cap = cap ? 2 * cap : 64;
				*pts = xrealloc(*pts, cap * sizeof(**pts));
			}
			p = &(*pts)[(*npts)++];
			p->run_id = run_id;
			p->step_id = step_id;
			p->boot = (int)se->boots[j].id;
			p->workload = xstrdup(se->workload);
			p->params = xstrdup(se->params);
			p->metric = xstrdup(se->metric);
			p->unit = xstrdup(se->unit);
			p->better = se->better;
			p->value = track_median(se->boots[j].v, se->boots[j].n);
		}
	}
	stats_set_release(&set);
out:
	free(jobs);
	free(boots);
	return rc;
}

/* ---- runs ---------------------------------------------------------------- */

static void
track_set(char **field, const char *v)
{
	free(*field);
	*field = v ? xstrdup(v) : NULL;
}


/* queued -> fetched (or done: no new commits). */
static int
track_run_fetch(struct db *db, struct track_run *r,
    const struct track_conf *tc, const struct tree_conf *tree,
    struct buf *err)
{
	struct track_run last;
	char head[41], *ref, *logp;
	int have_last;

	if (tree->url) {
		logp = xasprintf("%s/track-%s-fetch.log", app.data_dir,
		    tc->name);
		if (tree_fetch(tree->path, tree->url, tc->branch, logp,
		    settings_tree(&app.settings, tree->name)->fetch_timeout,
		    err) != 0) {
			free(logp);
			return TRACK_FAIL;
		}
		free(logp);
	}
	ref = xasprintf("refs/heads/%s", tc->branch);
	if (tree_resolve(tree->path, ref, head) != 0) {
		buf_addf(err, "branch %s of tree %s (%s) does not resolve",
		    tc->branch, tree->name, tree->path);
		free(ref);
		return TRACK_FAIL;
	}
	free(ref);
	track_set(&r->head, head);
	have_last = db_track_last_tested(db, tc->name, &last) == 0;
	if (have_last && last.head && !strcmp(last.head, head)) {
		track_set(&r->note, "no new commits");
		track_set(&r->state, "done");
	} else {
		track_set(&r->prev_head, have_last ? last.head : NULL);
		track_set(&r->state, "fetched");
	}
	if (have_last)
		track_run_release(&last);
	return TRACK_OK;
}

/*
 * The build a new build of the track starts from: the track's first built
 * run (a full build).  Not the previous night's: build.c's incremental
 * build from a build that was itself incremental recompiles far more than
 * the change (its sources' times move), so every build starts from the
 * one full build, and recompiles what changed since.
 */
static void
track_base(struct db *db, const char *track, char **commit, char **key)
{
	struct track_run b;

	*commit = *key = NULL;
	if (db_track_tested(db, track, 0, &b) != 0)
		return;
	*commit = b.head ? xstrdup(b.head) : NULL;
	*key = b.build_key ? xstrdup(b.build_key) : NULL;
	track_run_release(&b);
}

/* fetched -> built: build the head (incremental from the track's base). */
static int
track_run_build(struct db *db, struct track_run *r,
    const struct tree_conf *tree, volatile int *stop, struct buf *err)
{
	char key[65];
	char *dir = NULL, *base_commit, *base_key;
	int b;

	track_base(db, r->track, &base_commit, &base_key);
	b = track_build(db, tree, r->head, base_commit, base_key, key,
	    &r->kernel_id, &dir, stop, err);
	free(base_key);
	free(base_commit);
	if (b == 1)
		return TRACK_WAIT;
	if (b != 0)
		return TRACK_FAIL;
	track_set(&r->build_key, key);
	track_set(&r->build_dir, dir);
	free(dir);
	track_set(&r->state, "built");
	return TRACK_OK;
}

/* Advances one run by one state.  1 if something happened. */
static int
track_run_step(struct db *db, struct track_run *r, volatile int *stop)
{
	struct track_conf tc;
	struct tree_conf tree;
	struct buf err = BUF_INIT(8192);
	struct track_point *pts = NULL;
	size_t npts = 0;
	char *matrix = NULL;
	int rc = TRACK_FAIL, nfailed, moved = 1;
	const char *was;

	memset(&tree, 0, sizeof(tree));
	if (tracks_conf_get(r->track, &tc) != 0) {
		buf_addf(&err, "track %s is no longer configured", r->track);
		goto out;
	}
	if (trees_conf(tc.tree, &tree, &err) != 0)
		goto out;
	was = r->state;
	if (!strcmp(was, "queued")) {
		rc = track_run_fetch(db, r, &tc, &tree, &err);
	} else if (!strcmp(was, "fetched")) {
		rc = track_run_build(db, r, &tree, stop, &err);
	} else if (!strcmp(was, "built")) {
		if (!(matrix = track_matrix(&tc, &err)))
			goto out;
		if (track_enqueue(db, r->id, 0, r->kernel_id, matrix,
		    tc.priority, 0, r->boots, &err) != 0)
			goto out;
		track_set(&r->state, "running");
		rc = TRACK_OK;
	} else if (!strcmp(was, "running")) {
		rc = track_collect(db, r->id, 0, &pts, &npts, &nfailed, &err);
		if (rc == TRACK_OK && npts == 0) {
			char *why = xstrdup(err.len ? err.data : "no samples");

			buf_reset(&err);
			buf_addf(&err, "every boot failed (%s)", why);
			free(why);
			rc = TRACK_FAIL;
		} else if (rc == TRACK_OK && r->boots < tc.max_boots &&
		    track_wants_boots(db, r->track, r->id, pts, npts)) {
			/* a row looks like a change: tonight's kernel boots
			   `boots` more (up to max_boots) before it is judged */
			int to = r->boots + tc.boots < tc.max_boots ?
			    r->boots + tc.boots : tc.max_boots;

			if (!(matrix = track_matrix(&tc, &err)) ||
			    track_enqueue(db, r->id, 0, r->kernel_id, matrix,
			    tc.priority, r->boots, to, &err) != 0) {
				rc = TRACK_FAIL;
			} else {
				char *note = xasprintf("%d boots more: a row "
				    "looks like a change", to - r->boots);

				track_set(&r->note, note);
				free(note);
				r->boots = to;
			}
		} else if (rc == TRACK_OK) {
			if (db_track_points_add(db, pts, npts) != 0)
				rc = TRACK_FAIL;
			if (nfailed)
				track_set(&r->note, err.data);
			buf_reset(&err);
			track_set(&r->state, "done");
		}
	}
out:
	if (rc == TRACK_WAIT) {
		moved = 0;
	} else if (rc == TRACK_FAIL && !(stop && *stop)) {
		track_set(&r->state, "failed");
		track_set(&r->error, err.len ? err.data : "failed");
		log_info("track %s: run %lld failed: %s", r->track, r->id,
		    r->error);
	}
	if (moved && !(stop && *stop)) {
		db_track_run_save(db, r, time(NULL));
		log_info("track %s: run %lld %s%s%s", r->track, r->id,
		    r->state, r->note ? ": " : "", r->note ? r->note : "");
		if (!strcmp(r->state, "done") && r->kernel_id)
			track_analyse(db, r->track);
	}
	track_points_free(pts, npts);
	free(matrix);
	buf_release(&err);
	tree_conf_release(&tree);
	tracks_conf_release(&tc);
	return moved;
}

/* ---- history and regressions ---------------------------------------------- */

struct track_hist {
	double	*v;
	size_t	*start;
	long long *run;		/* run id per night */
	size_t	 n, nv, cap, vcap;
};

static void
track_hist_add(struct track_hist *h, long long run, double v)
{
	if (!h->n || h->run[h->n - 1] != run) {
		if (h->n + 1 >= h->cap) {
			h->cap = h->cap ? 2 * h->cap : 32;
			h->start = xrealloc(h->start, (h->cap + 1) *
			    sizeof(*h->start));
			h->run = xrealloc(h->run, h->cap * sizeof(*h->run));
		}
		h->start[h->n] = h->nv;
		h->run[h->n++] = run;
	}
	if (h->nv == h->vcap) {
		h->vcap = h->vcap ? 2 * h->vcap : 64;
		h->v = xrealloc(h->v, h->vcap * sizeof(*h->v));
	}
	h->v[h->nv++] = v;
	h->start[h->n] = h->nv;
}

/*
 * Lock-contention rows: a row of the lock pass (params with lock=NAME, one
 * of the wait_* metrics) counts waits on one lock in one boot, and its
 * per-boot spread on a real machine is often 50-100 %; such a row is shown
 * beside a regression as evidence but opens none and names no commit,
 * unless its own history is quiet enough: the level change at least
 * TRACK_LOCK_SIGMAS standard deviations of its night means before the
 * change, over at least TRACK_LOCK_NIGHTS nights.
 */
#define TRACK_LOCK_SIGMAS	4.0
#define TRACK_LOCK_NIGHTS	5

static int
track_row_is_lock(const struct track_point *p)
{
	static const char *const wait[] = { "wait_share", "wait_total",
	    "wait_count", "wait_max" };
	const char *s = p->params;
	size_t i;
	int lock = 0;

	for (; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, "lock=", 5))
			lock = 1;
	for (i = 0; lock && i < sizeof(wait) / sizeof(*wait); i++)
		if (!strcmp(p->metric, wait[i]))
			return 1;
	return 0;
}

/* Whether row p at change point c may carry a regression; why if not. */
static int
track_row_carries(const struct track_point *p, const struct track_hist *h,
    const struct changepoint *c, char *why, size_t whysz)
{
	double m = 0, ss = 0, sd, night[512];
	size_t i, k, a = c->night, n = 0;

	*why = '\0';
	if (!track_row_is_lock(p))
		return 1;
	/* the nights of the level before the change (its boots) */
	for (i = a; i > 0 && h->start[a] - h->start[i - 1] <=
	    c->nboots_before && n < sizeof(night) / sizeof(*night); i--) {
		double s = 0;

		if (h->start[i] == h->start[i - 1])
			continue;
		for (k = h->start[i - 1]; k < h->start[i]; k++)
			s += h->v[k];
		night[n++] = s / (h->start[i] - h->start[i - 1]);
	}
	for (i = 0; i < n; i++)
		m += night[i];
	m = n ? m / n : 0;
	for (i = 0; i < n; i++)
		ss += (night[i] - m) * (night[i] - m);
	sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
	if (n >= TRACK_LOCK_NIGHTS && sd > 0 && fabs(c->mean_after -
	    c->mean_before) >= TRACK_LOCK_SIGMAS * sd)
		return 1;
	snprintf(why, whysz, "a lock-contention row: its night-to-night "
	    "spread (%.3g over %zu nights) does not make the change %.0f "
	    "sigmas", sd, n, TRACK_LOCK_SIGMAS);
	return 0;
}

/* A metric that moved at a confirmed change point (borrows the point). */
struct track_moved {
	const struct track_point *p;
	long long good_run, bad_run;	/* the range: (good_run, bad_run] */
	long long cand_run;		/* the likeliest first bad run */
	int	 opens;			/* 1: opens; 0: suspect, listed when
					   its candidate is in an opening
					   row's range */
	struct changepoint c;
	double	 z;
	int	 carries;
	char	 why[192];
};

struct track_movedv {
	struct track_moved *v;
	size_t	 n, cap;
};

/*
 * The online rule over one metric's history (tonight is its last night):
 * an opening or suspect alarm is appended to mv (with the runs of its
 * range), and 1 returned when the row is suspect and may carry a verdict
 * (tonight's kernel should boot more), else 0.  since: the row's first
 * night not before its last regression.
 */
static int
track_metric_judge(const struct track_point *p, const struct track_hist *h,
    size_t since, const struct changepoint_opts *o, struct track_movedv *mv)
{
	struct changepoint_alarm a;
	struct track_moved *m;
	char err[256], why[192];
	int carries;

	if (h->n < 3 || changepoint_online(h->v, h->start, h->n, since, o,
	    p->better, &a, err, sizeof(err)) != 0 ||
	    a.state == CHANGEPOINT_NONE || a.night_lo < 1)
		return 0;
	carries = track_row_carries(p, h, &a.c, why, sizeof(why));
	if (mv->n == mv->cap) {
		mv->cap = mv->cap ? 2 * mv->cap : 16;
		mv->v = xrealloc(mv->v, mv->cap * sizeof(*mv->v));
	}
	m = &mv->v[mv->n++];
	memset(m, 0, sizeof(*m));
	m->p = p;
	m->c = a.c;
	m->z = a.z;
	/* the range: from the last night before the earliest likely first
	   bad night to the latest (the bisect covers every commit of it) */
	m->good_run = h->run[a.night_lo - 1];
	m->bad_run = h->run[a.night_hi];
	m->cand_run = h->run[a.c.night];
	m->opens = a.state == CHANGEPOINT_OPEN;
	m->carries = carries;
	snprintf(m->why, sizeof(m->why), "%s", why);
	return !m->opens && carries;
}

static void
track_moved_metric(const struct track_moved *m, struct track_reg_metric *rm)
{
	memset(rm, 0, sizeof(*rm));
	rm->workload = m->p->workload;
	rm->params = m->p->params;
	rm->metric = m->p->metric;
	rm->unit = m->p->unit;
	rm->better = m->p->better;
	rm->pct_change = m->c.pct_change;
	rm->ci_lo = m->c.ci_lo;
	rm->ci_hi = m->c.ci_hi;
	rm->p_value = m->c.p_value;
	rm->carries = m->carries;
	rm->why = m->why[0] ? (char *)m->why : NULL;
}

/* The carrying row of v[0..n) the change is surest of (|change| / CI
   half-width), or NULL. */
static const struct track_moved *
track_headline(const struct track_moved *v, size_t n)
{
	const struct track_moved *best = NULL;
	double zb = -1, z, hw;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!v[i].carries || !v[i].opens)
			continue;
		hw = (v[i].c.ci_hi - v[i].c.ci_lo) / 2;
		z = hw > 0 ? fabs(v[i].c.pct_change) / hw : INFINITY;
		if (z > zb) {
			zb = z;
			best = &v[i];
		}
	}
	return best;
}

/* A new regression headed by m (good and bad runs from m). */
static int
track_regression_new(struct db *db, const char *track,
    const struct track_moved *m, long long *id)
{
	struct track_regression g;
	struct track_run good, bad;
	struct track_conf tc;
	int rc = -1;

	if (db_track_run_get(db, m->good_run, &good) != 0)
		return -1;
	if (db_track_run_get(db, m->bad_run, &bad) != 0) {
		track_run_release(&good);
		return -1;
	}
	memset(&g, 0, sizeof(g));
	tracks_conf_get(track, &tc);
	g.track = (char *)track;
	g.tree = tc.tree ? tc.tree : "";
	g.workload = m->p->workload;
	g.params = m->p->params;
	g.metric = m->p->metric;
	g.unit = m->p->unit;
	g.better = m->p->better;
	g.good_run = good.id;
	g.bad_run = bad.id;
	g.good_commit = good.head;
	g.bad_commit = bad.head;
	g.pct_change = m->c.pct_change;
	g.ci_lo = m->c.ci_lo;
	g.ci_hi = m->c.ci_hi;
	g.p_value = m->c.p_value;
	if (db_track_regression_add(db, &g, time(NULL), id) == 0) {
		log_info("track %s: regression %lld: %s %s %s %+.1f%% between "
		    "runs %lld and %lld", track, *id, g.workload, g.params,
		    g.metric, g.pct_change, good.id, bad.id);
		mail_regression_opened(db, *id);
		rc = 0;
	}
	tracks_conf_release(&tc);
	track_run_release(&good);
	track_run_release(&bad);
	return rc;
}

/*
 * The metrics that moved in one range (all of v; v[0] opens): added to the
 * track's regression whose range overlaps it (the same change, dated a
 * night apart), or one new regression when a row that carries a verdict
 * opens.  Lock rows alone open nothing.
 */
static void
track_open_group(struct db *db, const char *track,
    const struct track_moved *v, size_t n,
    const struct track_regression *known, size_t nk)
{
	const struct track_moved *head;
	struct track_reg_metric rm;
	long long id = 0;
	size_t i;

	for (i = 0; i < nk; i++)
		if (known[i].good_run < v[0].bad_run &&
		    v[0].good_run < known[i].bad_run)
			id = known[i].id;
	if (!id) {
		if (!(head = track_headline(v, n)) ||
		    track_regression_new(db, track, head, &id) != 0)
			return;
	}
	for (i = 0; i < n; i++) {
		track_moved_metric(&v[i], &rm);
		db_track_reg_metric_add(db, id, &rm);
	}
}

static int
track_moved_cmp(const void *a, const void *b)
{
	const struct track_moved *x = a, *y = b;

	return x->bad_run < y->bad_run ? -1 : x->bad_run > y->bad_run;
}

/* The track's stored regressions with their metrics, read once a
   judgement (not once a row). */
struct track_known {
	struct track_regression	 *reg;
	size_t			  n;
	struct track_reg_metric	**m;	/* reg[i]'s metrics, nm[i] of them */
	size_t			 *nm;
};

static void
track_known_free(struct track_known *k)
{
	for (size_t i = 0; i < k->n; i++)
		track_reg_metrics_free(k->m[i], k->nm[i]);
	free(k->m);
	free(k->nm);
	track_regressions_free(k->reg, k->n);
	memset(k, 0, sizeof(*k));
}

static int
track_known_load(struct db *db, const char *track, struct track_known *k)
{
	memset(k, 0, sizeof(*k));
	if (db_track_regressions(db, track, &k->reg, &k->n) != 0)
		return -1;
	k->m = xcalloc(k->n + 1, sizeof(*k->m));
	k->nm = xcalloc(k->n + 1, sizeof(*k->nm));
	for (size_t i = 0; i < k->n; i++)
		if (db_track_reg_metrics(db, k->reg[i].id, &k->m[i],
		    &k->nm[i]) != 0) {
			track_known_free(k);
			return -1;
		}
	return 0;
}

/* Whether the known regressions of the track list row p: the bad run
   of the latest that does, or 0. */
static long long
track_row_last_bad(const struct track_known *k, const struct track_point *p)
{
	long long bad = 0;
	size_t i, j;

	for (i = 0; i < k->n; i++) {
		if (k->reg[i].bad_run <= bad)
			continue;
		for (j = 0; j < k->nm[i]; j++)
			if (!strcmp(k->m[i][j].workload, p->workload) &&
			    !strcmp(k->m[i][j].params, p->params) &&
			    !strcmp(k->m[i][j].metric, p->metric)) {
				bad = k->reg[i].bad_run;
				break;
			}
	}
	return bad;
}

static int
track_point_key_cmp(const struct track_point *a, const struct track_point *b)
{
	int c = strcmp(a->workload, b->workload);

	if (!c)
		c = strcmp(a->params, b->params);
	if (!c)
		c = strcmp(a->metric, b->metric);
	return c;
}

/*
 * The online rule (core/changepoint.c, changepoint_online) over every
 * metric's history of track, tonight's points (extra, of run extra_run;
 * NULL when tonight's run is stored as done) its last night.  Opening
 * rows go to mv (borrowing pts); *suspect is set when a row that may
 * carry a verdict asks for more boots.  *pts, *n: the history, for the
 * caller to free after mv.  0 or -1.
 */
static int
track_judge(struct db *db, const char *track, const struct track_known *known,
    long long extra_run, const struct track_point *extra, size_t nextra,
    struct track_point **pts, size_t *n, struct track_movedv *mv,
    int *suspect)
{
	struct changepoint_opts o;
	size_t i, j, k;

	*suspect = 0;
	if (db_track_history(db, track, pts, n) != 0)
		return -1;
	changepoint_opts_init(&o);
	for (i = 0; i < *n; i = j) {
		struct track_hist h = { 0 };
		const struct track_point *p = &(*pts)[i];
		long long last_bad;
		size_t since = 0;

		for (j = i; j < *n && !track_point_key_cmp(&(*pts)[j], p); j++)
			track_hist_add(&h, (*pts)[j].run_id, (*pts)[j].value);
		for (k = 0; k < nextra; k++)
			if (!track_point_key_cmp(&extra[k], p))
				track_hist_add(&h, extra_run, extra[k].value);
		/* a row listed by a regression starts again at its bad run */
		if ((last_bad = track_row_last_bad(known, p)))
			while (since < h.n && h.run[since] < last_bad)
				since++;
		if (track_metric_judge(p, &h, since, &o, mv))
			*suspect = 1;
		free(h.v);
		free(h.start);
		free(h.run);
	}
	if (mv->n)	/* qsort(NULL, 0) is undefined (UBSan aborts) */
		qsort(mv->v, mv->n, sizeof(*mv->v), track_moved_cmp);
	return 0;
}

/*
 * Before a night is done: 1 when a row that may carry a verdict is
 * suspect and none opens yet, so that tonight's kernel boots more.
 */
static int
track_wants_boots(struct db *db, const char *track, long long run,
    const struct track_point *pts, size_t npts)
{
	struct track_movedv mv = { 0 };
	struct track_point *hist = NULL;
	struct track_known known;
	size_t n = 0;
	int suspect = 0, rc;

	if (track_known_load(db, track, &known) != 0)
		return 0;
	rc = track_judge(db, track, &known, run, pts, npts, &hist, &n, &mv,
	    &suspect);
	track_known_free(&known);
	for (size_t i = 0; rc == 0 && i < mv.n; i++)
		if (mv.v[i].opens)
			suspect = 0;	/* it opens tonight as it stands */
	rc = rc == 0 && suspect;
	free(mv.v);
	track_points_free(hist, n);
	return rc;
}

/*
 * After a night: the online rule over every metric's history; the
 * metrics opening at one first bad run make one regression with one
 * bisect, headed by the row it is surest of.
 */
int
track_analyse(struct db *db, const char *track)
{
	struct track_point *pts = NULL;
	struct track_known known;
	struct track_movedv mv = { 0 };
	struct track_moved *grp;
	size_t n = 0, i, j;
	int suspect;

	if (track_known_load(db, track, &known) != 0)
		return -1;
	if (track_judge(db, track, &known, 0, NULL, 0, &pts, &n, &mv,
	    &suspect) != 0) {
		free(mv.v);
		track_points_free(pts, n);
		track_known_free(&known);
		return -1;
	}
	/* one regression per range the opening rows give (sorted by bad
	   run): those rows, then the suspect rows whose likeliest first bad
	   run lies in it */
	grp = xcalloc(mv.n + 1, sizeof(*grp));
	for (i = 0; i < mv.n; i = j) {
		long long good;
		size_t ng = 0, k;

		for (j = i; j < mv.n && mv.v[j].bad_run == mv.v[i].bad_run; j++)
			;
		for (k = i; k < j; k++)
			if (mv.v[k].opens)
				grp[ng++] = mv.v[k];
		if (!ng)
			continue;
		good = grp[0].good_run;
		for (k = 1; k < ng; k++)
			if (grp[k].good_run < good)
				good = grp[k].good_run;
		for (k = 0; k < mv.n; k++)
			if (!mv.v[k].opens && mv.v[k].cand_run > good &&
			    mv.v[k].cand_run <= mv.v[i].bad_run)
				grp[ng++] = mv.v[k];
		track_open_group(db, track, grp, ng, known.reg, known.n);
	}
	free(grp);
	free(mv.v);
	track_known_free(&known);
	track_points_free(pts, n);
	return 0;
}

/* ---- bisect -------------------------------------------------------------- */

struct track_graph {
	char	(*id)[41];
	size_t	*pstart, *parents;
	size_t	 n, np;
};

static void
track_graph_release(struct track_graph *g)
{
	free(g->id);
	free(g->pstart);
	free(g->parents);
	memset(g, 0, sizeof(*g));
}

static long
track_graph_find(const struct track_graph *g, const char *id)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->id[i], id))
			return (long)i;
	return -1;
}

/* The commits of bad ^good (newest first) plus good, with their parents
   inside that set. */
static int
track_graph_load(const char *repo, const char *good, const char *bad,
    struct track_graph *g, struct buf *err)
{
	struct buf out = BUF_INIT(64 << 20);
	char *range = xasprintf("^%s", good);
	const char *args[] = { "rev-list", "--parents", bad, range, "--",
	    NULL };
	char *line, *save = NULL, *tok, *s2;
	size_t cap = 0, pcap = 0, pass;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	if (track_git(repo, args, &out, err) != 0)
		goto out;
	buf_addf(&out, "%s\n", good);
	/* pass 0: the commits; pass 1: their parents */
	for (pass = 0; pass < 2; pass++) {
		char *copy = xstrdup(out.data);

		for (line = strtok_r(copy, "\n", &save); line;
		    line = strtok_r(NULL, "\n", &save)) {
			char *ls = NULL;

			tok = strtok_r(line, " ", &ls);
			if (!tok || !track_hex40(tok))
				continue;
			if (pass == 0) {
				if (track_graph_find(g, tok) >= 0)
					continue;
				if (g->n + 1 >= cap) {
					cap = cap ? 2 * cap : 64;
					g->id = xrealloc(g->id, cap *
					    sizeof(*g->id));
				}
				memcpy(g->id[g->n++], tok, 41);
				continue;
			}
			while ((s2 = strtok_r(NULL, " ", &ls))) {
				long p = track_graph_find(g, s2);

				if (p < 0)
					continue;
				if (g->np == pcap) {
					pcap = pcap ? 2 * pcap : 64;
					g->parents = xrealloc(g->parents, pcap *
					    sizeof(*g->parents));
				}
				g->parents[g->np++] = (size_t)p;
			}
			g->pstart[track_graph_find(g, tok) + 1] = g->np;
		}
		free(copy);
		if (pass == 0) {
			g->pstart = xcalloc(g->n + 1, sizeof(*g->pstart));
			g->np = 0;
		}
	}
	/* rows in id order: fill starts of rows without parents */
	for (cap = 1; cap <= g->n; cap++)
		if (g->pstart[cap] < g->pstart[cap - 1])
			g->pstart[cap] = g->pstart[cap - 1];
	rc = 0;
out:
	free(range);
	buf_release(&out);
	return rc;
}

/* Subject, author, Link: trailer of commit. */
static void
track_commit_info(const char *repo, const char *commit,
    struct track_regression *g)
{
	struct buf out = BUF_INIT(1 << 20), err = BUF_INIT(1024);
	const char *args[] = { "log", "-1", "--format=%s%n%an <%ae>%n%b",
	    commit, "--", NULL };
	char *p, *nl, *link = NULL;

	if (track_git(repo, args, &out, &err) != 0 || !out.len)
		goto out;
	p = out.data;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	track_set(&g->subject, p);
	if (!nl)
		goto out;
	p = nl + 1;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	track_set(&g->author, p);
	for (p = nl ? nl + 1 : p + strlen(p); p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!strncasecmp(p, "Link:", 5)) {
			for (p += 5; *p == ' '; p++)
				;
			free(link);
			link = xstrdup(p);
			break;
		}
	}
	track_set(&g->link, link);
	free(link);
out:
	buf_release(&out);
	buf_release(&err);
}

/* One (workload, params, metric) of points as a stats_set side. */
static void
track_side(const struct track_point *p, size_t n,
    const struct track_regression *g, struct stats_set *set)
{
	size_t i;

	stats_set_init(set);
	for (i = 0; i < n; i++) {
		struct stats_sample s = { 0 };

		if (strcmp(p[i].workload, g->workload) ||
		    strcmp(p[i].params, g->params) ||
		    strcmp(p[i].metric, g->metric))
			continue;
		s.boot = p[i].boot;
		s.workload = p[i].workload;
		s.params = p[i].params;
		s.metric = p[i].metric;
		s.unit = p[i].unit;
		s.better = p[i].better;
		s.value = p[i].value;
		stats_set_add(set, &s, NULL, 0);
	}
}

/* %change and CI of b against a with the series' statistics. */
static int
track_compare(const struct stats_set *a, const struct stats_set *b,
    double *pct, double *lo, double *hi)
{
	struct stats_result res;
	int rc = -1;

	if (stats_compare(a, b, NULL, &res) != 0)
		return -1;
	if (res.n == 1 && isfinite(res.rows[0].pct_change) &&
	    isfinite(res.rows[0].ci_lo)) {
		*pct = res.rows[0].pct_change;
		*lo = res.rows[0].ci_lo;
		*hi = res.rows[0].ci_hi;
		rc = 0;
	}
	stats_result_release(&res);
	return rc;
}

/*
 * The verdict of a step from its points: "good", "bad", or NULL (more
 * boots would help).  Fills the step's figures; at_max: decide anyway.
 */
static const char *
track_step_verdict(struct db *db, const struct track_regression *g,
    struct bisect_step *s, const struct track_point *sp, size_t nsp,
    int at_max, struct buf *why)
{
	struct track_point *gp = NULL, *bp = NULL;
	size_t ngp = 0, nbp = 0;
	struct stats_set good, bad, step;
	double half = fabs(g->pct_change) / 2, sign;
	const char *v = NULL;
	int ok1, ok2;

	db_track_points_of(db, g->good_run, 0, &gp, &ngp);
	db_track_points_of(db, g->bad_run, 0, &bp, &nbp);
	track_side(gp, ngp, g, &good);
	track_side(bp, nbp, g, &bad);
	track_side(sp, nsp, g, &step);
	/* the direction the regression went: -1 down, +1 up */
	sign = g->pct_change < 0 ? -1 : 1;
	ok1 = track_compare(&good, &step, &s->pct_vs_good, &s->ci_good_lo,
	    &s->ci_good_hi) == 0;
	ok2 = track_compare(&step, &bad, &s->pct_vs_bad, &s->ci_bad_lo,
	    &s->ci_bad_hi) == 0;
	if (!ok1 || !ok2) {
		buf_addstr(why, "the step produced no usable samples of the "
		    "metric");
		v = "skip";
	} else if (sign * (sign < 0 ? s->ci_good_hi : s->ci_good_lo) >=
	    half) {
		buf_addf(why, "%+.1f%% [%+.1f%%, %+.1f%%] from the good end: "
		    "the regression is in", s->pct_vs_good, s->ci_good_lo,
		    s->ci_good_hi);
		v = "bad";
	} else if (sign * (sign < 0 ? s->ci_bad_hi : s->ci_bad_lo) >= half) {
		buf_addf(why, "the bad end is %+.1f%% [%+.1f%%, %+.1f%%] from "
		    "it: the regression is not in yet", s->pct_vs_bad,
		    s->ci_bad_lo, s->ci_bad_hi);
		v = "good";
	} else if (at_max) {
		v = fabs(s->pct_vs_good) > fabs(s->pct_vs_bad) ? "bad" : "good";
		buf_addf(why, "undecided at %d boots: nearer the %s end "
		    "(%+.1f%% from good, %+.1f%% to bad)", s->boots, v,
		    s->pct_vs_good, s->pct_vs_bad);
	}
	stats_set_release(&good);
	stats_set_release(&bad);
	stats_set_release(&step);
	track_points_free(gp, ngp);
	track_points_free(bp, nbp);
	return v;
}

/* Advances the open step s of g by one state.  1 if something happened. */
static int
track_step_advance(struct db *db, struct track_regression *g,
    struct bisect_step *s, const struct track_conf *tc,
    const struct tree_conf *tree, volatile int *stop)
{
	struct buf err = BUF_INIT(8192);
	struct track_point *pts = NULL;
	size_t npts = 0;
	int rc = 0, nfailed, r;

	if (!strcmp(s->state, "queued")) {
		char key[65];
		char *bc, *bk;

		track_base(db, g->track, &bc, &bk);
		r = track_build(db, tree, s->commit_id, bc, bk, key,
		    &s->kernel_id, NULL, stop, &err);
		free(bk);
		free(bc);
		if (r == 1)
			goto out;
		if (r != 0) {
			track_set(&s->state, "skipped");
			track_set(&s->verdict, "skip");
			track_set(&s->reason, err.data);
		} else {
			track_set(&s->state, "built");
		}
		rc = 1;
	} else if (!strcmp(s->state, "built") ||
	    !strcmp(s->state, "more")) {
		char *m = track_matrix(tc, &err), *only;
		int from = !strcmp(s->state, "more") ? s->boots - tc->boots : 0;

		if (!m)
			goto fail;
		only = track_matrix_only(m, g->workload);
		free(m);
		r = track_enqueue(db, 0, s->id, s->kernel_id, only,
		    tc->priority, from, s->boots, &err);
		free(only);
		if (r != 0)
			goto fail;
		track_set(&s->state, "running");
		rc = 1;
	} else if (!strcmp(s->state, "running")) {
		const char *v;

		r = track_collect(db, 0, s->id, &pts, &npts, &nfailed, &err);
		if (r == TRACK_WAIT)
			goto out;
		if (npts == 0) {
			track_set(&s->state, "skipped");
			track_set(&s->verdict, "skip");
			buf_addstr(&err, ": no boot of this commit ran");
			track_set(&s->reason, err.data);
			rc = 1;
			goto out;
		}
		/* every boot of the step so far (earlier looks included) */
		buf_reset(&err);
		v = track_step_verdict(db, g, s, pts, npts,
		    s->boots + tc->boots > tc->max_boots, &err);
		if (v) {
			track_set(&s->state, !strcmp(v, "skip") ? "skipped" :
			    "done");
			track_set(&s->verdict, v);
			db_track_points_add(db, pts, npts);
		} else {
			s->boots += tc->boots;
			track_set(&s->state, "more");
			buf_addf(&err, "not decided at %d boots: %d more",
			    s->boots - tc->boots, tc->boots);
		}
		track_set(&s->reason, err.data);
		rc = 1;
	}
	goto out;
fail:
	track_set(&s->state, "skipped");
	track_set(&s->verdict, "skip");
	track_set(&s->reason, err.data);
	rc = 1;
out:
	if (rc && !(stop && *stop)) {
		db_track_step_save(db, s, time(NULL));
		log_info("bisect %lld: %.12s %s%s%s", g->id, s->commit_id,
		    s->state, s->verdict ? " " : "", s->verdict ?
		    s->verdict : "");
	}
	track_points_free(pts, npts);
	buf_release(&err);
	return rc;
}

/*
 * One side of the check before a commit is named: commit (the first bad
 * one, want "bad"; its parent, want "good") must have read want in boots
 * of its own, from a bisect step or else a verification step (queued here
 * when missing).  0 verified (the sentence appended to v), 1 a step is
 * queued or not finished, -1 it read otherwise (said in v).
 */
static int
track_verify_one(struct db *db, const struct track_regression *g,
    const struct track_conf *tc, const char *commit, const char *want,
    const char *what, const struct bisect_step *steps, size_t n,
    struct buf *v)
{
	const struct bisect_step *s = NULL;
	long long sid;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct bisect_step *t = &steps[i];
		int decided = t->verdict && !strcmp(t->verdict, want) &&
		    !(t->reason && !strncmp(t->reason, "undecided", 9));

		if (strcmp(t->commit_id, commit))
			continue;
		if (decided || (t->role && !strcmp(t->role, "verify")))
			s = t;
		if (decided)
			break;
	}
	if (!s) {
		if (db_track_step_add(db, g->id, commit, "verify", tc->boots,
		    time(NULL), &sid) == 0)
			log_info("bisect %lld: verifying %.12s (%s) in boots of "
			    "its own", g->id, commit, what);
		return 1;
	}
	if (strcmp(s->state, "done") && strcmp(s->state, "skipped"))
		return 1;
	buf_addf(v, "%s%s %.12s: %d boots %s, %+.1f%% [%+.1f%%, %+.1f%%] "
	    "from the last good run, the first bad run %+.1f%% [%+.1f%%, "
	    "%+.1f%%] from it: ", v->len ? "; " : "", what, commit, s->boots,
	    s->role && !strcmp(s->role, "verify") ? "of its own" :
	    "in the bisect", s->pct_vs_good, s->ci_good_lo, s->ci_good_hi,
	    s->pct_vs_bad, s->ci_bad_lo, s->ci_bad_hi);
	if (s->verdict && !strcmp(s->verdict, want) &&
	    !(s->reason && !strncmp(s->reason, "undecided", 9))) {
		buf_addf(v, "%s", want);
		return 0;
	}
	buf_addf(v, "not %s (%s)", want, s->reason ? s->reason : s->state);
	return -1;
}

/*
 * Before the bisect names commit c of gr: c read bad and its parent good,
 * each in boots of its own (a one-commit range has none: both are booted
 * again).  0 verified, 1 waiting for a step, -1 not verified; what was
 * checked in g->verified either way.
 */
static int
track_verify(struct db *db, struct track_regression *g,
    const struct track_conf *tc, const struct track_graph *gr, size_t c,
    const struct bisect_step *steps, size_t n)
{
	struct buf v = BUF_INIT(0);
	const char *parent;
	int r1, r2, rc;

	if (gr->pstart[c] == gr->pstart[c + 1]) {
		track_set(&g->verified, "not verified: its parent is not in "
		    "the bisected range");
		return -1;
	}
	parent = gr->id[gr->parents[gr->pstart[c]]];
	r1 = track_verify_one(db, g, tc, gr->id[c], "bad", "the commit",
	    steps, n, &v);
	if (r1 == 1) {
		rc = 1;
		goto out;
	}
	r2 = track_verify_one(db, g, tc, parent, "good", "its parent", steps,
	    n, &v);
	rc = r2 == 1 ? 1 : r1 < 0 || r2 < 0 ? -1 : 0;
	if (rc != 1)
		track_set(&g->verified, v.data);
out:
	buf_release(&v);
	return rc;
}

/* The next step of a bisect, or its end.  1 if something happened. */
static int
track_bisect_next(struct db *db, struct track_regression *g,
    const struct track_conf *tc, const struct tree_conf *tree,
    struct bisect_step *steps, size_t nsteps)
{
	struct track_graph gr;
	struct bisect_graph bg;
	struct bisect_answer a;
	struct buf err = BUF_INIT(4096);
	unsigned char *marks = NULL;
	char e[256];
	long gi, bi, k;
	long long sid;
	size_t i;
	int rc = 1, v = 0;

	if (track_graph_load(tree->path, g->good_commit, g->bad_commit, &gr,
	    &err) != 0) {
		track_set(&g->state, "failed");
		buf_addstr(&err, " (the good or bad commit is no longer in the "
		    "tree?)");
		track_set(&g->error, err.data);
		goto save;
	}
	marks = xcalloc(gr.n, 1);
	gi = track_graph_find(&gr, g->good_commit);
	bi = track_graph_find(&gr, g->bad_commit);
	if (gi < 0 || bi < 0) {
		track_set(&g->state, "failed");
		track_set(&g->error, "the bad commit does not descend from the "
		    "good one (was the branch force-pushed?)");
		goto save;
	}
	marks[gi] = BISECT_GOOD;
	marks[bi] = BISECT_BAD;
	for (i = 0; i < nsteps; i++) {
		k = track_graph_find(&gr, steps[i].commit_id);
		if (k < 0 || !steps[i].verdict || (steps[i].role &&
		    !strcmp(steps[i].role, "verify")))
			continue;
		marks[k] = !strcmp(steps[i].verdict, "good") ? BISECT_GOOD :
		    !strcmp(steps[i].verdict, "bad") ? BISECT_BAD : BISECT_SKIP;
	}
	bg.n = gr.n;
	bg.pstart = gr.pstart;
	bg.parents = gr.parents;
	if (bisect_next(&bg, marks, tc->first_parent, &a, e, sizeof(e)) != 0) {
		track_set(&g->state, "failed");
		track_set(&g->error, e);
		goto save;
	}
	if (a.status == BISECT_NEXT) {
		db_track_step_add(db, g->id, gr.id[a.commit], "bisect",
		    tc->boots, time(NULL), &sid);
		log_info("bisect %lld: testing %.12s (%zu candidates, ~%d "
		    "steps left)", g->id, gr.id[a.commit], a.remaining,
		    a.steps_left);
		goto out;
	}
	if (a.status == BISECT_FOUND &&
	    (v = track_verify(db, g, tc, &gr, a.commit, steps, nsteps)) == 1)
		goto out;
	if (a.status == BISECT_FOUND && v < 0) {
		/* not named: the commit is a suspect, and why is said */
		track_set(&g->suspects, gr.id[a.commit]);
		track_set(&g->state, "unconfirmed");
		log_info("bisect %lld: %.12s not confirmed: %s", g->id,
		    gr.id[a.commit], g->verified);
	} else if (a.status == BISECT_FOUND) {
		track_set(&g->first_bad, gr.id[a.commit]);
		track_commit_info(tree->path, gr.id[a.commit], g);
		track_set(&g->state, "found");
		log_info("bisect %lld: first bad commit %.12s %s", g->id,
		    gr.id[a.commit], g->subject ? g->subject : "");
	} else {
		struct buf s = BUF_INIT(0);

		for (i = 0; i < a.nsuspects; i++)
			buf_addf(&s, "%s%s", i ? " " : "", gr.id[a.suspects[i]]);
		track_set(&g->suspects, s.data);
		track_set(&g->state, "undecided");
		buf_release(&s);
		free(a.suspects);
	}
save:
	db_track_regression_save(db, g, time(NULL));
out:
	free(marks);
	track_graph_release(&gr);
	buf_release(&err);
	return rc;
}

/* Advances the bisect of g by one state. */
static int
track_bisect_step(struct db *db, struct track_regression *g,
    volatile int *stop)
{
	struct track_conf tc;
	struct tree_conf tree;
	struct bisect_step *steps = NULL;
	struct buf err = BUF_INIT(4096);
	size_t n = 0, i;
	int rc = 0;

	memset(&tree, 0, sizeof(tree));
	if (tracks_conf_get(g->track, &tc) != 0 ||
	    trees_conf(tc.tree, &tree, &err) != 0) {
		track_set(&g->state, "failed");
		track_set(&g->error, err.len ? err.data : "the track is no "
		    "longer configured");
		db_track_regression_save(db, g, time(NULL));
		rc = 1;
		goto out;
	}
	if (db_track_steps(db, g->id, &steps, &n) != 0)
		goto out;
	for (i = 0; i < n; i++)
		if (strcmp(steps[i].state, "done") &&
		    strcmp(steps[i].state, "skipped"))
			break;
	if (i < n)
		rc = track_step_advance(db, g, &steps[i], &tc, &tree, stop);
	else
		rc = track_bisect_next(db, g, &tc, &tree, steps, n);
out:
	bisect_steps_free(steps, n);
	tree_conf_release(&tree);
	tracks_conf_release(&tc);
	buf_release(&err);
	return rc;
}

/* ---- one pass ------------------------------------------------------------ */

static int
track_timers(struct db *db)
{
	struct track_conf tc;
	const char *name;
	long long since, last, id;
	size_t i;
	int existing, n = 0;
	time_t now = time(NULL);

	for (i = 0; i < app.settings.ntracks; i++) {
		name = app.settings.tracks[i].name;
		if (tracks_conf_get(name, &tc) != 0)
			continue;
		if (db_track_since(db, name, now, &since) == 0 &&
		    db_track_last_timer(db, name, &last) == 0 &&
		    track_due(&tc, since, last, now) &&
		    db_track_run_new(db, name, "timer", tc.boots, now, &id,
		    &existing) == 0 && !existing) {
			log_info("track %s: run %lld queued (timer)", name, id);
			n++;
		}
		tracks_conf_release(&tc);
	}
	return n;
}

/* The "track" queue: timers, then every active run by one state. */
static int
track_pass_runs(struct db *db, volatile int *stop)
{
	struct track_run *runs;
	size_t n, i;
	int did = track_timers(db), was = did;

	if (db_track_runs_active(db, &runs, &n) == 0) {
		for (i = 0; i < n && !(stop && *stop); i++)
			did += track_run_step(db, &runs[i], stop);
		track_runs_free(runs, n);
	}
	if (did > was)
		track_kick_bisects();
	return did;
}

/* The "bisect" queue: every regression being bisected by one step. */
static int
track_pass_bisects(struct db *db, volatile int *stop)
{
	struct track_regression *regs;
	size_t n, i;
	int did = 0;

	if (db_track_regressions(db, NULL, &regs, &n) == 0) {
		for (i = 0; i < n && !(stop && *stop); i++)
			if (!strcmp(regs[i].state, "bisecting"))
				did += track_bisect_step(db, &regs[i], stop);
		track_regressions_free(regs, n);
	}
	return did;
}

int
track_pass(struct db *db, volatile int *stop)
{
	int did = track_pass_runs(db, stop);

	return did + track_pass_bisects(db, stop);
}
