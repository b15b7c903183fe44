/* lockstat: contention tracepoint records to per-lock waits (see lockstat.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/lockstat.h"
#include "agents/load/sample.h"
#include "agents/load/util.h"

/* ---- the format file ---------------------------------------------------- */

/* Reads a decimal number at p (inside [p, end)); -1 if there is none. */
static long
lockstat_num(const char *p, const char *end)
{
	long v = 0;
	int digits = 0;

	while (p < end && *p == ' ')
		p++;
	while (p < end && *p >= '0' && *p <= '9' && digits < 9) {
		v = v * 10 + (*p++ - '0');
		digits++;
	}
	return digits ? v : -1;
}

/* Finds key (like "offset:") inside [p, end) and reads its number. */
static long
lockstat_keynum(const char *p, const char *end, const char *key)
{
	size_t k = strlen(key);

	for (; p + k <= end; p++)
		if (memcmp(p, key, k) == 0)
			return lockstat_num(p + k, end);
	return -1;
}

/*
 * One "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line: the field's
 * name is the identifier just before the first ';' (an array's [n] cut).
 */
static void
lockstat_fmt_field(struct lockstat_fmt *f, const char *p, const char *nl,
    const char *arg)
{
	const char *semi = memchr(p, ';', nl - p), *e, *b;
	struct lockstat_field *dst = NULL;
	long off, size;
	size_t n;

	if (!semi)
		return;
	e = semi;
	b = memchr(p, '[', semi - p);
	if (b)
		e = b;
	b = e;
	while (b > p && (b[-1] == '_' || (b[-1] >= 'a' && b[-1] <= 'z') ||
	    (b[-1] >= 'A' && b[-1] <= 'Z') || (b[-1] >= '0' && b[-1] <= '9')))
		b--;
	n = e - b;
	if (n == 11 && memcmp(b, "common_type", 11) == 0)
		dst = &f->type;
	else if (n == 10 && memcmp(b, "common_pid", 10) == 0)
		dst = &f->pid;
	else if (n == 9 && memcmp(b, "lock_addr", 9) == 0)
		dst = &f->addr;
	else if (n == strlen(arg) && memcmp(b, arg, n) == 0)
		dst = &f->arg;
	if (!dst)
		return;
	off = lockstat_keynum(semi, nl, "offset:");
	size = lockstat_keynum(semi, nl, "size:");
	if (off < 0 || size <= 0 || off > 4096 || size > 8)
		return;
	dst->offset = (int)off;
	dst->size = (int)size;
}

int
lockstat_fmt_parse(struct lockstat_fmt *f, const char *text, size_t len,
    const char *arg)
{
	const char *p = text, *end = text + len, *nl;

	memset(f, 0, sizeof(*f));
	f->id = -1;
	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		while (p < nl && (*p == ' ' || *p == '\t'))
			p++;
		if (nl - p >= 3 && memcmp(p, "ID:", 3) == 0)
			f->id = lockstat_num(p + 3, nl);
		else if (nl - p >= 6 && memcmp(p, "field:", 6) == 0)
			lockstat_fmt_field(f, p + 6, nl, arg);
		p = nl + 1;
	}
	if (f->id < 0 || f->id > 65535)
		return load_err("tracepoint format: no \"ID: N\" line (0..65535)");
	if (f->type.size != 2)
		return load_err("tracepoint format: no 2-byte common_type field");
	if (f->pid.size != 4)
		return load_err("tracepoint format: no 4-byte common_pid field");
	if (f->addr.size != 8 && f->addr.size != 4)
		return load_err("tracepoint format: no lock_addr field of 4 or 8 bytes");
	if (f->arg.size != 4)
		return load_err("tracepoint format: no 4-byte \"%s\" field", arg);
	return 0;
}

/* ---- sample records ------------------------------------------------------ */

static unsigned long long
lockstat_get(const unsigned char *p, int size)
{
	unsigned long long v = 0;
	unsigned int u32;
	unsigned short u16;

	switch (size) {
	case 2: memcpy(&u16, p, 2); v = u16; break;
	case 4: memcpy(&u32, p, 4); v = u32; break;
	case 8: memcpy(&v, p, 8); break;
	default: break;
	}
	return v;
}

static int
lockstat_fits(const struct lockstat_field *f, unsigned int rawlen)
{
	return f->size > 0 && (unsigned int)(f->offset + f->size) <= rawlen;
}

