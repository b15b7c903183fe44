/*
 * Unit tests for daemon/http.c and daemon/html.c without a server:
 * pattern matching, route dispatch (404/405/413), JSON body helpers, and
 * HTML escaping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "daemon/html.h"
#include "daemon/http.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static void
test_patterns(void)
{
	struct http_req r;

	http_req_init(&r, "GET", "/", 0);
	ok(http_pattern_match("/api/v1/series/{id}", "/api/v1/series/42", &r),
	    "pattern with a parameter matches");
	is_str(http_param(&r, "id"), "42", "parameter captured");
	ok(!http_pattern_match("/api/v1/series/{id}", "/api/v1/series/", &r),
	    "empty parameter does not match");
	ok(http_param(&r, "id") == NULL, "params cleared on a miss");
	ok(!http_pattern_match("/api/v1/series/{id}", "/api/v1/series/4/x",
	    &r), "extra segment does not match");
	ok(!http_pattern_match("/api/v1/series", "/api/v1/seriesX", &r),
	    "longer path does not match");
	ok(http_pattern_match("/a/{x}/b/{y}", "/a/1/b/two", &r) &&
	    !strcmp(http_param(&r, "x"), "1") &&
	    !strcmp(http_param(&r, "y"), "two"), "two parameters");
	ok(http_pattern_match("/logs/{path*}", "/logs/a/b/c.log", &r) &&
	    !strcmp(http_param(&r, "path"), "a/b/c.log"),
	    "rest-of-path parameter");
	http_req_release(&r);
}

static int calls;

static int
h_hello(struct http_req *req, struct http_resp *resp)
{
	calls++;
	return http_reply_json(resp, 200, json_pack("{s:s}", "id",
	    http_param(req, "id")));
}

static int
h_fail(struct http_req *req, struct http_resp *resp)
{
	return -1;
}

static int
h_post(struct http_req *req, struct http_resp *resp)
{
	const char *url;
	long long v = 0;
	json_t *j = http_json_body(req, resp);

	if (!j)
		return 0;
	if (http_json_str(j, "url", 1, &url, resp) < 0 ||
	    http_json_int(j, "version", 0, &v, resp) < 0) {
		json_decref(j);
		return 0;
	}
	http_reply_json(resp, 202, json_pack("{s:s,s:I}", "url", url, "v",
	    (json_int_t)v));
	json_decref(j);
	return 0;
}

static const struct route test_routes[] = {
	{ "GET", "/x/{id}", h_hello, 0, 0 },
	{ "GET", "/fail", h_fail, 0, 0 },
	{ "POST", "/post", h_post, 0, 0 },
	{ "POST", "/big", h_post, 0, 1 << 20 },
	{ "GET", "/page/{id}", h_fail, ROUTE_HTML, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
static const struct route *const tables[] = { test_routes, NULL };

/* Dispatches one request; returns the status, body in *body (static). */
static int
call(const char *method, const char *path, const char *body, size_t max,
    char *out, size_t outlen)
{
	struct http_req r;
	struct http_resp resp;
	int st;

	http_req_init(&r, method, path, max);
	if (body)	/* an overflow is flagged, as the server does */
		(void)buf_addstr(&r.body, body);
	http_resp_init(&resp);
	http_route_dispatch(tables, &r, &resp);
	st = resp.status;
	snprintf(out, outlen, "%s", resp.body.data ? resp.body.data : "");
	http_resp_release(&resp);
	http_req_release(&r);
	return st;
}

