/*
 * report_json: the comparison JSON (GET /api/v1/series/{id}/comparison):
 * the series, kernels, progress, jobs, rows, charts, lock contention and
 * lock profiles.  Its profile diff (report_profiles_json) is also the form
 * report_cache.c stores.  Pure: a function of the model; a number that is
 * not finite is null.
 */
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "daemon/report.h"
#include "daemon/report_int.h"

static json_t *
report_jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
report_jstring(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *
report_side_boots(const struct stats_side *d)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; d->present && i < d->nboots; i++)
		json_array_append_new(a, json_pack("{s:I,s:o}", "boot",
		    (json_int_t)d->boot_ids[i], "mean",
		    report_jnum(d->boot_means[i])));
	return a;
}

static json_t *
report_json_charts(const struct report *r)
{
	json_t *charts = json_array(), *pts, *o;
	struct report_curve *c;
	size_t i, k, nc;

	for (i = 0; r->have_result && i < r->result.n; i++) {
		const struct stats_row *row = &r->result.rows[i];

		json_array_append_new(charts, json_pack("{s:s,s:s,s:s,s:s,s:s,"
		    "s:o,s:o,s:o,s:o}", "kind", "boots",
		    "workload", row->workload, "params", row->params,
		    "metric", row->metric, "unit", row->unit,
		    "base", report_side_boots(&row->base),
		    "patched", report_side_boots(&row->test),
		    "base_mean", report_jnum(row->base.present ?
		    row->base.mean : NAN),
		    "patched_mean", report_jnum(row->test.present ?
		    row->test.mean : NAN)));
	}
	nc = report_curves(r, &c);
	for (i = 0; i < nc; i++) {
		pts = json_array();
		for (k = 0; k < c[i].n; k++)
			json_array_append_new(pts, json_pack("{s:o,s:o,s:o}",
			    "tasks", report_jnum(c[i].x[k]),
			    "base", report_jnum(c[i].y[0][k]),
			    "patched", report_jnum(c[i].y[1][k])));
		o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "kind", "scaling",
		    "workload", c[i].workload, "params", c[i].rest,
		    "metric", c[i].metric, "unit", c[i].unit, "points", pts);
		json_array_append_new(charts, o);
	}
	report_curves_free(c, nc);
	return charts;
}

/* The lock-profile diff, at most top locks of top callers each. */
json_t *
report_profiles_json(const struct report *r, size_t top, size_t topc)
{
	json_t *a = json_array(), *locks, *callers;
	size_t i, k, c;

	for (i = 0; i < r->nprofiles; i++) {
		const struct report_profile *p = &r->profiles[i];

		locks = json_array();
		for (k = 0; k < p->nlocks && k < top; k++) {
			const struct report_lock *l = &p->locks[k];

			callers = json_array();
			for (c = 0; c < l->ncallers && c < topc; c++)
				json_array_append_new(callers, json_pack(
				    "{s:s,s:o,s:o}", "symbol",
				    l->callers[c].symbol, "base",
				    report_jnum(l->callers[c].share[0]),
				    "patched",
				    report_jnum(l->callers[c].share[1])));
			json_array_append_new(locks, json_pack("{s:s,s:s,s:o,"
			    "s:o,s:o}", "lock", l->lock, "symbol", l->symbol,
			    "base", report_jnum(l->share[0]),
			    "patched", report_jnum(l->share[1]),
			    "callers", callers));
		}
		json_array_append_new(a, json_pack("{s:s,s:i,s:i,s:o}",
		    "params", p->params, "base_profiles", p->nprofiles[0],
		    "patched_profiles", p->nprofiles[1], "locks", locks));
	}
	return a;
}

static json_t *
report_json_profiles(const struct report *r)
{
	return report_profiles_json(r, REPORT_TOP_LOCKS, REPORT_TOP_CALLERS);
}

/* One row of the lock table: the figures of stats_result_to_json's rows. */
static json_t *
report_json_wait_row(const struct stats_row *row)
{
	json_t *side[2];
	int s;

	if (!row)
		return json_null();
	for (s = 0; s < 2; s++) {
		const struct stats_side *d = s ? &row->test : &row->base;

		side[s] = d->present ? json_pack("{s:I,s:o,s:o}", "boots",
		    (json_int_t)d->nboots, "mean", report_jnum(d->mean),
		    "pct_stddev", report_jnum(d->pct_stddev)) : json_null();
	}
	return json_pack("{s:s,s:s,s:o,s:[o,o],s:o,s:b,s:s,s:o,s:o}",
	    "unit", row->unit ? row->unit : "", "verdict",
	    stats_verdict_name(row->verdict), "pct_change",
	    report_jnum(row->pct_change), "ci95", report_jnum(row->ci_lo),
	    report_jnum(row->ci_hi), "p_value", report_jnum(row->p_value),
	    "significant", row->significant, "reason", row->reason,
	    "base", side[0], "patched", side[1]);
}

static json_t *
report_json_contention(const struct report *r)
{
	json_t *a = json_array(), *o;
	size_t i;
	int m;

	for (i = 0; i < r->nlocks; i++) {
		o = json_pack("{s:s,s:s}", "run", r->locks[i].run, "lock",
		    r->locks[i].lock);
		for (m = 0; m < REPORT_WAIT_METRICS; m++)
			json_object_set_new(o, report_wait_metrics[m],
			    report_json_wait_row(r->locks[i].m[m]));
		json_array_append_new(a, o);
	}
	return a;
}

/* Rows as the page shows them: "not exercised" instead of the
   statistics' verdict (kept as stats_verdict), and the emulated mark. */
