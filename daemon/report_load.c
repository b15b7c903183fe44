/*
 * report_load: the model filled from the store (report.h): the series,
 * its base choice and builds, the scheduler's comparison with its jobs,
 * the machine's topology, the changed code and the environment
 * (report_exercise_set), and the claims.  The statistics and the
 * lock-profile diff come through report_cache.c, which computes them at
 * most once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/db.h"
#include "daemon/db_agent.h"
#include "daemon/db_build.h"
#include "daemon/db_exercise.h"
#include "daemon/pipeline.h"
#include "daemon/report.h"
#include "daemon/report_int.h"
#include "daemon/sched.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

static char *
report_dup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void
report_load_build(struct db *db, int64_t id, struct report_kernel *k)
{
	struct db_build b;

	k->build_id = id;
	if (!id || db_build_get(db, id, &b) != 0)
		return;
	k->build_state = report_dup(b.state);
	k->build_progress = b.progress;
	k->build_error = report_dup(b.error);
	db_build_release(&b);
}

/* CPUs in a node_cpus entry ("0-3", "0,2-3", "5"), 0 when malformed. */
static int
report_cpulist_count(const char *s)
{
	long a, b;
	int n = 0;
	char *e;

	while (s && *s) {
		a = strtol(s, &e, 10);
		if (e == s || a < 0)
			return 0;
		b = a;
		if (*e == '-') {
			s = e + 1;
			b = strtol(s, &e, 10);
			if (e == s || b < a || b - a > 1 << 20)
				return 0;
		}
		n += (int)(b - a + 1);
		if (*e == ',')
			e++;
		else if (*e)
			return 0;
		s = e;
	}
	return n;
}

/* The fewest CPUs on one node of a registered agent: its node_cpus, else
   cpus / nodes; 0 when unknown. */
static int
report_cpus_per_node(const json_t *agent)
{
	const json_t *nc = json_object_get(json_object_get(agent, "topology"),
	    "node_cpus"), *v;
	long long cpus = json_integer_value(json_object_get(agent, "cpus"));
	long long nodes = json_integer_value(json_object_get(agent, "nodes"));
	int least = 0, k;
	size_t i;

	json_array_foreach(nc, i, v) {
		k = report_cpulist_count(json_string_value(v));
		if (k > 0 && (least == 0 || k < least))
			least = k;
	}
	if (least)
		return least;
	return nodes > 0 && cpus > 0 ? (int)(cpus / nodes) : 0;
}

/* One line about the machines of class: the first agent of that class;
   its CPUs and CPUs per node into r. */
static char *
report_topology(struct db *db, const char *class, struct report *r)
{
	json_t *agents = NULL, *a;
	char *out = NULL;
	size_t i;

	if (!class || db_agent_list(db, &agents) < 0)
		goto out;
	json_array_foreach(agents, i, a) {
		const char *c = report_jstr(a, "class");

		if (!c || strcmp(c, class))
			continue;
		r->cpus = (int)json_integer_value(json_object_get(a, "cpus"));
		r->cpus_per_node = report_cpus_per_node(a);
		out = xasprintf("%lld sockets, %lld NUMA nodes, %lld CPUs, "
		    "%lld MiB, %s (%s agent)",
		    (long long)json_integer_value(json_object_get(a,
		    "sockets")),
		    (long long)json_integer_value(json_object_get(a, "nodes")),
		    (long long)json_integer_value(json_object_get(a, "cpus")),
		    (long long)json_integer_value(json_object_get(a,
		    "memory_mb")), report_jstr(a, "cpu_model") ?
		    report_jstr(a, "cpu_model") : "unknown CPU",
		    report_jstr(a, "backend") ? report_jstr(a, "backend") :
		    "unknown");
		break;
	}
out:
	json_decref(agents);
	return out;
}

