/*
 * sched: the A/B scheduler (see sched.h): turns a built series into a
 * comparison, creates its jobs interleaved base/patched, follows them,
 * replaces infrastructure failures, counts kernel failures, decides after
 * every look whether to ask for more boots, and stores the outcome.
 *
 * DESIGN (interleaving): agents lease the queued job with the highest
 * priority, oldest first (db_agent.c), so the order jobs are created in is
 * the order they are run in.  Each look appends jobs in pairs, one base and
 * one patched, so every two consecutive leases cover both sides: drift of
 * the machine over time lands on both sides equally.  With one agent (or an
 * odd number) the plain A B A B order also makes each agent alternate.
 * With an even number N of agents leasing in turn, A B A B would hand agent
 * 1 every A and agent 2 every B, confounding the machine with the side; so
 * for even N the pair order flips every N positions (A B B A A B B A for
 * N = 2): pairs stay balanced and each agent still alternates.  N is the
 * number of agents of the comparison's class when a look is scheduled.
 *
 * DESIGN (one class): a comparison is pinned to the best-populated class
 * of the agents seen in the last day; with no agent known yet, its jobs
 * carry no class and the first lease pins them all to the leasing agent's
 * class (a trigger in schema/0004, inside the lease's own transaction).
 *
 * DESIGN (state): everything is in the store (comparisons, jobs); the
 * stage functions recompute progress from it on every call, so a restart
 * resumes where it stood and nothing is held in memory between calls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/agent.h"
#include "daemon/app.h"
#include "daemon/claims_series.h"
#include "daemon/config.h"
#include "daemon/db.h"
#include "daemon/db_build.h"
#include "daemon/db_exercise.h"
#include "daemon/exercise_series.h"
#include "core/matrix_check.h"
#include "daemon/pipeline.h"
#include "daemon/noise.h"
#include "core/claims.h"
#include "daemon/sched.h"
#include "core/stats.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

/* Agents not seen for a day do not decide a comparison's class. */
#define SCHED_AGENT_FRESH	86400

/* Told of every finished comparison (sched_set_done_hook), or NULL. */
static void (*sched_done_hook)(struct db *, long long sid, long long cid,
    int look);

void
sched_set_done_hook(void (*fn)(struct db *, long long sid, long long cid,
    int look))
{
	sched_done_hook = fn;
}

static long long
sched_now(void)
{
	return (long long)time(NULL);
}

/* ---- budget ------------------------------------------------------------ */

struct sched_budget {
	int	 boots, step, max, replacements;
};

/*
 * The budget of a comparison: [sched] values, or for a submission asking
 * for `want` boots fewer than [sched] boots, the same proportions scaled
 * down (a quick run of 2 boots: step 2, max 4 with the defaults).
 */
static void
sched_budget(int want, struct sched_budget *b)
{
	int cb = app.settings.sched.boots;
	int cs = app.settings.sched.boot_step;
	int cm = app.settings.sched.max_boots;

	if (cm < cb)
		cm = cb;
	b->replacements = app.settings.sched.replacements;
	b->boots = cb;
	b->step = cs;
	b->max = cm;
	if (want > 0 && want < cb) {
		b->boots = want;
		b->step = (int)((long long)cs * want / cb);
		b->max = (int)((long long)cm * want / cb);
	} else if (want > cb) {
		b->boots = want;
		if (b->max < want)
			b->max = want;
	}
	if (b->step < 1)
		b->step = 1;
	if (b->max < b->boots)
		b->max = b->boots;
}

/* ---- submission -------------------------------------------------------- */

int
sched_request_parse(const json_t *body, const char **matrix, int *boots,
    struct buf *err)
{
	json_t *m = json_object_get(body, "matrix");
	json_t *b = json_object_get(body, "boots");
	long long maxb = app.settings.sched.max_boots;
	const char *s;
	size_t len, i;

	*matrix = NULL;
	*boots = 0;
	if (maxb > SCHED_MAX_BOOTS)
		maxb = SCHED_MAX_BOOTS;
	if (m && !json_is_null(m)) {
		if (!json_is_string(m)) {
			buf_addstr(err, "field \"matrix\" must be a string of "
			    "workloads.conf text");
			return -1;
		}
		s = json_string_value(m);
		len = json_string_length(m);
		if (len == 0 || len > PROTO_MAX_MATRIX) {
			buf_addf(err, "field \"matrix\" must be 1..%d bytes",
			    PROTO_MAX_MATRIX);
			return -1;
		}
		for (i = 0; i < len; i++) {
			unsigned char c = (unsigned char)s[i];

			if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
				buf_addf(err, "field \"matrix\": control "
				    "character 0x%02x at byte %zu", c, i);
				return -1;
			}
		}
		/* kperfci-load's own checks, before anything is stored */
		if (matrix_check("matrix", s, len, err) < 0)
			return -1;
		*matrix = s;
	}
	if (json_is_string(b) && !strcmp(json_string_value(b), "auto")) {
		*boots = SCHED_BOOTS_AUTO;
		return 0;
	}
	if (b && !json_is_null(b)) {
		if (!json_is_integer(b) || json_integer_value(b) < 1 ||
		    json_integer_value(b) > maxb) {
			buf_addf(err, "field \"boots\" must be an integer "
			    "between 1 and %lld, or \"auto\"", maxb);
			return -1;
		}
		*boots = (int)json_integer_value(b);
	}
	return 0;
}

