/*
 * http: libmicrohttpd glue, routing, request/response helpers and JSON
 * body parsing (see http.h).  The only file that includes microhttpd.h.
 *
 * DESIGN: MHD runs an internal polling thread with a pool of worker threads
 * ([daemon] threads).  Each request is collected into a struct http_req in
 * the access callback (headers and query copied, the body appended to a
 * bounded buf), then dispatched on the final callback; the handler runs on
 * the MHD worker thread with that thread's own db connection.  Nothing here
 * is shared between threads except the read-only route tables.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "daemon/http.h"
#include "daemon/http_cache.h"
#include "daemon/http_conns.h"
#include "lib/log.h"
#include "lib/xalloc.h"

/* ---- requests and responses ------------------------------------------ */

static void
kv_add(struct http_kv **v, size_t *n, const char *name, const char *value)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].name = xstrdup(name);
	(*v)[*n].value = xstrdup(value ? value : "");
	(*n)++;
}

static void
kv_free(struct http_kv *v, size_t n)
{
	while (n--) {
		free(v[n].name);
		free(v[n].value);
	}
	free(v);
}

void
http_req_init(struct http_req *r, const char *method, const char *path,
    size_t max_body)
{
	memset(r, 0, sizeof(*r));
	r->method = xstrdup(method);
	r->path = xstrdup(path);
	buf_init(&r->body, max_body);
	r->body_fd = -1;
}

void
http_req_release(struct http_req *r)
{
	size_t i;

	free(r->method);
	free(r->path);
	kv_free(r->query, r->nquery);
	kv_free(r->headers, r->nheaders);
	for (i = 0; i < r->nparams; i++) {
		free(r->params[i].name);
		free(r->params[i].value);
	}
	buf_release(&r->body);
	memset(r, 0, sizeof(*r));
}

void
http_req_add_query(struct http_req *r, const char *k, const char *v)
{
	kv_add(&r->query, &r->nquery, k, v);
}

void
http_req_add_header(struct http_req *r, const char *k, const char *v)
{
	kv_add(&r->headers, &r->nheaders, k, v);
}

void
http_resp_init(struct http_resp *r)
{
	memset(r, 0, sizeof(*r));
	buf_init(&r->body, 0);
	r->fd = -1;
}

