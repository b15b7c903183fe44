/*
 * Unit tests for daemon/auth.c and the routes it guards, called without a
 * server through the daemon's real route tables on a real store: Host
 * (DNS rebinding), Origin, content types, CSRF tokens, submitter and
 * admin tokens from loopback and elsewhere, priority ranges, unknown
 * fields, ?limit, console attempts, cancel and re-run with ownership.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/agent.h"
#include "daemon/config.h"
#include "daemon/app.h"
#include "daemon/auth.h"
#include "daemon/db.h"
#include "daemon/db_agent.h"
#include "daemon/http.h"
#include "daemon/sched.h"
#include "lib/buf.h"
#include "lib/run.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-auth.XXXXXX";

#define ADMIN	"admin-secret-token"
#define ALICE	"alice-token-0123"
#define BOB	"bob-token-4567"
#define URLJ	"{\"url\": \"http://127.0.0.1:9/linux-mm/a@b/\""

/* One request: peer, extra headers as "Name: value" strings (NULL ends). */
static int
req(const char *peer, const char *method, const char *path,
    const char *ctype, const char *body, const char *const *hdrs,
    char **out)
{
	struct http_req r;
	struct http_resp resp;
	const char *q;
	char *h, *colon;
	int st;

	http_req_init(&r, method, path, 1 << 20);
	if ((q = strchr(path, '?'))) {
		char *k = xstrdup(q + 1), *v = strchr(k, '=');

		r.path[q - path] = '\0';
		if (v)
			*v++ = '\0';
		http_req_add_query(&r, k, v ? v : "");
		free(k);
	}
	if (ctype)
		http_req_add_header(&r, "Content-Type", ctype);
	for (; hdrs && *hdrs; hdrs++) {
		h = xstrdup(*hdrs);
		colon = strchr(h, ':');
		*colon = '\0';
		http_req_add_header(&r, h, colon + 2);
		free(h);
	}
	if (body)
		buf_add(&r.body, body, strlen(body));
	r.db = app_db();
	r.peer = peer;
	http_resp_init(&resp);
	http_route_dispatch(NULL, &r, &resp);
	st = resp.status;
	if (out)
		*out = xstrdup(resp.body.data ? resp.body.data : "");
	http_resp_release(&resp);
	http_req_release(&r);
	return st;
}

static int
post(const char *peer, const char *path, const char *body,
    const char *const *hdrs, char **out)
{
	return req(peer, "POST", path, "application/json", body, hdrs, out);
}

static long long
id_of(const char *body)
{
	json_t *j = json_loads(body, 0, NULL);
	long long id = json_integer_value(json_object_get(j, "id"));

	json_decref(j);
	return id;
}

static void
config_with(const char *extra)
{
	struct buf err = BUF_INIT(0);
	char *conf = xasprintf("[daemon]\ndata = %s\n[lore]\n"
	    "allow = http://127.0.0.1:9/\n%s", dir, extra);

	config_release(&app.cfg);
	config_init(&app.cfg);
	if (config_parse(&app.cfg, "test", conf, &err) < 0 ||
	    app_load_settings(&err) < 0)
		printf("# config: %s\n", err.data);
	free(conf);
	buf_release(&err);
}