int
sched_request_boots(const char *text, int *boots, struct buf *err)
{
	long long maxb = app.settings.sched.max_boots;
	long long n = 0;
	size_t i;

	*boots = 0;
	if (text == NULL || *text == '\0')
		return 0;
	if (!strcmp(text, "auto")) {
		*boots = SCHED_BOOTS_AUTO;
		return 0;
	}
	if (maxb > SCHED_MAX_BOOTS)
		maxb = SCHED_MAX_BOOTS;
	for (i = 0; text[i] && n <= maxb; i++) {
		if (text[i] < '0' || text[i] > '9')
			break;
		n = n * 10 + (text[i] - '0');
	}
	if (text[i] || n < 1 || n > maxb) {
		buf_addf(err, "boots must be an integer between 1 and %lld "
		    "or auto, not \"%.32s\"", maxb, text);
		return -1;
	}
	*boots = (int)n;
	return 0;
}

int
sched_request_store(struct db *db, long long sid, const char *matrix,
    int boots)
{
	if (matrix == NULL && boots == 0)
		return 0;
	return db_sched_request_set(db, sid, matrix, boots);
}

/* The default matrix: [sched] matrix, else etc/ next to the schema. */
static char *
sched_default_matrix(struct buf *err)
{
	const char *cfg = app.settings.sched.matrix;
	struct buf b = BUF_INIT(PROTO_MAX_MATRIX);
	char *p;

	p = cfg ? xstrdup(cfg) :
	    xasprintf("%s/../etc/workloads.conf", app.schema_dir);
	if (buf_read_file(&b, p) == -1) {
		buf_addf(err, "default matrix %s: %s", p, b.overflow ?
		    "too large" : "cannot be read");
		free(p);
		buf_release(&b);
		return NULL;
	}
	free(p);
	return buf_detach(&b, NULL);
}

/* ---- reading ----------------------------------------------------------- */

static struct sched_side *
sched_side_of(struct sched_comparison *c, const char *side)
{
	return strcmp(side, "base") == 0 ? &c->base : &c->patched;
}

/* Fills jobs, side counts and agents of a comparison row. */
static int
sched_fill(struct db *db, struct sched_comparison *c)
{
	size_t i, k;

	if (db_sched_jobs(db, c->id, &c->jobs, &c->njobs) == -1)
		return -1;
	c->base.planned = c->patched.planned = c->planned;
	for (i = 0; i < c->njobs; i++) {
		struct sched_job *j = &c->jobs[i];
		struct sched_side *s;

		if (strcmp(j->side, "base") && strcmp(j->side, "patched"))
			continue;
		s = sched_side_of(c, j->side);
		if (strcmp(j->state, "leased") == 0 && j->agent) {
			for (k = 0; k < c->nagents; k++)
				if (!strcmp(c->agents[k], j->agent))
					break;
			if (k == c->nagents) {
				c->agents = xrealloc(c->agents, (c->nagents +
				    1) * sizeof(*c->agents));
				c->agents[c->nagents++] = xstrdup(j->agent);
			}
		}
		if (j->replaced)
			continue;
		if (!strcmp(j->state, "done"))
			s->done++;
		else if (!strcmp(j->state, "boot-failed"))
			s->boot_failed++;
		else if (!strcmp(j->state, "failed"))
			s->lost++;
		else if (!strcmp(j->state, "leased"))
			s->running++;
		else
			s->queued++;
	}
	return 0;
}

void
sched_comparison_release(struct sched_comparison *c)
{
	size_t i;

	free(c->state);
	free(c->class);
	free(c->matrix);
	free(c->summary);
	free(c->result);
	for (i = 0; i < c->nagents; i++)
		free(c->agents[i]);
	free(c->agents);
	db_sched_jobs_free(c->jobs, c->njobs);
	memset(c, 0, sizeof(*c));
}

static int
sched_load(struct db *db, long long sid, long long cid,
    struct sched_comparison *c)
{
	int rc = db_sched_get(db, sid, cid, c);

	if (rc != 0)
		return rc;
	if (sched_fill(db, c) == -1) {
		sched_comparison_release(c);
		return -1;
	}
	return 0;
}

int
sched_get(struct db *db, long long sid, struct sched_comparison *c)
{
	return sched_load(db, sid, 0, c);
}

int
sched_get_id(struct db *db, long long cid, struct sched_comparison *c)
{
	return sched_load(db, 0, cid, c);
}

