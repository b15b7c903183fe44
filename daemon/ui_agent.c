/*
 * ui_agent: the agents page (the pool, what each machine is and does) and
 * the job pages (state, attempts, samples, lock profiles, console links).
 * Every value from the store goes out through html_txt/html_attr.
 *
 *   GET /agents      the pool and the newest jobs
 *   GET /jobs/{id}   one job
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/app.h"
#include "daemon/config.h"
#include "daemon/db_agent.h"
#include "daemon/html.h"
#include "daemon/http.h"
#include "daemon/routes.h"

static const char *
s(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static void
td(struct buf *b, const char *text)
{
	buf_addstr(b, "<td>");
	html_txt(b, text);
	buf_addstr(b, "</td>");
}

static void
td_int(struct buf *b, const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (json_is_integer(v))
		buf_addf(b, "<td class=\"num\">%lld</td>",
		    (long long)json_integer_value(v));
	else
		buf_addstr(b, "<td></td>");
}

static void
td_time(struct buf *b, const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	char t[32] = "";

	if (json_is_integer(v)) {
		time_t tt = (time_t)json_integer_value(v);
		struct tm tm;

		gmtime_r(&tt, &tm);
		strftime(t, sizeof(t), "%Y-%m-%d %H:%M:%S", &tm);
	}
	td(b, t);
}

static void
state(struct buf *b, const char *st)
{
	buf_addstr(b, "<td><span class=\"state state-");
	html_attr(b, st);
	buf_addstr(b, "\">");
	html_txt(b, st);
	buf_addstr(b, "</span></td>");
}

static void
job_link(struct buf *b, const json_t *v)
{
	if (json_is_integer(v))
		buf_addf(b, "<td><a href=\"/jobs/%lld\">%lld</a></td>",
		    (long long)json_integer_value(v),
		    (long long)json_integer_value(v));
	else
		buf_addstr(b, "<td></td>");
}

static int
ui_agents(struct http_req *req, struct http_resp *resp)
{
	struct buf b = BUF_INIT(0);
	json_t *agents = NULL, *jobs = NULL;
	size_t i;

	db_agent_list_at(req->db, (long long)time(NULL),
	    app.settings.agents.lease, &agents);
	db_job_list(req->db, 50, &jobs);
	html_page_begin(&b, "Agents", "agents", 10);
	buf_addstr(&b, "<h1>Agents</h1>\n");
	if (json_array_size(agents) == 0)
		buf_addstr(&b, "<p>No agent has registered yet.</p>\n");
	else {
		buf_addstr(&b, "<table class=\"agents\"><thead><tr><th>name</th>"
		    "<th>class</th><th>backend</th><th>sockets</th>"
		    "<th>nodes</th><th>CPUs</th><th>CPU model</th>"
		    "<th>memory (MiB)</th><th>kernel</th><th>last seen (UTC)"
		    "</th><th>state</th><th>job</th></tr></thead><tbody>\n");
		for (i = 0; i < json_array_size(agents); i++) {
			json_t *a = json_array_get(agents, i);

			buf_addstr(&b, "<tr>");
			td(&b, s(a, "name"));
			td(&b, s(a, "class"));
			td(&b, s(a, "backend"));
			td_int(&b, a, "sockets");
			td_int(&b, a, "nodes");
			td_int(&b, a, "cpus");
			td(&b, s(a, "cpu_model"));
			td_int(&b, a, "memory_mb");
			td(&b, s(a, "kernel_release"));
			td_time(&b, a, "last_seen");
			state(&b, s(a, "state"));
			job_link(&b, json_object_get(a, "job"));
			buf_addstr(&b, "</tr>\n");
		}
		buf_addstr(&b, "</tbody></table>\n");
	}
	buf_addstr(&b, "<h2>Jobs</h2>\n");
	if (json_array_size(jobs) == 0)
		buf_addstr(&b, "<p>No jobs.</p>\n");
	else {
		buf_addstr(&b, "<table class=\"jobs\"><thead><tr><th>job</th>"
		    "<th>kernel</th><th>state</th><th>attempts</th>"
		    "<th>agent</th><th>progress</th><th>updated (UTC)</th>"
		    "</tr></thead><tbody>\n");
		for (i = 0; i < json_array_size(jobs); i++) {
			json_t *j = json_array_get(jobs, i);
			char k[32];

			buf_addstr(&b, "<tr>");
			job_link(&b, json_object_get(j, "id"));
			snprintf(k, sizeof(k), "%.12s", s(j, "kernel_sha256"));
			td(&b, k);
			state(&b, s(j, "state"));
			td_int(&b, j, "attempts");
			td(&b, s(j, "agent"));
			td(&b, s(j, "progress"));
			td_time(&b, j, "updated");
			buf_addstr(&b, "</tr>\n");
		}
		buf_addstr(&b, "</tbody></table>\n");
	}
	html_page_end(&b);
	html_reply(resp, 200, &b);
	json_decref(agents);
	json_decref(jobs);
	buf_release(&b);
	return 0;
}

static void
topo_text(struct buf *b, const json_t *t)
{
	const json_t *nc = json_object_get(t, "node_cpus");

	if (!json_is_object(t))
		return;
	html_txtf(b, "%lld sockets, %lld nodes, %lld CPUs",
	    (long long)json_integer_value(json_object_get(t, "sockets")),
	    (long long)json_integer_value(json_object_get(t, "nodes")),
	    (long long)json_integer_value(json_object_get(t, "cpus")));
	for (size_t i = 0; i < json_array_size(nc); i++)
		html_txtf(b, "%snode %zu: %s", i ? ", " : " (", i,
		    json_string_value(json_array_get(nc, i)));
	if (json_array_size(nc))
		buf_addstr(b, ")");
}

/* The machine's power cycles under this job (daemon/power.c). */
static void
power_cycles(struct buf *b, const json_t *pc)
{
	if (json_array_size(pc) == 0)
		return;
	buf_addstr(b, "<h2>Power cycles</h2>\n<table><thead><tr><th>attempt"
	    "</th><th>agent</th><th>at (UTC)</th><th>command</th><th>status"
	    "</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < json_array_size(pc); i++) {
		json_t *c = json_array_get(pc, i);

		buf_addstr(b, "<tr>");
		td_int(b, c, "attempt");
		td(b, s(c, "agent"));
		td_time(b, c, "at");
		buf_addstr(b, "<td><code>");
		html_txt(b, s(c, "command"));
		buf_addstr(b, "</code></td>");
		td(b, s(c, "status"));
		buf_addstr(b, "</tr>\n");
	}
	buf_addstr(b, "</tbody></table>\n");
}

