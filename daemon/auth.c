/*
 * auth: roles from tokens and peers, the request guard, CSRF tokens and
 * priority ranges (see auth.h).  Tokens are never stored: the
 * configuration holds their sha256, compared without an early exit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "daemon/agent.h"
#include "daemon/app.h"
#include "daemon/auth.h"
#include "daemon/config.h"
#include "daemon/html.h"
#include "daemon/http.h"
#include "lib/log.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"

/* A CSRF token is good for the hour it was issued in and the next. */
#define AUTH_CSRF_WINDOW	3600

/* ---- roles ----------------------------------------------------------- */

/* Compares two 64-digit hex strings without an early exit. */
static int
auth_same_hex(const char *a, const char *b)
{
	unsigned char d = 0;
	size_t i;

	if (!a || !b || strlen(a) != 64 || strlen(b) != 64)
		return 0;
	for (i = 0; i < 64; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

static int
auth_peer_is_loopback(const char *peer)
{
	if (!peer)
		return 0;
	return !strncmp(peer, "127.", 4) || !strcmp(peer, "::1") ||
	    !strncasecmp(peer, "::ffff:127.", 11);
}

int
auth_trusted_loopback(const struct http_req *r)
{
	if (!app.settings.auth.trust_loopback)
		return 0;
	if (!auth_peer_is_loopback(r->peer))
		return 0;
	/* A reverse proxy on this host: the client is elsewhere. */
	return !http_header(r, "X-Forwarded-For") &&
	    !http_header(r, "Forwarded") && !http_header(r, "X-Real-IP");
}

/* The bearer token of the request, or NULL; *owned to free. */
static const char *
auth_bearer(const struct http_req *r, int form, char **owned)
{
	const char *h = http_header(r, "Authorization");

	*owned = NULL;
	if (h && !strncasecmp(h, "Bearer ", 7)) {
		h += 7;
		while (*h == ' ')
			h++;
		return *h ? h : NULL;
	}
	if (form && http_content_type_is(r,
	    "application/x-www-form-urlencoded")) {
		*owned = http_form_field(r, "token");
		if (*owned && **owned)
			return *owned;
	}
	return NULL;
}

static void
auth_set(struct auth_who *who, enum auth_role role, const char *name)
{
	who->role = role;
	snprintf(who->name, sizeof(who->name), "%s", name);
}

int
auth_identify(const struct http_req *r, int form, struct auth_who *who,
    struct http_resp *resp)
{
	const char *admin = app.settings.auth.admin_token_sha256;
	const char *tok, *sub, *want, *cl;
	char *owned, got[65], client[INET6_ADDRSTRLEN];
	size_t i;
	long wait;
	int rc = 0;

	auth_set(who, AUTH_ANON, "anonymous");
	cl = *auth_client_key(r, client, sizeof(client)) ? client : NULL;
	tok = auth_bearer(r, form, &owned);
	if (!tok) {
		if (auth_trusted_loopback(r))
			auth_set(who, admin ? AUTH_LOCAL : AUTH_ADMIN, "local");
		goto out;
	}
	if ((wait = agent_auth_blocked(cl)) > 0) {
		char ra[24];

		snprintf(ra, sizeof(ra), "%ld", wait);
		http_resp_header(resp, "Retry-After", ra);
		http_reply_error(resp, 429, "Authorization: too many failed "
		    "attempts from %s (%d in %d s); retry in %ld s", cl,
		    AGENT_AUTH_FAILS, AGENT_AUTH_WINDOW, wait);
		rc = -1;
		goto out;
	}
	sha256_hex(tok, strlen(tok), got);
	if (admin && auth_same_hex(got, admin)) {
		auth_set(who, AUTH_ADMIN, "admin");
		goto out;
	}
	for (i = 0; i < app.settings.auth.nsubmitters; i++) {
		sub = app.settings.auth.submitters[i].name;
		want = app.settings.auth.submitters[i].token_sha256;
		/* "local" and "admin" name roles, never a submitter */
		if (!strcmp(sub, "local") || !strcmp(sub, "admin"))
			continue;
		if (auth_same_hex(got, want)) {
			auth_set(who, AUTH_SUBMITTER, sub);
			goto out;
		}
	}
	agent_auth_failed(cl);
	http_reply_error(resp, 403, "Authorization: the token is neither the "
	    "admin token nor a configured submitter's");
	rc = -1;
out:
	free(owned);
	return rc;
}

const char *
auth_limits_key(const struct http_req *r, const struct auth_who *who)
{
	static __thread char client[INET6_ADDRSTRLEN];

	if (who->role == AUTH_ADMIN)
		return NULL;		/* the operator is not limited */
	if (who->role == AUTH_SUBMITTER)
		return who->name;
	if (!*auth_client_key(r, client, sizeof(client)))
		return NULL;
	return client;
}

int
auth_may_manage(const struct auth_who *who, const char *owner)
{
	if (who->role == AUTH_ADMIN)
		return 1;
	return who->role >= AUTH_LOCAL && owner && !strcmp(owner, who->name);
}

/* ---- priorities ------------------------------------------------------ */

static int
auth_prio_range(const struct auth_who *who, long long v, int *prio,
    struct buf *err)
{
	int admin = who->role == AUTH_ADMIN;
	long long lo = admin ? AUTH_PRIO_MIN : AUTH_PRIO_USER_MIN;
	long long hi = admin ? AUTH_PRIO_MAX : AUTH_PRIO_USER_MAX;

	if (v < lo || v > hi) {
		buf_addf(err, "field \"priority\" must be an integer between "
		    "%lld and %lld%s, not %lld", lo, hi, admin ? "" :
		    " (only the admin may go ahead of interactive work)", v);
		return -1;
	}
	*prio = (int)v;
	return 0;
}

int
auth_priority(const struct auth_who *who, const json_t *v, int *prio,
    struct buf *err)
{
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v)) {
		buf_addstr(err, "field \"priority\" must be an integer");
		return -1;
	}
	return auth_prio_range(who, json_integer_value(v), prio, err);
}