static json_t *
jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *
sched_side_json(const struct sched_side *s)
{
	return json_pack("{s:I,s:i,s:i,s:i,s:i,s:i,s:i}",
	    "kernel", (json_int_t)s->kernel_id, "planned", s->planned,
	    "done", s->done, "boot_failed", s->boot_failed, "lost", s->lost,
	    "running", s->running, "queued", s->queued);
}

json_t *
sched_json(const struct sched_comparison *c)
{
	json_t *o = json_object(), *a, *j;
	size_t i;

	json_object_set_new(o, "id", json_integer(c->id));
	json_object_set_new(o, "state", jstr(c->state));
	json_object_set_new(o, "class", jstr(c->class));
	json_object_set_new(o, "summary", jstr(c->summary));
	json_object_set_new(o, "priority", json_integer(c->priority));
	json_object_set_new(o, "look", json_integer(c->look));
	json_object_set_new(o, "looks", json_integer(c->looks));
	json_object_set_new(o, "boots", json_integer(c->boots));
	json_object_set_new(o, "boot_step", json_integer(c->boot_step));
	json_object_set_new(o, "max_boots", json_integer(c->max_boots));
	json_object_set_new(o, "planned", json_integer(c->planned));
	json_object_set_new(o, "replacements", json_integer(c->replacements));
	json_object_set_new(o, "max_replacements",
	    json_integer(c->max_replacements));
	json_object_set_new(o, "base", sched_side_json(&c->base));
	json_object_set_new(o, "patched", sched_side_json(&c->patched));
	a = json_array();
	for (i = 0; i < c->nagents; i++)
		json_array_append_new(a, json_string(c->agents[i]));
	json_object_set_new(o, "agents", a);
	json_object_set_new(o, "matrix", jstr(c->matrix));
	a = json_array();
	for (i = 0; i < c->njobs; i++) {
		const struct sched_job *sj = &c->jobs[i];

		j = json_pack("{s:I,s:s,s:i,s:s,s:o,s:o,s:i,s:b}",
		    "id", (json_int_t)sj->id, "side", sj->side, "boot", sj->boot,
		    "state", sj->state, "reason", jstr(sj->reason),
		    "agent", jstr(sj->agent), "attempts", sj->attempts,
		    "replaced", sj->replaced);
		json_object_set_new(j, "progress", jstr(sj->progress));
		json_object_set_new(j, "console", sj->console ?
		    json_sprintf("/api/v1/jobs/%lld/console?attempt=%d",
		    sj->id, sj->attempts) : json_null());
		json_array_append_new(a, j);
	}
	json_object_set_new(o, "jobs", a);
	json_object_set_new(o, "created", json_integer(c->created));
	json_object_set_new(o, "updated", json_integer(c->updated));
	return o;
}

int
sched_side_jsonl(struct db *db, long long cid, const char *side,
    struct buf *out)
{
	struct sched_job *jobs;
	json_t *samples, *profiles, *s, *o;
	size_t n, i, k;
	char *line;
	int rc = -1;

