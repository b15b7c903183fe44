/*
 * http: the HTTP layer.  http.c is the only file that includes
 * microhttpd.h; everything else sees plain structs.
 *
 * A handler takes a struct http_req and fills a struct http_resp:
 *
 *	static int
 *	api_thing_get(struct http_req *req, struct http_resp *resp)
 *	{
 *		long long id;
 *
 *		if (http_param_id(req, resp, "id", &id) < 0)
 *			return 0;		// 400 already in resp
 *		...
 *		return http_reply_json(resp, 200, obj);
 *	}
 *
 * The return value is ignored except that -1 with no status set becomes a
 * 500.  Handlers never block on git, builds or agents: they store a request
 * and answer 202.  Because requests are plain structs, unit tests call
 * handlers directly (http_req_init + http_route_dispatch, no server).
 *
 * Routes: each area has a table `const struct route foo_routes[]` ended by
 * { NULL }; daemon/routes.c lists every table (one line per area).  A
 * pattern is a path whose segments may be "{name}" (captured, read with
 * http_param) or end in "{name*}" (the rest of the path).
 *
 * Bodies are bounded: [daemon] max_body by default, or the route's
 * max_body when larger (agent and kernel uploads).  A bigger body is
 * refused with 413 naming the limit before the handler runs.  The server
 * keeps a small body in memory and streams a larger one to an unnamed
 * 0600 file under [http] spool (the store's tmp/); the handler sees it
 * mapped read-only as req->body either way.  Before any of a body is
 * read, http_route_preflight checks the headers (Host, Origin,
 * Content-Type, the token the route needs): a request that would be
 * refused is refused then.  The bodies being received count against
 * their principal's share of [http] max_inflight: past it a request is
 * answered 503 naming the limit, before its body is read.  A body that
 * comes slower than [http] min_rate once [http] timeout has passed is
 * cut, however steadily its bytes trickle in.
 *
 * A response is a buffer, or an open file (http_reply_file) that the
 * server sends from the descriptor without reading it into memory.
 */
#ifndef KPERFCI_HTTP_H
#define KPERFCI_HTTP_H

#include <stddef.h>

#include <jansson.h>

#include "lib/buf.h"

struct db;

struct http_kv {
	char	*name;
	char	*value;
};

#define HTTP_MAX_PARAMS 8

struct http_req {
	char	*method;		/* "GET" */
	char	*path;			/* "/api/v1/series/3", no query */
	struct http_kv *query;		/* decoded ?a=b&c=d */
	size_t	 nquery;
	struct http_kv *headers;
	size_t	 nheaders;
	struct buf body;
	int	 body_fd;		/* ROUTE_BODY_FD routes: the spooled
					   body (body.len bytes, body.data
					   NULL), else -1 */
	struct http_kv params[HTTP_MAX_PARAMS];	/* from the route pattern */
	size_t	 nparams;
	const char *peer;		/* "127.0.0.1" or NULL */
	struct db *db;			/* this thread's connection */
};

struct http_resp {
	int	 status;		/* 0 until set */
	const char *content_type;	/* static string */
	struct buf body;
	int	 fd;			/* -1, or the file to send (owned) */
	unsigned long long fd_size;	/* its length */
	struct http_kv *headers;
	size_t	 nheaders;
};

struct route {
	const char *method;		/* "GET", "POST", ...; NULL ends */
	const char *pattern;
	int	(*handler)(struct http_req *, struct http_resp *);
	unsigned flags;
	size_t	 max_body;		/* 0: [daemon] max_body */
	const char *query;		/* ROUTE_CACHE: the query parameters
					   the answer depends on ("limit"),
					   space-separated; the handler sees
					   no other (http_cache.h) */
};

/* Route flags.  POSTs are checked by the guard (daemon/auth.h) before
   the handler: by default they need a JSON or mbox body and a submitter. */
#define ROUTE_HTML	0x1	/* errors as an HTML page, not JSON */
#define ROUTE_ADMIN	0x2	/* POST needs the admin */
#define ROUTE_AGENT	0x4	/* POST: the handler checks an agent token */
#define ROUTE_FORM	0x8	/* POST: a web form with a CSRF token; its
				   body at most HTTP_FORM_MAX */