static void
test_host_origin(void)
{
	const char *evil[] = { "Host: attacker.example:8080", NULL };
	const char *named[] = { "Host: ci.example.org", NULL };
	const char *ip[] = { "Host: 192.0.2.7:8080", NULL };
	const char *v6[] = { "Host: [::1]:8080", NULL };
	const char *lh[] = { "Host: localhost:8080", NULL };
	const char *xorigin[] = { "Host: 127.0.0.1:8080",
	    "Origin: http://attacker.example", NULL };
	const char *porigin[] = { "Host: 127.0.0.1:8080",
	    "Origin: http://127.0.0.1:3000", NULL };
	const char *norigin[] = { "Host: 127.0.0.1:8080", "Origin: null", NULL };
	const char *sorigin[] = { "Host: 127.0.0.1:8080",
	    "Origin: http://127.0.0.1:8080", NULL };
	char *b = NULL;

	is_int(req("127.0.0.1", "GET", "/", NULL, NULL, evil, &b), 403,
	    "DNS rebinding: a Host of attacker.example is refused");
	ok(strstr(b, "attacker.example") != NULL, "the page names the Host");
	free(b);
	is_int(post("127.0.0.1", "/api/v1/series", URLJ "}", evil, NULL),
	    403, "... on POST too");
	is_int(req("127.0.0.1", "GET", "/healthz", NULL, NULL, named, NULL),
	    200, "a configured [auth] host is served");
	is_int(req("127.0.0.1", "GET", "/healthz", NULL, NULL, ip, NULL),
	    200, "an address literal is served");
	is_int(req("127.0.0.1", "GET", "/healthz", NULL, NULL, v6, NULL),
	    200, "an IPv6 literal is served");
	is_int(req("127.0.0.1", "GET", "/healthz", NULL, NULL, lh, NULL),
	    200, "localhost is served");
	ok(!auth_host_allowed("evil.localhost.attacker.example") &&
	    !auth_host_allowed("1.2.3.4.attacker.example") &&
	    !auth_host_allowed("::1") && !auth_host_allowed("a b"),
	    "look-alike names are refused");
	is_int(post("127.0.0.1", "/api/v1/series", URLJ "}", xorigin, &b),
	    403, "a cross-site Origin is refused");
	ok(strstr(b, "cross-site") != NULL, "and says why: %s", b);
	free(b);
	is_int(post("127.0.0.1", "/api/v1/series", URLJ "}", porigin, NULL),
	    403, "another port on the same host is another site");
	is_int(post("127.0.0.1", "/api/v1/series", URLJ "}", norigin, NULL),
	    403, "Origin: null is refused");
	is_int(post("127.0.0.1", "/api/v1/series", URLJ "}", sorigin, NULL),
	    202, "our own Origin is accepted");
}

static void
test_content_type(void)
{
	char csrf[65], *form, *b = NULL;

	is_int(req("127.0.0.1", "POST", "/api/v1/series", "text/plain",
	    URLJ "}", NULL, &b), 415, "text/plain POST refused");
	ok(strstr(b, "application/json") != NULL, "names the types: %s", b);
	free(b);
	is_int(req("127.0.0.1", "POST", "/api/v1/series",
	    "application/x-www-form-urlencoded", URLJ "}", NULL, NULL), 415,
	    "a form-encoded API POST refused");
	is_int(req("127.0.0.1", "POST", "/api/v1/series", NULL, URLJ "}",
	    NULL, NULL), 415, "a POST without Content-Type refused");
	is_int(req("127.0.0.1", "POST", "/submit",
	    "application/x-www-form-urlencoded",
	    "url=http%3A%2F%2F127.0.0.1%3A9%2Fl%2Fa%40b%2F", NULL, NULL), 403,
	    "the web form without a CSRF token is refused");
	is_int(req("127.0.0.1", "POST", "/submit",
	    "application/x-www-form-urlencoded",
	    "url=http%3A%2F%2F127.0.0.1%3A9%2Fl%2Fa%40b%2F&csrf=00000000000000"
	    "000000000000000000000000000000000000000000000000000", NULL, NULL),
	    403, "... and with a forged one");
	auth_csrf_token(csrf);
	ok(auth_csrf_valid(csrf) && !auth_csrf_valid("") &&
	    !auth_csrf_valid(NULL), "a token we issued is valid, none else");
	form = xasprintf("url=http%%3A%%2F%%2F127.0.0.1%%3A9%%2Fl%%2Fa%%40b"
	    "%%2F&csrf=%s", csrf);
	is_int(req("127.0.0.1", "POST", "/submit", "text/plain", form, NULL,
	    NULL), 415, "the form as text/plain is refused");
	is_int(req("127.0.0.1", "POST", "/submit",
	    "application/x-www-form-urlencoded", form, NULL, NULL), 303,
	    "the form with its CSRF token is accepted");
	is_int(req("192.0.2.9", "POST", "/submit",
	    "application/x-www-form-urlencoded", form, NULL, NULL), 401,
	    "the form from another host needs a token");
	free(form);
	form = xasprintf("url=http%%3A%%2F%%2F127.0.0.1%%3A9%%2Fl%%2Fa%%40b"
	    "%%2F&csrf=%s&token=%s", csrf, ALICE);
	is_int(req("192.0.2.9", "POST", "/submit",
	    "application/x-www-form-urlencoded", form, NULL, NULL), 303,
	    "... and takes a submitter's token from the form");
	free(form);
}

