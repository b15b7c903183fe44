/*
 * http_cache: the GET response cache keyed by the store's version (see
 * http_cache.h for the rules and the DESIGN).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/db.h"
#include "daemon/http_cache.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

#define HTTP_CACHE_BUCKETS	(HTTP_CACHE_SLOTS * 2)

struct http_cache_entry {
	struct http_cache_entry *hnext;		/* bucket chain */
	struct http_cache_entry *prev, *next;	/* LRU, newest first */
	char	*key;
	unsigned hash;
	unsigned long gen;
	time_t	 born;				/* monotonic seconds */
	const char *ctype;			/* static, as in http_resp */
	char	*body;
	size_t	 len;
};

static pthread_mutex_t hc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct http_cache_entry *hc_buckets[HTTP_CACHE_BUCKETS];
static struct http_cache_entry *hc_newest, *hc_oldest;
static size_t hc_n, hc_bytes;
static unsigned long hc_gen = 1, hc_hits, hc_misses;
static size_t hc_max = HTTP_CACHE_BYTES;

/* The store version this thread saw last. */
static __thread unsigned long long hc_seen;
static __thread int hc_seen_set;

void
http_cache_size(size_t bytes)
{
	hc_max = bytes;
}

void
http_cache_stats(unsigned long *hits, unsigned long *misses)
{
	pthread_mutex_lock(&hc_lock);
	*hits = hc_hits;
	*misses = hc_misses;
	pthread_mutex_unlock(&hc_lock);
}

/* s with every byte that could delimit a key part ('%', '&', '=', '?',
   control bytes, non-ASCII) as %XX, so distinct queries never share a
   key ("x=%26limit%3D1" decodes to the pair x="&limit=1", not to
   x="" and limit="1"). */
static void
hc_key_part(struct buf *k, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= 0x20 || c >= 0x7f || c == '%' || c == '&' ||
		    c == '=' || c == '?')
			buf_addf(k, "%%%02X", c);
		else
			buf_addch(k, (char)c);
	}
}

/* "path?k=v&k=v\nhost", names and values escaped */
static char *
hc_key(const struct http_req *r, unsigned *hash)
{
	struct buf k = BUF_INIT(0);
	const char *h = http_header(r, "Host");
	unsigned x = 2166136261u;
	size_t i;

	buf_addstr(&k, r->path);
	for (i = 0; i < r->nquery; i++) {
		buf_addch(&k, i ? '&' : '?');
		hc_key_part(&k, r->query[i].name);
		buf_addch(&k, '=');
		hc_key_part(&k, r->query[i].value);
	}
	buf_addch(&k, '\n');
	hc_key_part(&k, h ? h : "");
	for (i = 0; i < k.len; i++)
		x = (x ^ (unsigned char)k.data[i]) * 16777619u;
	*hash = x;
	return buf_detach(&k, NULL);
}

static void
hc_unlink_lru(struct http_cache_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		hc_newest = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		hc_oldest = e->prev;
	e->prev = e->next = NULL;
}

static void
hc_push_newest(struct http_cache_entry *e)
{
	e->prev = NULL;
	e->next = hc_newest;
	if (hc_newest)
		hc_newest->prev = e;
	hc_newest = e;
	if (!hc_oldest)
		hc_oldest = e;
}

static void
hc_drop(struct http_cache_entry *e)
{
	struct http_cache_entry **p = &hc_buckets[e->hash % HTTP_CACHE_BUCKETS];

	while (*p != e)
		p = &(*p)->hnext;
	*p = e->hnext;
	hc_unlink_lru(e);
	hc_n--;
	hc_bytes -= e->len;
	free(e->key);
	free(e->body);
	free(e);
}

static time_t
hc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* The entry for key, dropping stale ones met on the way (lock held). */
static struct http_cache_entry *
hc_find(const char *key, unsigned hash)
{
	struct http_cache_entry *e = hc_buckets[hash % HTTP_CACHE_BUCKETS], *n;
	time_t now = hc_now();

	for (; e; e = n) {
		n = e->hnext;
		if (e->gen != hc_gen || now - e->born >= HTTP_CACHE_MAX_AGE)
			hc_drop(e);
		else if (e->hash == hash && !strcmp(e->key, key))
			return e;
	}
	return NULL;
}

