/*
 * http_conns: connection accounting per prefix, the reserved slots and the
 * header deadline (see http_conns.h).
 *
 * DESIGN: one mutex guards everything here: the per-prefix counts (a
 * chained hash, an entry freed when its count drops to 0), the list of
 * open connections with their header clocks, and the known addresses (a
 * small table, oldest replaced).  Every operation is O(1) but the
 * sweeper's walk, which runs once a second on its own thread and only
 * calls shutdown(2): the fd stays open and valid while the connection is
 * on the list, because MHD reports the close (http_conns_closed, which
 * takes the mutex) before it closes the socket.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "daemon/http_conns.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#define CONNS_BUCKETS	1024
#define CONNS_KNOWN	256		/* authenticated addresses kept: the
					   first half for agents, the second
					   for submitters */
#define CONNS_PER_OWNER	4		/* addresses one principal may hold */
#define CONNS_KNOWN_FOR	3600		/* seconds one stays known */

struct conns_prefix {
	struct conns_prefix *next;
	unsigned char key[9];		/* family, then /24 or /64 */
	unsigned count;
};

struct http_conn_track {
	struct http_conn_track *prev, *next;
	struct conns_prefix *prefix;
	int	 fd;
	int	 in_headers;		/* the clock runs */
	int	 cut;			/* shut down once */
	int	 idle;			/* between requests: the idle timeout
					   comes first */
	time_t	 since;
	int	 responding;		/* an answer is being read */
	time_t	 resp_since;
};

struct conns_known {
	unsigned char addr[16];
	int	 family;
	time_t	 at;
	unsigned long seq;		/* order of entry: the oldest goes */
	char	 owner[80];		/* the principal that authenticated */
};

#define CONNS_PROXIES	16

struct http_conns {
	struct http_conns_opts o;
	struct conns_known proxy[CONNS_PROXIES];
	size_t	 nproxy;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t sweeper;
	int	 stopping;
	struct conns_prefix *bucket[CONNS_BUCKETS];
	struct http_conn_track *open;
	unsigned nopen;
	struct conns_known known[CONNS_KNOWN];
	unsigned long known_seq;
	time_t	 warned[4];		/* prefix, reserve, headers, answers */
};

/* The prefix key of sa: 0, or -1 for a family other than IPv4/IPv6. */
static int
conns_key(const struct sockaddr *sa, unsigned char key[9])
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
	const unsigned char *a6;

	memset(key, 0, 9);
	if (sa->sa_family == AF_INET) {
		key[0] = 4;
		memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr,
		    3);
		return 0;
	}
	if (sa->sa_family != AF_INET6)
		return -1;
	a6 = s6->sin6_addr.s6_addr;
	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		key[0] = 4;
		memcpy(key + 1, a6 + 12, 3);
		return 0;
	}
	key[0] = 6;
	memcpy(key + 1, a6, 8);
	return 0;
}

static unsigned
conns_hash(const unsigned char key[9])
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 9; i++)
		h = (h ^ key[i]) * 16777619u;
	return h % CONNS_BUCKETS;
}

/* The entry of key (created with count 0 when create). */
static struct conns_prefix *
conns_prefix(struct http_conns *c, const unsigned char key[9], int create)
{
	struct conns_prefix **b = &c->bucket[conns_hash(key)], *p;

	for (p = *b; p; p = p->next)
		if (!memcmp(p->key, key, 9))
			return p;
	if (!create)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	memcpy(p->key, key, 9);
	p->next = *b;
	*b = p;
	return p;
}

static void
conns_prefix_put(struct http_conns *c, struct conns_prefix *p)
{
	struct conns_prefix **b;

	if (--p->count)
		return;
	for (b = &c->bucket[conns_hash(p->key)]; *b != p; b = &(*b)->next)
		;
	*b = p->next;
	free(p);
}

/* The address bytes of sa (IPv4-mapped IPv6 as IPv4): its family. */
static int
conns_addr(const struct sockaddr *sa, unsigned char a[16])
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

	memset(a, 0, 16);
	if (sa->sa_family == AF_INET) {
		memcpy(a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return AF_INET;
	}
	if (sa->sa_family != AF_INET6)
		return -1;
	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memcpy(a, s6->sin6_addr.s6_addr + 12, 4);
		return AF_INET;
	}
	memcpy(a, s6->sin6_addr.s6_addr, 16);
	return AF_INET6;
}

/* 1 if sa is a configured proxy. */
static int
conns_is_proxy(const struct http_conns *c, const struct sockaddr *sa)
{
	unsigned char a[16];
	int fam = conns_addr(sa, a);

	for (size_t i = 0; fam >= 0 && i < c->nproxy; i++)
		if (c->proxy[i].family == fam && !memcmp(c->proxy[i].addr, a,
		    16))
			return 1;
	return 0;
}