int
auth_priority_text(const struct auth_who *who, const char *s, int *prio,
    struct buf *err)
{
	const char *d;

	if (!s || !*s)
		return 0;
	d = *s == '-' ? s + 1 : s;
	if (!*d || strspn(d, "0123456789") != strlen(d) || strlen(d) > 9) {
		buf_addf(err, "field \"priority\" must be an integer, not "
		    "\"%.32s\"", s);
		return -1;
	}
	return auth_prio_range(who, strtoll(s, NULL, 10), prio, err);
}

/* ---- CSRF ------------------------------------------------------------ */

void
auth_hmac_sha256(const void *key, size_t klen, const void *msg, size_t mlen,
    unsigned char out[32])
{
	unsigned char k[64] = { 0 }, pad[64], inner[32];
	struct sha256 c;
	size_t i;

	if (klen > 64) {
		sha256_init(&c);
		sha256_update(&c, key, klen);
		sha256_final(&c, k);
	} else {
		memcpy(k, key, klen);
	}
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&c);
	sha256_update(&c, pad, 64);
	sha256_update(&c, msg, mlen);
	sha256_final(&c, inner);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&c);
	sha256_update(&c, pad, 64);
	sha256_update(&c, inner, 32);
	sha256_final(&c, out);
}

static unsigned char auth_secret[32];
static pthread_once_t auth_secret_once = PTHREAD_ONCE_INIT;

/* One secret per daemon process: a restart makes open forms stale. */
static void
auth_secret_init(void)
{
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(auth_secret)) {
		n = getrandom(auth_secret + got, sizeof(auth_secret) - got, 0);
		if (n < 0 && errno != EINTR)
			fatal("auth: getrandom");
		if (n > 0)
			got += n;
	}
}

static void
auth_csrf_at(long long window, char out[65])
{
	unsigned char mac[32];
	char msg[64];
	int i, n;

	pthread_once(&auth_secret_once, auth_secret_init);
	n = snprintf(msg, sizeof(msg), "kperfci-csrf %lld", window);
	auth_hmac_sha256(auth_secret, sizeof(auth_secret), msg, n, mac);
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", mac[i]);
}

void
auth_csrf_token(char out[65])
{
	auth_csrf_at((long long)time(NULL) / AUTH_CSRF_WINDOW, out);
}

int
auth_csrf_valid(const char *tok)
{
	long long w = (long long)time(NULL) / AUTH_CSRF_WINDOW;
	char want[65];

	if (!tok)
		return 0;
	auth_csrf_at(w, want);
	if (auth_same_hex(tok, want))
		return 1;
	auth_csrf_at(w - 1, want);
	return auth_same_hex(tok, want);
}