void
http_resp_release(struct http_resp *r)
{
	buf_release(&r->body);
	kv_free(r->headers, r->nheaders);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* The value of name in v (header names compare without case). */
static const char *
kv_get(const struct http_kv *v, size_t n, const char *name, int nocase)
{
	for (size_t i = 0; i < n; i++)
		if (!(nocase ? strcasecmp : strcmp)(v[i].name, name))
			return v[i].value;
	return NULL;
}

const char *
http_query(const struct http_req *r, const char *name)
{
	return kv_get(r->query, r->nquery, name, 0);
}

const char *
http_header(const struct http_req *r, const char *name)
{
	return kv_get(r->headers, r->nheaders, name, 1);
}

size_t
http_header_count(const struct http_req *r, const char *name)
{
	size_t i, n = 0;

	for (i = 0; i < r->nheaders; i++)
		n += !strcasecmp(r->headers[i].name, name);
	return n;
}

const char *
http_param(const struct http_req *r, const char *name)
{
	return kv_get(r->params, r->nparams, name, 0);
}

int
http_content_type_is(const struct http_req *r, const char *type)
{
	const char *ct = http_header(r, "Content-Type");
	size_t n = strlen(type);

	if (!ct)
		return 0;
	while (*ct == ' ')
		ct++;
	return !strncasecmp(ct, type, n) &&
	    (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

static int
http_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *
http_form_field(const struct http_req *r, const char *name)
{
	const char *p = r->body.data, *end, *stop;
	size_t nl = strlen(name);
	struct buf v = BUF_INIT(8192);

	if (!p)
		return NULL;
	stop = p + r->body.len;
	while (p < stop) {
		end = memchr(p, '&', stop - p);
		if (!end)
			end = stop;
		if ((size_t)(end - p) > nl && !strncmp(p, name, nl) &&
		    p[nl] == '=') {
			for (p += nl + 1; p < end; p++) {
				if (*p == '+')
					buf_addch(&v, ' ');
				else if (*p == '%' && end - p >= 3 &&
				    http_hex(p[1]) >= 0 && http_hex(p[2]) >= 0) {
					buf_addch(&v, http_hex(p[1]) * 16 +
					    http_hex(p[2]));
					p += 2;
				} else
					buf_addch(&v, *p);
			}
			if (v.overflow) {
				buf_release(&v);
				return NULL;
			}
			return buf_detach(&v, NULL);
		}
		p = end + 1;
	}
	return NULL;
}

int
http_param_id(const struct http_req *r, struct http_resp *resp,
    const char *name, long long *out)
{
	const char *v = http_param(r, name);
	char *end;
	long long n;

	if (!v || !*v || strspn(v, "0123456789") != strlen(v) ||
	    strlen(v) > 18 || (n = strtoll(v, &end, 10)) < 1) {
		http_reply_error(resp, 400, "%s must be a positive integer, "
		    "not \"%.64s\"", name, v ? v : "");
		return -1;
	}
	*out = n;
	return 0;
}

void
http_resp_header(struct http_resp *r, const char *name, const char *value)
{
	kv_add(&r->headers, &r->nheaders, name, value);
}

int
http_reply_json(struct http_resp *r, int status, json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);

	json_decref(j);
	buf_reset(&r->body);
	if (!s) {
		r->status = 500;
		r->content_type = "text/plain; charset=utf-8";
		buf_addstr(&r->body, "cannot encode JSON\n");
		return -1;
	}
	r->status = status;
	r->content_type = "application/json";
	buf_addstr(&r->body, s);
	buf_addch(&r->body, '\n');
	free(s);
	return 0;
}

int
http_reply_error(struct http_resp *r, int status, const char *fmt, ...)
{
	struct buf msg = BUF_INIT(0);
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	http_reply_json(r, status, json_pack("{s:s}", "error",
	    msg.data ? msg.data : ""));
	buf_release(&msg);
	return 0;
}

int
http_reply_text(struct http_resp *r, int status, const char *ctype,
    const char *text)
{
	r->status = status;
	r->content_type = ctype;
	buf_reset(&r->body);
	buf_addstr(&r->body, text);
	return 0;
}

int
http_redirect(struct http_resp *r, const char *location)
{
	http_resp_header(r, "Location", location);
	return http_reply_text(r, 303, "text/plain; charset=utf-8",
	    location);
}

int
http_reply_file(struct http_resp *r, const char *ctype, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (r->fd >= 0)
		close(r->fd);
	buf_reset(&r->body);
	r->status = 200;
	r->content_type = ctype;
	r->fd = fd;
	r->fd_size = (unsigned long long)st.st_size;
	return 0;
}

json_t *
http_json_body(const struct http_req *r, struct http_resp *resp)
{
	json_error_t e;
	json_t *j;

	if (r->body.len == 0) {
		http_reply_error(resp, 400, "empty body: expected a JSON "
		    "object");
		return NULL;
	}
	j = json_loadb(r->body.data, r->body.len, JSON_REJECT_DUPLICATES, &e);
	if (!j) {
		http_reply_error(resp, 400, "invalid JSON at line %d column "
		    "%d: %s", e.line, e.column, e.text);
		return NULL;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		http_reply_error(resp, 400, "body must be a JSON object");
		return NULL;
	}
	return j;
}

/* The field's value: 0 with *v, 1 absent and optional, -1 (400 in resp)
   absent and required. */
static int
http_json_field(json_t *obj, const char *field, int required, json_t **v,
    struct http_resp *resp)
{
	*v = json_object_get(obj, field);
	if (*v && !json_is_null(*v))
		return 0;
	if (!required)
		return 1;
	http_reply_error(resp, 400, "missing field \"%s\"", field);
	return -1;
}

int
http_json_str(json_t *obj, const char *field, int required, const char **out,
    struct http_resp *resp)
{
	json_t *v;
	int rc = http_json_field(obj, field, required, &v, resp);

	if (rc != 0)
		return rc;
	if (!json_is_string(v)) {
		http_reply_error(resp, 400, "field \"%s\" must be a string",
		    field);
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

int
http_json_int(json_t *obj, const char *field, int required, long long *out,
    struct http_resp *resp)
{
	json_t *v;
	int rc = http_json_field(obj, field, required, &v, resp);

	if (rc != 0)
		return rc;
	if (!json_is_integer(v)) {
		http_reply_error(resp, 400, "field \"%s\" must be an integer",
		    field);
		return -1;
	}
	*out = json_integer_value(v);
	return 0;
}

/* ---- routing --------------------------------------------------------- */

static void
http_params_clear(struct http_req *r)
{
	size_t i;

	for (i = 0; i < r->nparams; i++) {
		free(r->params[i].name);
		free(r->params[i].value);
	}
	r->nparams = 0;
}

int
http_pattern_match(const char *pat, const char *path, struct http_req *r)
{
	http_params_clear(r);
	while (*pat && *path) {
		if (*pat == '{') {
			const char *pe = strchr(pat, '}'), *se;
			size_t nlen;
			int rest;

			if (!pe)
				return 0;
			nlen = pe - pat - 1;
			rest = nlen > 0 && pat[nlen] == '*';
			se = rest ? path + strlen(path) : path + strcspn(path, "/");
			if (se == path || r->nparams == HTTP_MAX_PARAMS)
				goto fail;
			r->params[r->nparams].name = xstrndup(pat + 1,
			    nlen - rest);
			r->params[r->nparams].value = xstrndup(path, se - path);
			r->nparams++;
			pat = pe + 1;
			path = se;
			continue;
		}
		if (*pat != *path)
			goto fail;
		pat++;
		path++;
	}
	if (*pat == '\0' && *path == '\0')
		return 1;
fail:
	http_params_clear(r);
	return 0;
}

const struct route *
http_route_match(const struct route *const *tables, struct http_req *r,
    int *status)
{
	const struct route *t;

	if (!tables)
		tables = http_route_tables;
	*status = 404;
	for (; *tables; tables++)
		for (t = *tables; t->method; t++) {
			if (!http_pattern_match(t->pattern, r->path, r))
				continue;
			if (!strcmp(t->method, r->method) ||
			    (!strcmp(r->method, "HEAD") &&
			    !strcmp(t->method, "GET")))
				return t;
			*status = 405;
		}
	http_params_clear(r);
	return NULL;
}

size_t
http_route_limits(const struct route *const *tables, const char *method,
    const char *path, size_t dflt, unsigned *flags)
{
	struct http_req tmp;
	const struct route *rt;
	size_t max = dflt;
	int st;

	http_req_init(&tmp, method, path, 0);
	rt = http_route_match(tables, &tmp, &st);
	if (rt && rt->max_body > max)
		max = rt->max_body;
	/* a web form is a few fields: anonymous until its body is read,
	   it must not be able to hold much of the anonymous share */
	if (rt && (rt->flags & ROUTE_FORM) && max > HTTP_FORM_MAX)
		max = HTTP_FORM_MAX;
	*flags = rt ? rt->flags : 0;
	http_req_release(&tmp);
	return max;
}

size_t
http_route_max_body(const struct route *const *tables, const char *method,
    const char *path, size_t dflt)
{
	unsigned flags;

	return http_route_limits(tables, method, path, dflt, &flags);
}

static int
http_wants_html(const struct http_req *r, const struct route *rt)
{
	if (rt)
		return !!(rt->flags & ROUTE_HTML);
	return strncmp(r->path, "/api/", 5) != 0 &&
	    strcmp(r->path, "/healthz") != 0;
}

/* Error in the form the caller of that path reads: JSON or a page. */
static void
http_error_for(const struct http_req *r, const struct route *rt,
    struct http_resp *resp, int status, const char *msg)
{
	if (http_wants_html(r, rt))
		http_route_error_page(resp, status, msg);
	else
		http_reply_error(resp, status, "%s", msg);
}

void
http_route_dispatch(const struct route *const *tables, struct http_req *r,
    struct http_resp *resp)
{
	const struct route *rt;
	struct buf msg = BUF_INIT(0);
	int status, rc;

	rt = http_route_match(tables, r, &status);
	if (!rt) {
		if (status == 405)
			buf_addf(&msg, "method %s not allowed on %s", r->method,
			    r->path);
		else
			buf_addf(&msg, "no such page: %s", r->path);
		http_error_for(r, NULL, resp, status, msg.data);
		goto out;
	}
	if (r->body.overflow) {
		buf_addf(&msg, "request body larger than the limit of %zu "
		    "bytes", r->body.max);
		http_error_for(r, rt, resp, 413, msg.data);
		goto out;
	}
	if (!tables && http_route_guard && http_route_guard(r, rt, resp) < 0)
		goto out;
	rc = http_cache_call(rt, r, resp);
	if (resp->status == 0) {
		if (rc < 0)
			http_error_for(r, rt, resp, 500, "internal error (see "
			    "the daemon log)");
		else
			http_reply_text(resp, 204, "text/plain", "");
	}
out:
	buf_release(&msg);
}

/* ---- the server ------------------------------------------------------ */

/* Defaults of the [http] keys (http_opts fields left 0). */
#define HTTP_DEF_INFLIGHT	(256u << 20)
#define HTTP_DEF_CONNECTIONS	1000
#define HTTP_DEF_PER_IP		32
#define HTTP_DEF_TIMEOUT	30
#define HTTP_DEF_MIN_RATE	(16u << 10)
#define HTTP_DEF_PER_PREFIX	64
#define HTTP_DEF_RESERVED	64
#define HTTP_DEF_HEADERS	10
#define HTTP_DEF_RESPONSE	300	/* 8 MiB (a build log) at 28 KiB/s */
/* Bodies up to this size stay in memory; larger ones go to the spool. */
#define HTTP_SPOOL_OVER		(64u << 10)

struct http_server {
	struct MHD_Daemon *mhd;
	struct http_opts opts;
	int	 port;
	size_t	 inflight[HTTP_WHO_N];	/* body bytes held; __atomic */
	struct http_conns *conns;	/* per prefix, reserve, headers */
};

/*
 * What each principal holds now, so that one holds at most half of its
 * class's share (one body alone may be larger; a second one past the
 * half waits): a small table under one lock, an entry freed when it
 * holds nothing.  HTTP_HOLDERS bounds the principals holding bodies at
 * once; past it a new one waits (503) like one over its share.
 */
#define HTTP_HOLDERS	1024

struct http_holder {
	char	 key[80];
	size_t	 held;
};

static pthread_mutex_t http_holders_lock = PTHREAD_MUTEX_INITIALIZER;
static struct http_holder http_holders[HTTP_HOLDERS];

/* Adds n (signed) to key's holding: 0, or -1 when it would pass max (or
   the table is full) and nothing was added. */
static int
http_holder_add(const char *key, long long n, size_t max)
{
	struct http_holder *h = NULL, *free_h = NULL;
	int rc = 0;

	pthread_mutex_lock(&http_holders_lock);
	for (size_t i = 0; i < HTTP_HOLDERS && !h; i++) {
		if (http_holders[i].held && !strcmp(http_holders[i].key, key))
			h = &http_holders[i];
		else if (!http_holders[i].held && !free_h)
			free_h = &http_holders[i];
	}
	if (!h && n > 0) {
		if (!free_h) {
			rc = -1;
			goto out;
		}
		h = free_h;
		snprintf(h->key, sizeof(h->key), "%s", key);
		h->held = 0;
	}
	if (!h)
		goto out;
	/* one body alone may be larger (a kernel upload): a second one
	   past the half is what waits */
	if (n > 0 && h->held && h->held + (size_t)n > max) {
		rc = -1;
		goto out;
	}
	h->held = n < 0 && (size_t)-n > h->held ? 0 : h->held + n;
out:
	pthread_mutex_unlock(&http_holders_lock);
	return rc;
}

/* Each principal's share of max_inflight, in eighths (http.h). */
static const unsigned http_eighths[HTTP_WHO_N] = {
	[HTTP_WHO_ANON] = 1,
	[HTTP_WHO_USER] = 3,
	[HTTP_WHO_AGENT] = 4,
	[HTTP_WHO_ANY] = 8,
};

static const char *const http_who_name[HTTP_WHO_N] = {
	[HTTP_WHO_ANON] = "anonymous clients",
	[HTTP_WHO_USER] = "submitters",
	[HTTP_WHO_AGENT] = "agents",
	[HTTP_WHO_ANY] = "all clients",
};

/* Why a body is not dispatched to its handler. */
enum http_refuse {
	HTTP_BODY_OK,
	HTTP_BODY_TOO_BIG,		/* over max_body: 413 */
	HTTP_BODY_BUSY,			/* over max_inflight: 503 */
	HTTP_BODY_SPOOL,		/* the spool file failed: 500 */
	HTTP_BODY_ANSWERED,		/* refused before it was read */
};

struct http_conn {
	struct http_req req;
	enum http_refuse refuse;
	enum http_principal who;	/* whose share the body draws on */
	char	 peer[INET6_ADDRSTRLEN];
	time_t	 start;			/* when the headers were complete */
	char	 key[80];		/* the principal (http.h), or "" */
	size_t	 held;			/* bytes counted in s->inflight */
	size_t	 received;
	int	 spool;			/* -1, or the body's unnamed file */
	int	 one_over;		/* refused: its principal's half */
	unsigned flags;			/* the route's */
	void	*map;			/* the spool mapped while dispatched */
	size_t	 maplen;
};

static enum MHD_Result
http_collect(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	struct http_req *r = cls;

	if (kind == MHD_GET_ARGUMENT_KIND)
		http_req_add_query(r, key, value);
	else
		http_req_add_header(r, key, value);
	return MHD_YES;
}

static void
http_add_headers(struct MHD_Response *mr, const struct http_resp *resp)
{
	size_t i;

	if (resp->content_type)
		MHD_add_response_header(mr, "Content-Type",
		    resp->content_type);
	MHD_add_response_header(mr, "X-Content-Type-Options", "nosniff");
	for (i = 0; i < resp->nheaders; i++)
		MHD_add_response_header(mr, resp->headers[i].name,
		    resp->headers[i].value);
}

static enum MHD_Result
http_send(struct MHD_Connection *c, struct http_resp *resp, int head)
{
	struct MHD_Response *mr;
	enum MHD_Result ret;
	size_t len = resp->body.len;
	char *data;

	if (resp->fd >= 0) {
		/* MHD owns the descriptor from here and closes it. */
		mr = MHD_create_response_from_fd64(resp->fd_size, resp->fd);
		if (!mr)
			return MHD_NO;
		resp->fd = -1;
	} else {
		data = buf_detach(&resp->body, &len);
		mr = MHD_create_response_from_buffer(head ? 0 : len, data,
		    MHD_RESPMEM_MUST_FREE);
		if (!mr) {
			free(data);
			return MHD_NO;
		}
	}
	http_add_headers(mr, resp);
	ret = MHD_queue_response(c, resp->status ? resp->status : 500, mr);
	MHD_destroy_response(mr);
	return ret;
}

size_t
http_share(const struct http_server *s, enum http_principal who)
{
	return s->opts.max_inflight / 8 * http_eighths[who];
}

/* Counts n more body bytes against the principal's share of
   max_inflight: 0, or -1 when over. */
static int
http_hold(struct http_server *s, struct http_conn *hc, size_t n)
{
	size_t now;

	if (*hc->key && http_holder_add(hc->key, (long long)n,
	    http_share(s, hc->who) / 2) < 0) {
		hc->one_over = 1;
		return -1;
	}
	now = __atomic_add_fetch(&s->inflight[hc->who], n, __ATOMIC_RELAXED);
	hc->held += n;
	return now > http_share(s, hc->who) ? -1 : 0;
}

static void
http_unhold(struct http_server *s, struct http_conn *hc)
{
	__atomic_sub_fetch(&s->inflight[hc->who], hc->held, __ATOMIC_RELAXED);
	if (*hc->key && hc->held)
		http_holder_add(hc->key, -(long long)hc->held, 0);
	hc->held = 0;
}

size_t
http_inflight(const struct http_server *s)
{
	size_t n = 0;
	int w;

	for (w = 0; w < HTTP_WHO_N; w++)
		n += __atomic_load_n(&s->inflight[w], __ATOMIC_RELAXED);
	return n;
}

/*
 * A body that arrives too slowly: once [http] timeout seconds have passed,
 * the bytes received must keep up with min_rate for the time since.  MHD's
 * own timeout is an idle one, which a byte every few seconds resets.
 */
static int
http_too_slow(const struct http_server *s, const struct http_conn *hc)
{
	time_t late = time(NULL) - hc->start - (time_t)s->opts.timeout;

	return late > 0 && hc->received < (size_t)late * s->opts.min_rate;
}

/* An unnamed 0600 file in the spool directory; -1 (logged) on failure. */
static int
http_spool_open(const struct http_server *s)
{
	const char *dir = s->opts.spool ? s->opts.spool : "/tmp";
	char *tmpl;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR &&
	    errno != EINVAL)) {
		if (fd < 0)
			log_warn("http: spool %s", dir);
		return fd;
	}
	/* no O_TMPFILE on this file system: a named file, unlinked now */
	tmpl = xasprintf("%s/body.XXXXXX", dir);
	if ((fd = mkostemp(tmpl, O_CLOEXEC)) >= 0)
		unlink(tmpl);
	else
		log_warn("http: spool %s", tmpl);
	free(tmpl);
	return fd;
}

static int
http_write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		if ((w = write(fd, p, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= w;
	}
	return 0;
}

/* Appends one chunk of the body: memory first, the spool past 64 KiB. */
static void
http_body_chunk(struct http_server *s, struct http_conn *hc,
    const char *data, size_t n)
{
	struct buf *b = &hc->req.body;

	if (hc->refuse != HTTP_BODY_OK)
		return;
	if (hc->received + n > b->max) {
		hc->refuse = HTTP_BODY_TOO_BIG;
		return;
	}
	/* a declared length was held up front; a chunked body as it comes */
	if (hc->received + n > hc->held && http_hold(s, hc,
	    hc->received + n - hc->held) < 0) {
		hc->refuse = HTTP_BODY_BUSY;
		return;
	}
	hc->received += n;
	if (hc->spool < 0 && hc->received <= HTTP_SPOOL_OVER) {
		buf_add(b, data, n);
		return;
	}
	if (hc->spool < 0) {
		if ((hc->spool = http_spool_open(s)) < 0 ||
		    http_write_all(hc->spool, b->data ? b->data : "",
		    b->len) < 0) {
			hc->refuse = HTTP_BODY_SPOOL;
			return;
		}
		buf_release(b);
	}
	if (http_write_all(hc->spool, data, n) < 0) {
		log_warn("http: spooling a body");
		hc->refuse = HTTP_BODY_SPOOL;
	}
}

/*
 * Shows a spooled body to the handler as req->body, mapped read-only with
 * a NUL after it (as a buf's data has), or as req->body_fd for a
 * ROUTE_BODY_FD route.  -1 (logged) on failure.
 */
static int
http_body_map(struct http_conn *hc)
{
	if (hc->spool < 0)
		return 0;
	if (hc->flags & ROUTE_BODY_FD) {
		/* the handler streams it from the file */
		hc->req.body_fd = hc->spool;
		hc->req.body.len = hc->received;
		return 0;
	}
	if (http_write_all(hc->spool, "", 1) < 0) {
		log_warn("http: spooling a body");
		return -1;
	}
	hc->maplen = hc->received + 1;
	hc->map = mmap(NULL, hc->maplen, PROT_READ, MAP_SHARED, hc->spool, 0);
	if (hc->map == MAP_FAILED) {
		log_warn("http: mapping a body of %zu bytes", hc->received);
		hc->map = NULL;
		return -1;
	}
	hc->req.body.data = hc->map;
	hc->req.body.len = hc->received;
	return 0;
}

static void
http_body_unmap(struct http_conn *hc)
{
	if (hc->req.body_fd >= 0) {
		hc->req.body_fd = -1;
		hc->req.body.len = 0;
	}
	if (!hc->map)
		return;
	munmap(hc->map, hc->maplen);
	hc->map = NULL;
	hc->req.body.data = NULL;
	hc->req.body.len = 0;
}

/* The answer to a body refused before or while it came. */
static void
http_refusal(struct http_server *s, struct http_conn *hc,
    struct http_resp *resp)
{
	struct buf msg = BUF_INIT(0);
	const struct route *rt;
	int st;

	if (hc->refuse == HTTP_BODY_TOO_BIG) {
		hc->req.body.overflow = 1;
		http_route_dispatch(s->opts.tables, &hc->req, resp);
		return;
	}
	rt = http_route_match(s->opts.tables, &hc->req, &st);
	if (hc->refuse == HTTP_BODY_BUSY && hc->one_over) {
		buf_addf(&msg, "server busy: the bodies this client is sending "
		    "would pass half of the share of %s (%zu of %zu bytes of "
		    "[http] max_inflight); try again when they are in",
		    http_who_name[hc->who], http_share(s, hc->who) / 2,
		    s->opts.max_inflight);
		http_error_for(&hc->req, rt, resp, 503, msg.data);
		http_resp_header(resp, "Retry-After", "10");
	} else if (hc->refuse == HTTP_BODY_BUSY) {
		buf_addf(&msg, "server busy: request bodies being received "
		    "from %s exceed their share of [http] max_inflight (%zu "
		    "of %zu bytes); try again later", http_who_name[hc->who],
		    http_share(s, hc->who), s->opts.max_inflight);
		http_error_for(&hc->req, rt, resp, 503, msg.data);
		http_resp_header(resp, "Retry-After", "10");
	} else
		http_error_for(&hc->req, rt, resp, 500, "the request body "
		    "could not be stored for reading (see the daemon log)");
	buf_release(&msg);
}

static void
http_peer(struct MHD_Connection *c, char *peer, size_t sz)
{
	const union MHD_ConnectionInfo *ci;
	const struct sockaddr *sa;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!ci || !ci->client_addr)
		return;
	sa = ci->client_addr;
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
		    peer, sz);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->
		    sin6_addr, peer, sz);
}