/* Stores resp under key for generation gen (lock held; steals key). */
static void
hc_put(char *key, unsigned hash, unsigned long gen,
    const struct http_resp *resp)
{
	struct http_cache_entry *e;

	if (gen != hc_gen || resp->body.len > hc_max / 8 ||
	    hc_find(key, hash)) {
		free(key);
		return;
	}
	while (hc_oldest && (hc_n >= HTTP_CACHE_SLOTS ||
	    hc_bytes + resp->body.len > hc_max))
		hc_drop(hc_oldest);
	e = xcalloc(1, sizeof(*e));
	e->key = key;
	e->hash = hash;
	e->gen = gen;
	e->born = hc_now();
	e->ctype = resp->content_type;
	e->len = resp->body.len;
	e->body = xmalloc(e->len + 1);
	memcpy(e->body, resp->body.data ? resp->body.data : "", e->len);
	e->body[e->len] = '\0';
	e->hnext = hc_buckets[hash % HTTP_CACHE_BUCKETS];
	hc_buckets[hash % HTTP_CACHE_BUCKETS] = e;
	hc_push_newest(e);
	hc_n++;
	hc_bytes += e->len;
}

/* This thread's view of the store: bumps the generation when it moved.
   Returns the generation, or 0 when the store cannot say. */
static unsigned long
hc_generation(struct db *db, unsigned long long *version)
{
	unsigned long gen;

	if (db_data_version(db, version) < 0)
		return 0;
	pthread_mutex_lock(&hc_lock);
	if (!hc_seen_set || hc_seen != *version)
		hc_gen++;
	gen = hc_gen;
	pthread_mutex_unlock(&hc_lock);
	hc_seen = *version;
	hc_seen_set = 1;
	return gen;
}

/* 1 if name is one of list's space-separated words. */
static int
hc_declared(const char *list, const char *name)
{
	size_t n = strlen(name);

	while (list && *list) {
		size_t w = strcspn(list, " ");

		if (w == n && !strncmp(list, name, n))
			return 1;
		list += w;
		list += strspn(list, " ");
	}
	return 0;
}

/* Moves the pairs rt declares to the front of r->query (in their order)
   and returns how many: the key and the handler see only those, so a
   parameter the answer ignores (?junk=N) can neither make a new entry
   per request nor change what an entry holds. */
static size_t
hc_declared_front(const struct route *rt, struct http_req *r)
{
	size_t i, kept = 0;

	for (i = 0; i < r->nquery; i++) {
		if (!hc_declared(rt->query, r->query[i].name))
			continue;
		if (i != kept) {
			struct http_kv t = r->query[kept];

			r->query[kept] = r->query[i];
			r->query[i] = t;
		}
		kept++;
	}
	return kept;
}

int
http_cache_call(const struct route *rt, struct http_req *r,
    struct http_resp *resp)
{
	struct http_cache_entry *e;
	unsigned long long before, after;
	unsigned long gen;
	unsigned hash;
	size_t nquery = r->nquery;
	char *key;
	int rc;

	if (!(rt->flags & ROUTE_CACHE))
		return rt->handler(r, resp);
	r->nquery = hc_declared_front(rt, r);
	if (!r->db || !hc_max || !(gen = hc_generation(r->db, &before))) {
		rc = rt->handler(r, resp);
		r->nquery = nquery;
		return rc;
	}
	key = hc_key(r, &hash);
	pthread_mutex_lock(&hc_lock);
	if (gen == hc_gen && (e = hc_find(key, hash))) {
		hc_hits++;
		hc_unlink_lru(e);
		hc_push_newest(e);
		resp->status = 200;
		resp->content_type = e->ctype;
		buf_reset(&resp->body);
		buf_add(&resp->body, e->body, e->len);
		pthread_mutex_unlock(&hc_lock);
		free(key);
		r->nquery = nquery;
		return 0;
	}
	hc_misses++;
	pthread_mutex_unlock(&hc_lock);
	rc = rt->handler(r, resp);
	/* only a plain 200 computed while the store stood still */
	if (rc == 0 && resp->status == 200 && resp->fd < 0 &&
	    resp->nheaders == 0 && db_data_version(r->db, &after) == 0 &&
	    after == before) {
		pthread_mutex_lock(&hc_lock);
		hc_put(key, hash, gen, resp);
		pthread_mutex_unlock(&hc_lock);
	} else
		free(key);
	r->nquery = nquery;
	return rc;
}
