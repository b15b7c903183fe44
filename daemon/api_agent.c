/*
 * api_agent: the agent protocol's routes (lib/proto.h) and the job and
 * kernel API.
 *
 *   POST /api/v1/agents/register      agent token; proto_register_req
 *   POST /api/v1/agents/lease         agent token; 200 {"job":..} | 204
 *   POST /api/v1/jobs/{id}/heartbeat  agent token; 200 | 409 lease gone
 *   POST /api/v1/jobs/{id}/results    agent token; 200 | 409 duplicate
 *   POST /api/v1/jobs/{id}/release    agent token; 200 | 409 lease gone:
 *                                     the job given back unrun, offered
 *                                     again at once
 *   GET  /api/v1/kernels/{id}/bzImage any agent's token
 *   GET  /api/v1/agents               the pool
 *   POST /api/v1/kernels              admin; a bzImage body
 *                                     (application/octet-stream)
 *                                     -> 201 {"id","sha256"}
 *   POST /api/v1/jobs                 admin; {"kernel", "matrix"?,
 *                                      "cmdline"?, "priority"? (-1000..1000)}
 *                                      -> 201 {"id"}
 *   GET  /api/v1/jobs                 newest first
 *   GET  /api/v1/jobs/{id}            the job, attempts, samples, profiles
 *   GET  /api/v1/jobs/{id}/console?attempt=N   the console log
 *
 * Everything an agent sends is checked against lib/proto.h before use; a
 * bad message gets 400 naming the field and changes nothing.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/agent.h"
#include "daemon/app.h"
#include "daemon/auth.h"
#include "daemon/config.h"
#include "daemon/db_agent.h"
#include "daemon/http.h"
#include "daemon/power.h"
#include "daemon/routes.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"

#define KERNEL_UPLOAD_MAX	(64u << 20)
/* The largest attempt number lib/proto.c lets an agent send. */
#define JOB_MAX_ATTEMPT		(1 << 20)

static long long
now(void)
{
	return (long long)time(NULL);
}

static int
lease_seconds(void)
{
	return app.settings.agents.lease;
}

/* Parses and checks an agent's body; NULL with 400 in resp. */
static json_t *
agent_body(struct http_req *req, struct http_resp *resp,
    int (*check)(const json_t *, struct buf *))
{
	struct buf err = BUF_INIT(1024);
	json_t *o = http_json_body(req, resp);

	if (o == NULL)
		return NULL;
	if (check(o, &err) == -1) {
		http_reply_error(resp, 400, "%s", err.data);
		json_decref(o);
		o = NULL;
	}
	buf_release(&err);
	return o;
}

static int
check_lease(const json_t *o, struct buf *err)
{
	if (proto_check(o, proto_lease_req, NULL, err) == -1)
		return -1;
	if (!proto_valid_name(json_string_value(json_object_get(o,
	    PROTO_AGENT)))) {
		buf_addstr(err, "agent: must be 1-64 of [A-Za-z0-9._-]");
		return -1;
	}
	return 0;
}

static const char *
body_agent(const json_t *o)
{
	return json_string_value(json_object_get(o, PROTO_AGENT));
}

static int
api_register(struct http_req *req, struct http_resp *resp)
{
	json_t *o = agent_body(req, resp, proto_check_register);
	const json_t *t;
	char *class;

	if (o == NULL)
		return 0;
	if (agent_authorize(req, body_agent(o), resp) == -1)
		goto out;
	t = json_object_get(o, PROTO_TOPOLOGY);
	class = agent_class(t);
	if (db_agent_register(req->db, body_agent(o), class,
	    json_string_value(json_object_get(o, PROTO_BACKEND)),
	    json_string_value(json_object_get(o, PROTO_KERNEL_RELEASE)), t,
	    now()) == -1)
		http_reply_error(resp, 500, "agent could not be stored");
	else {
		if (power_agent_registered(req->db, body_agent(o)) == -1)
			log_warnx("agent %s: power margin not written",
			    body_agent(o));
		log_info("agent %s registered, class %s", body_agent(o), class);
		http_reply_json(resp, 200, json_pack("{s:s,s:s}", PROTO_AGENT,
		    body_agent(o), PROTO_CLASS, class));
	}
	free(class);
out:
	json_decref(o);
	return 0;
}