/*
 * The principal of a request (http.h), or -1 with resp filled: the route's
 * preflight on its headers.  Requests with no route, and tables a test
 * passes, are not checked here (dispatch answers them).
 */
static int
http_preflight(struct http_server *s, struct http_conn *hc,
    struct http_resp *resp)
{
	const struct route *rt;
	int st;

	if (s->opts.tables || !http_route_preflight)
		return HTTP_WHO_ANY;
	if (!(rt = http_route_match(NULL, &hc->req, &st)))
		return HTTP_WHO_ANON;
	return http_route_preflight(&hc->req, rt, resp, hc->key,
	    sizeof(hc->key));
}

/* The connection's track in s->conns (NULL when it has none). */
static struct http_conn_track *
http_track(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/* First call for a request: collect it, refuse what cannot be read. */
static enum MHD_Result
http_begin(struct http_server *s, struct MHD_Connection *c,
    const char *url, const char *method, void **con_cls)
{
	struct http_conn *hc = xcalloc(1, sizeof(*hc));
	struct http_resp resp;
	const char *cl;
	unsigned long long len = 0;
	enum MHD_Result ret;
	size_t max;
	int who;

	max = http_route_limits(s->opts.tables, method, url,
	    s->opts.max_body, &hc->flags);
	http_req_init(&hc->req, method, url, max);
	hc->spool = -1;
	hc->start = time(NULL);
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, http_collect,
	    &hc->req);
	MHD_get_connection_values(c, MHD_HEADER_KIND, http_collect, &hc->req);
	http_peer(c, hc->peer, sizeof(hc->peer));
	hc->req.peer = *hc->peer ? hc->peer : NULL;
	*con_cls = hc;
	http_conns_headers_done(s->conns, http_track(c));
	http_resp_init(&resp);
	/* Who is asking, from the headers alone: a request that would be
	   refused is refused before its body is read or room held for it. */
	if ((who = http_preflight(s, hc, &resp)) < 0)
		goto answer;
	hc->who = who;
	if (who == HTTP_WHO_AGENT || who == HTTP_WHO_USER)
		http_conns_trust(s->conns, hc->req.peer, hc->key,
		    who == HTTP_WHO_AGENT);
	/* Refuse a declared oversize body, or one the server has no room
	   for now, before reading any of it. */
	if ((cl = http_header(&hc->req, "Content-Length")))
		len = strtoull(cl, NULL, 10);
	if (len > max)
		hc->refuse = HTTP_BODY_TOO_BIG;
	else if (len && http_hold(s, hc, len) < 0)
		hc->refuse = HTTP_BODY_BUSY;
	if (hc->refuse == HTTP_BODY_OK) {
		http_resp_release(&resp);
		return MHD_YES;
	}
	http_refusal(s, hc, &resp);
answer:
	http_conns_responding(s->conns, http_track(c));
	ret = http_send(c, &resp, 0);
	http_resp_release(&resp);
	http_unhold(s, hc);
	hc->refuse = HTTP_BODY_ANSWERED;
	return ret;
}

