/*
 * http-load: a small HTTP/1.1 load client for the HTTP benchmarks
 * (tests/bench/http.sh).  One thread, epoll, non-blocking sockets.
 *
 *	http-load [-m MODE] [-c CONNS] [-d SECONDS] [-b SRCADDR] [-f PATHS]
 *	    [-u PATH]... HOST PORT
 *
 * Modes:
 *	get	CONNS keep-alive connections, each sending GETs in turn over
 *		the paths (-u, or one per line of -f) until SECONDS pass;
 *		prints requests, errors, requests/s and latency p50/p99/max
 *		(from the request written to the whole response read)
 *	idle	CONNS connections that send nothing (a connection flood);
 *		each reconnects when the server closes it
 *	slow	CONNS connections that send a request header one byte every
 *		5 s and never finish it (slowloris); each reconnects when
 *		closed
 * -b binds the client side to SRCADDR (127.0.0.2: another "client" on
 * loopback, so a per-address limit hit by one mode does not hit the
 * other).  Only figures are printed; nothing is asserted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { M_GET, M_IDLE, M_SLOW };

struct conn {
	int	 fd;
	int	 connected;
	char	 req[512];
	size_t	 reqlen, sent;
	char	*in;
	size_t	 inlen, incap;
	double	 t0;			/* request started */
	double	 next;			/* slow: next byte due */
	size_t	 path;
};