static void
test_dispatch(void)
{
	char out[4096];

	is_int(call("GET", "/x/7", NULL, 100, out, sizeof(out)), 200,
	    "matched route answers");
	ok(strstr(out, "\"id\": \"7\"") != NULL, "handler saw the param");
	is_int(calls, 1, "handler called once");
	is_int(call("GET", "/nope", NULL, 100, out, sizeof(out)), 404,
	    "unknown path 404");
	ok(strstr(out, "<html") != NULL, "non-API 404 is a page");
	is_int(call("GET", "/api/v1/nope", NULL, 100, out, sizeof(out)), 404,
	    "unknown API path 404");
	ok(strstr(out, "\"error\"") != NULL, "API 404 is JSON");
	is_int(call("DELETE", "/x/1", NULL, 100, out, sizeof(out)), 405,
	    "wrong method 405");
	ok(strstr(out, "method DELETE not allowed") != NULL,
	    "405 names the method");
	is_int(call("GET", "/fail", NULL, 100, out, sizeof(out)), 500,
	    "handler error becomes 500");
	is_int(call("POST", "/post", "{\"url\": \"u\", \"version\": 3}", 100,
	    out, sizeof(out)), 202, "JSON body accepted");
	ok(strstr(out, "\"v\": 3") != NULL, "optional int read");
	is_int(call("POST", "/post", "{\"url\": ", 100, out, sizeof(out)),
	    400, "invalid JSON 400");
	ok(strstr(out, "invalid JSON at line 1") != NULL,
	    "invalid JSON says where");
	is_int(call("POST", "/post", "[1]", 100, out, sizeof(out)), 400,
	    "non-object 400");
	ok(strstr(out, "must be a JSON object") != NULL, "says object");
	is_int(call("POST", "/post", "{}", 100, out, sizeof(out)), 400,
	    "missing field 400");
	ok(strstr(out, "missing field \\\"url\\\"") != NULL,
	    "missing field named");
	is_int(call("POST", "/post", "{\"url\": 5}", 100, out, sizeof(out)),
	    400, "wrong type 400");
	ok(strstr(out, "field \\\"url\\\" must be a string") != NULL,
	    "wrong type named");
	is_int(call("POST", "/post", "{\"url\": \"u\", \"version\": \"x\"}",
	    100, out, sizeof(out)), 400, "wrong int type 400");
	ok(strstr(out, "\\\"version\\\" must be an integer") != NULL,
	    "int field named");
	is_int(call("POST", "/post", "", 100, out, sizeof(out)), 400,
	    "empty body 400");
	is_int(call("POST", "/post", "{\"url\": \"0123456789\"}", 10, out,
	    sizeof(out)), 413, "oversize body 413");
	ok(strstr(out, "limit of 10 bytes") != NULL, "413 names the limit");
	is_int(call("GET", "/page/x", NULL, 10, out, sizeof(out)), 500,
	    "HTML route error");
	ok(strstr(out, "<!DOCTYPE html>") != NULL, "HTML route error is a page");
	is_int(http_route_max_body(tables, "POST", "/big", 100), 1 << 20,
	    "route raises the body limit");
	is_int(http_route_max_body(tables, "POST", "/post", 100), 100,
	    "default body limit elsewhere");
}

static void
test_params(void)
{
	struct http_req r;
	struct http_resp resp;
	long long id = 0;

	http_req_init(&r, "GET", "/x/abc", 0);
	http_resp_init(&resp);
	http_pattern_match("/x/{id}", "/x/abc", &r);
	is_int(http_param_id(&r, &resp, "id", &id), -1, "non-numeric id");
	is_int(resp.status, 400, "non-numeric id is 400");
	ok(strstr(resp.body.data, "id must be a positive integer") != NULL,
	    "message names the parameter");
	http_resp_release(&resp);
	http_resp_init(&resp);
	http_pattern_match("/x/{id}", "/x/12", &r);
	ok(http_param_id(&r, &resp, "id", &id) == 0 && id == 12,
	    "numeric id read");
	http_req_add_query(&r, "v", "2");
	http_req_add_header(&r, "Content-Type", "application/mbox; x=y");
	is_str(http_query(&r, "v"), "2", "query accessor");
	is_str(http_header(&r, "content-type"), "application/mbox; x=y",
	    "headers compare case-insensitively");
	ok(http_content_type_is(&r, "application/mbox"),
	    "content type without parameters");
	ok(!http_content_type_is(&r, "application/mb"),
	    "content type prefix is not a match");
	http_resp_release(&resp);
	http_req_release(&r);
}

