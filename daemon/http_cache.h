/*
 * http_cache: GET responses computed from the store, kept until the store
 * changes.  A route opts in with ROUTE_CACHE (http.h); its 200 answers are
 * kept under (path, the query parameters the route declares, Host) and
 * served again while nothing in the store has changed, for
 * HTTP_CACHE_MAX_AGE seconds at most.  Its handler sees only the declared
 * parameters: one the answer ignores cannot make an entry per request
 * (a 1,024-row page rendered again for each ?junk=N).  Only for
 * routes that render nothing but what the store holds: no request header
 * besides Host, no per-client data (a session) in the body, and nothing
 * that goes stale faster than the maximum age (the series page's CSRF
 * token lives an hour or two: auth.c).  Today: the series list, a series,
 * its page, its comparison JSON and report.txt.
 *
 * DESIGN: the store's version is per connection (db_data_version: another
 * connection's commits and this one's own writes), and every HTTP thread
 * has its own connection.  So each thread remembers the version it saw
 * last, and before any lookup it asks again: when it moved, the thread
 * bumps one process-wide generation, which retires every entry at once.
 * A commit anywhere is seen by the next lookup of any thread (asking
 * starts a read transaction), so nothing stale is ever served; an entry is
 * stored under the generation read before its handler ran, and only when
 * the thread's version did not move while it ran.  Any commit (an agent's
 * heartbeat too) empties the cache: it helps while reads outnumber writes,
 * which is when it is needed.  One table under one mutex, at most
 * HTTP_CACHE_SLOTS entries and [http] cache bytes of bodies (64M), least
 * recently used out first; one body at most an eighth of them (8 MiB by
 * default: the page of a comparison at [sched] max_rows, 1024 rows, is
 * about 3 MB).
 */
#ifndef KPERFCI_HTTP_CACHE_H
#define KPERFCI_HTTP_CACHE_H

#include "daemon/http.h"

#define HTTP_CACHE_SLOTS	4096
#define HTTP_CACHE_BYTES	(64u << 20)
#define HTTP_CACHE_MAX_AGE	300	/* seconds */

/*
 * Calls rt's handler, or answers from the cache.  Routes without
 * ROUTE_CACHE, requests without a store, and answers other than a plain
 * 200 go straight through.  Returns the handler's return value (0 for a
 * cached answer).
 */
int	http_cache_call(const struct route *rt, struct http_req *,
	    struct http_resp *);
/* [http] cache: the most body bytes kept (default HTTP_CACHE_BYTES);
   0 turns the cache off.  Call before the server starts. */
void	http_cache_size(size_t bytes);
/* Hits and misses so far, for tests and benchmarks. */
void	http_cache_stats(unsigned long *hits, unsigned long *misses);

#endif