static void
report_json_rows_exercise(const struct report *r, json_t *rows)
{
	size_t i;

	for (i = 0; i < json_array_size(rows) && i < r->result.n; i++) {
		json_t *o = json_array_get(rows, i);
		const char *v = report_row_verdict(r, &r->result.rows[i]);

		json_object_set_new(o, "stats_verdict", json_string(
		    stats_verdict_name(r->result.rows[i].verdict)));
		if (!strcmp(v, "not exercised"))
			json_object_set_new(o, "verdict", json_string(v));
		json_object_set_new(o, "emulated", json_boolean(
		    r->ex.emulated));
	}
}

json_t *
report_json(const struct report *r)
{
	json_t *o = json_object(), *prog = json_object(), *jobs = json_array();
	json_t *failed = json_array(), *kernels = json_object(), *res;
	char v[256];
	size_t i;
	int s;

	report_verdict(r, v, sizeof(v));
	json_object_set_new(o, "series", json_integer(r->series_id));
	json_object_set_new(o, "comparison", r->comparison_id ?
	    json_integer(r->comparison_id) : json_null());
	json_object_set_new(o, "state", report_jstring(r->state ? r->state :
	    r->series_state));
	json_object_set_new(o, "series_state", report_jstring(
	    r->series_state));
	json_object_set_new(o, "live", json_boolean(report_is_live(r)));
	json_object_set_new(o, "rest", report_jstring(r->series_rest));
	json_object_set_new(o, "verdict", json_string(v));
	json_object_set_new(o, "error", report_jstring(r->error ? r->error :
	    r->series_error));
	json_object_set_new(o, "subject", report_jstring(r->subject));
	json_object_set_new(o, "version", r->version ?
	    json_integer(r->version) : json_null());
	json_object_set_new(o, "author", report_jstring(r->author));
	json_object_set_new(o, "source", report_jstring(r->source));
	json_object_set_new(o, "claims", report_claims_json(r));
	json_object_set_new(o, "base", json_pack("{s:o,s:o,s:o,s:o}",
	    "tree", report_jstring(r->tree),
	    "commit", report_jstring(r->base_commit),
	    "kind", report_jstring(r->base_kind),
	    "reason", report_jstring(r->base_reason)));
	for (s = 0; s < 2; s++) {
		const struct report_kernel *k = &r->kernel[s];

		json_object_set_new(kernels, report_side_name(s), json_pack(
		    "{s:o,s:o,s:o,s:o,s:o}", "commit",
		    report_jstring(k->commit), "build", k->build_id ?
		    json_integer(k->build_id) : json_null(), "build_state",
		    report_jstring(k->build_state), "build_progress",
		    k->build_progress >= 0 ? json_integer(k->build_progress) :
		    json_null(), "build_error", report_jstring(k->build_error)));
		json_object_set_new(prog, report_side_name(s), json_pack(
		    "{s:i,s:i,s:i,s:i}", "planned", r->side[s].planned,
		    "done", r->side[s].done, "failed", r->side[s].failed,
		    "running", r->side[s].running));
	}
	json_object_set_new(prog, "agent", report_jstring(r->agent));
	json_object_set_new(prog, "looks", json_integer(r->looks));
	json_object_set_new(o, "kernels", kernels);
	json_object_set_new(o, "progress", prog);
	json_object_set_new(o, "machine", json_pack("{s:o,s:o}", "class",
	    report_jstring(r->hw_class), "topology",
	    report_jstring(r->topology)));
	json_object_set_new(o, "matrix", report_jstring(r->matrix));
	for (i = 0; i < r->njobs; i++) {
		const struct report_job *j = &r->jobs[i];
		json_t *jo = json_pack("{s:I,s:s,s:i,s:o,s:o,s:o,s:o}",
		    "id", (json_int_t)j->id, "side", report_side_name(j->side),
		    "boot", j->boot, "state", report_jstring(j->state),
		    "reason", report_jstring(j->reason),
		    "agent", report_jstring(j->agent),
		    "console", report_jstring(j->console));

		if (j->state && (!strcmp(j->state, "boot-failed") ||
		    !strcmp(j->state, "failed")))
			json_array_append_new(failed, json_incref(jo));
		json_array_append_new(jobs, jo);
	}
	json_object_set_new(o, "jobs", jobs);
	json_object_set_new(o, "failed_boots", failed);
	if (r->computing)
		json_object_set_new(o, "computing", json_true());
	if (r->stale)
		json_object_set_new(o, "stale", json_true());
	if (r->have_result) {
		res = stats_result_to_json(&r->result);
		json_object_set_new(o, "options", json_incref(
		    json_object_get(res, "options")));
		json_object_set_new(o, "counts", json_incref(
		    json_object_get(res, "counts")));
		json_object_set_new(o, "rows", json_incref(
		    json_object_get(res, "rows")));
		report_json_rows_exercise(r, json_object_get(o, "rows"));
		json_decref(res);
	} else {
		json_object_set_new(o, "rows", json_array());
	}
	report_exercise_json(r, o);
	json_object_set_new(o, "charts", report_json_charts(r));
	json_object_set_new(o, "lock_contention", report_json_contention(r));
	json_object_set_new(o, "lock_visibility", json_pack("{s:i,s:i,s:b,"
	    "s:o}", "cpus", r->cpus, "cpus_per_node", r->cpus_per_node,
	    "locks_can_show", report_lock_blind(r) == NULL, "note",
	    report_jstring(report_lock_blind(r))));
	json_object_set_new(o, "lock_profiles", report_json_profiles(r));
	return o;
}