static int
api_lease(struct http_req *req, struct http_resp *resp)
{
	json_t *o = agent_body(req, resp, check_lease), *job = NULL;
	char *class = NULL;
	int rc;

	if (o == NULL)
		return 0;
	if (agent_authorize(req, body_agent(o), resp) == -1)
		goto out;
	if ((rc = db_agent_touch(req->db, body_agent(o), now())) == 1) {
		http_reply_error(resp, 404, "agent: \"%s\" has not registered",
		    body_agent(o));
		goto out;
	}
	/* Jobs may be pinned to a class: the agent's, as registered. */
	if (db_agent_class(req->db, body_agent(o), &class) == -1) {
		http_reply_error(resp, 500, "lease failed");
		goto out;
	}
	rc = db_job_lease(req->db, body_agent(o), class, now(),
	    lease_seconds(), &job);
	if (rc == -1)
		http_reply_error(resp, 500, "lease failed");
	else if (rc == 1)
		resp->status = 204;
	else {
		log_info("job %lld attempt %lld leased to %s",
		    json_integer_value(json_object_get(job, PROTO_ID)),
		    json_integer_value(json_object_get(job, PROTO_ATTEMPT)),
		    body_agent(o));
		http_reply_json(resp, 200, json_pack("{s:o}", PROTO_JOB, job));
	}
out:
	free(class);
	json_decref(o);
	return 0;
}

static int
api_heartbeat(struct http_req *req, struct http_resp *resp)
{
	json_t *o;
	long long id;
	int rc;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	if ((o = agent_body(req, resp, proto_check_heartbeat)) == NULL)
		return 0;
	if (agent_authorize(req, body_agent(o), resp) == -1)
		goto out;
	db_agent_touch(req->db, body_agent(o), now());
	rc = db_job_heartbeat(req->db, id, (int)json_integer_value(
	    json_object_get(o, PROTO_ATTEMPT)), body_agent(o),
	    json_string_value(json_object_get(o, PROTO_PROGRESS)), now(),
	    lease_seconds());
	if (rc == -1)
		http_reply_error(resp, 500, "heartbeat failed");
	else if (rc == 1)
		http_reply_error(resp, 409, "attempt: agent \"%s\" does not "
		    "hold the lease of job %lld attempt %lld", body_agent(o),
		    id, json_integer_value(json_object_get(o, PROTO_ATTEMPT)));
	else
		http_reply_json(resp, 200, json_pack("{s:i}",
		    PROTO_LEASE_SECONDS, lease_seconds()));
out:
	json_decref(o);
	return 0;
}

/* An agent that could not run its job (its own failure or its lab's, not
   the kernel's) gives it back: the next lease gets it now rather than when
   this one would have expired. */
static int
api_release(struct http_req *req, struct http_resp *resp)
{
	json_t *o;
	long long id, attempt;
	int rc;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	if ((o = agent_body(req, resp, proto_check_release)) == NULL)
		return 0;
	if (agent_authorize(req, body_agent(o), resp) == -1)
		goto out;
	attempt = json_integer_value(json_object_get(o, PROTO_ATTEMPT));
	db_agent_touch(req->db, body_agent(o), now());
	rc = db_job_release(req->db, id, (int)attempt, body_agent(o),
	    json_string_value(json_object_get(o, PROTO_REASON)), now());
	if (rc == -1)
		http_reply_error(resp, 500, "release failed");
	else if (rc == 1)
		http_reply_error(resp, 409, "attempt: agent \"%s\" does not "
		    "hold the lease of job %lld attempt %lld", body_agent(o),
		    id, attempt);
	else {
		log_info("job %lld attempt %lld given back by %s: %s", id,
		    attempt, body_agent(o), json_string_value(
		    json_object_get(o, PROTO_REASON)));
		http_reply_json(resp, 200, json_pack("{s:I}", PROTO_ID,
		    (json_int_t)id));
	}
out:
	json_decref(o);
	return 0;
}