/* Kernel context markers in a callchain (PERF_CONTEXT_KERNEL...). */
#define LOCKSTAT_CONTEXT_MAX	((unsigned long long)-4095)

int
lockstat_rec_parse(struct lockstat_rec *r, const unsigned char *b,
    size_t len, int callchain, const struct lockstat_fmt *begin,
    const struct lockstat_fmt *end)
{
	const unsigned char *p = b, *e = b + len, *raw;
	const struct lockstat_fmt *f;
	unsigned long long nr, i, v;
	unsigned int rawlen;

	memset(r, 0, sizeof(*r));
	if (len < 24)
		return -1;
	r->pid = (unsigned)lockstat_get(p, 4);
	r->tid = (unsigned)lockstat_get(p + 4, 4);
	r->time = lockstat_get(p + 8, 8);
	r->cpu = (unsigned)lockstat_get(p + 16, 4);
	p += 24;
	if (callchain) {
		if (e - p < 8)
			return -1;
		nr = lockstat_get(p, 8);
		p += 8;
		if (nr > (unsigned long long)(e - p) / 8)
			return -1;
		for (i = 0; i < nr; i++) {
			v = lockstat_get(p + 8 * i, 8);
			if (v >= LOCKSTAT_CONTEXT_MAX)
				continue;
			if (r->nips < LOCKSTAT_MAX_STACK)
				r->ips[r->nips++] = v;
		}
		p += 8 * nr;
	}
	if (e - p < 4)
		return -1;
	rawlen = (unsigned int)lockstat_get(p, 4);
	p += 4;
	if (rawlen > (size_t)(e - p) || rawlen < 2)
		return -1;
	raw = p;
	if (begin && lockstat_fits(&begin->type, rawlen) &&
	    lockstat_get(raw + begin->type.offset, 2) == (unsigned long)begin->id)
		f = begin;
	else if (end && lockstat_fits(&end->type, rawlen) &&
	    lockstat_get(raw + end->type.offset, 2) == (unsigned long)end->id)
		f = end;
	else
		return -1;
	if (!lockstat_fits(&f->addr, rawlen) || !lockstat_fits(&f->arg, rawlen))
		return -1;
	r->end = f == end && f != begin;
	r->addr = lockstat_get(raw + f->addr.offset, f->addr.size);
	r->arg = (long)(int)lockstat_get(raw + f->arg.offset, 4);
	return 0;
}

static int
lockstat_rec_cmp(const void *a, const void *b)
{
	const struct lockstat_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->end - y->end;
}

void
lockstat_sort_recs(struct lockstat_rec *r, size_t n)
{
	if (n > 1)
		qsort(r, n, sizeof(*r), lockstat_rec_cmp);
}

/* ---- naming -------------------------------------------------------------- */

void
lockstat_init(struct lockstat *ls, const struct prof_syms *text,
    const struct prof_syms *data, int depth)
{
	memset(ls, 0, sizeof(*ls));
	ls->text = text;
	ls->data = data;
	ls->depth = depth < 1 ? 1 : depth > 3 ? 3 : depth;
	if (text) {
		ls->lock_text[0] = prof_syms_addr(text, "__lock_text_start");
		ls->lock_text[1] = prof_syms_addr(text, "__lock_text_end");
		ls->sched_text[0] = prof_syms_addr(text, "__sched_text_start");
		ls->sched_text[1] = prof_syms_addr(text, "__sched_text_end");
	}
}

void
lockstat_release(struct lockstat *ls)
{
	int i;

	for (i = 0; i < ls->nlocks; i++)
		free(ls->locks[i].name);
	free(ls->locks);
	free(ls->waits);
	free(ls->addrs);
	memset(ls, 0, sizeof(*ls));
}

static int
lockstat_in(const unsigned long long r[2], unsigned long long a)
{
	return r[0] && r[1] > r[0] && a >= r[0] && a < r[1];
}

/* Frames a lock's name never comes from: the lock code, tracing. */
static int
lockstat_skip(const struct lockstat *ls, unsigned long long ip,
    const char *sym)
{
	static const char *const pre[] = { "__traceiter_", "trace_",
	    "perf_", "__perf_", "__bpf_trace_", "schedule", "__schedule",
	    "preempt_schedule", NULL };
	int i;

	if (lockstat_in(ls->lock_text, ip) || lockstat_in(ls->sched_text, ip))
		return 1;
	if (prof_is_lock(sym) || prof_is_wrapper(sym))
		return 1;
	for (i = 0; pre[i]; i++)
		if (strncmp(sym, pre[i], strlen(pre[i])) == 0)
			return 1;
	return 0;
}