/* The scheduler's comparison of the series, its jobs and samples. */
static int
report_load_comparison(struct db *db, struct report *r, int with_result)
{
	struct sched_comparison c;
	struct buf ag = BUF_INIT(0);
	size_t i, n;
	int rc, s;

	if ((rc = sched_get(db, r->series_id, &c)) == 1)
		return 0;
	if (rc < 0)
		return -1;
	r->comparison_id = c.id;
	r->state = report_dup(c.state);
	if (c.state && !strcmp(c.state, "failed"))
		r->error = report_dup(c.summary);
	r->hw_class = report_dup(c.class);
	r->matrix = report_dup(c.matrix);
	r->looks = c.look;
	for (s = 0; s < 2; s++) {
		const struct sched_side *d = s ? &c.patched : &c.base;

		r->side[s].planned = d->planned;
		r->side[s].done = d->done;
		r->side[s].failed = d->boot_failed + d->lost;
		r->side[s].running = d->running;
	}
	for (i = 0; i < c.nagents; i++)
		buf_addf(&ag, "%s%s", i ? ", " : "", c.agents[i]);
	if (ag.len)
		r->agent = buf_detach(&ag, NULL);
	r->jobs = xcalloc(c.njobs ? c.njobs : 1, sizeof(*r->jobs));
	for (i = n = 0; i < c.njobs; i++) {
		const struct sched_job *j = &c.jobs[i];
		struct report_job *o = &r->jobs[n];

		/* a replaced job's boot is another job's now */
		if (j->replaced)
			continue;
		o->id = j->id;
		o->side = strcmp(j->side, "patched") ? REPORT_BASE :
		    REPORT_PATCHED;
		o->boot = j->boot;
		o->state = report_dup(j->state);
		o->reason = report_dup(j->reason);
		o->agent = report_dup(j->agent);
		if (j->progress && !strcmp(j->state, "leased"))
			o->progress = report_dup(j->progress);
		if (j->console)
			o->console = xasprintf("/api/v1/jobs/%lld/console"
			    "?attempt=%d", j->id, j->attempts);
		n++;
	}
	r->njobs = n;
	r->topology = report_topology(db, c.class, r);
	{
		json_t *chg = NULL, *att = NULL;

		if (db_exercise_get(db, c.id, &chg) == 0 &&
		    db_exercise_attempts(db, c.id, &att) == 0)
			report_exercise_set(r, chg, att);
		json_decref(chg);
		json_decref(att);
	}
	rc = with_result ? report_load_result(db, r, &c,
	    with_result == REPORT_NOWAIT) : 0;
	buf_release(&ag);
	sched_comparison_release(&c);
	return rc;
}

int
report_load(struct db *db, long long series_id, int with_result,
    struct report *r)
{
	struct db_series s;
	struct db_series_build sb;
	int rc;

	report_init(r);
	r->series_id = series_id;
	if ((rc = db_series_get(db, series_id, 0, &s)) != 0)
		return rc;
	r->series_state = report_dup(s.state);
	r->series_final = pipeline_series_rests(&s);
	r->series_rest = report_dup(s.rest);
	r->series_error = report_dup(s.error);
	r->subject = report_dup(s.title ? s.title : s.cover_subject);
	r->author = report_dup(s.author);
	if (s.source && strcmp(s.source, "upload"))
		r->source = xstrdup(s.source);
	r->version = s.version;
	db_series_release(&s);
	if (db_build_series_get(db, series_id, &sb) == 0) {
		r->tree = report_dup(sb.tree);
		r->base_commit = report_dup(sb.base_commit);
		r->base_kind = report_dup(sb.base_kind);
		r->base_reason = report_dup(sb.base_reason);
		r->kernel[REPORT_BASE].commit = report_dup(sb.base_commit);
		r->kernel[REPORT_PATCHED].commit =
		    report_dup(sb.patched_commit);
		report_load_build(db, sb.base_build, &r->kernel[REPORT_BASE]);
		report_load_build(db, sb.patched_build,
		    &r->kernel[REPORT_PATCHED]);
		db_series_build_release(&sb);
	}
	if (with_result)
		report_claims_load(db, r);
	return report_load_comparison(db, r, with_result);
}
