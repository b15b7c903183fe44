/*
 * t-agent-auth: the daemon's agent authentication (daemon/agent.c): the
 * example token etc/agent.conf ships is refused in the configuration and
 * on the wire, and failed attempts from one address are throttled (429
 * with Retry-After) while other addresses and the right token elsewhere
 * still get through; wrong tokens for a configured agent's name count
 * against the name too, from however many addresses, while the address
 * that last authenticated as it still gets in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/agent.h"
#include "daemon/app.h"
#include "daemon/config.h"
#include "daemon/http.h"
#include "lib/buf.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

/* Authorizes as agent name with token from peer; the status (0: ok). */
static int
auth(const char *peer, const char *name, const char *token, char **body,
    char **retry)
{
	struct http_req r;
	struct http_resp resp;
	char *h = xasprintf("Bearer %s", token);
	int st;

	http_req_init(&r, "POST", "/api/v1/agents/register", 1 << 20);
	http_req_add_header(&r, "Authorization", h);
	r.peer = peer;
	http_resp_init(&resp);
	st = agent_authorize(&r, name, &resp) == 0 ? 0 : resp.status;
	if (body)
		*body = xstrdup(resp.body.data ? resp.body.data : "");
	if (retry) {
		*retry = NULL;
		for (size_t i = 0; i < resp.nheaders; i++)
			if (!strcmp(resp.headers[i].name, "Retry-After"))
				*retry = xstrdup(resp.headers[i].value);
	}
	http_resp_release(&resp);
	http_req_release(&r);
	free(h);
	return st;
}

static void
test_example_token(void)
{
	struct config c;
	struct buf err = BUF_INIT(0);
	char sha[65], *conf, *body;
	int st;

	sha256_hex(AGENT_EXAMPLE_TOKEN, strlen(AGENT_EXAMPLE_TOKEN), sha);
	conf = xasprintf("[agent \"lab1\"]\ntoken_sha256 = %s\n", sha);
	config_init(&c);
	st = config_parse(&c, "kperfcid.conf", conf, &err);
	ok(st == -1 && strstr(err.data, "change-me") && strstr(err.data,
	    "kperfcid.conf:2"), "a token_sha256 of \"change-me\" is a "
	    "config error naming file:line (%s)", err.data);
	config_release(&c);
	free(conf);
	buf_release(&err);

	/* Whatever the configuration holds, the token itself is refused. */
	is_int(auth("192.0.2.1", "lab0", AGENT_EXAMPLE_TOKEN, &body, NULL),
	    403, "the example token is refused on the wire");
	ok(strstr(body, "example token") && strstr(body, "etc/agent.conf"),
	    "the refusal says why (%s)", body);
	free(body);
}

static void
test_throttle(void)
{
	char *body, *retry;
	int i, st = 0;

	agent_auth_reset();
	is_int(auth("192.0.2.9", "lab0", "s3cret", NULL, NULL), 0,
	    "the right token passes");
	/* guesses that name no agent (the header check before the body):
	   the address's window only; test_name_throttle has the names' */
	for (i = 0; i < AGENT_AUTH_FAILS; i++)
		if ((st = auth("192.0.2.9", NULL, "guess", NULL, NULL)) != 403)
			break;
	is_int(i, AGENT_AUTH_FAILS, "%d wrong guesses get 403", i);
	st = auth("192.0.2.9", NULL, "guess", &body, &retry);
	is_int(st, 429, "the next guess gets 429");
	ok(strstr(body, "too many failed") && strstr(body, "192.0.2.9"),
	    "429 names the address (%s)", body);
	ok(retry && atoi(retry) > 0 && atoi(retry) <= AGENT_AUTH_WINDOW,
	    "with Retry-After (%s)", retry ? retry : "none");
	free(body);
	free(retry);
	is_int(auth("192.0.2.9", "lab0", "s3cret", NULL, NULL), 429,
	    "even the right token waits out the window from that address");
	is_int(auth("192.0.2.10", "lab0", "s3cret", NULL, NULL), 0,
	    "another address is not throttled");
	is_int(auth(NULL, "lab0", "s3cret", NULL, NULL), 0,
	    "nor an in-process call");
	agent_auth_reset();
	is_int(auth("192.0.2.9", "lab0", "s3cret", NULL, NULL), 0,
	    "a new window lets the address in again");
	/* More addresses than the table holds: it stays bounded and works. */
	for (i = 0; i < AGENT_AUTH_PEERS + 50; i++) {
		char peer[32];

		snprintf(peer, sizeof(peer), "198.51.%d.%d", i / 250, i % 250);
		auth(peer, NULL, "guess", NULL, NULL);
	}
	is_int(auth("192.0.2.10", "lab0", "s3cret", NULL, NULL), 0,
	    "after a spray of addresses the right token still passes");
}

static void
test_name_throttle(void)
{
	char peer[32], *body;
	int i, st = 0;

	agent_auth_reset();
	is_int(auth("192.0.2.20", "lab0", "s3cret", NULL, NULL), 0,
	    "lab0 authenticates from its own address");
	/* one wrong guess from each of many addresses: no address window
	   fills, the name's does */
	for (i = 0; i < AGENT_AUTH_FAILS; i++) {
		snprintf(peer, sizeof(peer), "203.0.113.%d", i + 1);
		if ((st = auth(peer, "lab0", "guess", NULL, NULL)) != 403)
			break;
	}
	is_int(i, AGENT_AUTH_FAILS, "%d wrong tokens for lab0 from %d "
	    "addresses: 403", i, i);
	st = auth("203.0.113.200", "lab0", "guess", &body, NULL);
	is_int(st, 429, "the next one, from a fresh address, gets 429");
	ok(strstr(body, "as agent") && strstr(body, "lab0"),
	    "naming the agent (%s)", body);
	free(body);
	is_int(auth("203.0.113.201", "lab0", "s3cret", NULL, NULL), 429,
	    "even the right token waits from an address lab0 never used");
	is_int(auth("192.0.2.20", "lab0", "s3cret", NULL, NULL), 0,
	    "lab0 itself, from its address, is not locked out");
	is_int(auth("203.0.113.202", NULL, "s3cret", NULL, NULL), 0,
	    "a check that names no agent counts addresses only");
	agent_auth_reset();
	for (i = 0; i < 3 * AGENT_AUTH_FAILS; i++) {
		snprintf(peer, sizeof(peer), "198.18.0.%d", i + 1);
		auth(peer, "nosuch", "guess", NULL, NULL);
	}
	is_int(auth("198.18.1.1", "nosuch", "guess", NULL, NULL), 403,
	    "a made-up name gets no window (the table is not theirs)");
	agent_auth_reset();
}

int
main(void)
{
	struct buf err = BUF_INIT(0);
	char sha[65], *conf;

	sha256_hex("s3cret", 6, sha);
	conf = xasprintf("[agent \"lab0\"]\ntoken_sha256 = %s\n", sha);
	config_init(&app.cfg);
	ok(config_parse(&app.cfg, "test", conf, &err) == 0 &&
	    app_load_settings(&err) == 0, "config (%s)",
	    err.data ? err.data : "");
	test_example_token();
	test_throttle();
	test_name_throttle();
	settings_release(&app.settings);
	config_release(&app.cfg);
	free(conf);
	buf_release(&err);
	return tap_done();
}