/* Appends s to out (size sz), replacing what a params value cannot hold. */
static void
lockstat_cat(char *out, size_t sz, const char *s)
{
	size_t n = strlen(out);

	for (; *s && n + 1 < sz; s++)
		out[n++] = (*s == ',' || *s == '=' || (unsigned char)*s < 0x20 ||
		    (unsigned char)*s > 0x7e) ? '_' : *s;
	out[n] = '\0';
}

/* A static lock's name, when addr is in a kernel data symbol. */
static int
lockstat_static_name(const struct lockstat *ls, unsigned long long addr,
    char *out, size_t sz)
{
	unsigned long long off = 0;
	const char *sym;
	char o[24];

	/* per-CPU symbols have small offsets as addresses: not a lock's */
	if (!ls->data || ls->data->n == 0 || addr < 0xffff000000000000ULL)
		return 0;
	sym = prof_syms_lookup_off(ls->data, addr, 65535, &off);
	if (!sym)
		return 0;
	out[0] = '\0';
	lockstat_cat(out, sz, sym);
	if (off) {
		snprintf(o, sizeof(o), "+0x%llx", off);
		lockstat_cat(out, sz, o);
	}
	return 1;
}

/*
 * The chain's name into out; *cls gets the lock's class when a frame
 * names it for certain (prof_lock_class: a lock helper such as
 * folio_lruvec_lock_irqsave, or the first caller when its only spinlock is
 * that lock), else NULL.
 */
static void
lockstat_chain_name(const struct lockstat *ls, const unsigned long long *ips,
    int n, const char *known, char *out, size_t sz, const char **cls)
{
	const char *sym, *c, *first = NULL;
	int i, k = 0, depth = ls->depth;

	*cls = known;
	for (i = 0; i < n && k < depth; i++) {
		sym = ls->text ? prof_syms_lookup(ls->text, ips[i]) : NULL;
		if (!sym || lockstat_in(ls->lock_text, ips[i]) ||
		    lockstat_in(ls->sched_text, ips[i]))
			continue;
		/* a wrapper names the lock before the caller does */
		if (!first && !*cls && (c = prof_lock_class(sym)) &&
		    prof_is_wrapper(sym))
			*cls = c;
		if (lockstat_skip(ls, ips[i], sym))
			continue;
		if (!first) {
			first = sym;
			if (!*cls)
				*cls = prof_lock_class(sym);
			/* a class is the name; callers only past depth 1 */
			if (*cls && --depth == 0)
				break;
		}
		if (k == 0) {
			lockstat_cat(out, sz, *cls ? *cls :
			    prof_guess_lock(sym));
			lockstat_cat(out, sz, "@");
		} else {
			lockstat_cat(out, sz, ";");
		}
		lockstat_cat(out, sz, sym);
		k++;
	}
	if (*cls && k == 0)
		lockstat_cat(out, sz, *cls);
	else if (!first)
		lockstat_cat(out, sz, "?@[unknown]");
}

void
lockstat_name(const struct lockstat *ls, unsigned long long addr,
    const unsigned long long *ips, int n, char *out, size_t sz)
{
	const char *cls;

	if (sz == 0)
		return;
	out[0] = '\0';
	if (lockstat_static_name(ls, addr, out, sz))
		return;
	lockstat_chain_name(ls, ips, n, NULL, out, sz, &cls);
}

/* The class an address was seen under, or NULL. */
static const char *
lockstat_addr_class(const struct lockstat *ls, unsigned long long addr)
{
	int i;

	for (i = 0; i < ls->naddrs; i++)
		if (ls->addrs[i].addr == addr)
			return ls->addrs[i].cls;
	return NULL;
}

static void
lockstat_addr_learn(struct lockstat *ls, unsigned long long addr,
    const char *cls)
{
	if (!cls || ls->naddrs == LOCKSTAT_MAX_ADDRS ||
	    lockstat_addr_class(ls, addr))
		return;
	if (!ls->addrs)
		ls->addrs = load_xcalloc(LOCKSTAT_MAX_ADDRS,
		    sizeof(*ls->addrs));
	ls->addrs[ls->naddrs].addr = addr;
	ls->addrs[ls->naddrs++].cls = cls;
}