static void
test_escape(void)
{
	struct buf b = BUF_INIT(0);

	html_txt(&b, "<script>alert('x\"&')</script>");
	is_str(b.data, "&lt;script&gt;alert(&#39;x&quot;&amp;&#39;)"
	    "&lt;/script&gt;", "html_txt escapes markup");
	buf_reset(&b);
	html_attr(&b, "a\"b\nc\x01");
	is_str(b.data, "a&quot;b&#10;c", "html_attr escapes quotes, newlines, "
	    "drops controls");
	buf_reset(&b);
	html_url_escape(&b, "a b/c@d");
	is_str(b.data, "a%20b%2Fc%40d", "URL escape");
	buf_release(&b);
}

static int
h_echo(struct http_req *req, struct http_resp *resp)
{
	const char *q = http_query(req, "q"), *h = http_header(req, "X-Test");

	return http_reply_json(resp, 200, json_pack("{s:s,s:s,s:I}", "q",
	    q ? q : "", "h", h ? h : "", "len", (json_int_t)req->body.len));
}

/* A large body: its length, a checksum, and whether a NUL follows it. */
static int
h_sum(struct http_req *req, struct http_resp *resp)
{
	unsigned long long sum = 0;
	size_t i;

	for (i = 0; i < req->body.len; i++)
		sum = sum * 31 + (unsigned char)req->body.data[i];
	return http_reply_json(resp, 200, json_pack("{s:I,s:I,s:b}", "len",
	    (json_int_t)req->body.len, "sum", (json_int_t)(sum >> 1),
	    "nul", req->body.data && req->body.data[req->body.len] == '\0'));
}

/* A ROUTE_BODY_FD route: a spooled body arrives as a file. */
static int
h_fdsum(struct http_req *req, struct http_resp *resp)
{
	unsigned long long sum = 0;
	unsigned char c[4096];
	size_t off = 0, i;
	ssize_t n;

	if (req->body_fd < 0)
		return http_reply_json(resp, 200, json_pack("{s:b}", "fd", 0));
	while (off < req->body.len && (n = pread(req->body_fd, c, sizeof(c),
	    off)) > 0) {
		for (i = 0; i < (size_t)n; i++)
			sum = sum * 31 + c[i];
		off += n;
	}
	return http_reply_json(resp, 200, json_pack("{s:b,s:I,s:I,s:b}", "fd",
	    1, "len", (json_int_t)off, "sum", (json_int_t)(sum >> 1), "data",
	    req->body.data != NULL));
}

static char file_path[64];

static int
h_file(struct http_req *req, struct http_resp *resp)
{
	if (http_reply_file(resp, "application/octet-stream", file_path) < 0)
		return http_reply_error(resp, 404, "no file");
	return 0;
}

static const struct route server_routes[] = {
	{ "GET", "/echo", h_echo, 0, 0 },
	{ "POST", "/echo", h_echo, 0, 0 },
	{ "POST", "/upload", h_echo, 0, 4096 },
	{ "POST", "/big", h_sum, 0, 8u << 20 },
	{ "GET", "/file", h_file, 0, 0 },
	{ "POST", "/fdbody", h_fdsum, ROUTE_BODY_FD, 8u << 20 },
	{ NULL, NULL, NULL, 0, 0 }
};
static const struct route *const server_tables[] = { server_routes, NULL };

static size_t
sink(char *p, size_t sz, size_t n, void *arg)
{
	buf_add(arg, p, sz * n);
	return sz * n;
}

/* Whether fetch asks "Expect: 100-continue" before a body, as curl does by
   itself for large ones: a body the server refuses from its headers is
   then never sent, and the answer cannot be lost to a reset of the
   connection it arrives on while the client is still writing. */
static int fetch_expect;