static int
api_results(struct http_req *req, struct http_resp *resp)
{
	json_t *o;
	const char *console;
	char *dir = NULL, *rel = NULL, *path = NULL, *tmp = NULL;
	long long id, attempt;
	int rc;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	if ((o = agent_body(req, resp, proto_check_upload)) == NULL)
		return 0;
	if (agent_authorize(req, body_agent(o), resp) == -1)
		goto out;
	attempt = json_integer_value(json_object_get(o, PROTO_ATTEMPT));
	console = json_string_value(json_object_get(o, PROTO_CONSOLE));
	if (console) {
		/* Written aside first: a refused upload must not replace the
		   log of the attempt that was stored. */
		dir = xasprintf("%s/console", app.data_dir);
		mkdir(dir, 0700);	/* agents' uploads: owner-only */
		rel = xasprintf("console/job-%lld-%lld.log", id, attempt);
		path = xasprintf("%s/%s", app.data_dir, rel);
		tmp = xasprintf("%s.new", path);
		if (buf_write_file(tmp, console, strlen(console)) == -1) {
			http_reply_error(resp, 500, "console log could not be "
			    "written");
			goto out;
		}
	}
	rc = db_job_store(req->db, id, o, rel, now(),
	    app.settings.sched.max_rows);
	switch (rc) {
	case DB_STORED:
		if (tmp && rename(tmp, path) == -1)
			log_warn("%s", path);
		log_info("job %lld attempt %lld: %s from %s (%zu samples)", id,
		    attempt, json_string_value(json_object_get(o, PROTO_STATUS)),
		    body_agent(o), json_array_size(json_object_get(o,
		    PROTO_SAMPLES)));
		http_reply_json(resp, 200, json_pack("{s:I,s:I,s:i}", "job",
		    id, "attempt", attempt, "samples",
		    (int)json_array_size(json_object_get(o, PROTO_SAMPLES))));
		break;
	case DB_LATE_CONSOLE:
		/* the machine was power-cycled under this attempt */
		if (tmp && rename(tmp, path) == -1)
			log_warn("%s", path);
		log_info("job %lld attempt %lld: console from %s after the "
		    "power cycle", id, attempt, body_agent(o));
		http_reply_json(resp, 200, json_pack("{s:I,s:I,s:i}", "job",
		    id, "attempt", attempt, "samples", 0));
		break;
	case DB_UNKNOWN_JOB:
		http_reply_error(resp, 404, "id: no job %lld", id);
		break;
	case DB_DUPLICATE:
		http_reply_error(resp, 409, "attempt: results of job %lld "
		    "attempt %lld are already stored", id, attempt);
		break;
	case DB_TOO_MANY_ROWS:
		http_reply_error(resp, 400, "samples: job %lld's comparison "
		    "would hold more than %d distinct rows (workload, params, "
		    "metric) with this upload ([sched] max_rows); nothing of "
		    "it was stored", id, app.settings.sched.max_rows);
		break;
	case DB_NOT_HOLDER:
		http_reply_error(resp, 409, "attempt: agent \"%s\" does not "
		    "hold the lease of job %lld attempt %lld (expired and "
		    "re-queued?)", body_agent(o), id, attempt);
		break;
	default:
		http_reply_error(resp, 500, "results could not be stored");
	}
	if (tmp && rc != DB_STORED && rc != DB_LATE_CONSOLE)
		unlink(tmp);
out:
	free(dir);
	free(rel);
	free(path);
	free(tmp);
	json_decref(o);
	return 0;
}

static int
api_kernel_get(struct http_req *req, struct http_resp *resp)
{
	char *sha = NULL, *rel = NULL, *path = NULL, real[PATH_MAX],
	    root[PATH_MAX];
	long long id, size;
	int rc;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	if (agent_authorize(req, NULL, resp) == -1)
		return 0;
	rc = db_kernel_get(req->db, id, &sha, &size, &rel);
	if (rc != 0) {
		http_reply_error(resp, rc == 1 ? 404 : 500, "id: no kernel %lld",
		    id);
		return 0;
	}
	/* The stored path is ours, but canonicalise anyway: whatever it
	   says, only a file inside the data directory is served. */
	path = xasprintf("%s/%s", app.data_dir, rel);
	if (realpath(app.data_dir, root) == NULL ||
	    realpath(path, real) == NULL ||
	    strncmp(real, root, strlen(root)) != 0 ||
	    real[strlen(root)] != '/') {
		http_reply_error(resp, 404, "kernel %lld: file missing", id);
		goto out;
	}
	/* sent from the descriptor, not read into memory */
	if (http_reply_file(resp, "application/octet-stream", real) < 0)
		http_reply_error(resp, 500, "kernel %lld: unreadable", id);
out:
	free(sha);
	free(rel);
	free(path);
	return 0;
}