static int
ui_job(struct http_req *req, struct http_resp *resp)
{
	struct buf b = BUF_INIT(0);
	json_t *j = NULL, *samples = NULL, *profiles = NULL, *att;
	long long id;
	size_t i;
	int rc;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	if ((rc = db_job_get(req->db, id, &j)) != 0) {
		html_error_page(resp, rc == 1 ? 404 : 500, "no such job");
		return 0;
	}
	db_job_results(req->db, id, &samples, &profiles);
	html_page_begin(&b, "Job", "agents", strcmp(s(j, "state"), "queued") == 0
	    || strcmp(s(j, "state"), "leased") == 0 ? 10 : 0);
	buf_addf(&b, "<h1>Job %lld</h1>\n<dl>", id);
	buf_addstr(&b, "<dt>state</dt><dd>");
	html_txt(&b, s(j, "state"));
	if (*s(j, "reason")) {
		buf_addstr(&b, ": ");
		html_txt(&b, s(j, "reason"));
	}
	buf_addstr(&b, "</dd><dt>kernel</dt><dd>");
	html_txtf(&b, "%lld (sha256 %s)", (long long)json_integer_value(
	    json_object_get(j, "kernel")), s(j, "kernel_sha256"));
	if (*s(j, "cmdline")) {
		buf_addstr(&b, "</dd><dt>extra kernel parameters</dt><dd>");
		html_txt(&b, s(j, "cmdline"));
	}
	if (*s(j, "agent")) {
		buf_addstr(&b, "</dd><dt>agent</dt><dd>");
		html_txt(&b, s(j, "agent"));
		buf_addstr(&b, " — ");
		html_txt(&b, s(j, "progress"));
	}
	buf_addstr(&b, "</dd></dl>\n<h2>Attempts</h2>\n<table><thead><tr>"
	    "<th>attempt</th><th>agent</th><th>started (UTC)</th>"
	    "<th>status</th><th>reason</th><th>boot (s)</th>"
	    "<th>topology seen</th><th>samples</th><th>console</th>"
	    "</tr></thead><tbody>\n");
	att = json_object_get(j, "attempts_detail");
	for (i = 0; i < json_array_size(att); i++) {
		json_t *a = json_array_get(att, i);
		long long n = json_integer_value(json_object_get(a, "attempt"));

		buf_addstr(&b, "<tr>");
		td_int(&b, a, "attempt");
		td(&b, s(a, "agent"));
		td_time(&b, a, "started");
		state(&b, *s(a, "status") ? s(a, "status") : "running");
		td(&b, s(a, "reason"));
		if (json_is_number(json_object_get(a, "boot_seconds")))
			buf_addf(&b, "<td class=\"num\">%.1f</td>",
			    json_number_value(json_object_get(a,
			    "boot_seconds")));
		else
			buf_addstr(&b, "<td></td>");
		buf_addstr(&b, "<td>");
		topo_text(&b, json_object_get(a, "topology"));
		buf_addstr(&b, "</td>");
		td_int(&b, a, "samples");
		if (json_is_true(json_object_get(a, "console")))
			buf_addf(&b, "<td><a href=\"/api/v1/jobs/%lld/console?"
			    "attempt=%lld\">console log</a></td>", id, n);
		else
			buf_addstr(&b, "<td></td>");
		buf_addstr(&b, "</tr>\n");
	}
	buf_addstr(&b, "</tbody></table>\n");
	power_cycles(&b, json_object_get(j, "power_cycles"));
	buf_addf(&b, "<h2>Samples</h2>\n<p><a href=\"/api/v1/jobs/%lld\">as "
	    "JSON</a></p>\n", id);
	if (json_array_size(samples)) {
		buf_addstr(&b, "<table class=\"samples\"><thead><tr>"
		    "<th>workload</th><th>parameters</th><th>iteration</th>"
		    "<th>metric</th><th>value</th><th>unit</th><th>better</th>"
		    "</tr></thead><tbody>\n");
		for (i = 0; i < json_array_size(samples); i++) {
			json_t *x = json_array_get(samples, i);

			buf_addstr(&b, "<tr>");
			td(&b, s(x, "workload"));
			td(&b, s(x, "params"));
			td_int(&b, x, "iteration");
			td(&b, s(x, "metric"));
			buf_addf(&b, "<td class=\"num\">%.6g</td>",
			    json_number_value(json_object_get(x, "value")));
			td(&b, s(x, "unit"));
			td(&b, s(x, "better"));
			buf_addstr(&b, "</tr>\n");
		}
		buf_addstr(&b, "</tbody></table>\n");
	}
	if (json_array_size(profiles)) {
		buf_addstr(&b, "<h2>Lock profiles</h2>\n");
		for (i = 0; i < json_array_size(profiles); i++) {
			char *text = json_dumps(json_array_get(profiles, i),
			    JSON_INDENT(1));

			buf_addstr(&b, "<pre>");
			html_txt(&b, text ? text : "");
			buf_addstr(&b, "</pre>\n");
			free(text);
		}
	}
	html_page_end(&b);
	html_reply(resp, 200, &b);
	json_decref(j);
	json_decref(samples);
	json_decref(profiles);
	buf_release(&b);
	return 0;
}

const struct route ui_agent_routes[] = {
	{ "GET", "/agents", ui_agents, ROUTE_HTML, 0 },
	{ "GET", "/jobs/{id}", ui_job, ROUTE_HTML, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