static enum MHD_Result
http_access(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **con_cls)
{
	struct http_server *s = cls;
	struct http_conn *hc = *con_cls;
	struct http_resp resp;
	enum MHD_Result ret;

	if (!hc)
		return http_begin(s, c, url, method, con_cls);
	if (*upload_size) {
		/* A refused body is consumed, but none of it is kept. */
		http_body_chunk(s, hc, upload, *upload_size);
		*upload_size = 0;
		if (http_too_slow(s, hc)) {
			log_info("http: %s %s from %s: body cut at %zu bytes "
			    "after %lld s (slower than [http] min_rate)",
			    method, url, *hc->peer ? hc->peer : "?",
			    hc->received, (long long)(time(NULL) - hc->start));
			return MHD_NO;
		}
		return MHD_YES;
	}
	if (hc->refuse == HTTP_BODY_ANSWERED)
		return MHD_YES;
	http_resp_init(&resp);
	if (hc->refuse == HTTP_BODY_OK && http_body_map(hc) < 0)
		hc->refuse = HTTP_BODY_SPOOL;
	if (hc->refuse != HTTP_BODY_OK) {
		http_refusal(s, hc, &resp);
	} else {
		hc->req.db = s->opts.thread_db ? s->opts.thread_db() : NULL;
		http_route_dispatch(s->opts.tables, &hc->req, &resp);
	}
	log_debug("http: %s %s -> %d", method, url, resp.status);
	http_conns_responding(s->conns, http_track(c));
	ret = http_send(c, &resp, !strcmp(method, "HEAD"));
	http_resp_release(&resp);
	http_body_unmap(hc);
	return ret;
}