static void
test_roles(void)
{
	const char *alice[] = { "Authorization: Bearer " ALICE, NULL };
	const char *wrong[] = { "Authorization: Bearer nope", NULL };
	const char *admin[] = { "Authorization: Bearer " ADMIN, NULL };
	const char *proxied[] = { "X-Forwarded-For: 198.51.100.1", NULL };
	char *b = NULL;

	is_int(post("192.0.2.9", "/api/v1/series", URLJ "}", NULL, &b), 401,
	    "a submission from another host needs a token");
	ok(strstr(b, "submitter token") != NULL, "says so: %s", b);
	free(b);
	is_int(post("192.0.2.9", "/api/v1/series", URLJ "}", wrong, NULL),
	    403, "a wrong token is refused");
	is_int(post("192.0.2.9", "/api/v1/series", URLJ "}", alice, &b), 202,
	    "a submitter's token is accepted");
	ok(strstr(b, "queued") != NULL, "queued");
	free(b);
	is_int(post("127.0.0.1", "/api/v1/series", URLJ "}", proxied, NULL),
	    401, "loopback through a proxy (X-Forwarded-For) is not trusted");
	is_int(post("127.0.0.1", "/api/v1/jobs", "{\"kernel\": 999}", NULL,
	    &b), 403, "jobs from loopback need the configured admin token");
	ok(strstr(b, "admin token") != NULL, "says so: %s", b);
	free(b);
	is_int(post("192.0.2.9", "/api/v1/jobs", "{\"kernel\": 999}", alice,
	    NULL), 403, "a submitter may not create jobs");
	is_int(req("192.0.2.9", "POST", "/api/v1/kernels",
	    "application/octet-stream", "x", alice, NULL), 403,
	    "a submitter may not upload kernels");
	is_int(post("192.0.2.9", "/api/v1/jobs", "{\"kernel\": 999}", admin,
	    &b), 400, "the admin token reaches the jobs handler");
	ok(strstr(b, "kernel") != NULL, "which judges the body: %s", b);
	free(b);
	is_int(req("192.0.2.9", "POST", "/api/v1/kernels",
	    "application/octet-stream", "x", admin, NULL), 400,
	    "and the kernels handler (not a bzImage)");
	is_int(req("192.0.2.9", "POST", "/api/v1/kernels",
	    "application/x-www-form-urlencoded", "x", admin, NULL), 415,
	    "kernels take application/octet-stream, not a form");
	is_int(post("192.0.2.9", "/api/v1/jobs", "{\"kernel\": 1, "
	    "\"priority\": 1099511627776}", admin, &b), 400,
	    "a job priority of 2^40 is a 400, not 0");
	ok(strstr(b, "priority") != NULL, "names priority: %s", b);
	free(b);
	/* agent routes check agent tokens themselves */
	is_int(post("192.0.2.9", "/api/v1/agents/lease",
	    "{\"agent\": \"x\"}", NULL, NULL), 401,
	    "agent routes still need an agent token");
}

/* Wrong submitter or admin tokens are throttled per address. */
static void
test_throttle(void)
{
	const char *wrong[] = { "Authorization: Bearer guess", NULL };
	const char *alice[] = { "Authorization: Bearer " ALICE, NULL };
	int i, st = 0;

	agent_auth_reset();
	for (i = 0; i < AGENT_AUTH_FAILS; i++)
		st = post("198.51.100.4", "/api/v1/series", URLJ "}", wrong,
		    NULL);
	is_int(st, 403, "wrong tokens: 403 up to the limit");
	is_int(post("198.51.100.4", "/api/v1/series", URLJ "}", alice, NULL),
	    429, "then 429, even with a right token");
	is_int(post("198.51.100.5", "/api/v1/series", URLJ "}", alice, NULL),
	    202, "another address is not throttled");
	/* an IPv6 guesser cannot rotate through its /64 */
	agent_auth_reset();
	for (i = 0; i < AGENT_AUTH_FAILS; i++) {
		char a[48];

		snprintf(a, sizeof(a), "2001:db8:7:1::%x", i + 1);
		st = post(a, "/api/v1/series", URLJ "}", wrong, NULL);
	}
	is_int(st, 403, "wrong tokens from %d addresses of one /64: 403",
	    AGENT_AUTH_FAILS);
	is_int(post("2001:db8:7:1::ffff", "/api/v1/series", URLJ "}", alice,
	    NULL), 429, "then the whole /64 gets 429");
	is_int(post("2001:db8:7:2::1", "/api/v1/series", URLJ "}", alice,
	    NULL), 202, "another /64 is not throttled");
	agent_auth_reset();
}