/* A wait's row: as lockstat_name, and a lock whose class was learnt from
   an earlier wait at the same address keeps it (a caller that takes
   several locks cannot name it). */
static void
lockstat_wait_name(struct lockstat *ls, const struct lockstat_rec *r,
    char *out, size_t sz)
{
	const char *cls;

	out[0] = '\0';
	if (lockstat_static_name(ls, r->addr, out, sz))
		return;
	lockstat_chain_name(ls, r->ips, r->nips, NULL, out, sz, &cls);
	if (cls) {
		lockstat_addr_learn(ls, r->addr, cls);
		return;
	}
	if ((cls = lockstat_addr_class(ls, r->addr)) == NULL)
		return;
	out[0] = '\0';
	lockstat_chain_name(ls, r->ips, r->nips, cls, out, sz, &cls);
}

/* ---- pairing and totals ------------------------------------------------ */

static int
lockstat_lock_get(struct lockstat *ls, const char *name, unsigned flags)
{
	int i;

	for (i = 0; i < ls->nlocks; i++)
		if (strcmp(ls->locks[i].name, name) == 0)
			return i;
	ls->locks = load_xrealloc(ls->locks, (ls->nlocks + 1) *
	    sizeof(*ls->locks));
	memset(&ls->locks[ls->nlocks], 0, sizeof(*ls->locks));
	ls->locks[ls->nlocks].name = load_xstrdup(name);
	ls->locks[ls->nlocks].flags = flags;
	return ls->nlocks++;
}

static int
lockstat_wait_find(const struct lockstat *ls, const struct lockstat_rec *r)
{
	int i;

	for (i = ls->nwaits - 1; i >= 0; i--)
		if (ls->waits[i].tid == r->tid && ls->waits[i].addr == r->addr &&
		    (r->tid != 0 || ls->waits[i].cpu == r->cpu))
			return i;
	return -1;
}

static void
lockstat_wait_drop(struct lockstat *ls, int i)
{
	ls->waits[i] = ls->waits[--ls->nwaits];
}

static void
lockstat_begin(struct lockstat *ls, const struct lockstat_rec *r)
{
	char name[LOCKSTAT_MAX_NAME];
	struct lockstat_wait *w;

	ls->begins++;
	/* a second begin before the end is the same wait going on: a mutex
	   traces one begin for its optimistic spin and another when it
	   goes to sleep (kernel/locking/mutex.c) */
	if (lockstat_wait_find(ls, r) >= 0)
		return;
	if (ls->nwaits == LOCKSTAT_MAX_WAITS) {
		ls->unpaired++;
		lockstat_wait_drop(ls, 0);
	}
	if (!ls->waits)
		ls->waits = load_xcalloc(LOCKSTAT_MAX_WAITS, sizeof(*ls->waits));
	lockstat_wait_name(ls, r, name, sizeof(name));
	w = &ls->waits[ls->nwaits++];
	w->tid = r->tid;
	w->cpu = r->cpu;
	w->addr = r->addr;
	w->t0 = r->time;
	w->lock = lockstat_lock_get(ls, name, (unsigned)r->arg);
}

static void
lockstat_end(struct lockstat *ls, const struct lockstat_rec *r)
{
	struct lockstat_lock *l;
	unsigned long long d;
	int i;

	ls->ends++;
	if ((i = lockstat_wait_find(ls, r)) < 0 || r->time < ls->waits[i].t0) {
		ls->unpaired++;
		if (i >= 0)
			lockstat_wait_drop(ls, i);
		return;
	}
	d = r->time - ls->waits[i].t0;
	l = &ls->locks[ls->waits[i].lock];
	l->count++;
	l->total_ns += d;
	if (d > l->max_ns)
		l->max_ns = d;
	lockstat_wait_drop(ls, i);
}

void
lockstat_add(struct lockstat *ls, const struct lockstat_rec *r)
{
	if (r->end)
		lockstat_end(ls, r);
	else
		lockstat_begin(ls, r);
}

void
lockstat_finish(struct lockstat *ls)
{
	ls->unpaired += ls->nwaits;
	ls->nwaits = 0;
}

