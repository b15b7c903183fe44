/*
 * fuzz-http: what a client controls in a request, through the code that
 * reads it: path matching against patterns with parameters, the form
 * decoder, JSON bodies and their typed fields, numeric ids, dispatch to a
 * table (404/405/413 paths).
 *
 * Input: "METHOD\nPATH\nBODY...".
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/http.h"
#include "lib/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
h_json(struct http_req *req, struct http_resp *resp)
{
	const char *s;
	long long n;
	json_t *j = http_json_body(req, resp);

	if (!j)
		return 0;
	if (http_json_str(j, "url", 1, &s, resp) == 0)
		(void)strlen(s);
	(void)http_json_int(j, "version", 0, &n, resp);
	json_decref(j);
	return http_reply_text(resp, 200, "text/plain", "ok");
}

static int
h_id(struct http_req *req, struct http_resp *resp)
{
	long long id;
	char *f;

	if (http_param_id(req, resp, "id", &id) < 0)
		return 0;
	f = http_form_field(req, "url");
	free(f);
	return http_reply_text(resp, 200, "text/plain", "ok");
}

static const struct route routes[] = {
	{ "POST", "/api/v1/series", h_json, 0, 0 },
	{ "GET", "/api/v1/series/{id}", h_id, 0, 0 },
	{ "POST", "/x/{a}/y/{rest*}", h_id, ROUTE_HTML, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
static const struct route *const tables[] = { routes, NULL };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *nl1, *nl2;
	char *method, *path;
	struct http_req req;
	struct http_resp resp;

	nl1 = memchr(p, '\n', size);
	if (!nl1)
		return 0;
	nl2 = memchr(nl1 + 1, '\n', size - (nl1 + 1 - p));
	if (!nl2)
		return 0;
	method = xstrndup(p, nl1 - p);
	path = xstrndup(nl1 + 1, nl2 - nl1 - 1);
	http_req_init(&req, method, path, 4096);
	(void)buf_add(&req.body, nl2 + 1, size - (nl2 + 1 - p));
	http_resp_init(&resp);
	http_route_dispatch(tables, &req, &resp);
	http_resp_release(&resp);
	http_req_release(&req);
	free(method);
	free(path);
	return 0;
}