/* Behind an [auth] proxy the client is the last X-Forwarded-For hop. */
static void
test_proxy(const char *extra)
{
	const char *wrong[] = { "Authorization: Bearer guess",
	    "X-Forwarded-For: 203.0.113.7", NULL };
	const char *bob_7[] = { "Authorization: Bearer " BOB,
	    "X-Forwarded-For: 203.0.113.7", NULL };
	const char *bob_8[] = { "Authorization: Bearer " BOB,
	    "X-Forwarded-For: 203.0.113.8", NULL };
	const char *forged[] = { "Authorization: Bearer " BOB,
	    "X-Forwarded-For: 203.0.113.8, 203.0.113.7", NULL };
	const char *bob[] = { "Authorization: Bearer " BOB, NULL };
	char *conf = xasprintf("%s[auth]\nproxy = 192.0.2.50\n"
	    "proxy = 2001:db8::50\n", extra), client[64], *out;
	struct http_req r;
	struct buf err = BUF_INIT(0);
	int i, st = 0;

	config_with(conf);
	agent_auth_reset();
	for (i = 0; i < AGENT_AUTH_FAILS; i++)
		st = post("192.0.2.50", "/api/v1/series", URLJ "}", wrong,
		    NULL);
	is_int(st, 403, "via the proxy, wrong tokens from one client: 403");
	is_int(post("192.0.2.50", "/api/v1/series", URLJ "}", bob_7, &out),
	    429, "then that client gets 429");
	ok(strstr(out, "203.0.113.7") != NULL, "naming the client, not the "
	    "proxy (%s)", out);
	free(out);
	is_int(post("192.0.2.50", "/api/v1/series", URLJ "}", bob_8, NULL),
	    202, "another client behind the same proxy is not locked out");
	is_int(post("192.0.2.50", "/api/v1/series", URLJ "}", forged, NULL),
	    429, "the last hop counts, not what the client wrote before it");
	is_int(post("198.51.100.60", "/api/v1/series", URLJ "}", wrong,
	    NULL), 403, "X-Forwarded-For from a non-proxy is not believed");
	is_int(post("192.0.2.51", "/api/v1/series", URLJ "}", bob, NULL),
	    202, "and the proxy's own address was never throttled");
	{
		const char *hop[] = { "Authorization: Bearer " BOB,
		    "X-Forwarded-For: unknown", NULL };

		is_int(post("192.0.2.50", "/api/v1/series", URLJ "}", hop,
		    &out), 400, "a POST through the proxy whose last hop is "
		    "not an address: 400");
		ok(strstr(out, "X-Forwarded-For") != NULL, "naming the header "
		    "(%s)", out);
		free(out);
	}

	http_req_init(&r, "GET", "/", 1 << 10);
	r.peer = "::ffff:192.0.2.50";
	http_req_add_header(&r, "X-Forwarded-For", " 2001:db8::9 ");
	is_str(auth_client(&r, client, sizeof(client)), "2001:db8::9",
	    "a v4-mapped proxy peer, an IPv6 hop, trimmed");
	r.peer = "2001:db8::50";
	http_req_add_header(&r, "X-Forwarded-For", "unknown");
	is_str(auth_client(&r, client, sizeof(client)), AUTH_CLIENT_UNPARSED,
	    "the last header's hop is not an address: a bucket of its own, "
	    "never the proxy's (one guesser would lock out everyone behind "
	    "it)");
	http_req_release(&r);
	http_req_init(&r, "GET", "/", 1 << 10);
	r.peer = "192.0.2.50";
	http_req_add_header(&r, "X-Forwarded-For", "203.0.113.9:4444");
	is_str(auth_client(&r, client, sizeof(client)), "203.0.113.9",
	    "a hop with a port: the address");
	http_req_release(&r);
	http_req_init(&r, "GET", "/", 1 << 10);
	r.peer = "192.0.2.50";
	http_req_add_header(&r, "X-Forwarded-For", "[2001:db8::1]:443");
	is_str(auth_client(&r, client, sizeof(client)), "2001:db8::1",
	    "a bracketed IPv6 hop with a port: the address");
	r.peer = "192.0.2.77";
	is_str(auth_client(&r, client, sizeof(client)), "192.0.2.77",
	    "another peer is itself");
	r.peer = NULL;
	is_str(auth_client(&r, client, sizeof(client)), "",
	    "in-process: no client");
	{
		struct auth_who anon = { AUTH_ANON, "anonymous" };
		char k1[64];

		http_req_release(&r);
		http_req_init(&r, "GET", "/", 1 << 10);
		r.peer = "2001:db8:1:2::a";
		snprintf(k1, sizeof(k1), "%s", auth_limits_key(&r, &anon));
		r.peer = "2001:db8:1:2:ffff:1:2:3";
		is_str(auth_limits_key(&r, &anon), k1, "two addresses of one "
		    "IPv6 /64 are one bucket for the limits");
		is_str(k1, "2001:db8:1:2::/64", "named by the /64");
		r.peer = "2001:db8:1:3::a";
		ok(strcmp(auth_limits_key(&r, &anon), k1) != 0,
		    "another /64 is another bucket");
		r.peer = "192.0.2.77";
		is_str(auth_limits_key(&r, &anon), "192.0.2.77",
		    "an IPv4 address stays itself");
		r.peer = "::ffff:192.0.2.77";
		is_str(auth_limits_key(&r, &anon), "192.0.2.77",
		    "an IPv4 client of a dual-stack listener is its IPv4 "
		    "address");
		is_str(auth_client(&r, client, sizeof(client)), "192.0.2.77",
		    "as the client it is");
		r.peer = "::ffff:1:2";
		is_str(auth_client(&r, client, sizeof(client)), "::ffff:1:2",
		    "an IPv6 address that only starts so stays itself");
	}
	http_req_release(&r);
	{
		struct config pc;

		config_init(&pc);
		is_int(config_parse(&pc, "proxy.conf",
		    "[auth]\nproxy = proxy.example.org\n", &err), -1,
		    "[auth] proxy must be an address");
		config_release(&pc);
	}
	ok(strstr(err.data, "proxy.example.org") != NULL, "saying so (%s)",
	    err.data);
	buf_release(&err);
	agent_auth_reset();
	free(conf);
}