static int
lockstat_lock_cmp(const void *a, const void *b)
{
	const struct lockstat_lock *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

void
lockstat_sort(struct lockstat *ls)
{
	/* open waits hold indices into locks */
	lockstat_finish(ls);
	if (ls->nlocks > 1)
		qsort(ls->locks, ls->nlocks, sizeof(*ls->locks),
		    lockstat_lock_cmp);
}

const char *
lockstat_kind(unsigned f)
{
	if (f & LOCKSTAT_F_MUTEX)
		return f & LOCKSTAT_F_RT ? "rt-mutex" : "mutex";
	if (f & LOCKSTAT_F_PERCPU)
		return "percpu-rwsem";
	if (f & LOCKSTAT_F_SPIN)
		return f & (LOCKSTAT_F_READ | LOCKSTAT_F_WRITE) ? "rwlock" :
		    "spinlock";
	if (f & (LOCKSTAT_F_READ | LOCKSTAT_F_WRITE))
		return "rwsem";
	return f & LOCKSTAT_F_RT ? "rt-mutex" : "lock";
}

/* ---- output ------------------------------------------------------------- */

#define LOCKSTAT_MAX_PARAMS	256

char *
lockstat_params(const char *params, const char *name)
{
	size_t plen = strlen(params), room, cap;
	char val[LOCKSTAT_MAX_NAME] = "", key[64];
	const char *p = params, *comma;
	char *out;
	int done = 0;

	/* lock=VALUE and a comma must fit in the params field */
	room = plen + 7 < LOCKSTAT_MAX_PARAMS ? LOCKSTAT_MAX_PARAMS - plen - 6 :
	    2;
	lockstat_cat(val, room < sizeof(val) ? room : sizeof(val), name);
	if (!val[0])
		lockstat_cat(val, sizeof(val), "?");
	cap = plen + strlen(val) + 8;
	out = load_xmalloc(cap);
	out[0] = '\0';
	/* pairs are sorted by key: lock=VALUE goes before the first key
	   that sorts after "lock" */
	while (*p) {
		size_t n, k;

		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		k = strcspn(p, "=,");
		if (k > n)
			k = n;
		snprintf(key, sizeof(key), "%.*s", (int)(k < 63 ? k : 63), p);
		if (!done && strcmp(key, "lock") > 0) {
			snprintf(out + strlen(out), cap - strlen(out), "%slock=%s",
			    out[0] ? "," : "", val);
			done = 1;
		}
		snprintf(out + strlen(out), cap - strlen(out), "%s%.*s",
		    out[0] ? "," : "", (int)n, p);
		p += n;
		if (*p == ',')
			p++;
	}
	if (!done)
		snprintf(out + strlen(out), cap - strlen(out), "%slock=%s",
		    out[0] ? "," : "", val);
	return out;
}

static void
lockstat_emit_one(const char *workload, const char *params, const char *name,
    unsigned long long count, unsigned long long total,
    unsigned long long max, double task_ns)
{
	char *pp = lockstat_params(params, name);

	sample_emit(workload, pp, 1, "wait_share",
	    task_ns > 0 ? 100.0 * (double)total / task_ns : 0, "%", 0);
	sample_emit(workload, pp, 1, "wait_total", (double)total / 1e6, "ms", 0);
	sample_emit(workload, pp, 1, "wait_count", (double)count, "waits", 0);
	sample_emit(workload, pp, 1, "wait_max", (double)max / 1e3, "us", 0);
	free(pp);
}

int
lockstat_emit(struct lockstat *ls, const char *workload, const char *params,
    int top, double task_ns)
{
	unsigned long long count = 0, total = 0, max = 0;
	int i, n = 0;

	lockstat_sort(ls);
	for (i = 0; i < ls->nlocks; i++) {
		count += ls->locks[i].count;
		total += ls->locks[i].total_ns;
		if (ls->locks[i].max_ns > max)
			max = ls->locks[i].max_ns;
	}
	/* nothing waited: no rows (a lock absent on one side of a
	   comparison reads "no waits" there) */
	if (count == 0)
		return 0;
	lockstat_emit_one(workload, params, "(all)", count, total, max, task_ns);
	for (i = 0; i < ls->nlocks && n < top; i++) {
		const struct lockstat_lock *l = &ls->locks[i];

		if (l->count == 0)
			continue;
		lockstat_emit_one(workload, params, l->name, l->count,
		    l->total_ns, l->max_ns, task_ns);
		n++;
	}
	return n;
}