static void
http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct http_server *s = cls;
	struct http_conn *hc = *con_cls;

	if (!hc)
		return;
	http_conns_request_done(s->conns, http_track(c));
	http_body_unmap(hc);
	if (hc->spool >= 0)
		close(hc->spool);
	http_unhold(s, hc);
	http_req_release(&hc->req);
	free(hc);
	*con_cls = NULL;
}

/* libmicrohttpd's accept policy: the per-prefix cap and the reserve. */
static enum MHD_Result
http_accept(void *cls, const struct sockaddr *sa, socklen_t len)
{
	struct http_server *s = cls;

	return http_conns_admit(s->conns, sa, len) ? MHD_YES : MHD_NO;
}

static void
http_notify_conn(void *cls, struct MHD_Connection *c, void **ctx,
    enum MHD_ConnectionNotificationCode code)
{
	struct http_server *s = cls;
	const union MHD_ConnectionInfo *ai, *fi;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		http_conns_closed(s->conns, *ctx);
		*ctx = NULL;
		return;
	}
	ai = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	fi = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	*ctx = ai && fi ? http_conns_opened(s->conns, ai->client_addr,
	    fi->connect_fd) : NULL;
}

static void
http_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_warnx("http: %s", msg);
}

/* Fills the [http] defaults into s->opts and prepares the spool. */
static void
http_opts_defaults(struct http_opts *o)
{
	if (!o->max_inflight)
		o->max_inflight = HTTP_DEF_INFLIGHT;
	if (!o->max_connections)
		o->max_connections = HTTP_DEF_CONNECTIONS;
	if (!o->per_ip_connections)
		o->per_ip_connections = HTTP_DEF_PER_IP;
	if (!o->timeout)
		o->timeout = HTTP_DEF_TIMEOUT;
	if (!o->min_rate)
		o->min_rate = HTTP_DEF_MIN_RATE;
	if (!o->per_prefix_connections)
		o->per_prefix_connections = HTTP_DEF_PER_PREFIX;
	if (!o->reserved_connections)
		o->reserved_connections = HTTP_DEF_RESERVED;
	if (!o->header_timeout)
		o->header_timeout = HTTP_DEF_HEADERS;
	if (!o->response_timeout)
		o->response_timeout = HTTP_DEF_RESPONSE;
	if (o->spool && mkdir(o->spool, 0700) < 0 && errno != EEXIST)
		log_warn("http: spool directory %s", o->spool);
}

