/*
 * http_conns: who holds the server's connections, and for how long a
 * connection may take to send its headers (issue 18, finding 5: 1,100
 * slow connections from 50 addresses, each under the per-address cap,
 * held all 1,000 slots and /healthz from elsewhere got no answer).
 * http.c feeds it from libmicrohttpd's accept policy and connection
 * notifications; nothing here knows MHD.
 *
 *	per prefix	at most [http] per_prefix_connections from one /24
 *			(IPv4) or /64 (IPv6): one host's many addresses
 *			are one client (an [auth] proxy is not capped: its
 *			clients are many)
 *	reserved	the last [http] reserved_connections slots go only to
 *			addresses that authenticated (an agent's or a
 *			submitter's token) in the last hour, and loopback
 *			when it is trusted
 *	headers		a request's headers must be complete within
 *			[http] header_timeout seconds of the connection
 *			opening (of the previous request ending, plus the
 *			idle [http] timeout, on a kept-alive one); a trickle of
 *			bytes does not reset it (libmicrohttpd's own timeout
 *			is an idle one).  A sweeper thread shuts down the
 *			socket of a connection past it; MHD then closes it.
 *	responses	an answer must be read within [http]
 *			response_timeout seconds of being queued (a reader
 *			taking a byte now and then held its slot for as long
 *			as it liked: MHD's timeout is an idle one); the
 *			sweeper cuts it the same way.
 */
#ifndef KPERFCI_HTTP_CONNS_H
#define KPERFCI_HTTP_CONNS_H

#include <stddef.h>
#include <sys/socket.h>

struct http_conns;
struct http_conn_track;

struct http_conns_opts {
	unsigned max_connections;	/* all of them */
	unsigned per_prefix;		/* from one /24 or /64 */
	unsigned reserved;		/* of max, for known principals */
	unsigned header_timeout;	/* seconds */
	unsigned idle_timeout;		/* a kept-alive connection may wait
					   this long for its next request */
	unsigned response_timeout;	/* seconds to read an answer */
	int	 trust_loopback;	/* loopback counts as known */
	const char *const *proxies;	/* [auth] proxy addresses: every
					   client comes through them, so no
					   prefix cap or reserve applies */
	size_t	 nproxies;
};

struct http_conns *http_conns_start(const struct http_conns_opts *);
void	 http_conns_stop(struct http_conns *);

/* 1 if a connection from addr may be accepted now, else 0 (logged at
   most once a minute per reason). */
int	 http_conns_admit(struct http_conns *, const struct sockaddr *,
	    socklen_t);
/* A connection was accepted (fd its socket) / closed.  The track is
   owned here; opened returns NULL for an address family it does not
   know (counted nowhere). */
struct http_conn_track *http_conns_opened(struct http_conns *,
	    const struct sockaddr *, int fd);
void	 http_conns_closed(struct http_conns *, struct http_conn_track *);
/* The headers of the connection's current request are in / its request
   was answered (the next request's header clock starts). */
void	 http_conns_headers_done(struct http_conns *,
	    struct http_conn_track *);
void	 http_conns_request_done(struct http_conns *,
	    struct http_conn_track *);
/* The answer to the current request is queued: its reading clock starts
   (request_done stops it). */
void	 http_conns_responding(struct http_conns *,
	    struct http_conn_track *);
/* peer ("192.0.2.1", "2001:db8::1") authenticated as owner (an agent's
   or a submitter's principal key; agent says which): it may use the
   reserved slots for an hour.  Agents and submitters keep their
   addresses apart, and one owner at most CONNS_PER_OWNER (4) of them, so
   a submitter's many addresses never push an agent's out. */
void	 http_conns_trust(struct http_conns *, const char *peer,
	    const char *owner, int agent);
/* Connections open now. */
unsigned http_conns_open_now(struct http_conns *);

#endif
