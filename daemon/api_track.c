/*
 * api_track: the JSON of tracked trees, their runs, regressions and
 * bisects, and the regression's report.txt (kernel test robot form).
 *
 *	GET  /api/v1/tracks			every [track], last run, open
 *						regressions
 *	GET  /api/v1/tracks/{name}		one track, runs, regressions
 *	GET  /api/v1/tracks/{name}/runs		its runs, newest first
 *	POST /api/v1/tracks/{name}/runs		a run now: 202 {"id"}
 *	GET  /api/v1/regressions/{id}		the regression and its bisect
 *	GET  /regressions/{id}/report.txt	the report to send
 *
 * Nothing here blocks: a POST stores a queued run and wakes the track
 * threads (tracks_run_now).  report.txt is tracks_report
 * (tracks.c), shared with the regression's page.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "daemon/app.h"
#include "daemon/auth.h"
#include "daemon/config.h"
#include "daemon/db_track.h"
#include "daemon/limits.h"
#include "daemon/http.h"
#include "daemon/routes.h"
#include "daemon/tracks.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

static json_t *
jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *
jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
api_track_run_json(const struct track_run *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "track", jstr(r->track));
	json_object_set_new(o, "trigger", jstr(r->trigger));
	json_object_set_new(o, "state", jstr(r->state));
	json_object_set_new(o, "error", jstr(r->error));
	json_object_set_new(o, "note", jstr(r->note));
	json_object_set_new(o, "head", jstr(r->head));
	json_object_set_new(o, "previous_head", jstr(r->prev_head));
	json_object_set_new(o, "kernel", r->kernel_id ?
	    json_integer(r->kernel_id) : json_null());
	json_object_set_new(o, "boots", json_integer(r->boots));
	json_object_set_new(o, "created", json_integer(r->created));
	json_object_set_new(o, "updated", json_integer(r->updated));
	return o;
}

static json_t *
api_track_regression_json(const struct track_regression *g)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(g->id));
	json_object_set_new(o, "track", jstr(g->track));
	json_object_set_new(o, "tree", jstr(g->tree));
	json_object_set_new(o, "workload", jstr(g->workload));
	json_object_set_new(o, "params", jstr(g->params));
	json_object_set_new(o, "metric", jstr(g->metric));
	json_object_set_new(o, "unit", jstr(g->unit));
	json_object_set_new(o, "better", json_string(g->better < 0 ? "lower" :
	    "higher"));
	json_object_set_new(o, "last_good_run", json_integer(g->good_run));
	json_object_set_new(o, "first_bad_run", json_integer(g->bad_run));
	json_object_set_new(o, "good_commit", jstr(g->good_commit));
	json_object_set_new(o, "bad_commit", jstr(g->bad_commit));
	json_object_set_new(o, "pct_change", jnum(g->pct_change));
	json_object_set_new(o, "ci95", json_pack("[oo]", jnum(g->ci_lo),
	    jnum(g->ci_hi)));
	json_object_set_new(o, "p_value", jnum(g->p_value));
	json_object_set_new(o, "state", jstr(g->state));
	json_object_set_new(o, "error", jstr(g->error));
	json_object_set_new(o, "first_bad_commit", jstr(g->first_bad));
	json_object_set_new(o, "subject", jstr(g->subject));
	json_object_set_new(o, "author", jstr(g->author));
	json_object_set_new(o, "link", jstr(g->link));
	json_object_set_new(o, "suspects", jstr(g->suspects));
	json_object_set_new(o, "verified", jstr(g->verified));
	json_object_set_new(o, "created", json_integer(g->created));
	json_object_set_new(o, "updated", json_integer(g->updated));
	return o;
}

static json_t *
api_track_step_json(const struct bisect_step *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(s->id));
	json_object_set_new(o, "commit", jstr(s->commit_id));
	json_object_set_new(o, "role", jstr(s->role));
	json_object_set_new(o, "state", jstr(s->state));
	json_object_set_new(o, "verdict", jstr(s->verdict));
	json_object_set_new(o, "reason", jstr(s->reason));
	json_object_set_new(o, "boots", json_integer(s->boots));
	json_object_set_new(o, "kernel", s->kernel_id ?
	    json_integer(s->kernel_id) : json_null());
	json_object_set_new(o, "vs_good", json_pack("{s:o,s:[oo]}",
	    "pct_change", jnum(s->pct_vs_good), "ci95",
	    jnum(s->ci_good_lo), jnum(s->ci_good_hi)));
	json_object_set_new(o, "to_bad", json_pack("{s:o,s:[oo]}",
	    "pct_change", jnum(s->pct_vs_bad), "ci95",
	    jnum(s->ci_bad_lo), jnum(s->ci_bad_hi)));
	return o;
}

static json_t *
api_track_conf_json(const struct track_conf *tc)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(tc->name));
	json_object_set_new(o, "tree", json_string(tc->tree));
	json_object_set_new(o, "branch", json_string(tc->branch));
	if (tc->at_min >= 0) {
		char at[16];

		snprintf(at, sizeof(at), "%02d:%02d", tc->at_min / 60,
		    tc->at_min % 60);
		json_object_set_new(o, "at", json_string(at));
	} else {
		json_object_set_new(o, "at", json_null());
	}
	json_object_set_new(o, "every_seconds", tc->every_sec ?
	    json_integer(tc->every_sec) : json_null());
	json_object_set_new(o, "matrix", jstr(tc->matrix));
	json_object_set_new(o, "boots", json_integer(tc->boots));
	json_object_set_new(o, "max_boots", json_integer(tc->max_boots));
	json_object_set_new(o, "priority", json_integer(tc->priority));
	json_object_set_new(o, "first_parent", json_boolean(tc->first_parent));
	return o;
}

/* The summary of one track: config, last run, open regressions. */
static json_t *
api_track_summary(struct db *db, const struct track_conf *tc)
{
	json_t *o = api_track_conf_json(tc);
	struct track_run *runs = NULL;
	struct track_regression *regs = NULL;
	size_t nr = 0, ng = 0, i, open = 0;

	db_track_runs(db, tc->name, 1, &runs, &nr);
	json_object_set_new(o, "last_run", nr ? api_track_run_json(&runs[0]) :
	    json_null());
	db_track_regressions(db, tc->name, &regs, &ng);
	for (i = 0; i < ng; i++)
		open++;
	json_object_set_new(o, "regressions", json_integer((long long)open));
	track_runs_free(runs, nr);
	track_regressions_free(regs, ng);
	return o;
}