static void
test_no_admin_configured(void)
{
	is_int(post("127.0.0.1", "/api/v1/jobs", "{\"kernel\": 999}", NULL,
	    NULL), 400, "without an admin token loopback is the admin");
	is_int(post("192.0.2.9", "/api/v1/jobs", "{\"kernel\": 999}", NULL,
	    NULL), 401, "... and nobody else");
}

static void
test_fields(void)
{
	const char *alice[] = { "Authorization: Bearer " ALICE, NULL };
	const char *admin[] = { "Authorization: Bearer " ADMIN, NULL };
	char *b = NULL;

	is_int(post("192.0.2.9", "/api/v1/series", URLJ ", \"prio\": 3}",
	    alice, &b), 400, "an unknown field is refused");
	ok(strstr(b, "unknown field \\\"prio\\\"") != NULL, "and named: %s",
	    b);
	free(b);
	is_int(post("192.0.2.9", "/api/v1/series", URLJ ", \"priority\": 5}",
	    alice, &b), 400, "a submitter may not go ahead of interactive");
	ok(strstr(b, "-100 and 0") != NULL, "the range is named: %s", b);
	free(b);
	is_int(post("192.0.2.9", "/api/v1/series", URLJ ", \"priority\": "
	    "1099511627776}", alice, NULL), 400, "priority 2^40 is a 400");
	is_int(post("192.0.2.9", "/api/v1/series", URLJ ", \"priority\": "
	    "-4294967296}", admin, NULL), 400, "... for the admin too");
	is_int(post("192.0.2.9", "/api/v1/series", URLJ ", \"priority\": "
	    "-50}", alice, NULL), 202, "a lower priority is the submitter's");
	is_int(post("192.0.2.9", "/api/v1/series", URLJ ", \"priority\": "
	    "500}", admin, NULL), 202, "the admin may go first");
	is_int(req("127.0.0.1", "POST", "/api/v1/series?priority=1",
	    "application/mbox", "From x\n", NULL, NULL), 400,
	    "?priority=1 on an upload from local is refused");
	is_int(req("127.0.0.1", "GET", "/api/v1/series?limit=1x", NULL, NULL,
	    NULL, &b), 400, "?limit=1x is refused");
	ok(strstr(b, "1x") != NULL, "and named: %s", b);
	free(b);
	is_int(req("127.0.0.1", "GET", "/api/v1/series?limit=5", NULL, NULL,
	    NULL, NULL), 200, "?limit=5 is fine");
	{
		struct config c;
		struct buf e = BUF_INIT(0);

		config_init(&c);
		ok(config_parse(&c, "t", "[agents]\nmax_attempts = "
		    "4294967297\n", &e) < 0 && strstr(e.data, "1..100"),
		    "[agents] max_attempts 2^32+1 is a config error, not 1");
		config_release(&c);
		buf_release(&e);
	}
	is_int(req("127.0.0.1", "GET", "/api/v1/jobs/1/console?attempt="
	    "4294967297", NULL, NULL, NULL, &b), 400,
	    "a console attempt of 2^32+1 is refused, not wrapped to 1");
	free(b);
}

