/*
 * api_build: builds over the JSON API.
 *
 *	GET /api/v1/builds/{id}			the build (state, progress,
 *						sha256, error, log tail)
 *	GET /api/v1/builds/{id}/{artifact}	bzImage, System.map, config or
 *						build.log of a build
 *
 * Artifacts are served from the build's directory by fixed names only: the
 * path is never built from the request.  They are sent from an open file
 * descriptor (http_reply_file), never read into memory, so slow readers of
 * a 50 MB bzImage cost the daemon descriptors, not RAM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "daemon/db_build.h"
#include "daemon/http.h"
#include "daemon/routes.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

static json_t *
api_build_str(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *
api_build_json(const struct db_build *b)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(b->id));
	json_object_set_new(o, "key", api_build_str(b->key));
	json_object_set_new(o, "tree", api_build_str(b->tree));
	json_object_set_new(o, "commit", api_build_str(b->commit_id));
	json_object_set_new(o, "config", api_build_str(b->config));
	json_object_set_new(o, "base_build", b->base_build ?
	    json_integer(b->base_build) : json_null());
	json_object_set_new(o, "state", api_build_str(b->state));
	json_object_set_new(o, "progress", b->progress >= 0 ?
	    json_integer(b->progress) : json_null());
	json_object_set_new(o, "sha256", api_build_str(b->sha256));
	json_object_set_new(o, "error", api_build_str(b->error));
	json_object_set_new(o, "seconds", json_real(b->seconds));
	json_object_set_new(o, "compiled", json_integer(b->cc_lines));
	json_object_set_new(o, "url", json_sprintf("/builds/%lld",
	    (long long)b->id));
	return o;
}

static int
api_build_load(struct http_req *req, struct http_resp *resp,
    struct db_build *b)
{
	long long id;
	int r;

	if (http_param_id(req, resp, "id", &id) < 0)
		return -1;
	if (!req->db) {
		http_reply_error(resp, 503, "store not available");
		return -1;
	}
	r = db_build_get(req->db, id, b);
	if (r == 1) {
		http_reply_error(resp, 404, "no build %lld", id);
		return -1;
	}
	if (r < 0) {
		http_reply_error(resp, 500, "cannot read the store");
		return -1;
	}
	return 0;
}

static int
api_build_get(struct http_req *req, struct http_resp *resp)
{
	struct db_build b;
	json_t *o;

	if (api_build_load(req, resp, &b) < 0)
		return 0;
	o = api_build_json(&b);
	json_object_set_new(o, "log_tail", b.log_tail ?
	    json_string(b.log_tail) : json_null());
	db_build_release(&b);
	return http_reply_json(resp, 200, o);
}

static int
api_build_artifact(struct http_req *req, struct http_resp *resp)
{
	static const char *const names[][2] = {
		{ "bzImage", "application/octet-stream" },
		{ "System.map", "text/plain; charset=utf-8" },
		{ "config", "text/plain; charset=utf-8" },
		{ "build.log", "text/plain; charset=utf-8" },
	};
	const char *a = http_param(req, "artifact");
	struct db_build b;
	char *path;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (a && !strcmp(a, names[i][0]))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return http_reply_error(resp, 404, "no artifact \"%s\": one of "
		    "bzImage, System.map, config, build.log", a ? a : "");
	if (api_build_load(req, resp, &b) < 0)
		return 0;
	if (!b.dir || (strcmp(b.state, "done") && strcmp(a, "build.log"))) {
		http_reply_error(resp, 409, "build %lld is %s", (long long)b.id,
		    b.state);
		db_build_release(&b);
		return 0;
	}
	path = xasprintf("%s/%s", b.dir, names[i][0]);
	if (http_reply_file(resp, names[i][1], path) < 0)
		http_reply_error(resp, 404, "build %lld has no %s%s",
		    (long long)b.id, names[i][0], errno == ENOENT ? "" :
		    " (not a regular file)");
	free(path);
	db_build_release(&b);
	return 0;
}

const struct route api_build_routes[] = {
	{ "GET", "/api/v1/builds/{id}", api_build_get, 0, 0 },
	{ "GET", "/api/v1/builds/{id}/{artifact}", api_build_artifact, 0, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
