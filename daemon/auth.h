/*
 * auth: who may do what over HTTP, and the checks that keep another web
 * site (cross-site requests, DNS rebinding) from acting for a browser.
 *
 * Roles, from the request's bearer token (Authorization: Bearer T, or a
 * form's "token" field) and its peer:
 *
 *	admin		the token whose sha256 is [auth] admin_token_sha256;
 *			when none is configured, any trusted loopback request
 *	submitter NAME	a token of [submitter "NAME"] token_sha256
 *	local		a trusted loopback request (peer 127/8 or ::1, no
 *			X-Forwarded-For/Forwarded header, [auth]
 *			trust_loopback on) when an admin token is configured
 *	anonymous	anything else: GET only
 *
 * A wrong token counts against its client address in the agents' throttle
 * (agent.h): past AGENT_AUTH_FAILS in AGENT_AUTH_WINDOW seconds every
 * token from there gets 429 until the window ends.  The client address is
 * the peer, or, when the peer is an [auth] proxy, the last hop of its
 * X-Forwarded-For (auth_client): behind a proxy one guesser must not lock
 * every agent and submitter out.
 *
 * The guard (auth_guard, run by http_route_dispatch before every handler
 * of the daemon's route tables) checks, in order:
 *	1. Host is an IP literal, localhost, or an [auth] host name (a Host of
 *	   attacker.example is a DNS-rebinding page: 403);
 *	2. for POST: Origin, when sent, names the Host we were asked for;
 *	3. for POST: Content-Type is application/json or application/mbox
 *	   (ROUTE_BINARY: application/octet-stream; ROUTE_FORM: a urlencoded
 *	   web form that carries a valid CSRF token instead);
 *	4. for POST: the role the route needs: ROUTE_AGENT routes check their
 *	   agent token themselves; ROUTE_ADMIN needs admin; every other POST
 *	   needs local, a submitter or admin.
 */
#ifndef KPERFCI_AUTH_H
#define KPERFCI_AUTH_H

#include <jansson.h>

#include "daemon/auth_client.h"
#include "daemon/http.h"
#include "lib/buf.h"

enum auth_role {
	AUTH_ANON,
	AUTH_LOCAL,
	AUTH_SUBMITTER,
	AUTH_ADMIN,
};

struct auth_who {
	enum auth_role role;
	char	 name[72];		/* "admin", "local", the submitter */
};

/* Priorities a series or job may ask for: admins the whole range,
   everyone else never ahead of interactive work (sched.h's 0). */
#define AUTH_PRIO_MIN		(-1000)
#define AUTH_PRIO_MAX		1000
#define AUTH_PRIO_USER_MIN	(-100)
#define AUTH_PRIO_USER_MAX	0

/* The hook http_route_dispatch runs (routes.c): 0, or -1 with resp set. */
int	 auth_guard(struct http_req *, const struct route *,
	    struct http_resp *);

/*
 * The hook http.c runs on a request's headers before reading its body
 * (routes.c): the principal whose share of the body budget it draws on
 * (enum http_principal), or -1 with resp set.  A POST runs the guard
 * (web forms, whose CSRF token is in the body, only their Content-Type)
 * and an agent route the agent token check, so nothing is reserved for a
 * request that would be refused.
 */
int	 auth_preflight(struct http_req *, const struct route *,
	    struct http_resp *, char *principal, size_t);

/*
 * Who sent req.  0 with *who (AUTH_ANON when no token and not trusted
 * loopback), or -1 with 403 in resp when a token was sent that nobody
 * holds.  form: also read the urlencoded body's "token" field.
 */
int	 auth_identify(const struct http_req *, int form, struct auth_who *,
	    struct http_resp *);
/* 1 when the peer is loopback and trusted (see above). */
int	 auth_trusted_loopback(const struct http_req *);

/* Whom the submission limits (limits.h) count: a submitter by name,
   the admin not at all (NULL), anyone else by client address
   (auth_client; the string lives until this thread's next call). */
const char *auth_limits_key(const struct http_req *,
	    const struct auth_who *);

/* 1 if who may cancel or re-run a series submitted by owner (NULL: by
   nobody known, so admin only). */
int	 auth_may_manage(const struct auth_who *, const char *owner);

/*
 * The "priority" of a submission: v NULL or JSON null leaves *prio alone;
 * otherwise an integer in who's range, else -1 with a sentence naming the
 * range.  auth_priority_text is the same for a ?priority= query string.
 */
int	 auth_priority(const struct auth_who *, const json_t *v, int *prio,
	    struct buf *err);
int	 auth_priority_text(const struct auth_who *, const char *s, int *prio,
	    struct buf *err);

/* The web forms' CSRF token for now (64 hex digits and a NUL). */
void	 auth_csrf_token(char out[65]);
/* 1 if tok is a token this daemon issued in the last one to two hours. */
int	 auth_csrf_valid(const char *tok);

/* HMAC-SHA256 (for the CSRF token; exposed for tests). */
void	 auth_hmac_sha256(const void *key, size_t klen, const void *msg,
	    size_t mlen, unsigned char out[32]);

/* 1 if a Host header value is one this daemon answers to. */
int	 auth_host_allowed(const char *host);


#endif