static struct sockaddr_in dst, src;
static int use_src, mode = M_GET, epfd;
static char **paths;
static size_t npaths, next_path;
static const char *host;
static double *lat;
static size_t nlat, latcap;
static unsigned long nerr, nconnect, nclosed, status_bad;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
conn_request(struct conn *c)
{
	c->path = next_path++ % npaths;
	if (mode == M_SLOW)
		c->reqlen = snprintf(c->req, sizeof(c->req), "GET / HTTP/1.1"
		    "\r\nHost: %s\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		    host);
	else
		c->reqlen = snprintf(c->req, sizeof(c->req), "GET %s HTTP/1.1"
		    "\r\nHost: %s\r\nUser-Agent: http-load\r\n\r\n",
		    paths[c->path], host);
	c->sent = 0;
	c->inlen = 0;
	c->t0 = now();
	c->next = c->t0;
}

static int
conn_open(struct conn *c)
{
	struct epoll_event ev = { 0 };
	int one = 1;

	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (use_src && bind(c->fd, (struct sockaddr *)&src, sizeof(src)) < 0) {
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	if (connect(c->fd, (struct sockaddr *)&dst, sizeof(dst)) < 0 &&
	    errno != EINPROGRESS) {
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	c->connected = 0;
	nconnect++;
	/* edge-triggered: EPOLLOUT once when connected, then only after a
	   full send buffer drains */
	ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
	ev.data.ptr = c;
	epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev);
	conn_request(c);
	return 0;
}

static void
conn_close(struct conn *c, int error)
{
	if (c->fd >= 0) {
		epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	c->fd = -1;
	nclosed++;
	if (error)
		nerr++;
}

static void
lat_add(double v)
{
	if (nlat == latcap) {
		latcap = latcap ? latcap * 2 : 65536;
		lat = realloc(lat, latcap * sizeof(*lat));
	}
	lat[nlat++] = v;
}

/* 1 when c->in holds a whole response (status in *st). */
static int
response_done(struct conn *c, int *st)
{
	char *hend, *cl;
	size_t hlen, blen;

	if (c->inlen < 12)
		return 0;
	c->in[c->inlen] = '\0';
	hend = strstr(c->in, "\r\n\r\n");
	if (!hend)
		return 0;
	hlen = hend + 4 - c->in;
	*st = atoi(c->in + 9);
	cl = strcasestr(c->in, "\r\nContent-Length:");
	if (!cl || cl > hend)
		return 1;	/* no body (MHD always sends a length) */
	blen = strtoull(cl + 17, NULL, 10);
	return c->inlen >= hlen + blen;
}

static void conn_write(struct conn *);

static void
conn_read(struct conn *c)
{
	ssize_t n;
	int st;

	for (;;) {
		if (c->incap - c->inlen < 65537) {
			c->incap = c->incap * 2 + 131072;
			c->in = realloc(c->in, c->incap);
		}
		n = read(c->fd, c->in + c->inlen, c->incap - c->inlen - 1);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			conn_close(c, mode == M_GET);
			return;
		}
		if (mode != M_GET) {
			c->inlen = 0;	/* an error page: the server refused */
			continue;
		}
		c->inlen += n;
		if (response_done(c, &st)) {
			lat_add(now() - c->t0);
			if (st < 200 || st > 299)
				status_bad++;
			conn_request(c);
			conn_write(c);
			return;
		}
	}
}

static void
conn_write(struct conn *c)
{
	ssize_t n;
	size_t want;

	c->connected = 1;
	if (mode == M_IDLE || c->sent >= c->reqlen)
		return;
	want = c->reqlen - c->sent;
	if (mode == M_SLOW) {
		if (now() < c->next)
			return;
		want = 1;
		c->next = now() + 5;
	}
	n = write(c->fd, c->req + c->sent, want);
	if (n > 0)
		c->sent += n;
	else if (n < 0 && errno != EAGAIN && errno != EINTR)
		conn_close(c, mode == M_GET);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
add_path(const char *p)
{
	paths = realloc(paths, (npaths + 1) * sizeof(*paths));
	paths[npaths++] = strdup(p);
}

static void
read_paths(const char *file)
{
	char line[1024];
	FILE *f = fopen(file, "r");

	if (!f) {
		perror(file);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (*line)
			add_path(line);
	}
	fclose(f);
}

static void
report(double secs, unsigned nconns)
{
	const char *m[] = { "get", "idle", "slow" };

	if (mode != M_GET) {
		printf("%s: %u connections held, %lu opened, %lu closed by the "
		    "server\n", m[mode], nconns, nconnect, nclosed);
		return;
	}
	qsort(lat, nlat, sizeof(*lat), cmp_double);
	printf("%lu requests in %.1f s: %.0f req/s, p50 %.2f ms, p99 %.2f ms, "
	    "max %.2f ms; %lu non-2xx, %lu connection errors (%u conns)\n",
	    (unsigned long)nlat, secs, nlat / secs,
	    nlat ? lat[nlat / 2] * 1e3 : 0,
	    nlat ? lat[(size_t)(nlat * 0.99)] * 1e3 : 0,
	    nlat ? lat[nlat - 1] * 1e3 : 0, status_bad, nerr, nconns);
}

int
main(int argc, char **argv)
{
	struct epoll_event evs[256];
	struct conn *cs;
	unsigned nconns = 16, i;
	double secs = 5, t0, end, last_reopen = 0;
	int ch, n, k;

	while ((ch = getopt(argc, argv, "m:c:d:b:f:u:")) != -1) {
		switch (ch) {
		case 'm':
			mode = !strcmp(optarg, "idle") ? M_IDLE :
			    !strcmp(optarg, "slow") ? M_SLOW : M_GET;
			break;
		case 'c': nconns = atoi(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'b':
			use_src = 1;
			src.sin_family = AF_INET;
			inet_pton(AF_INET, optarg, &src.sin_addr);
			break;
		case 'f': read_paths(optarg); break;
		case 'u': add_path(optarg); break;
		default:
			fprintf(stderr, "usage: http-load [-m get|idle|slow] "
			    "[-c N] [-d S] [-b ADDR] [-f FILE] [-u PATH] HOST "
			    "PORT\n");
			return 2;
		}
	}
	if (argc - optind != 2)
		return 2;
	if (npaths == 0)
		add_path("/healthz");
	host = argv[optind];
	dst.sin_family = AF_INET;
	dst.sin_port = htons(atoi(argv[optind + 1]));
	inet_pton(AF_INET, host, &dst.sin_addr);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	cs = calloc(nconns, sizeof(*cs));
	for (i = 0; i < nconns; i++) {
		cs[i].fd = -1;
		conn_open(&cs[i]);
	}
	t0 = now();
	end = t0 + secs;
	while (now() < end) {
		n = epoll_wait(epfd, evs, 256, 100);
		for (k = 0; k < n; k++) {
			struct conn *c = evs[k].data.ptr;

			if (c->fd < 0)
				continue;
			if (evs[k].events & (EPOLLERR | EPOLLHUP)) {
				conn_close(c, mode == M_GET);
				continue;
			}
			if (evs[k].events & EPOLLIN)
				conn_read(c);
			if (c->fd >= 0 && (evs[k].events & EPOLLOUT))
				conn_write(c);
		}
		if (mode == M_SLOW)
			for (i = 0; i < nconns; i++)
				if (cs[i].fd >= 0 && cs[i].connected)
					conn_write(&cs[i]);
		/* closed connections come back (a flood does not give up):
		   at once for get, every 0.5 s for the attack modes, so the
		   attacker's own CPU (on the same machine) does not decide
		   the figures */
		if (now() - last_reopen > (mode == M_GET ? 0.01 : 0.5)) {
			last_reopen = now();
			for (i = 0; i < nconns; i++)
				if (cs[i].fd < 0)
					conn_open(&cs[i]);
		}
	}
	report(now() - t0, nconns);
	return 0;
}