#define HTTP_FORM_MAX	(64u << 10)
#define ROUTE_BINARY	0x10	/* POST: application/octet-stream too */
#define ROUTE_CACHE	0x20	/* a GET whose 200 depends on the store and
				   Host only: kept until the store changes
				   (http_cache.h) */
#define ROUTE_BODY_FD	0x40	/* a body that went to the spool stays a
				   file (req->body_fd), never mapped: for
				   handlers that stream it */

/* ---- requests and responses ------------------------------------------ */

/* For tests and the server: an empty request (body capped at max). */
void	 http_req_init(struct http_req *, const char *method, const char *path,
	    size_t max_body);
void	 http_req_release(struct http_req *);
void	 http_req_add_query(struct http_req *, const char *, const char *);
void	 http_req_add_header(struct http_req *, const char *, const char *);
void	 http_resp_init(struct http_resp *);
void	 http_resp_release(struct http_resp *);

/* NULL when absent.  Header names compare case-insensitively. */
const char *http_query(const struct http_req *, const char *name);
const char *http_header(const struct http_req *, const char *name);
/* How many times the request carries header name (0, 1, more). */
size_t	 http_header_count(const struct http_req *, const char *name);
const char *http_param(const struct http_req *, const char *name);
/*
 * A field of an application/x-www-form-urlencoded body, decoded ('+' and
 * %XX), malloc'd; NULL when absent or longer than 8 KiB.
 */
char	*http_form_field(const struct http_req *, const char *name);
/* Content-Type without parameters, lower case compare: 1 if it is `type`. */
int	 http_content_type_is(const struct http_req *, const char *type);

/*
 * Reads path parameter `name` as a positive integer; on failure fills resp
 * with 400 "NAME must be a positive integer, not \"x\"" and returns -1.
 */
int	 http_param_id(const struct http_req *, struct http_resp *,
	    const char *name, long long *out);

void	 http_resp_header(struct http_resp *, const char *name,
	    const char *value);
