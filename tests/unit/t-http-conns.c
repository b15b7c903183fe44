/*
 * t-http-conns: daemon/http_conns.c without a server: the per-prefix cap,
 * the reserved slots, proxies, and the header deadline's sweeper (on a
 * real socket pair: a connection whose headers are late is shut down).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/http_conns.h"
#include "tests/unit/tap.h"

static struct sockaddr_in
v4(const char *a)
{
	struct sockaddr_in s;

	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	inet_pton(AF_INET, a, &s.sin_addr);
	return s;
}

static int
admit(struct http_conns *c, const char *a)
{
	struct sockaddr_in s = v4(a);

	return http_conns_admit(c, (struct sockaddr *)&s, sizeof(s));
}

static struct http_conn_track *
open_from(struct http_conns *c, const char *a, int fd)
{
	struct sockaddr_in s = v4(a);

	return http_conns_opened(c, (struct sockaddr *)&s, fd);
}

/* The same for IPv6 (and IPv4-mapped) addresses. */
static struct sockaddr_in6
v6(const char *a)
{
	struct sockaddr_in6 s;

	memset(&s, 0, sizeof(s));
	s.sin6_family = AF_INET6;
	inet_pton(AF_INET6, a, &s.sin6_addr);
	return s;
}

static int
admit6(struct http_conns *c, const char *a)
{
	struct sockaddr_in6 s = v6(a);

	return http_conns_admit(c, (struct sockaddr *)&s, sizeof(s));
}

static struct http_conn_track *
open6(struct http_conns *c, const char *a)
{
	struct sockaddr_in6 s = v6(a);

	return http_conns_opened(c, (struct sockaddr *)&s, -1);
}

/* An IPv6 /64 is one prefix for per_prefix, as an IPv4 /24 is, and an
   IPv4 client of a dual-stack socket counts with its /24. */
static void
test_caps6(void)
{
	struct http_conns_opts o = { .max_connections = 100, .per_prefix = 5,
	    .reserved = 0, .header_timeout = 100 };
	struct http_conns *c = http_conns_start(&o);
	struct http_conn_track *t[20];
	char a[64];
	int i, n = 0;

	for (i = 0; i < 8; i++) {
		snprintf(a, sizeof(a), "2001:db8:1:2::%x", i + 1);
		if (admit6(c, a))
			t[n++] = open6(c, a);
	}
	is_int(n, 5, "one /64: 5 of 8 addresses let in (per_prefix 5)");
	ok(admit6(c, "2001:db8:1:3::1"), "another /64 is let in");
	for (i = 0; i < 5; i++) {
		snprintf(a, sizeof(a), "192.0.2.%d", i + 1);
		t[n++] = open_from(c, a, -1);
	}
	ok(!admit6(c, "::ffff:192.0.2.99"), "an IPv4-mapped address counts "
	    "with its IPv4 /24, full here");
	ok(admit6(c, "::ffff:192.0.3.1"), "and another /24 is let in");
	while (n)
		http_conns_closed(c, t[--n]);
	http_conns_stop(c);
}