/* ---- Host and Origin ------------------------------------------------- */

/* The host part of a Host value (no port, no IPv6 brackets) in out. */
static int
auth_host_part(const char *host, char *out, size_t outlen)
{
	const char *end, *colon;
	size_t n;

	if (host[0] == '[') {
		if (!(end = strchr(host, ']')) || (end[1] && end[1] != ':'))
			return -1;
		host++;
	} else {
		colon = strchr(host, ':');
		if (colon && strchr(colon + 1, ':'))
			return -1;	/* an unbracketed IPv6 address */
		end = colon ? colon : host + strlen(host);
	}
	if (*end == ':' || (*end == ']' && end[1] == ':')) {
		const char *port = strchr(end, ':') + 1;

		if (!*port || strspn(port, "0123456789") != strlen(port))
			return -1;
	}
	n = end - host;
	if (n == 0 || n >= outlen)
		return -1;
	memcpy(out, host, n);
	out[n] = '\0';
	return 0;
}

int
auth_host_allowed(const char *host)
{
	unsigned char addr[16];
	char h[256];
	size_t i, n;

	if (!host || !*host)
		return 1;	/* HTTP/1.0 without Host: no browser */
	if (auth_host_part(host, h, sizeof(h)) < 0)
		return 0;
	/* An address literal cannot be rebound by someone's DNS. */
	if (inet_pton(AF_INET, h, addr) == 1 ||
	    inet_pton(AF_INET6, h, addr) == 1)
		return 1;
	n = strlen(h);
	if (!strcasecmp(h, "localhost") || (n > 10 &&
	    !strcasecmp(h + n - 10, ".localhost")))
		return 1;
	for (i = 0; i < app.settings.auth.nhosts; i++)
		if (!strcasecmp(h, app.settings.auth.hosts[i]))
			return 1;
	return 0;
}

/* 0 when Origin is absent or names the Host we were asked for. */
static int
auth_origin_ok(const struct http_req *r)
{
	const char *o = http_header(r, "Origin"), *host, *auth;

	if (!o)
		return 0;
	if (!(auth = strstr(o, "://")))
		return -1;	/* "null": a sandboxed or file: page */
	auth += 3;
	if (strchr(auth, '/'))
		return -1;
	host = http_header(r, "Host");
	if (host)
		return strcasecmp(auth, host) ? -1 : 0;
	return auth_host_allowed(auth) ? 0 : -1;
}

/* ---- the guard ------------------------------------------------------- */

static int
auth_fail(const struct route *rt, struct http_resp *resp, int status,
    const char *fmt, ...)
{
	struct buf msg = BUF_INIT(0);
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (rt->flags & ROUTE_HTML)
		html_error_page(resp, status, msg.data);
	else
		http_reply_error(resp, status, "%s", msg.data);
	buf_release(&msg);
	return -1;
}

/* Content type, or the CSRF token of a web form. */
static int
auth_body_kind(const struct http_req *r, const struct route *rt,
    struct http_resp *resp)
{
	const char *ct = http_header(r, "Content-Type");
	char *csrf;
	int ok;

	if (rt->flags & ROUTE_FORM) {
		if (!http_content_type_is(r,
		    "application/x-www-form-urlencoded"))
			return auth_fail(rt, resp, 415, "Content-Type: a form "
			    "post must be application/x-www-form-urlencoded");
		csrf = http_form_field(r, "csrf");
		ok = auth_csrf_valid(csrf);
		free(csrf);
		if (!ok)
			return auth_fail(rt, resp, 403, "the form's CSRF token "
			    "is missing or stale: reload the page and submit "
			    "again");
		return 0;
	}
	if (http_content_type_is(r, "application/json") ||
	    http_content_type_is(r, "application/mbox") ||
	    ((rt->flags & ROUTE_BINARY) &&
	    http_content_type_is(r, "application/octet-stream")))
		return 0;
	return auth_fail(rt, resp, 415, "Content-Type: a POST must be "
	    "application/json or application/mbox%s, not \"%.64s\"",
	    (rt->flags & ROUTE_BINARY) ? " (or application/octet-stream "
	    "here)" : "", ct ? ct : "");
}