/* 1 if sa may use the reserved slots (lock held). */
static int
conns_is_known(struct http_conns *c, const struct sockaddr *sa)
{
	unsigned char a[16];
	int fam = conns_addr(sa, a);
	time_t now = time(NULL);

	if (fam < 0)
		return 0;
	if (conns_is_proxy(c, sa))
		return 1;
	if (c->o.trust_loopback && ((fam == AF_INET && a[0] == 127) ||
	    (fam == AF_INET6 && !memcmp(a, &in6addr_loopback, 16))))
		return 1;
	for (size_t i = 0; i < CONNS_KNOWN; i++)
		if (c->known[i].family == fam && !memcmp(c->known[i].addr, a,
		    16) && now - c->known[i].at < CONNS_KNOWN_FOR)
			return 1;
	return 0;
}

/* 1 when the warning of kind which may be logged (once a minute). */
static int
conns_warn(struct http_conns *c, int which)
{
	time_t now = time(NULL);

	if (now - c->warned[which] < 60)
		return 0;
	c->warned[which] = now;
	return 1;
}

int
http_conns_admit(struct http_conns *c, const struct sockaddr *sa,
    socklen_t len)
{
	unsigned char key[9];
	struct conns_prefix *p;
	int ok = 1;

	if (conns_key(sa, key) < 0)
		return 1;
	pthread_mutex_lock(&c->lock);
	p = conns_prefix(c, key, 0);
	if (c->nopen >= c->o.max_connections) {
		ok = 0;
	} else if (conns_is_proxy(c, sa)) {
		ok = 1;
	} else if (p && p->count >= c->o.per_prefix) {
		if (conns_warn(c, 0))
			log_warnx("http: a /24 or /64 holds %u connections "
			    "([http] per_prefix_connections %u): refusing more "
			    "from it", p->count, c->o.per_prefix);
		ok = 0;
	} else if (c->nopen + c->o.reserved >= c->o.max_connections &&
	    !conns_is_known(c, sa)) {
		if (conns_warn(c, 1))
			log_warnx("http: %u connections open: the last %u are "
			    "kept for agents and submitters ([http] "
			    "reserved_connections)", c->nopen, c->o.reserved);
		ok = 0;
	}
	pthread_mutex_unlock(&c->lock);
	return ok;
}

struct http_conn_track *
http_conns_opened(struct http_conns *c, const struct sockaddr *sa, int fd)
{
	struct http_conn_track *t;
	unsigned char key[9];

	if (!sa || conns_key(sa, key) < 0)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->fd = fd;
	t->in_headers = 1;
	t->since = time(NULL);
	pthread_mutex_lock(&c->lock);
	t->prefix = conns_prefix(c, key, 1);
	t->prefix->count++;
	t->next = c->open;
	if (c->open)
		c->open->prev = t;
	c->open = t;
	c->nopen++;
	pthread_mutex_unlock(&c->lock);
	return t;
}

void
http_conns_closed(struct http_conns *c, struct http_conn_track *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&c->lock);
	if (t->prev)
		t->prev->next = t->next;
	else
		c->open = t->next;
	if (t->next)
		t->next->prev = t->prev;
	c->nopen--;
	conns_prefix_put(c, t->prefix);
	pthread_mutex_unlock(&c->lock);
	free(t);
}

void
http_conns_headers_done(struct http_conns *c, struct http_conn_track *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&c->lock);
	t->in_headers = 0;
	pthread_mutex_unlock(&c->lock);
}

void
http_conns_request_done(struct http_conns *c, struct http_conn_track *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&c->lock);
	t->in_headers = 1;
	t->idle = 1;
	t->since = time(NULL);
	t->responding = 0;
	pthread_mutex_unlock(&c->lock);
}

void
http_conns_responding(struct http_conns *c, struct http_conn_track *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&c->lock);
	t->responding = 1;
	t->resp_since = time(NULL);
	pthread_mutex_unlock(&c->lock);
}

/* The address bytes of a printed address (IPv4-mapped IPv6 as IPv4):
   its family, or -1.  Parsed into plain address structs: writing a
   sockaddr_storage and reading it back as a sockaddr broke under -O2's
   strict aliasing (the family read before it was stored). */
static int
conns_parse(const char *peer, unsigned char a[16])
{
	struct in6_addr in6;
	struct in_addr in4;

	memset(a, 0, 16);
	if (inet_pton(AF_INET, peer, &in4) == 1) {
		memcpy(a, &in4, 4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, peer, &in6) != 1)
		return -1;
	if (IN6_IS_ADDR_V4MAPPED(&in6)) {
		memcpy(a, in6.s6_addr + 12, 4);
		return AF_INET;
	}
	memcpy(a, in6.s6_addr, 16);
	return AF_INET6;
}