	if (db_sched_jobs(db, cid, &jobs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (jobs[i].replaced || strcmp(jobs[i].side, side) ||
		    strcmp(jobs[i].state, "done"))
			continue;
		if (agent_fetch_results(db, jobs[i].id, &samples,
		    &profiles) == -1) {
			json_decref(samples);
			json_decref(profiles);
			goto out;
		}
		json_array_foreach(samples, k, s) {
			o = json_deep_copy(s);
			json_object_del(o, PROTO_ATTEMPT);
			json_object_set_new(o, "boot",
			    json_integer(jobs[i].boot));
			line = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
			json_decref(o);
			if (line == NULL || buf_addstr(out, line) == -1 ||
			    buf_addch(out, '\n') == -1) {
				free(line);
				json_decref(samples);
				json_decref(profiles);
				error("sched: comparison %lld: %s samples do "
				    "not fit in memory", cid, side);
				goto out;
			}
			free(line);
		}
		json_decref(samples);
		json_decref(profiles);
	}
	rc = 0;
out:
	db_sched_jobs_free(jobs, n);
	return rc;
}

int
sched_side_profiles(struct db *db, long long cid, const char *side,
    json_t **out)
{
	struct sched_job *jobs;
	json_t *samples, *profiles, *p;
	size_t n, i, k;

	*out = json_array();
	if (db_sched_jobs(db, cid, &jobs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (jobs[i].replaced || strcmp(jobs[i].side, side) ||
		    strcmp(jobs[i].state, "done"))
			continue;
		if (agent_fetch_results(db, jobs[i].id, &samples,
		    &profiles) == -1) {
			json_decref(samples);
			json_decref(profiles);
			db_sched_jobs_free(jobs, n);
			return -1;
		}
		json_array_foreach(profiles, k, p) {
			json_t *o = json_is_object(p) ? json_deep_copy(p) :
			    json_pack("{s:O}", "profile", p);

			json_object_set_new(o, "boot",
			    json_integer(jobs[i].boot));
			json_object_set_new(o, "job", json_integer(jobs[i].id));
			json_array_append_new(*out, o);
		}
		json_decref(samples);
		json_decref(profiles);
	}
	db_sched_jobs_free(jobs, n);
	return 0;
}

void
sched_stats_opts(struct stats_opts *o, const struct sched_comparison *c)
{
	stats_opts_init(o);
	o->boots = c->boots;
	o->boot_step = c->boot_step;
	o->max_boots = c->max_boots;
	o->look = c->look > 0 ? c->look : 1;
}

int
sched_next_look(const struct sched_comparison *c,
    const struct stats_result *res, int not_exercised)
{
	int next;

	/* More boots cannot decide anything about code that never ran. */
	if (not_exercised || c->look >= c->looks ||
	    !stats_need_more(res, c->planned, c->max_boots))
		return 0;
	next = c->planned + c->boot_step;
	return next > c->max_boots ? c->max_boots : next;
}

/* Loads one side into set; -1 with err. */
static int
sched_load_side(struct db *db, long long cid, const char *side,
    struct stats_set *set, struct buf *err)
{
	struct buf b = BUF_INIT(STATS_MAX_FILE);
	char msg[256];
	int rc = -1;

	if (sched_side_jsonl(db, cid, side, &b) == -1) {
		buf_addf(err, "the %s samples could not be read", side);
		goto out;
	}
	if (stats_load_jsonl(set, b.data ? b.data : "", b.len, msg,
	    sizeof(msg)) == -1) {
		buf_addf(err, "%s samples: %s", side, msg);
		goto out;
	}
	if (set->nsamples == 0) {
		buf_addf(err, "no %s boot produced samples", side);
		goto out;
	}
	rc = 0;
out:
	buf_release(&b);
	return rc;
}

/* The class's pooled per-boot spread of a row, NAN when it has none. */
static double
sched_class_cv(const struct stats_row *r, void *arg)
{
	const struct noise_row *e = noise_find(arg, r->workload, r->params,
	    r->metric);

	return e && e->dof >= 2 ? e->cv_pct : NAN;
}

int
sched_result(struct db *db, long long cid, struct stats_result *res,
    struct buf *err)
{
	struct sched_comparison c;
	struct stats_set base, test;
	struct stats_opts opts;
	struct noise nz;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (db_sched_get(db, 0, cid, &c) != 0) {
		buf_addf(err, "no comparison %lld", cid);
		return -1;
	}
	stats_set_init(&base);
	stats_set_init(&test);
	if (sched_load_side(db, cid, "base", &base, err) == -1 ||
	    sched_load_side(db, cid, "patched", &test, err) == -1)
		goto out;
	sched_stats_opts(&opts, &c);
	rc = stats_compare(&base, &test, &opts, res);
	if (rc == -1)
		buf_addstr(err, "the comparison failed");
	else if (noise_class(db, c.class, c.id, &nz) == 0) {
		/* what an inconclusive row would take on this class */
		stats_result_boots_needed(res, sched_class_cv, &nz);
		noise_release(&nz);
	}
out:
	stats_set_release(&base);
	stats_set_release(&test);
	sched_comparison_release(&c);
	return rc;
}

/* ---- scheduling -------------------------------------------------------- */

/*
 * Side of the job at position pos (0-based, over the whole comparison)
 * with nagents agents: see DESIGN (interleaving).  0 base, 1 patched.
 */
static int
sched_side_at(long pos, int nagents)
{
	if (nagents >= 2 && nagents % 2 == 0)
		return (int)((pos + pos / nagents) & 1);
	return (int)(pos & 1);
}

static int
sched_enqueue(struct db *db, const struct sched_comparison *c,
    const char *side, int boot, struct buf *err)
{
	struct agent_job_spec s = { 0 };
	long long id;

	s.kernel_id = !strcmp(side, "base") ? c->base.kernel_id :
	    c->patched.kernel_id;
	s.matrix = c->matrix;
	s.priority = c->priority;
	s.comparison_id = c->id;
	s.side = side;
	s.boot = boot;
	s.class = c->class;
	return agent_enqueue(db, &s, &id, err);
}

/* Jobs for boots from+1..to per side (positions 2*from .. 2*to). */
static int
sched_enqueue_look(struct db *db, const struct sched_comparison *c,
    int from, int to, struct buf *err)
{
	int nagents = 1;
	long pos;

	if (c->class && db_sched_class_agents(db, c->class, sched_now() -
	    SCHED_AGENT_FRESH, &nagents) == -1)
		return -1;
	for (pos = 2L * from; pos < 2L * to; pos++)
		if (sched_enqueue(db, c, sched_side_at(pos, nagents) ?
		    "patched" : "base", (int)(pos / 2) + 1, err) == -1)
			return -1;
	return 0;
}

/* Registers a build's bzImage with the agent layer. */
static int
sched_kernel(struct db *db, long long sid, int64_t build_id, const char *what,
    long long *kid, struct buf *err)
{
	struct db_build b;
	char *path, *note;
	int rc;

	if (build_id <= 0 || db_build_get(db, build_id, &b) != 0) {
		buf_addf(err, "the %s kernel's build is not recorded", what);
		return -1;
	}
	if (b.dir == NULL || strcmp(b.state, "done") != 0) {
		buf_addf(err, "the %s kernel's build %lld is not done", what,
		    (long long)build_id);
		db_build_release(&b);
		return -1;
	}
	path = xasprintf("%s/bzImage", b.dir);
	note = xasprintf("series %lld %s (build %lld)", sid, what,
	    (long long)build_id);
	rc = agent_kernel_add_file(db, path, note, kid, err);
	free(path);
	free(note);
	db_build_release(&b);
	return rc;
}

/* ---- "boots": "auto" ---------------------------------------------------- */

/*
 * Without a claim: the boots the class's noisiest primary row needs to
 * tell the smallest change worth reporting (STATS_DEFAULT_NOCHANGE_
 * HALFWIDTH) at one look, Holm's first step over the primary rows the
 * class has measured -- what an inconclusive row's boots_needed says.
 * 0 when the class has measured no primary row.
 */
static int
sched_auto_noise(const struct noise *nz, double alpha, int max,
    struct buf *why)
{
	const struct noise_row *worst = NULL;
	size_t i, nprim = 0;
	int need = 0, n;

	for (i = 0; i < nz->n; i++)
		nprim += stats_metric_primary(nz->v[i].workload,
		    nz->v[i].metric) && nz->v[i].cv_pct > 0;
	for (i = 0; nprim && i < nz->n; i++) {
		const struct noise_row *e = &nz->v[i];

		if (!stats_metric_primary(e->workload, e->metric) ||
		    !(e->cv_pct > 0))
			continue;
		n = claims_boots_needed(e->cv_pct,
		    STATS_DEFAULT_NOCHANGE_HALFWIDTH, alpha / nprim,
		    SCHED_AUTO_POWER);
		if (n > need) {
			need = n;
			worst = e;
		}
	}
	if (!worst)
		return 0;
	buf_addf(why, "%d boots per side: no claim maps to a measured row, "
	    "so a %.0f%% change in the noisiest primary row, %s %s %s "
	    "(%.2f%% per-boot spread over %d comparison%s), at %.0f%% power, "
	    "alpha %.3g over %zu primary rows", need,
	    STATS_DEFAULT_NOCHANGE_HALFWIDTH, worst->workload, worst->params,
	    worst->metric, worst->cv_pct, worst->ncomparisons,
	    worst->ncomparisons == 1 ? "" : "s", 100 * SCHED_AUTO_POWER,
	    alpha, nprim);
	if (need > max) {
		buf_addf(why, "; capped at the budget of %d", max);
		need = max;
	}
	return need;
}

int
sched_auto_boots(struct db *db, long long sid, const char *class,
    double alpha, int max, struct buf *why)
{
	struct claims cl = { 0 };
	struct noise nz;
	struct claim_row *rows = NULL;
	const struct claim *best = NULL;
	const struct noise_row *bestrow = NULL;
	double bestpct = 0;
	size_t i;
	int need = 0, n;

	if (noise_class(db, class, 0, &nz) == -1) {
		buf_addstr(why, "the class's past comparisons cannot be read");
		return 0;
	}
	if (nz.n == 0) {
		buf_addf(why, "class %s has no finished comparison to learn "
		    "its noise from", class ? class : "(none yet)");
		goto out;
	}
	claims_series_extract(db, sid, &cl);
	rows = xcalloc(nz.n, sizeof(*rows));
	for (i = 0; i < nz.n; i++) {
		rows[i].workload = nz.v[i].workload;
		rows[i].params = nz.v[i].params;
		rows[i].metric = nz.v[i].metric;
		rows[i].verdict = "no change";
		rows[i].better = nz.v[i].better;
		rows[i].change_pct = rows[i].ci_lo = rows[i].ci_hi = NAN;
		rows[i].cv_pct = nz.v[i].cv_pct;
		rows[i].alpha = alpha;
		rows[i].exercised = 1;
	}
	for (i = 0; i < cl.n; i++) {
		struct claim_check k;

		claims_check(&cl.v[i], rows, nz.n, &k);
		if (k.row < 0 || !k.has_expected)
			continue;
		n = claims_boots_needed(nz.v[k.row].cv_pct, k.expected_pct,
		    alpha, SCHED_AUTO_POWER);
		if (n > need) {
			need = n;
			best = &cl.v[i];
			bestrow = &nz.v[k.row];
			bestpct = k.expected_pct;
		}
	}
	if (!best) {
		need = sched_auto_noise(&nz, alpha, max, why);
		if (need == 0)
			buf_addf(why, "no claim of the series maps to a row "
			    "class %s has measured (%zu claims, %zu rows "
			    "known)", class, cl.n, nz.n);
		goto out;
	}
	if (need < 2)
		need = 2;
	buf_addf(why, "%d boots per side: a %.1f%% change in %s %s %s "
	    "(\"%.80s\", %s) at %.0f%% power, alpha %.3g, with the %.2f%% "
	    "per-boot spread class %s showed over %d comparison%s", need,
	    fabs(bestpct), bestrow->workload, bestrow->params, bestrow->metric,
	    best->text, best->where, 100 * SCHED_AUTO_POWER, alpha,
	    bestrow->cv_pct, class, bestrow->ncomparisons,
	    bestrow->ncomparisons == 1 ? "" : "s");
	if (need > max) {
		buf_addf(why, "; capped at the budget of %d", max);
		need = max;
	}
out:
	free(rows);
	claims_release(&cl);
	noise_release(&nz);
	return need;
}

/* "boots": "auto": one look of the boots the claims need, or [sched]'s
   plan when none can be planned for (sched_auto_boots); why in changes. */
static void
sched_budget_auto(struct db *db, long long sid, const char *class,
    struct sched_budget *b, json_t *changes)
{
	struct stats_opts o;
	struct buf why = BUF_INIT(1024);
	int max = app.settings.sched.max_boots, n;

	stats_opts_init(&o);
	if (max > SCHED_MAX_BOOTS)
		max = SCHED_MAX_BOOTS;
	/* one look: all of alpha there, so the power is what was asked */
	n = sched_auto_boots(db, sid, class, o.alpha, max, &why);
	if (n > 0) {
		b->boots = b->max = b->step = n;
		b->replacements = app.settings.sched.replacements;
	} else {
		sched_budget(0, b);
		buf_addstr(&why, ": [sched] boots instead");
	}
	log_info("series %lld: boots auto: %s", sid, why.data);
	if (changes)
		json_object_set_new(changes, "boots_source", json_sprintf(
		    "auto: %s", why.data));
	buf_release(&why);
}

int
sched_create(struct db *db, long long sid, long long kbase,
    long long kpatched, const char *from, const char *to, struct buf *err)
{
	struct db_sched_new n = { 0 };
	struct sched_comparison c;
	struct sched_budget bud;
	struct db_series s;
	struct exercise_plan plan = { 0 };
	struct buf perr = BUF_INIT(1024);
	char *reqm = NULL, *dflt = NULL, *class = NULL;
	int reqb, nag, rc = -1, began = 0, have_plan;
	long long cid;

	memset(&c, 0, sizeof(c));
	if (db_series_get(db, sid, 0, &s) != 0) {
		buf_addf(err, "series %lld is not stored", sid);
		return -1;
	}
	if (db_sched_request_get(db, sid, &reqm, &reqb) == -1) {
		buf_addstr(err, "the submission's options cannot be read");
		goto out;
	}
	/* The suites the series touches and the functions it changes
	   (exercise.h); without a plan, the default matrix and no probes. */
	have_plan = exercise_series_plan(db, sid, &plan, &perr) == 0;
	if (!have_plan)
		log_info("series %lld: no change analysis (%s): the default "
		    "matrix, changed functions not counted", sid, perr.data ?
		    perr.data : "?");
	else if (reqm)
		json_object_set_new(plan.changes, "matrix_source",
		    json_string("the submitter's matrix"));
	if (have_plan && !reqm && plan.matrix) {
		const char *cm = app.settings.sched.matrix;

		/* An operator's [sched] matrix runs for every series (the
		   suites are still listed); "all" is the default matrix. */
		if (cm && *cm)
			json_object_set_new(plan.changes, "matrix_source",
			    json_sprintf("[sched] matrix %s (configured: it "
			    "replaces the suites)", cm));
		if ((cm && *cm) || strstr(json_string_value(json_object_get(
		    plan.changes, "matrix_source")), "(all)")) {
			free(plan.matrix);
			plan.matrix = NULL;
		}
	}
	if (reqm == NULL && !(have_plan && plan.matrix) &&
	    (dflt = sched_default_matrix(err)) == NULL)
		goto out;
	if (db_sched_best_class(db, sched_now() - SCHED_AGENT_FRESH, &class,
	    &nag) == -1) {
		buf_addstr(err, "the agent pool cannot be read");
		goto out;
	}
	if (reqb == SCHED_BOOTS_AUTO)
		sched_budget_auto(db, sid, class, &bud, have_plan ?
		    plan.changes : NULL);
	else
		sched_budget(reqb, &bud);
	n.series_id = sid;
	n.base_kernel = kbase;
	n.patched_kernel = kpatched;
	n.matrix = reqm ? reqm : dflt ? dflt : plan.matrix;
	n.class = class;
	n.priority = s.priority;
	n.boots = bud.boots;
	n.boot_step = bud.step;
	n.max_boots = bud.max;
	n.looks = stats_planned_looks(bud.boots, bud.max, bud.step);
	n.max_replacements = bud.replacements;
	if (db_begin(db) == -1) {
		buf_addstr(err, "the store is busy");
		goto out;
	}
	began = 1;
	if (db_sched_insert(db, &n, sched_now(), &cid) == -1 ||
	    db_sched_get(db, 0, cid, &c) != 0) {
		buf_addstr(err, "the comparison could not be stored");
		goto out;
	}
	if (have_plan && db_exercise_set(db, cid, plan.changes,
	    plan.probes) == -1) {
		buf_addstr(err, "the comparison's change analysis could not be "
		    "stored");
		goto out;
	}
	if (sched_enqueue_look(db, &c, 0, c.planned, err) == -1)
		goto out;
	if (db_series_set_state(db, sid, from, to, NULL) != 0) {
		buf_addf(err, "series %lld left state %s meanwhile", sid, from);
		goto out;
	}
	if (db_commit(db) == -1) {
		buf_addstr(err, "the comparison could not be stored");
		goto out;
	}
	began = 0;
	log_info("series %lld: comparison %lld: %d boots per side (up to %d "
	    "in %d looks), class %s", sid, cid, n.boots, n.max_boots, n.looks,
	    class ? class : "(first agent's)");
	rc = 0;
out:
	if (began)
		db_rollback(db);
	sched_comparison_release(&c);
	db_series_release(&s);
	free(reqm);
	free(dflt);
	free(class);
	exercise_plan_release(&plan);
	buf_release(&perr);
	return rc;
}

int
stage_sched_start(struct stage_ctx *ctx)
{
	struct db_series_build sb;
	struct sched_comparison c;
	long long kb, kp;
	int rc;

	/* Like the apply stage without a [tree]: with no agent configured
	   there is nobody to run boots, so the series rests at `built`. */
	if (app.settings.agents.n == 0) {
		buf_addstr(&ctx->err, "no [agent] is configured to run it");
		return STAGE_REST;
	}
	rc = db_sched_get(ctx->db, ctx->series_id, 0, &c);
	sched_comparison_release(&c);
	if (rc == 0)
		return STAGE_OK;	/* created before a restart */
	if (rc == -1) {
		buf_addstr(&ctx->err, "the comparison cannot be read");
		return STAGE_FAIL;
	}
	if (db_build_series_get(ctx->db, ctx->series_id, &sb) != 0) {
		buf_addstr(&ctx->err, "no builds are recorded for this series");
		return STAGE_FAIL;
	}
	rc = sched_kernel(ctx->db, ctx->series_id, sb.base_build, "base", &kb,
	    &ctx->err) == -1 || sched_kernel(ctx->db, ctx->series_id,
	    sb.patched_build, "patched", &kp, &ctx->err) == -1 ? -1 : 0;
	db_series_build_release(&sb);
	if (rc == -1)
		return STAGE_FAIL;
	if (sched_create(ctx->db, ctx->series_id, kb, kp, ctx->from, ctx->to,
	    &ctx->err) == -1)
		return STAGE_FAIL;
	return STAGE_OK;
}

/* "every patched boot panicked (console: /api/v1/jobs/7/console?attempt=1)" */
static void
sched_side_failure(const struct sched_comparison *c, const char *side,
    const struct sched_side *s, struct buf *out)
{
	char v[128];
	const struct sched_job *last = NULL, *j;
	size_t i;

	/* The newest boot failure of the side (the console that explains
	   it), else its newest job. */
	for (i = 0; i < c->njobs; i++) {
		j = &c->jobs[i];
		if (j->replaced || strcmp(j->side, side))
			continue;
		if (!last || !strcmp(j->state, "boot-failed") ||
		    strcmp(last->state, "boot-failed"))
			last = j;
	}
	if (s->boot_failed > 0 && s->lost == 0) {
		stats_failed_verdict(v, sizeof(v), side, "panicked");
		/* the series is already `failed`: no second "failed: " */
		buf_addstr(out, strncmp(v, "failed: ", 8) ? v : v + 8);
	} else {
		buf_addf(out, "no %s boot ran: %d failed to boot, %d lost to "
		    "infrastructure failures", side, s->boot_failed, s->lost);
	}
	if (last && last->reason)
		buf_addf(out, " (%s)", last->reason);
	if (last && last->console)
		buf_addf(out, " (console: /api/v1/jobs/%lld/console?attempt=%d)",
		    last->id, last->attempts);
}

/* Replaces infrastructure failures while the budget allows.  *pending
   counts the jobs still to finish. */
static int
sched_replace(struct db *db, struct sched_comparison *c, int *pending,
    struct buf *err)
{
	size_t i;

	*pending = 0;
	for (i = 0; i < c->njobs; i++) {
		struct sched_job *j = &c->jobs[i];

		if (j->replaced)
			continue;
		if (!strcmp(j->state, "queued") || !strcmp(j->state, "leased")) {
			(*pending)++;
			continue;
		}
		if (strcmp(j->state, "failed") ||
		    c->replacements >= c->max_replacements)
			continue;
		if (db_begin(db) == -1)
			return -1;
		if (sched_enqueue(db, c, j->side, j->boot, err) == -1 ||
		    db_sched_add_replacement(db, c->id, sched_now()) == -1) {
			db_rollback(db);
			return -1;
		}
		if (db_commit(db) == -1)
			return -1;
		log_info("comparison %lld: %s boot %d failed (%s); replaced",
		    c->id, j->side, j->boot, j->reason ? j->reason : "?");
		c->replacements++;
		(*pending)++;
	}
	return 0;
}

static void
sched_summary(const struct sched_comparison *c, const struct stats_result *r,
    int not_exercised, struct buf *out)
{
	/* nothing the series changed ran: its rows are not "no change" */
	if (not_exercised)
		buf_addf(out, "not exercised: none of the changed functions "
		    "ran (the statistics alone: %zu regressions, %zu "
		    "improvements, %zu unchanged, %zu inconclusive) over %d "
		    "base and %d patched boots (look %d of %d)",
		    r->count[STATS_REGRESSION], r->count[STATS_IMPROVEMENT],
		    r->count[STATS_NO_CHANGE], r->count[STATS_INCONCLUSIVE],
		    c->base.done, c->patched.done, c->look, c->looks);
	else
		buf_addf(out, "%zu regressions, %zu improvements, %zu no "
		    "change, %zu inconclusive over %d base and %d patched "
		    "boots (look %d of %d)", r->count[STATS_REGRESSION],
		    r->count[STATS_IMPROVEMENT], r->count[STATS_NO_CHANGE],
		    r->count[STATS_INCONCLUSIVE], c->base.done,
		    c->patched.done, c->look, c->looks);
	if (c->base.boot_failed || c->patched.boot_failed)
		buf_addf(out, "; %d base and %d patched boots failed to boot",
		    c->base.boot_failed, c->patched.boot_failed);
	if (c->base.lost || c->patched.lost)
		buf_addf(out, "; %d base and %d patched boots lost to "
		    "infrastructure failures", c->base.lost, c->patched.lost);
}

int
stage_sched_wait(struct stage_ctx *ctx)
{
	struct sched_comparison c;
	struct stats_result res;
	struct buf sum = BUF_INIT(4096);
	int pending, rc = STAGE_FAIL, next, notex;
	char *json = NULL;
	json_t *j;

	memset(&res, 0, sizeof(res));
	if (sched_get(ctx->db, ctx->series_id, &c) != 0) {
		buf_addstr(&ctx->err, "the comparison of this series is not "
		    "stored");
		return STAGE_FAIL;
	}
	if (!strcmp(c.state, "done")) {
		rc = STAGE_OK;
		goto out;
	}
	if (!strcmp(c.state, "failed")) {
		buf_addstr(&ctx->err, c.summary ? c.summary : "failed");
		goto out;
	}
	if (sched_replace(ctx->db, &c, &pending, &ctx->err) == -1)
		goto out;
	if (pending) {
		rc = STAGE_WAIT;
		goto out;
	}
	/* Every job of this look finished. */
	if (c.base.done == 0 || c.patched.done == 0) {
		sched_side_failure(&c, c.base.done == 0 ? "base" : "patched",
		    c.base.done == 0 ? &c.base : &c.patched, &sum);
		db_sched_finish(ctx->db, c.id, "failed", sum.data, NULL,
		    sched_now());
		buf_addstr(&ctx->err, sum.data);
		goto out;
	}
	if (sched_result(ctx->db, c.id, &res, &ctx->err) == -1) {
		db_sched_finish(ctx->db, c.id, "failed", ctx->err.data, NULL,
		    sched_now());
		goto out;
	}
	notex = exercise_comparison_state(ctx->db, c.id) ==
	    EXERCISE_NOT_EXERCISED;
	if ((next = sched_next_look(&c, &res, notex)) > 0) {
		if (db_begin(ctx->db) == -1)
			goto out;
		if (sched_enqueue_look(ctx->db, &c, c.planned, next,
		    &ctx->err) == -1 || db_sched_set_look(ctx->db, c.id,
		    c.look + 1, next, sched_now()) == -1) {
			db_rollback(ctx->db);
			goto out;
		}
		if (db_commit(ctx->db) == -1)
			goto out;
		log_info("series %lld: look %d inconclusive; %d more boots per "
		    "side (look %d of %d)", ctx->series_id, c.look,
		    next - c.planned, c.look + 1, c.looks);
		rc = STAGE_WAIT;
		goto out;
	}
	sched_summary(&c, &res, notex, &sum);
	j = stats_result_to_json(&res);
	json = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (db_sched_finish(ctx->db, c.id, "done", sum.data, json,
	    sched_now()) == -1) {
		buf_addstr(&ctx->err, "the result could not be stored");
		goto out;
	}
	log_info("series %lld: %s", ctx->series_id, sum.data);
	if (sched_done_hook)
		sched_done_hook(ctx->db, ctx->series_id, c.id, c.look);
	rc = STAGE_OK;
out:
	free(json);
	stats_result_release(&res);
	buf_release(&sum);
	sched_comparison_release(&c);
	return rc;
}