/* Steals j.  Sets status, application/json, body. */
int	 http_reply_json(struct http_resp *, int status, json_t *j);
/* {"error": "..."} with status; returns 0 so handlers can return it. */
int	 http_reply_error(struct http_resp *, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
int	 http_reply_text(struct http_resp *, int status, const char *ctype,
	    const char *text);
/* 303 See Other to location. */
int	 http_redirect(struct http_resp *, const char *location);
/*
 * 200 with the regular file at path as the body, sent from its descriptor
 * (never read into memory).  The last component is opened with O_NOFOLLOW
 * and must be a regular file.  0, or -1 with errno and resp untouched.
 */
int	 http_reply_file(struct http_resp *, const char *ctype,
	    const char *path);

/*
 * JSON request bodies.  http_json_body parses req->body as a JSON object; on
 * failure resp gets 400 naming the problem ("invalid JSON at line 1 column
 * 5: ...", "body must be a JSON object") and NULL is returned.
 * http_json_str/int read one field: required fields missing give 400
 * "missing field \"url\""; a wrong type gives 400 "field \"version\" must be
 * an integer".  They return 0 (present), 1 (absent, optional), -1 (400 set).
 */
json_t	*http_json_body(const struct http_req *, struct http_resp *);
int	 http_json_str(json_t *obj, const char *field, int required,
	    const char **out, struct http_resp *);
int	 http_json_int(json_t *obj, const char *field, int required,
	    long long *out, struct http_resp *);

/* ---- routing --------------------------------------------------------- */

/* NULL-terminated list of every area's route table (daemon/routes.c). */
extern const struct route *const http_route_tables[];
/*
 * Runs before every handler of http_route_tables (not of tables a test
 * passes): 0 to go on, or -1 with resp filled (routes.c: auth_guard).
 */
extern int (*const http_route_guard)(struct http_req *, const struct route *,
	    struct http_resp *);

/*
 * Writes the error page of a request that reads HTML (a ROUTE_HTML route,
 * or a path outside /api/) into resp (routes.c: html_error_page), so
 * http.c writes no HTML of its own and never includes the page frame.
 */
extern void (*const http_route_error_page)(struct http_resp *, int status,
	    const char *msg);

/*
 * Who is sending a body, as far as its headers tell (http_route_preflight
 * decides it before a byte of the body is read or any room reserved for
 * it).  Each principal has its own share of [http] max_inflight, so no
 * kind of client can starve another: an anonymous client (only web forms
 * may post without a token; every other POST without one is answered 401
 * from its headers) cannot hold the room agents need to upload.
 */
enum http_principal {
	HTTP_WHO_ANON,			/* 1/8 of max_inflight */
	HTTP_WHO_USER,			/* submitters, admin, local: 3/8 */
	HTTP_WHO_AGENT,			/* a configured agent's token: 1/2 */
	HTTP_WHO_ANY,			/* tables a test passes: all of it */
	HTTP_WHO_N
};
/*
 * Runs on a request's headers, before its body (routes.c:
 * auth_preflight): the principal's class, or -1 with resp filled (the
 * request is answered without reading its body).  It also names the
 * principal in key ("agent:<token hash>", "user:alice", "anon:192.0.2"):
 * one principal may hold at most half of its class's share, so one
 * submitter cannot stop the others, nor one agent the rest.
 */
extern int (*const http_route_preflight)(struct http_req *,
	    const struct route *, struct http_resp *, char *key, size_t);

/*
 * Finds the route for (method, path), fills req->params.  Returns the
 * route, or NULL with *status 404 (no path matched) or 405 (path matched,
 * method did not).  tables NULL means http_route_tables.
 */
const struct route *http_route_match(const struct route *const *tables,
	    struct http_req *, int *status);
/* Matches one pattern against a path, capturing params.  1 match, 0 not. */
int	 http_pattern_match(const char *pattern, const char *path,
	    struct http_req *);
/* Matches and calls the handler; fills resp in every case. */
void	 http_route_dispatch(const struct route *const *tables,
	    struct http_req *, struct http_resp *);
/* The largest body a request for (method, path) may carry. */
size_t	 http_route_max_body(const struct route *const *tables,
	    const char *method, const char *path, size_t dflt);
/* The same, and the route's flags (0 when no route matches). */
size_t	 http_route_limits(const struct route *const *tables,
	    const char *method, const char *path, size_t dflt,
	    unsigned *flags);

/* ---- the server ------------------------------------------------------ */

struct http_opts {
	const char *listen;		/* IPv4 or IPv6 literal */
	int	 port;			/* 0: any free port */
	int	 threads;
	size_t	 max_body;
	/* Returns this thread's db connection (opened on first use). */
	struct db *(*thread_db)(void);
	/* Route tables; NULL: http_route_tables (tests pass their own). */
	const struct route *const *tables;
	/* [http]: 0 takes the default in brackets. */
	const char *spool;		/* directory for large bodies (/tmp) */
	size_t	 max_inflight;		/* body bytes being received (256M) */
	unsigned max_connections;	/* open connections (1000) */
	unsigned per_ip_connections;	/* from one address (32) */
	unsigned timeout;		/* idle seconds before a close (30) */
	size_t	 min_rate;		/* a body slower than this many bytes
					   a second, once timeout seconds
					   have passed, is cut (16K) */
	unsigned per_prefix_connections; /* from one /24 or /64 (64) */
	unsigned reserved_connections;	/* of max_connections, kept for
					   authenticated addresses (64) */
	unsigned header_timeout;	/* seconds for a request's headers,
					   however they trickle (10) */
	unsigned response_timeout;	/* seconds to read an answer, however
					   slowly (300) */
	int	 trust_loopback;	/* loopback may use the reserve */
	const char *const *proxies;	/* [auth] proxy: not capped per prefix */
	size_t	 nproxies;
};

struct http_server;

struct http_server *http_start(const struct http_opts *);
/* The port actually bound (useful with port 0). */
int	 http_port(const struct http_server *);
/* Body bytes being received now (what max_inflight bounds), all
   principals together. */
size_t	 http_inflight(const struct http_server *);
/* A principal's share of max_inflight (bytes). */
size_t	 http_share(const struct http_server *, enum http_principal);
void	 http_stop(struct http_server *);

#endif