struct http_server *
http_start(const struct http_opts *o)
{
	struct http_server *s = xcalloc(1, sizeof(*s));
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct http_conns_opts co;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *di;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, o->listen, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(o->port);
	} else if (inet_pton(AF_INET6, o->listen, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(o->port);
		/* "::" is every address, IPv4 ones too (doc/daemon.md);
		   a named IPv6 address is that address alone */
		flags |= IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr) ?
		    MHD_USE_DUAL_STACK : MHD_USE_IPv6;
	} else {
		error("http: listen address \"%s\" is not an IPv4 or IPv6 "
		    "address", o->listen);
		free(s);
		return NULL;
	}
	s->opts = *o;
	http_opts_defaults(&s->opts);
	co.max_connections = s->opts.max_connections;
	co.per_prefix = s->opts.per_prefix_connections;
	co.reserved = s->opts.reserved_connections;
	co.header_timeout = s->opts.header_timeout;
	co.idle_timeout = s->opts.timeout;
	co.response_timeout = s->opts.response_timeout;
	co.trust_loopback = s->opts.trust_loopback;
	co.proxies = s->opts.proxies;
	co.nproxies = s->opts.nproxies;
	s->conns = http_conns_start(&co);
	s->mhd = MHD_start_daemon(flags, o->port, http_accept, s, http_access, s,
	    MHD_OPTION_EXTERNAL_LOGGER, http_mhd_log, NULL,
	    MHD_OPTION_NOTIFY_CONNECTION, http_notify_conn, s,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)o->threads,
	    MHD_OPTION_NOTIFY_COMPLETED, http_completed, s,
	    MHD_OPTION_CONNECTION_TIMEOUT, s->opts.timeout,
	    /* MHD splits its limit over the pool's threads, so one thread
	       could refuse while another has room: the total is
	       http_conns' to enforce (http_accept), MHD's only a ceiling */
	    MHD_OPTION_CONNECTION_LIMIT, s->opts.max_connections *
	    (unsigned)(o->threads > 1 ? o->threads : 1),
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->opts.per_ip_connections,
	    MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024,
	    MHD_OPTION_END);
	if (!s->mhd) {
		error("http: cannot listen on %s port %d: %s", o->listen,
		    o->port, strerror(errno));
		http_conns_stop(s->conns);
		free(s);
		return NULL;
	}
	di = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
	s->port = di ? di->port : o->port;
	return s;
}

int
http_port(const struct http_server *s)
{
	return s->port;
}

void
http_stop(struct http_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->mhd);
	http_conns_stop(s->conns);
	free(s);
}