int
auth_guard(struct http_req *r, const struct route *rt,
    struct http_resp *resp)
{
	const char *host = http_header(r, "Host");
	char client[INET6_ADDRSTRLEN];
	struct auth_who who;

	/* RFC 9112 3.2: a request with more than one Host is a 400; the
	   checks below and a proxy in front could read different ones */
	if (http_header_count(r, "Host") > 1)
		return auth_fail(rt, resp, 400, "Host: more than one Host "
		    "header");
	if (!auth_host_allowed(host)) {
		log_info("http: %s %s from %s: Host \"%.64s\" refused (not an "
		    "address, localhost or an [auth] host)", r->method,
		    r->path, r->peer ? r->peer : "?", host);
		return auth_fail(rt, resp, 403, "Host: \"%.64s\" is not a name "
		    "this server answers to (an address, localhost, or an "
		    "[auth] host line)", host);
	}
	if (!strcmp(r->method, "GET") || !strcmp(r->method, "HEAD"))
		return 0;
	if (!strcmp(auth_client(r, client, sizeof(client)),
	    AUTH_CLIENT_UNPARSED))
		return auth_fail(rt, resp, 400, "X-Forwarded-For: the last hop "
		    "the proxy added is not an address");
	if (auth_origin_ok(r) < 0)
		return auth_fail(rt, resp, 403, "Origin: \"%.64s\" is not this "
		    "server (%.64s): cross-site requests are refused",
		    http_header(r, "Origin"), host ? host : "no Host");
	if (auth_body_kind(r, rt, resp) < 0)
		return -1;
	if (rt->flags & ROUTE_AGENT)
		return 0;
	if (auth_identify(r, !!(rt->flags & ROUTE_FORM), &who, resp) < 0) {
		if ((rt->flags & ROUTE_HTML) && resp->status == 403)
			html_error_page(resp, 403, "the token is neither the "
			    "admin token nor a configured submitter's");
		return -1;
	}
	if (rt->flags & ROUTE_ADMIN) {
		if (who.role == AUTH_ADMIN)
			return 0;
		return auth_fail(rt, resp, who.role == AUTH_ANON ? 401 : 403,
		    "%s %s needs the admin token (Authorization: Bearer "
		    "...%s)", r->method, r->path,
		    app.settings.auth.admin_token_sha256 ?
		    "" : "; without [auth] admin_token_sha256 only this "
		    "host's loopback may");
	}
	if (who.role == AUTH_ANON)
		return auth_fail(rt, resp, 401, "Authorization: a submitter "
		    "token is required from %s (Authorization: Bearer ...)",
		    r->peer ? r->peer : "outside this host");
	return 0;
}

int
auth_preflight(struct http_req *r, const struct route *rt,
    struct http_resp *resp, char *key, size_t keysz)
{
	struct auth_who who;
	char tok[17];
	char *owned;
	const char *t;

	auth_client_principal(r, "anon", NULL, key, keysz);
	if (strcmp(r->method, "POST"))
		return HTTP_WHO_ANON;
	if (rt->flags & ROUTE_FORM) {
		/* the CSRF token and the form's own token are in the body:
		   the guard runs in full once it is read */
		if (!http_content_type_is(r,
		    "application/x-www-form-urlencoded"))
			return auth_fail(rt, resp, 415, "Content-Type: a form "
			    "post must be application/x-www-form-urlencoded");
		return HTTP_WHO_ANON;
	}
	if (auth_guard(r, rt, resp) < 0)
		return -1;
	if (!(rt->flags & ROUTE_AGENT)) {
		/* the guard identified it: its name is the principal */
		if (auth_identify(r, 0, &who, resp) == 0)
			auth_client_principal(r, "user", who.name, key, keysz);
		return HTTP_WHO_USER;
	}
	if (agent_authorize(r, NULL, resp) < 0)
		return -1;
	/* an agent is its token (the name is in the body) */
	t = auth_bearer(r, 0, &owned);
	if (t) {
		char sha[65];

		sha256_hex(t, strlen(t), sha);
		snprintf(tok, sizeof(tok), "%.16s", sha);
		auth_client_principal(r, "agent", tok, key, keysz);
	}
	free(owned);
	return HTTP_WHO_AGENT;
}