/* A comparison with two queued jobs for series sid. */
static void
make_jobs(long long sid, long long *cid, long long *jobs)
{
	struct buf err = BUF_INIT(0);
	struct db_sched_new n = { 0 };
	struct agent_job_spec s = { 0 };
	char bz[4096] = { 0 };
	long long kid;

	memcpy(bz + 0x202, "HdrS", 4);
	snprintf(bz + 0x300, 32, "k%lld", sid);
	if (agent_kernel_add(app_db(), bz, sizeof(bz), "t", &kid, &err) < 0)
		printf("# kernel: %s\n", err.data);
	n.series_id = sid;
	n.base_kernel = n.patched_kernel = kid;
	n.matrix = "[run \"n\"]\nworkload = null\n";
	n.boots = n.boot_step = n.max_boots = n.looks = 1;
	db_sched_insert(app_db(), &n, time(NULL), cid);
	s.kernel_id = kid;
	s.matrix = n.matrix;
	s.comparison_id = *cid;
	s.side = "base";
	agent_enqueue(app_db(), &s, &jobs[0], &err);
	s.side = "patched";
	agent_enqueue(app_db(), &s, &jobs[1], &err);
	buf_release(&err);
}

static void
test_cancel_rerun(void)
{
	const char *alice[] = { "Authorization: Bearer " ALICE, NULL };
	const char *bob[] = { "Authorization: Bearer " BOB, NULL };
	const char *admin[] = { "Authorization: Bearer " ADMIN, NULL };
	char path[96], *b = NULL, *state = NULL, *reason = NULL;
	long long sid, cid, jobs[2], nid;
	json_t *job = NULL, *topo;

	post("192.0.2.9", "/api/v1/series", URLJ ", \"boots\": 2}", alice, &b);
	sid = id_of(b);
	free(b);
	make_jobs(sid, &cid, jobs);
	snprintf(path, sizeof(path), "/api/v1/series/%lld/cancel", sid);
	is_int(post("192.0.2.9", path, "", bob, &b), 403,
	    "another submitter may not cancel alice's series");
	ok(strstr(b, "alice") != NULL, "names the owner: %s", b);
	free(b);
	is_int(post("192.0.2.9", path, "", NULL, NULL), 401,
	    "nobody may cancel without a token");
	is_int(post("192.0.2.9", path, "{\"why\": 1}", alice, NULL), 400,
	    "cancel takes no fields");
	is_int(post("192.0.2.9", path, "{}", alice, &b), 200,
	    "alice cancels her series");
	free(b);
	snprintf(path, sizeof(path), "/api/v1/series/%lld", sid);
	req("127.0.0.1", "GET", path, NULL, NULL, NULL, &b);
	ok(strstr(b, "\"state\": \"cancelled\"") &&
	    strstr(b, "cancelled by alice") && strstr(b, "\"owner\": "
	    "\"alice\""), "the series says cancelled by alice");
	free(b);
	agent_job_state(app_db(), jobs[0], &state, &reason);
	is_str(state, "cancelled", "its jobs are cancelled");
	free(state);
	free(reason);
	topo = json_pack("{s:i,s:i,s:i,s:s,s:i}", "sockets", 1, "nodes", 1,
	    "cpus", 1, "cpu_model", "x", "memory_mb", 64);
	db_agent_register(app_db(), "a1", "c", "qemu", "6.12", topo,
	    time(NULL));
	json_decref(topo);
	is_int(db_job_lease(app_db(), "a1", NULL, time(NULL), 60, &job), 1,
	    "no agent is handed a cancelled job");
	json_decref(job);
	{
		/* the scheduler, mid-stage when the cancel came: a job it
		   adds now and a finish it stores change nothing */
		struct agent_job_spec s = { 0 };
		struct sched_comparison c;
		struct buf e = BUF_INIT(0);
		long long late;

		s.kernel_id = 1;
		s.matrix = "[run \"n\"]\nworkload = null\n";
		s.comparison_id = cid;
		s.side = "base";
		agent_enqueue(app_db(), &s, &late, &e);
		agent_job_state(app_db(), late, &state, &reason);
		is_str(state, "cancelled", "a job added to a cancelled "
		    "comparison is cancelled at once");
		free(state);
		free(reason);
		db_sched_finish(app_db(), cid, "done", "x", NULL, time(NULL));
		memset(&c, 0, sizeof(c));
		db_sched_get(app_db(), 0, cid, &c);
		is_str(c.state, "cancelled", "and a late finish leaves the "
		    "comparison cancelled");
		sched_comparison_release(&c);
		buf_release(&e);
	}
	snprintf(path, sizeof(path), "/api/v1/series/%lld/cancel", sid);
	is_int(post("192.0.2.9", path, "", admin, &b), 409,
	    "cancelling twice is a 409");
	free(b);
	snprintf(path, sizeof(path), "/api/v1/series/%lld/rerun", sid);
	is_int(post("192.0.2.9", path, "", bob, NULL), 403,
	    "bob may not re-run it");
	is_int(post("192.0.2.9", path, "", admin, &b), 202,
	    "the admin re-runs it");
	nid = id_of(b);
	free(b);
	ok(nid > sid, "as a new series (%lld)", nid);
	snprintf(path, sizeof(path), "/api/v1/series/%lld", nid);
	req("127.0.0.1", "GET", path, NULL, NULL, NULL, &b);
	ok(strstr(b, "\"state\": \"queued\"") && strstr(b, "a@b") &&
	    strstr(b, "\"owner\": \"admin\""), "queued, same URL, owned by "
	    "the admin");
	free(b);
	snprintf(path, sizeof(path), "/api/v1/series/%lld/cancel", nid);
	is_int(post("127.0.0.1", path, "", NULL, NULL), 403,
	    "local may not cancel the admin's series");
	snprintf(path, sizeof(path), "/series/%lld", nid);
	req("127.0.0.1", "GET", path, NULL, NULL, NULL, &b);
	ok(strstr(b, "action=\"/series/") && strstr(b, "/cancel\"") &&
	    strstr(b, "name=\"csrf\""), "the page has a cancel button with "
	    "the CSRF token");
	free(b);
}