static int
api_tracks(struct http_req *req, struct http_resp *resp)
{
	json_t *a = json_array();
	struct track_conf tc;
	const char *name;
	size_t i;

	for (i = 0; i < app.settings.ntracks &&
	    (name = app.settings.tracks[i].name); i++) {
		if (tracks_conf_get(name, &tc) != 0)
			continue;
		json_array_append_new(a, api_track_summary(req->db, &tc));
		tracks_conf_release(&tc);
	}
	return http_reply_json(resp, 200, json_pack("{s:o}", "tracks", a));
}

static int
api_track_load(struct http_req *req, struct http_resp *resp,
    struct track_conf *tc)
{
	const char *name = http_param(req, "name");

	if (!name || tracks_conf_get(name, tc) != 0) {
		http_reply_error(resp, 404, "no track \"%s\" is configured",
		    name ? name : "");
		return -1;
	}
	if (!req->db) {
		tracks_conf_release(tc);
		http_reply_error(resp, 503, "store not available");
		return -1;
	}
	return 0;
}

static json_t *
api_track_runs_json(struct db *db, const char *name)
{
	struct track_run *runs = NULL;
	size_t n = 0, i;
	json_t *a = json_array();

	db_track_runs(db, name, 0, &runs, &n);
	for (i = 0; i < n; i++)
		json_array_append_new(a, api_track_run_json(&runs[i]));
	track_runs_free(runs, n);
	return a;
}

static int
api_track_get(struct http_req *req, struct http_resp *resp)
{
	struct track_conf tc;
	struct track_regression *regs = NULL;
	size_t ng = 0, i;
	json_t *o, *a;

	if (api_track_load(req, resp, &tc) < 0)
		return 0;
	o = api_track_conf_json(&tc);
	json_object_set_new(o, "runs", api_track_runs_json(req->db, tc.name));
	a = json_array();
	db_track_regressions(req->db, tc.name, &regs, &ng);
	for (i = 0; i < ng; i++)
		json_array_append_new(a, api_track_regression_json(&regs[i]));
	json_object_set_new(o, "regressions", a);
	track_regressions_free(regs, ng);
	tracks_conf_release(&tc);
	return http_reply_json(resp, 200, o);
}

static int
api_track_runs(struct http_req *req, struct http_resp *resp)
{
	struct track_conf tc;
	json_t *a;

	if (api_track_load(req, resp, &tc) < 0)
		return 0;
	a = api_track_runs_json(req->db, tc.name);
	tracks_conf_release(&tc);
	return http_reply_json(resp, 200, json_pack("{s:o}", "runs", a));
}