/* One request to the test server; returns the status, body in out. */
static long
fetch(int port, const char *method, const char *path, const char *body,
    size_t len, int chunked, struct buf *out)
{
	struct curl_slist *h = NULL;
	char url[256];
	long status = -1;
	CURL *c = curl_easy_init();

	buf_reset(out);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (!strcmp(method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	h = curl_slist_append(h, "X-Test: hello");
	h = curl_slist_append(h, fetch_expect ? "Expect: 100-continue" :
	    "Expect:");
	if (chunked)
		h = curl_slist_append(h, "Transfer-Encoding: chunked");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		if (!chunked || len)
			curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
	}
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return status;
}

/* The real server: libmicrohttpd, a thread pool, bodies and limits. */
static void
test_server(void)
{
	struct http_opts o = { "127.0.0.1", 0, 2, 100, NULL, server_tables };
	struct http_server *srv = http_start(&o);
	struct buf out = BUF_INIT(0);
	char big[5000];
	int port;

	ok(srv != NULL, "server starts on a free port");
	if (!srv)
		return;
	port = http_port(srv);
	ok(port > 0, "bound port reported (%d)", port);
	is_int(fetch(port, "GET", "/echo?q=a%20b", NULL, 0, 0, &out), 200,
	    "GET through the server");
	ok(out.data && strstr(out.data, "\"q\": \"a b\"") &&
	    strstr(out.data, "\"h\": \"hello\""),
	    "query decoded and header passed");
	is_int(fetch(port, "POST", "/echo", "0123456789", 10, 0, &out), 200,
	    "small body accepted");
	ok(out.data && strstr(out.data, "\"len\": 10"), "body read whole");
	memset(big, 'x', sizeof(big));
	is_int(fetch(port, "POST", "/echo", big, 150, 0, &out), 413,
	    "declared oversize body refused");
	ok(out.data && strstr(out.data, "limit of 100 bytes"),
	    "413 names the limit");
	is_int(fetch(port, "POST", "/echo", "0123456789012345678901234567890"
	    "123456789012345678901234567890123456789012345678901234567890123456"
	    "789012345678901234567890", 0, 1, &out), 413,
	    "chunked oversize body refused");
	is_int(fetch(port, "POST", "/upload", big, 4000, 0, &out), 200,
	    "a route's own limit raises the cap");
	ok(out.data && strstr(out.data, "\"len\": 4000"), "and reads it all");
	is_int(fetch(port, "POST", "/upload", big, 5000, 0, &out), 413,
	    "and still has one");
	is_int(fetch(port, "HEAD", "/echo", NULL, 0, 0, &out), 200,
	    "HEAD answered like GET");
	is_int(out.len, 0, "HEAD has no body");
	is_int(fetch(port, "GET", "/nope", NULL, 0, 0, &out), 404,
	    "unknown path through the server");
	http_stop(srv);
	buf_release(&out);
}

static unsigned long long
checksum(const char *p, size_t n)
{
	unsigned long long sum = 0;

	while (n--)
		sum = sum * 31 + (unsigned char)*p++;
	return sum >> 1;
}

/*
 * Bodies past 64 KiB go through the spool and reach the handler whole and
 * NUL-terminated; past max_inflight a request is a 503 naming the limit;
 * a file response is sent from its descriptor, byte for byte.
 */
static void
test_server_bounds(void)
{
	char spool[] = "/tmp/t-http-spool.XXXXXX";
	struct http_opts o = { "127.0.0.1", 0, 2, 100, NULL, server_tables,
	    spool, 3u << 20 };
	struct http_server *srv;
	struct buf out = BUF_INIT(0), want = BUF_INIT(0);
	struct http_resp resp;
	size_t n = 2u << 20, i;
	char *big = xmalloc(4u << 20), exp[128], link[80];
	int port, fd;

	ok(mkdtemp(spool) != NULL, "spool directory");
	srv = http_start(&o);
	ok(srv != NULL, "server with a spool and a 3 MiB in-flight cap");
	if (!srv)
		return;
	port = http_port(srv);
	for (i = 0; i < (4u << 20); i++)
		big[i] = (char)(i * 2654435761u >> 13);
	is_int(fetch(port, "POST", "/big", big, n, 0, &out), 200,
	    "a 2 MiB body is accepted");
	snprintf(exp, sizeof(exp), "\"len\": %zu,\n \"sum\": %llu,\n "
	    "\"nul\": true", n, checksum(big, n));
	ok(out.data && strstr(out.data, exp), "the handler sees it whole and "
	    "NUL-terminated (%s)", out.data ? out.data : "");
	is_int(fetch(port, "POST", "/big", big, 100000, 1, &out), 200,
	    "a chunked 100 kB body is accepted");
	snprintf(exp, sizeof(exp), "\"len\": 100000,\n \"sum\": %llu,",
	    checksum(big, 100000));
	ok(out.data && strstr(out.data, exp), "and read whole");
	fetch_expect = 1;
	is_int(fetch(port, "POST", "/big", big, 4u << 20, 0, &out), 503,
	    "a body over the in-flight cap is a 503");
	fetch_expect = 0;
	ok(out.data && strstr(out.data, "max_inflight (3145728 of 3145728 bytes)"),
	    "naming the limit (%s)", out.data ? out.data : "");
	is_int(fetch(port, "POST", "/big", big, (3u << 20) + 10, 1, &out), 503,
	    "so is a chunked one that grows past it");
	/* the server ends a request just after its answer is sent */
	for (i = 0; i < 100 && http_inflight(srv); i++)
		usleep(20000);
	is_int(http_inflight(srv), 0, "nothing held once requests end");
	is_int(fetch(port, "POST", "/big", big, n, 0, &out), 200,
	    "and the next body fits again");
	for (i = 0; i < 100 && http_inflight(srv); i++)
		usleep(20000);
	is_int(fetch(port, "POST", "/fdbody", big, n, 0, &out), 200,
	    "a ROUTE_BODY_FD route takes a 2 MiB body");
	snprintf(exp, sizeof(exp), "\"fd\": true,\n \"len\": %zu,\n "
	    "\"sum\": %llu,\n \"data\": false", n, checksum(big, n));
	ok(out.data && strstr(out.data, exp), "as a file, never mapped (%s)",
	    out.data ? out.data : "");

	snprintf(file_path, sizeof(file_path), "%s/artifact", spool);
	fd = open(file_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ok(fd >= 0 && write(fd, big, 3000001) == 3000001, "a 3 MB file");
	close(fd);
	is_int(fetch(port, "GET", "/file", NULL, 0, 0, &out), 200,
	    "file response");
	ok(out.len == 3000001 && !memcmp(out.data, big, out.len),
	    "sent byte for byte (%zu bytes)", out.len);
	http_resp_init(&resp);
	ok(http_reply_file(&resp, "text/plain", file_path) == 0 &&
	    resp.fd >= 0 && resp.fd_size == 3000001 && resp.body.len == 0,
	    "http_reply_file hands the server a descriptor, no buffer");
	http_resp_release(&resp);
	snprintf(link, sizeof(link), "%s/link", spool);
	ok(symlink(file_path, link) == 0, "a symlink to it");
	http_resp_init(&resp);
	ok(http_reply_file(&resp, "text/plain", link) < 0 && resp.fd < 0,
	    "a symlink is not followed");
	ok(http_reply_file(&resp, "text/plain", spool) < 0 && resp.fd < 0,
	    "a directory is not a file");
	http_resp_release(&resp);
	http_stop(srv);
	unlink(link);
	unlink(file_path);
	ok(rmdir(spool) == 0, "the spool kept no body (it is empty)");
	free(big);
	buf_release(&out);
	buf_release(&want);
}

int
main(void)
{
	test_patterns();
	test_dispatch();
	test_params();
	test_escape();
	test_server();
	test_server_bounds();
	return tap_done();
}
