/*
 * t-http-client: lib/http_client.c against a tiny HTTP server on loopback
 * started here (one thread, one connection at a time): what is sent
 * (method, body, user agent, bearer token, content type, no Expect), the
 * status and body that come back, the byte cap (announced and not), a
 * redirect handed back and not followed, file:// refused, a refused
 * connection, FAILONERROR, a sink that stops, and the total timeout.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/http_client.h"
#include "tests/unit/tap.h"

static int srv_fd, srv_port, srv_requests;
static char last[65536];	/* the last request, headers and body */

static void
srv_send(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void
srv_reply(int fd, const char *status, const char *extra, const char *body,
    size_t blen, int announce)
{
	char head[1024];
	int n;

	n = snprintf(head, sizeof(head), "HTTP/1.1 %s\r\n%s", status, extra);
	if (announce)
		n += snprintf(head + n, sizeof(head) - n,
		    "Content-Length: %zu\r\n", blen);
	n += snprintf(head + n, sizeof(head) - n, "Connection: close\r\n\r\n");
	srv_send(fd, head, (size_t)n);
	srv_send(fd, body, blen);
}

/*
 * Reads one request: its head and as much of the body as fits into last[],
 * the rest drained (srv_body counts all of it); its path (256 bytes) into
 * path.
 */
static size_t srv_body;

static int
srv_read(int fd, char *path)
{
	static char drain[65536];
	size_t got = 0, head = 0, need = 0;
	char *end, *cl;
	ssize_t r;

	last[0] = '\0';
	while (!head) {
		if (got >= sizeof(last) - 1)
			return -1;
		r = read(fd, last + got, sizeof(last) - 1 - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
		last[got] = '\0';
		if (!(end = strstr(last, "\r\n\r\n")))
			continue;
		head = (size_t)(end + 4 - last);
		if ((cl = strcasestr(last, "\r\nContent-Length: ")) && cl < end)
			need = strtoul(cl + 18, NULL, 10);
	}
	srv_body = got - head;
	while (srv_body < need) {
		size_t room = sizeof(last) - 1 - got;
		char *to = room ? last + got : drain;

		r = read(fd, to, room ? room : sizeof(drain));
		if (r <= 0)
			return -1;
		if (room) {
			got += (size_t)r;
			last[got] = '\0';
		}
		srv_body += (size_t)r;
	}
	if (sscanf(last, "%*s %255s", path) != 1)
		return -1;
	return 0;
}

static void *
srv_main(void *arg)
{
	static char big[2000];
	char path[256];
	int fd;

	memset(big, 'x', sizeof(big));
	while ((fd = accept(srv_fd, NULL, NULL)) >= 0) {
		srv_requests++;
		if (srv_read(fd, path) < 0) {
			close(fd);
			continue;
		}
		if (!strcmp(path, "/hello"))
			srv_reply(fd, "200 OK", "", "hello", 5, 1);
		else if (!strcmp(path, "/echo")) {
			char *b = strstr(last, "\r\n\r\n") + 4;
			srv_reply(fd, "201 Created", "", b, strlen(b), 1);
		} else if (!strcmp(path, "/count")) {
			char n[32];

			snprintf(n, sizeof(n), "%zu", srv_body);
			srv_reply(fd, "200 OK", "", n, strlen(n), 1);
		} else if (!strcmp(path, "/big"))
			srv_reply(fd, "200 OK", "", big, sizeof(big), 1);
		else if (!strcmp(path, "/bigclose"))
			srv_reply(fd, "200 OK", "", big, sizeof(big), 0);
		else if (!strcmp(path, "/redirect"))
			srv_reply(fd, "302 Found", "Location: /hello\r\n", "", 0,
			    1);
		else if (!strcmp(path, "/slow")) {
			sleep(3);
			srv_reply(fd, "200 OK", "", "late", 4, 1);
		} else
			srv_reply(fd, "404 Not Found", "", "no", 2, 1);
		close(fd);
	}
	return NULL;
}

static void
srv_start(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	pthread_t t;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	srv_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (srv_fd < 0 || bind(srv_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(srv_fd, 8) < 0 ||
	    getsockname(srv_fd, (struct sockaddr *)&a, &al) < 0) {
		perror("t-http-client: server");
		exit(1);
	}
	srv_port = ntohs(a.sin_port);
	pthread_create(&t, NULL, srv_main, NULL);
	pthread_detach(t);
}

static char *
url(const char *path)
{
	static char u[256];

	snprintf(u, sizeof(u), "http://127.0.0.1:%d%s", srv_port, path);
	return u;
}

/* A refused port: bound, never listened on. */
static int
dead_port(int *fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*fd = socket(AF_INET, SOCK_STREAM, 0);
	bind(*fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(*fd, (struct sockaddr *)&a, &al);
	return ntohs(a.sin_port);
}

static int stop_after;

static int
sink_count(void *arg, const void *p, size_t n)
{
	size_t *got = arg;

	if (*got + n > (size_t)stop_after)
		return -1;
	*got += n;
	return 0;
}

int
main(void)
{
	struct buf out = BUF_INIT(1000), err = BUF_INIT(4096);
	struct httpc h;
	struct httpc_resp resp;
	int r;

	httpc_global_init();
	srv_start();
	ok(httpc_init(&h) == 0, "a handle");

	/* GET: status, body, what was sent */
	{
		struct httpc_req req = { .url = url("/hello"),
		    .user_agent = "kperfci-test/1", .token = "s3cret",
		    .out = &out };

		r = httpc_request(&h, &req, &resp, &err);
		is_int(r, 0, "GET answered");
		is_int(resp.status, 200, "status 200");
		is_str(out.data, "hello", "body in the buffer");
		ok(!strncmp(last, "GET /hello HTTP/1.1\r\n", 21), "a GET");
		ok(strstr(last, "\r\nUser-Agent: kperfci-test/1\r\n") != NULL,
		    "user agent sent");
		ok(strstr(last, "\r\nAuthorization: Bearer s3cret\r\n") != NULL,
		    "bearer token sent");
		ok(!strcasestr(last, "Content-Type:"), "no content type of ours");
		httpc_resp_release(&resp);
	}
	/* POST and PUT with a body; no user agent when none is asked for */
	{
		static const char body[] = "{\"a\":1}";
		struct httpc_req req = { .url = url("/echo"),
		    .content_type = "application/json", .body = body,
		    .len = strlen(body), .token = "", .out = &out };

		buf_reset(&out);
		r = httpc_request(&h, &req, &resp, &err);
		is_int(r, 0, "POST answered");
		is_int(resp.status, 201, "status 201");
		is_str(out.data, body, "the body went and came back");
		ok(!strncmp(last, "POST /echo HTTP/1.1\r\n", 21), "a POST");
		ok(strstr(last, "\r\nContent-Type: application/json\r\n") != NULL,
		    "content type sent");
		ok(strstr(last, "\r\nAuthorization: Bearer \r\n") != NULL,
		    "an empty token is still sent");
		ok(!strcasestr(last, "\r\nUser-Agent:"), "no user agent");
		httpc_resp_release(&resp);

		req.method = "PUT";
		buf_reset(&out);
		r = httpc_request(&h, &req, &resp, &err);
		ok(r == 0 && !strncmp(last, "PUT /echo HTTP/1.1\r\n", 20) &&
		    !strcmp(out.data, body), "a PUT with its body");
		httpc_resp_release(&resp);

		/* large enough that libcurl would ask "Expect: 100-continue" */
		{
			size_t n = 3u << 20;
			char *big = malloc(n);

			memset(big, 'y', n);
			req.method = NULL;
			req.url = url("/count");
			req.body = big;
			req.len = n;
			buf_reset(&out);
			r = httpc_request(&h, &req, &resp, &err);
			ok(r == 0 && !strcmp(out.data, "3145728"),
			    "a 3 MiB body went whole");
			ok(!strcasestr(last, "\r\nExpect:"), "without Expect:");
			httpc_resp_release(&resp);
			free(big);
			req.url = url("/echo");
		}

		req.method = "POST";
		req.body = NULL;
		req.len = 0;
		req.content_type = NULL;
		r = httpc_request(&h, &req, &resp, &err);
		ok(r == 0 && !strncmp(last, "POST /echo HTTP/1.1\r\n", 21),
		    "a POST without a body");
		httpc_resp_release(&resp);
	}
	/* the cap: announced, not announced, and max_bytes below out's max */
	{
		struct httpc_req req = { .url = url("/big"), .out = &out };

		buf_reset(&out);
		buf_reset(&err);
		r = httpc_request(&h, &req, &resp, &err);
		ok(r == -1 && resp.too_large, "announced body over the cap refused");
		is_str(err.data, "response too large", "and named");
		is_str(resp.reason, "response too large", "short reason too");
		is_int(out.len, 0, "nothing read");
		httpc_resp_release(&resp);

		req.url = url("/bigclose");
		buf_reset(&out);
		buf_reset(&err);
		r = httpc_request(&h, &req, &resp, &err);
		ok(r == -1 && resp.too_large, "unannounced body over the cap stopped");
		is_str(err.data, "response too large", "and named");
		ok(out.len <= 1000, "no more than the cap kept");
		httpc_resp_release(&resp);

		req.url = url("/hello");
		req.max_bytes = 3;
		buf_reset(&out);
		r = httpc_request(&h, &req, &resp, NULL);
		ok(r == -1 && resp.too_large, "max_bytes caps below out's max");
		httpc_resp_release(&resp);
	}
	/* a redirect comes back, not followed */
	{
		struct httpc_req req = { .url = url("/redirect"), .out = &out };
		int before = srv_requests;

		buf_reset(&out);
		r = httpc_request(&h, &req, &resp, &err);
		is_int(r, 0, "redirect answered");
		is_int(resp.status, 302, "status 302");
		is_str(resp.location, url("/hello"), "its absolute target");
		is_int(srv_requests - before, 1, "not followed");
		httpc_resp_release(&resp);
	}
	/* 404: an answer; with fail_on_error a failure that keeps the status */
	{
		struct httpc_req req = { .url = url("/nothing"), .out = &out };

		buf_reset(&out);
		r = httpc_request(&h, &req, &resp, &err);
		ok(r == 0 && resp.status == 404, "404 is an answer");
		ok(resp.location == NULL, "no location");
		httpc_resp_release(&resp);
		req.fail_on_error = 1;
		buf_reset(&err);
		r = httpc_request(&h, &req, &resp, &err);
		ok(r == -1 && resp.status == 404, "fail_on_error: -1, status kept");
		ok(strstr(err.data, "404") != NULL, "curl's sentence names it");
		httpc_resp_release(&resp);
	}
	/* a sink that stops */
	{
		size_t got = 0;
		struct httpc_req req = { .url = url("/hello"),
		    .sink = sink_count, .sink_arg = &got };

		stop_after = 100;
		r = httpc_request(&h, &req, &resp, NULL);
		ok(r == 0 && got == 5, "sink gets the body");
		httpc_resp_release(&resp);
		stop_after = 2;
		got = 0;
		r = httpc_request(&h, &req, &resp, NULL);
		ok(r == -1 && resp.sink_refused && !resp.too_large,
		    "sink's -1 stops the transfer");
		ok(resp.reason && *resp.reason, "with libcurl's reason");
		httpc_resp_release(&resp);
	}
	/* only http and https */
	{
		struct httpc_req req = { .url = "file:///etc/passwd", .out = &out };
		struct httpc_req ftp = { .url = "ftp://127.0.0.1/x", .out = &out };

		buf_reset(&out);
		buf_reset(&err);
		r = httpc_request(&h, &req, &resp, &err);
		ok(r == -1 && out.len == 0, "file:// refused, nothing read");
		ok(strcasestr(err.data, "protocol") != NULL, "named: %s", err.data);
		httpc_resp_release(&resp);
		r = httpc_request(&h, &ftp, &resp, NULL);
		ok(r == -1 && resp.status == 0, "ftp:// refused");
		httpc_resp_release(&resp);
	}
	/* nobody there */
	{
		int fd, port = dead_port(&fd);
		char u[128];
		struct httpc_req req = { .url = u, .out = &out };

		snprintf(u, sizeof(u), "http://127.0.0.1:%d/", port);
		buf_reset(&err);
		r = httpc_request(&h, &req, &resp, &err);
		ok(r == -1 && resp.status == 0, "refused connection: -1, no status");
		ok(err.len > 0 && resp.reason && strcmp(err.data, resp.reason),
		    "a detailed sentence and a short one");
		httpc_resp_release(&resp);
		close(fd);
	}
	/* the total timeout (last: the server sleeps through it) */
	{
		struct httpc_req req = { .url = url("/slow"), .timeout = 1,
		    .out = &out };

		buf_reset(&err);
		r = httpc_request(&h, &req, &resp, &err);
		ok(r == -1 && strcasestr(err.data, "timed out"),
		    "timeout: %s", err.data);
		httpc_resp_release(&resp);
	}
	httpc_release(&h);
	httpc_release(&h);
	ok(h.curl == NULL, "release twice is harmless");
	buf_release(&out);
	buf_release(&err);
	return tap_done();
}