/*
 * Where peer goes in known[]: its own entry in its half if it has one,
 * else (when owner already holds CONNS_PER_OWNER addresses) owner's
 * oldest, else the oldest of the half.  A submitter with many addresses
 * can so neither push an agent's address out nor fill its own half.
 */
static size_t
conns_known_slot(struct http_conns *c, size_t lo, size_t hi, int fam,
    const unsigned char a[16], const char *owner)
{
	size_t i, old = lo, mine = hi, n = 0;

	for (i = lo; i < hi; i++) {
		struct conns_known *k = &c->known[i];

		if (k->family == fam && !memcmp(k->addr, a, 16))
			return i;
		if (!strcmp(k->owner, owner)) {
			n++;
			if (mine == hi || k->seq < c->known[mine].seq)
				mine = i;
		}
		if (k->seq < c->known[old].seq)
			old = i;
	}
	return n >= CONNS_PER_OWNER ? mine : old;
}

void
http_conns_trust(struct http_conns *c, const char *peer, const char *owner,
    int agent)
{
	unsigned char a[16];
	size_t i, half = CONNS_KNOWN / 2;
	int fam;

	if (!c || !peer || (fam = conns_parse(peer, a)) < 0)
		return;
	if (!owner)
		owner = peer;
	pthread_mutex_lock(&c->lock);
	i = agent ? conns_known_slot(c, 0, half, fam, a, owner) :
	    conns_known_slot(c, half, CONNS_KNOWN, fam, a, owner);
	c->known[i].family = fam;
	memcpy(c->known[i].addr, a, 16);
	c->known[i].at = time(NULL);
	c->known[i].seq = ++c->known_seq;
	snprintf(c->known[i].owner, sizeof(c->known[i].owner), "%s", owner);
	pthread_mutex_unlock(&c->lock);
}

unsigned
http_conns_open_now(struct http_conns *c)
{
	unsigned n;

	pthread_mutex_lock(&c->lock);
	n = c->nopen;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* Once a second: shuts down connections whose headers are late, and
   those whose answer is not read in time. */
static void *
conns_sweep(void *arg)
{
	struct http_conns *c = arg;
	struct http_conn_track *t;
	struct timespec ts;
	unsigned cut, slow;
	time_t now;

	pthread_mutex_lock(&c->lock);
	while (!c->stopping) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec++;
		pthread_cond_timedwait(&c->wake, &c->lock, &ts);
		now = time(NULL);
		cut = slow = 0;
		for (t = c->open; t; t = t->next) {
			if (t->cut)
				continue;
			if (t->in_headers && now - t->since >
			    (time_t)c->o.header_timeout + (t->idle ?
			    (time_t)c->o.idle_timeout : 0)) {
				shutdown(t->fd, SHUT_RDWR);
				t->cut = 1;
				cut++;
			} else if (t->responding && c->o.response_timeout &&
			    now - t->resp_since >
			    (time_t)c->o.response_timeout) {
				shutdown(t->fd, SHUT_RDWR);
				t->cut = 1;
				slow++;
			}
		}
		if (slow && conns_warn(c, 3))
			log_warnx("http: %u connections cut: an answer not "
			    "read within [http] response_timeout (%u s)",
			    slow, c->o.response_timeout);
		if (cut && conns_warn(c, 2))
			log_warnx("http: %u connections cut: headers not "
			    "complete within [http] header_timeout (%u s)",
			    cut, c->o.header_timeout);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct http_conns *
http_conns_start(const struct http_conns_opts *o)
{
	struct http_conns *c = xcalloc(1, sizeof(*c));

	c->o = *o;
	if (c->o.reserved >= c->o.max_connections)
		c->o.reserved = c->o.max_connections / 2;
	for (size_t i = 0; i < o->nproxies && c->nproxy < CONNS_PROXIES; i++)
		if ((c->proxy[c->nproxy].family = conns_parse(o->proxies[i],
		    c->proxy[c->nproxy].addr)) >= 0)
			c->nproxy++;
	c->o.proxies = NULL;	/* not kept: the caller's */
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	if (pthread_create(&c->sweeper, NULL, conns_sweep, c) != 0)
		fatal("http: cannot start the connection sweeper");
	return c;
}

void
http_conns_stop(struct http_conns *c)
{
	struct conns_prefix *p, *n;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stopping = 1;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->sweeper, NULL);
	for (size_t i = 0; i < CONNS_BUCKETS; i++)
		for (p = c->bucket[i]; p; p = n) {
			n = p->next;
			free(p);
		}
	while (c->open) {
		struct http_conn_track *t = c->open;

		c->open = t->next;
		free(t);
	}
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->wake);
	free(c);
}
