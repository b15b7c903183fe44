/*
 * fuzz-auth: what a client controls in the request guard (daemon/auth.c):
 * the Host and Origin headers, the Content-Type, the Authorization header
 * and the form's csrf and token fields, on every kind of route (API, form,
 * admin, agent, binary), from loopback and from elsewhere, and the
 * priority strings of a submission.
 *
 * Input: "FLAGS\nHOST\nORIGIN\nCTYPE\nAUTHORIZATION\nBODY..." where the
 * first byte of FLAGS picks the route flags and the peer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/app.h"
#include "daemon/auth.h"
#include "daemon/config.h"
#include "daemon/http.h"
#include "lib/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
h_none(struct http_req *req, struct http_resp *resp)
{
	return 0;
}

/* Next line of the input (malloc'd), NULL when there is none. */
static char *
line(const char **p, const char *end)
{
	const char *nl = memchr(*p, '\n', end - *p);
	char *s;

	if (!nl)
		return NULL;
	s = xstrndup(*p, nl - *p);
	*p = nl + 1;
	return s;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int configured;
	const char *p = (const char *)data, *end = p + size;
	char *f = NULL, *host = NULL, *origin = NULL, *ctype = NULL,
	    *authz = NULL;
	struct route rt = { "POST", "/x", h_none, 0, 0 };
	struct auth_who who;
	struct http_req req;
	struct http_resp resp;
	struct buf err = BUF_INIT(0);
	int prio;

	if (!configured) {
		config_init(&app.cfg);
		config_parse(&app.cfg, "fuzz", "[auth]\nadmin_token_sha256 = "
		    "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae\n"
		    "host = ci.example.org\n[submitter \"a\"]\ntoken_sha256 = "
		    "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9\n",
		    &err);
		app_load_settings(&err);
		configured = 1;
	}
	if (!(f = line(&p, end)) || !(host = line(&p, end)) ||
	    !(origin = line(&p, end)) || !(ctype = line(&p, end)) ||
	    !(authz = line(&p, end)))
		goto out;
	rt.flags = (unsigned)(f[0] & 0x1f);
	http_req_init(&req, (f[0] & 0x40) ? "GET" : "POST", "/x", 4096);
	req.peer = (f[0] & 0x20) ? "127.0.0.1" : "192.0.2.1";
	if (*host)
		http_req_add_header(&req, "Host", host);
	if (*origin)
		http_req_add_header(&req, "Origin", origin);
	if (*ctype)
		http_req_add_header(&req, "Content-Type", ctype);
	if (*authz)
		http_req_add_header(&req, "Authorization", authz);
	(void)buf_add(&req.body, p, end - p);
	http_resp_init(&resp);
	(void)auth_guard(&req, &rt, &resp);
	http_resp_release(&resp);
	http_resp_init(&resp);
	if (auth_identify(&req, 1, &who, &resp) == 0) {
		(void)auth_priority_text(&who, host, &prio, &err);
		(void)auth_may_manage(&who, origin);
	}
	(void)auth_host_allowed(origin);
	(void)auth_csrf_valid(ctype);
	http_resp_release(&resp);
	http_req_release(&req);
out:
	free(f);
	free(host);
	free(origin);
	free(ctype);
	free(authz);
	buf_release(&err);
	return 0;
}
