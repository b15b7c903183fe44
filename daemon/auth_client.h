/*
 * auth_client: the client of a request as the limits count it.  The
 * failed-token throttles (agent.c, shared with auth.c), the submission
 * limits (auth_limits_key) and the body budget's principals all key on
 * it, so an address is one client everywhere: behind an [auth] proxy the
 * address the proxy saw, never the proxy itself; an IPv4 client of a
 * dual-stack listener its IPv4 address; an IPv6 client its /64 where a
 * key is wanted.
 */
#ifndef KPERFCI_AUTH_CLIENT_H
#define KPERFCI_AUTH_CLIENT_H

#include <stddef.h>

struct http_req;

/* auth_client's answer for a proxied request whose last X-Forwarded-For
   hop is not an address: a bucket of its own, never the proxy's. */
#define AUTH_CLIENT_UNPARSED	"unparsed-x-forwarded-for"

/*
 * The client address of req into out[0..n): its peer, or, when the peer
 * is a configured [auth] proxy, the last hop of its (last)
 * X-Forwarded-For header -- the address the proxy saw; a hop that is not
 * an address leaves the proxy's.  "" for an in-process request (no peer).
 * Returns out.
 */
char	*auth_client(const struct http_req *, char *out, size_t n);
/* auth_client with an IPv6 address made its /64: the key the failed-token
   throttles count by (one host's /64 is one client, as an IPv4 address). */
char	*auth_client_key(const struct http_req *, char *out, size_t n);

/* The principal key of a request for the body budget (http.h) into
   key: "kind:name" for an agent or submitter (name), else
   "kind:<the client's /24 or /64>". */
void	 auth_client_principal(const struct http_req *, const char *kind,
	    const char *name, char *key, size_t keysz);

#endif