static int
api_track_run_post(struct http_req *req, struct http_resp *resp)
{
	struct track_conf tc;
	struct auth_who who;
	long long id;
	int existing, r;

	if (api_track_load(req, resp, &tc) < 0)
		return 0;
	/* a run builds and boots kernels: it charges the submitter's rate
	   limit like a submission (the guard identified a role already) */
	if (auth_identify(req, 0, &who, resp) < 0 ||
	    limits_http(req->db, auth_limits_key(req, &who), 0, resp, 0) < 0) {
		tracks_conf_release(&tc);
		return 0;
	}
	r = tracks_run_now(req->db, tc.name, &id, &existing);
	tracks_conf_release(&tc);
	if (r != 0)
		return http_reply_error(resp, 500, "cannot store the run");
	return http_reply_json(resp, 202, json_pack("{s:I,s:b,s:s}", "id",
	    (json_int_t)id, "existing", existing, "state_url",
	    "/api/v1/tracks/{name}/runs"));
}

/* Loads regression {id} and its steps. */
static int
api_track_reg_load(struct http_req *req, struct http_resp *resp,
    struct track_regression *g, struct bisect_step **steps, size_t *n)
{
	long long id;
	int r;

	if (http_param_id(req, resp, "id", &id) < 0)
		return -1;
	if (!req->db) {
		http_reply_error(resp, 503, "store not available");
		return -1;
	}
	r = db_track_regression_get(req->db, id, g);
	if (r != 0) {
		http_reply_error(resp, r == 1 ? 404 : 500, r == 1 ?
		    "no regression %lld" : "cannot read regression %lld", id);
		return -1;
	}
	db_track_steps(req->db, id, steps, n);
	return 0;
}

static json_t *
api_track_regression_full(const struct track_regression *g,
    const struct bisect_step *steps, size_t n)
{
	json_t *o = api_track_regression_json(g), *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, api_track_step_json(&steps[i]));
	json_object_set_new(o, "steps", a);
	return o;
}

/* Every metric that moved at the regression's change point. */
static json_t *
api_track_metrics_json(struct db *db, long long id)
{
	struct track_reg_metric *m = NULL;
	json_t *a = json_array();
	size_t n = 0, i;

	db_track_reg_metrics(db, id, &m, &n);
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:s,s:o,"
		    "s:[oo],s:o,s:b,s:o}", "workload", jstr(m[i].workload),
		    "params", jstr(m[i].params), "metric", jstr(m[i].metric),
		    "unit", jstr(m[i].unit), "better", m[i].better < 0 ?
		    "lower" : "higher", "pct_change", jnum(m[i].pct_change),
		    "ci95", jnum(m[i].ci_lo), jnum(m[i].ci_hi), "p_value",
		    jnum(m[i].p_value), "carries", m[i].carries, "why",
		    jstr(m[i].why)));
	track_reg_metrics_free(m, n);
	return a;
}

static int
api_regression_get(struct http_req *req, struct http_resp *resp)
{
	struct track_regression g;
	struct bisect_step *steps = NULL;
	size_t n = 0;
	json_t *o;

	if (api_track_reg_load(req, resp, &g, &steps, &n) < 0)
		return 0;
	o = api_track_regression_full(&g, steps, n);
	json_object_set_new(o, "metrics", api_track_metrics_json(req->db,
	    g.id));
	bisect_steps_free(steps, n);
	track_regression_release(&g);
	return http_reply_json(resp, 200, o);
}

static int
api_regression_report(struct http_req *req, struct http_resp *resp)
{
	struct track_regression g;
	struct bisect_step *steps = NULL;
	size_t n = 0;
	struct buf b = BUF_INIT(0);
	int r;

	if (api_track_reg_load(req, resp, &g, &steps, &n) < 0)
		return 0;
	tracks_report(&b, &g, steps, n);
	r = http_reply_text(resp, 200, "text/plain; charset=utf-8", b.data);
	buf_release(&b);
	bisect_steps_free(steps, n);
	track_regression_release(&g);
	return r;
}

const struct route api_track_routes[] = {
	{ "GET", "/api/v1/tracks", api_tracks, 0, 0 },
	{ "GET", "/api/v1/tracks/{name}", api_track_get, 0, 0 },
	{ "GET", "/api/v1/tracks/{name}/runs", api_track_runs, 0, 0 },
	{ "POST", "/api/v1/tracks/{name}/runs", api_track_run_post, 0, 0 },
	{ "GET", "/api/v1/regressions/{id}", api_regression_get, 0, 0 },
	{ "GET", "/regressions/{id}/report.txt", api_regression_report, 0, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