static void
test_caps(void)
{
	static const char *const proxies[] = { "192.0.2.50" };
	struct http_conns_opts o = { .max_connections = 60, .per_prefix = 30,
	    .reserved = 10, .header_timeout = 100, .proxies = proxies,
	    .nproxies = 1 };
	struct http_conns *c = http_conns_start(&o);
	struct http_conn_track *t[70];
	char a[32];
	int i, n = 0, refused = 0;

	http_conns_trust(c, "127.0.2.1", "agent:a1", 1);
	for (i = 0; i < 40; i++) {
		snprintf(a, sizeof(a), "127.0.5.%d", i + 2);
		if (admit(c, a))
			t[n++] = open_from(c, a, -1);
		else
			refused++;
	}
	is_int(n, 30, "one /24: 30 of 40 let in (per_prefix 30)");
	for (i = 0; i < 40; i++) {
		snprintf(a, sizeof(a), "127.0.6.%d", i + 2);
		if (admit(c, a))
			t[n++] = open_from(c, a, -1);
	}
	is_int(n, 50, "a second /24: 20 more, then the last 10 slots are "
	    "kept");
	ok(!admit(c, "198.51.100.1"), "an address that never authenticated "
	    "is refused the reserve");
	ok(admit(c, "127.0.2.1"), "an address that authenticated gets it");
	/* a submitter authenticating from 300 addresses: at most 4 kept,
	   and never in the agents' half */
	for (i = 0; i < 300; i++) {
		snprintf(a, sizeof(a), "127.1.%d.%d", i / 200, i % 200 + 2);
		http_conns_trust(c, a, "user:alice", 0);
	}
	ok(admit(c, "127.0.2.1"), "a submitter's 300 addresses do not push "
	    "the agent's address out of the reserve");
	ok(admit(c, "127.1.1.99") && !admit(c, "127.1.0.2"),
	    "and only her last four addresses are kept");
	ok(admit(c, "192.0.2.50"), "and so does a configured proxy");
	for (i = 0; i < 10; i++)
		t[n++] = open_from(c, "127.0.2.1", -1);
	ok(!admit(c, "127.0.2.1") && !admit(c, "192.0.2.50"),
	    "at max_connections nobody is let in");
	is_int(http_conns_open_now(c), 60, "60 open");
	while (n)
		http_conns_closed(c, t[--n]);
	ok(admit(c, "198.51.100.1"), "all closed: anyone again");
	http_conns_stop(c);
}

static void
test_header_deadline(void)
{
	struct http_conns_opts o = { .max_connections = 10, .per_prefix = 10,
	    .reserved = 1, .header_timeout = 1 };
	struct http_conns *c = http_conns_start(&o);
	struct http_conn_track *late, *done;
	int late_fd[2], done_fd[2];
	char ch;

	socketpair(AF_UNIX, SOCK_STREAM, 0, late_fd);
	socketpair(AF_UNIX, SOCK_STREAM, 0, done_fd);
	late = open_from(c, "127.0.0.1", late_fd[0]);
	done = open_from(c, "127.0.0.2", done_fd[0]);
	http_conns_headers_done(c, done);
	sleep(3);
	ok(read(late_fd[1], &ch, 1) == 0, "headers late past header_timeout: "
	    "the connection is shut down");
	ok(send(done_fd[1], "x", 1, MSG_DONTWAIT) == 1 &&
	    recv(done_fd[0], &ch, 1, MSG_DONTWAIT) == 1,
	    "one whose headers came in time is left alone");
	http_conns_closed(c, late);
	http_conns_closed(c, done);
	http_conns_stop(c);
	close(late_fd[0]);
	close(late_fd[1]);
	close(done_fd[0]);
	close(done_fd[1]);
}

/* An answer read a byte now and then: cut at response_timeout; one read
   in time, or a connection between requests, is left alone. */
static void
test_response_deadline(void)
{
	struct http_conns_opts o = { .max_connections = 10, .per_prefix = 10,
	    .reserved = 1, .header_timeout = 100, .response_timeout = 1 };
	struct http_conns *c = http_conns_start(&o);
	struct http_conn_track *slow, *quick;
	int slow_fd[2], quick_fd[2];
	char ch;

	socketpair(AF_UNIX, SOCK_STREAM, 0, slow_fd);
	socketpair(AF_UNIX, SOCK_STREAM, 0, quick_fd);
	slow = open_from(c, "127.0.0.1", slow_fd[0]);
	quick = open_from(c, "127.0.0.2", quick_fd[0]);
	http_conns_headers_done(c, slow);
	http_conns_headers_done(c, quick);
	http_conns_responding(c, slow);
	http_conns_responding(c, quick);
	http_conns_request_done(c, quick);	/* read whole, at once */
	sleep(3);
	ok(read(slow_fd[1], &ch, 1) == 0, "an answer not read within "
	    "response_timeout: the connection is shut down");
	ok(send(quick_fd[1], "x", 1, MSG_DONTWAIT) == 1 &&
	    recv(quick_fd[0], &ch, 1, MSG_DONTWAIT) == 1,
	    "one read in time is left alone");
	http_conns_closed(c, slow);
	http_conns_closed(c, quick);
	http_conns_stop(c);
	close(slow_fd[0]);
	close(slow_fd[1]);
	close(quick_fd[0]);
	close(quick_fd[1]);
}

int
main(void)
{
	test_caps();
	test_caps6();
	test_header_deadline();
	test_response_deadline();
	return tap_done();
}