static int
api_kernel_post(struct http_req *req, struct http_resp *resp)
{
	struct buf err = BUF_INIT(1024);
	char sha[65], *ksha = NULL, *rel = NULL;
	long long id, size;

	/* a spooled upload is streamed from its file, never mapped */
	if ((req->body_fd >= 0 ? agent_kernel_add_fd(req->db, req->body_fd,
	    req->body.len, http_query(req, "note"), &id, &err) :
	    agent_kernel_add(req->db, req->body.data, req->body.len,
	    http_query(req, "note"), &id, &err)) == -1) {
		http_reply_error(resp, 400, "%s", err.data);
		buf_release(&err);
		return 0;
	}
	/* the stored image's sha256 (the same bytes, hashed once) */
	if (db_kernel_get(req->db, id, &ksha, &size, &rel) == 0 && ksha &&
	    strlen(ksha) == 64)
		memcpy(sha, ksha, 65);
	else
		snprintf(sha, sizeof(sha), "%s", "");
	free(ksha);
	free(rel);
	buf_release(&err);
	return http_reply_json(resp, 201, json_pack("{s:I,s:s,s:I}", "id", id,
	    "sha256", sha, "size", (long long)req->body.len));
}

/* etc/workloads.conf next to the schema directory. */
static char *
default_matrix(void)
{
	struct buf b = BUF_INIT(PROTO_MAX_MATRIX);
	char *p = xasprintf("%s/../etc/workloads.conf", app.schema_dir), *s;

	if (buf_read_file(&b, p) == -1) {
		free(p);
		buf_release(&b);
		return NULL;
	}
	free(p);
	s = buf_detach(&b, NULL);
	return s;
}

static int
api_job_post(struct http_req *req, struct http_resp *resp)
{
	struct agent_job_spec s = { 0 };
	struct buf err = BUF_INIT(1024);
	json_t *o = http_json_body(req, resp);
	const char *matrix = NULL, *cmdline = NULL, *k;
	char *dflt = NULL;
	long long kernel, id;
	struct auth_who admin = { AUTH_ADMIN, "admin" };
	int prio = 0;
	json_t *v;

	if (o == NULL)
		return 0;
	json_object_foreach(o, k, v)
		if (strcmp(k, "kernel") && strcmp(k, "matrix") &&
		    strcmp(k, "cmdline") && strcmp(k, "priority")) {
			http_reply_error(resp, 400, "%.64s: unknown field", k);
			goto out;
		}
	if (http_json_int(o, "kernel", 1, &kernel, resp) < 0 ||
	    http_json_str(o, "matrix", 0, &matrix, resp) < 0 ||
	    http_json_str(o, "cmdline", 0, &cmdline, resp) < 0)
		goto out;
	/* Only the admin gets here (ROUTE_ADMIN): the admin's range. */
	if (auth_priority(&admin, json_object_get(o, "priority"), &prio,
	    &err) < 0) {
		http_reply_error(resp, 400, "%s", err.data);
		goto out;
	}
	if (matrix == NULL && (matrix = dflt = default_matrix()) == NULL) {
		http_reply_error(resp, 400, "matrix: missing, and no default "
		    "etc/workloads.conf");
		goto out;
	}
	s.kernel_id = kernel;
	s.matrix = matrix;
	s.cmdline = cmdline;
	s.priority = prio;
	if (agent_enqueue(req->db, &s, &id, &err) == -1) {
		http_reply_error(resp, strstr(err.data, "could not") ? 500 :
		    400, "%s", err.data);
		goto out;
	}
	http_reply_json(resp, 201, json_pack("{s:I,s:s}", "id", id, "state",
	    "queued"));
out:
	free(dflt);
	buf_release(&err);
	json_decref(o);
	return 0;
}