int
main(void)
{
	struct buf err = BUF_INIT(0);
	const char *rm[] = { "rm", "-rf", dir, NULL };
	struct run rr = { .argv = rm, .timeout_sec = 30 };
	char ha[65], hal[65], hb[65], *extra;

	if (!mkdtemp(dir))
		return 1;
	sha256_hex(ADMIN, strlen(ADMIN), ha);
	sha256_hex(ALICE, strlen(ALICE), hal);
	sha256_hex(BOB, strlen(BOB), hb);
	extra = xasprintf("[auth]\nadmin_token_sha256 = %s\n"
	    "host = ci.example.org\n[submitter \"alice\"]\ntoken_sha256 = %s\n"
	    "[submitter \"bob\"]\ntoken_sha256 = %s\n", ha, hal, hb);
	config_init(&app.cfg);
	config_with(extra);
	ok(app_setup(1, &err) == 0, "paths");
	ok(app_db() && db_migrate(app_db(), app.schema_dir) == 0, "store");
	test_host_origin();
	test_content_type();
	test_roles();
	test_fields();
	test_cancel_rerun();
	test_throttle();
	test_proxy(extra);
	free(extra);
	extra = xasprintf("[submitter \"alice\"]\ntoken_sha256 = %s\n", hal);
	config_with(extra);
	test_no_admin_configured();
	app_db_close_thread();
	app_release();
	config_release(&app.cfg);
	free(extra);
	buf_release(&err);
	run_cmd(&rr);
	return tap_done();
}