static int
api_agents(struct http_req *req, struct http_resp *resp)
{
	json_t *a;

	if (db_agent_list_at(req->db, now(), lease_seconds(), &a) == -1) {
		json_decref(a);
		return http_reply_error(resp, 500, "agents: store error");
	}
	return http_reply_json(resp, 200, json_pack("{s:o}", "agents", a));
}

static int
api_jobs(struct http_req *req, struct http_resp *resp)
{
	json_t *a;

	db_job_list(req->db, 200, &a);
	return http_reply_json(resp, 200, json_pack("{s:o}", "jobs", a));
}

static int
api_job_get(struct http_req *req, struct http_resp *resp)
{
	json_t *j, *s, *p;
	long long id;
	int rc;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	if ((rc = db_job_get(req->db, id, &j)) != 0)
		return http_reply_error(resp, rc == 1 ? 404 : 500,
		    "id: no job %lld", id);
	db_job_results(req->db, id, &s, &p);
	json_object_set_new(j, "samples", s);
	json_object_set_new(j, "profiles", p);
	return http_reply_json(resp, 200, j);
}

static int
api_job_console(struct http_req *req, struct http_resp *resp)
{
	struct buf b = BUF_INIT(PROTO_MAX_CONSOLE + 1);
	const char *a = http_query(req, "attempt");
	char *rel = NULL, *path;
	long long id;
	long attempt = 1;
	int rc;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	/* Bounded as the agent protocol bounds it, so it cannot wrap. */
	if (a && (!*a || strspn(a, "0123456789") != strlen(a) ||
	    strlen(a) > 7 || (attempt = strtol(a, NULL, 10)) < 1 ||
	    attempt > JOB_MAX_ATTEMPT))
		return http_reply_error(resp, 400, "attempt: must be an "
		    "integer between 1 and %d, not \"%.32s\"",
		    JOB_MAX_ATTEMPT, a);
	if ((rc = db_job_console(req->db, id, (int)attempt, &rel)) != 0)
		return http_reply_error(resp, rc == 1 ? 404 : 500, "no console "
		    "log for job %lld attempt %ld", id, attempt);
	path = xasprintf("%s/%s", app.data_dir, rel);
	if (buf_read_file(&b, path) == -1)
		http_reply_error(resp, 404, "console log of job %lld attempt "
		    "%ld is missing", id, attempt);
	else
		http_reply_text(resp, 200, "text/plain; charset=utf-8",
		    b.data ? b.data : "");
	free(rel);
	free(path);
	buf_release(&b);
	return 0;
}

const struct route api_agent_routes[] = {
	{ "POST", PROTO_PATH_REGISTER, api_register, ROUTE_AGENT, 0 },
	{ "POST", PROTO_PATH_LEASE, api_lease, ROUTE_AGENT, 0 },
	{ "POST", "/api/v1/jobs/{id}/heartbeat", api_heartbeat, ROUTE_AGENT,
	    0 },
	{ "POST", "/api/v1/jobs/{id}/results", api_results, ROUTE_AGENT,
	    PROTO_MAX_BODY },
	{ "POST", "/api/v1/jobs/{id}/release", api_release, ROUTE_AGENT, 0 },
	{ "GET", "/api/v1/kernels/{id}/bzImage", api_kernel_get, 0, 0 },
	{ "POST", "/api/v1/kernels", api_kernel_post,
	    ROUTE_ADMIN | ROUTE_BINARY | ROUTE_BODY_FD, KERNEL_UPLOAD_MAX },
	{ "GET", "/api/v1/agents", api_agents, 0, 0 },
	{ "POST", "/api/v1/jobs", api_job_post, ROUTE_ADMIN,
	    2 * PROTO_MAX_MATRIX },
	{ "GET", "/api/v1/jobs", api_jobs, 0, 0 },
	{ "GET", "/api/v1/jobs/{id}", api_job_get, 0, 0 },
	{ "GET", "/api/v1/jobs/{id}/console", api_job_console, 0, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
