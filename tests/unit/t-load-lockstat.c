/*
 * t-load-lockstat: the contention pass of lock-profile without a kernel:
 * tracefs format parsing, sample record parsing on synthetic ring-buffer
 * records, begin/end pairing, lock naming (kallsyms data symbols for static
 * locks, caller chains for the rest) and the samples written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/load/lockstat.h"
#include "agents/load/sample.h"
#include "agents/load/util.h"
#include "tests/unit/tap.h"

/* As 6.12 prints them (events/lock/contention_{begin,end}/format). */
static const char fmt_begin[] =
    "name: contention_begin\n"
    "ID: 311\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:void * lock_addr;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned int flags;\toffset:16;\tsize:4;\tsigned:0;\n"
    "\n"
    "print fmt: \"%p (flags=%s)\", REC->lock_addr, ...\n";

static const char fmt_end[] =
    "name: contention_end\n"
    "ID: 312\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:void * lock_addr;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:int ret;\toffset:16;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"%p (ret=%d)\", REC->lock_addr, REC->ret\n";

static const char syms_text[] =
    "ffffffff81001000 T folio_batch_move_lru\n"
    "ffffffff81002000 T lru_add_drain_cpu\n"
    "ffffffff81003000 T native_queued_spin_lock_slowpath\n"
    "ffffffff81004000 T __lock_text_start\n"
    "ffffffff81004100 T _raw_spin_lock_irqsave\n"
    "ffffffff81004200 T __lock_text_end\n"
    "ffffffff81005000 T folio_lruvec_lock_irqsave\n"
    "ffffffff81006000 T __traceiter_contention_begin\n"
    "ffffffff81007000 T rmqueue_bulk\n"
    "ffffffff81008000 T deferred_split_folio\n"
    "ffffffff81009000 T __mutex_lock.constprop.0\n"
    "ffffffff8100a000 T shrinker_register\n"
    "ffffffff8100b000 T do_anonymous_page\n"
    "ffffffff8100c000 T list_lru_add\n"
    "ffffffff8100d000 T split_huge_page_to_list_to_order\n"
    "ffffffff8100e000 T folios_put_refs\n"
    "ffffffff82000000 D swap_lock\n"
    "ffffffff82000040 d shrinker_mutex\n"
    "ffffffff82001000 b big_struct\n"
    "0000000000012000 D runqueues\n";

#define A_BATCH	0xffffffff81001010ULL
#define A_DRAIN	0xffffffff81002010ULL
#define A_SLOW	0xffffffff81003010ULL
#define A_IRQS	0xffffffff81004110ULL
#define A_LRUV	0xffffffff81005010ULL
#define A_TRACE	0xffffffff81006010ULL
#define A_RMQ	0xffffffff81007010ULL
#define A_SPLIT	0xffffffff81008010ULL
#define A_MUTEX	0xffffffff81009010ULL
#define A_SHRK	0xffffffff8100a010ULL
#define A_ANON	0xffffffff8100b010ULL
#define A_LLRU	0xffffffff8100c010ULL
#define A_SHP	0xffffffff8100d010ULL
#define A_PUT	0xffffffff8100e010ULL

/* Builds a sample body: TID TIME CPU [CALLCHAIN] RAW. */
static size_t
mkrec(unsigned char *b, const struct lockstat_fmt *f, unsigned tid,
    unsigned long long t, unsigned cpu, const unsigned long long *ips, int n,
    unsigned long long addr, int arg)
{
	unsigned char raw[20];
	unsigned long long nr = n + 1, ctx = (unsigned long long)-128;
	unsigned int rawlen = sizeof(raw), u;
	unsigned short ty = (unsigned short)f->id;
	size_t o = 0;

	memset(raw, 0, sizeof(raw));
	memcpy(raw, &ty, 2);
	memcpy(raw + 4, &tid, 4);
	memcpy(raw + 8, &addr, 8);
	memcpy(raw + 16, &arg, 4);
	memcpy(b + o, &tid, 4);			/* pid */
	memcpy(b + o + 4, &tid, 4);
	o += 8;
	memcpy(b + o, &t, 8);
	o += 8;
	u = cpu;
	memset(b + o, 0, 8);
	memcpy(b + o, &u, 4);
	o += 8;
	if (ips) {
		memcpy(b + o, &nr, 8);
		o += 8;
		memcpy(b + o, &ctx, 8);		/* PERF_CONTEXT_KERNEL */
		o += 8;
		memcpy(b + o, ips, 8 * n);
		o += 8 * n;
	}
	memcpy(b + o, &rawlen, 4);
	o += 4;
	memcpy(b + o, raw, sizeof(raw));
	return o + sizeof(raw);
}

static void
test_fmt(struct lockstat_fmt *fb, struct lockstat_fmt *fe)
{
	struct lockstat_fmt f;

	ok(lockstat_fmt_parse(fb, fmt_begin, strlen(fmt_begin), "flags") == 0,
	    "contention_begin format parses");
	is_int(fb->id, 311, "its ID");
	is_int(fb->addr.offset, 8, "lock_addr at 8");
	is_int(fb->addr.size, 8, "lock_addr 8 bytes");
	is_int(fb->arg.offset, 16, "flags at 16");
	ok(lockstat_fmt_parse(fe, fmt_end, strlen(fmt_end), "ret") == 0,
	    "contention_end format parses");
	is_int(fe->arg.offset, 16, "ret at 16");
	ok(lockstat_fmt_parse(&f, fmt_end, strlen(fmt_end), "flags") < 0,
	    "end's format has no flags field");
	ok(strstr(load_last_error(), "\"flags\"") != NULL,
	    "the error names the missing field: %s", load_last_error());
	ok(lockstat_fmt_parse(&f, fmt_begin, 40, "flags") < 0,
	    "a cut format is refused");
	ok(lockstat_fmt_parse(&f, "", 0, "flags") < 0, "empty format refused");
}

static void
test_records(const struct lockstat_fmt *fb, const struct lockstat_fmt *fe)
{
	unsigned char b[512];
	unsigned long long ips[] = { A_TRACE, A_SLOW, A_IRQS, A_LRUV, A_BATCH,
	    A_DRAIN };
	struct lockstat_rec r;
	size_t n;

	n = mkrec(b, fb, 42, 1000, 3, ips, 6, 0xffff888000001000ULL, 1);
	ok(lockstat_rec_parse(&r, b, n, 1, fb, fe) == 0, "begin record parses");
	is_int(r.end, 0, "it is a begin");
	is_int(r.tid, 42, "tid");
	is_int(r.cpu, 3, "cpu");
	is_int(r.time, 1000, "time");
	is_int(r.nips, 6, "6 frames, the context marker dropped");
	ok(r.ips[4] == A_BATCH, "frames in order");
	ok(r.addr == 0xffff888000001000ULL, "lock address");
	is_int(r.arg, 1, "flags");
	ok(lockstat_rec_parse(&r, b, n - 1, 1, fb, fe) < 0,
	    "a record one byte short is refused");
	ok(lockstat_rec_parse(&r, b, n, 0, fb, fe) < 0,
	    "read without its callchain it does not fit");
	n = mkrec(b, fe, 42, 1500, 3, NULL, 0, 0xffff888000001000ULL, 0);
	ok(lockstat_rec_parse(&r, b, n, 0, fb, fe) == 0, "end record parses");
	is_int(r.end, 1, "it is an end");
	ok(lockstat_rec_parse(&r, b, n, 0, fb, NULL) < 0,
	    "an end is not a begin");
	b[24 + 4] = 0x99;	/* common_type: another event */
	ok(lockstat_rec_parse(&r, b, n, 0, fb, fe) < 0,
	    "a record of another event is refused");
	n = mkrec(b, fb, 1, 1, 0, ips, 6, 1, 1);
	memset(b + 24, 0xff, 8);	/* nr: huge */
	ok(lockstat_rec_parse(&r, b, n, 1, fb, fe) < 0,
	    "a callchain longer than its record is refused");
}

static void
test_names(const struct prof_syms *text, const struct prof_syms *data)
{
	unsigned long long lru[] = { A_TRACE, A_SLOW, A_IRQS, A_LRUV, A_BATCH,
	    A_DRAIN };
	unsigned long long zone[] = { A_SLOW, A_IRQS, A_RMQ, A_ANON };
	unsigned long long split[] = { A_SLOW, A_IRQS, A_SPLIT };
	unsigned long long mtx[] = { A_MUTEX, A_SHRK };
	struct lockstat ls;
	char n[LOCKSTAT_MAX_NAME];

	unsigned long long put[] = { A_SLOW, A_IRQS, A_PUT, A_ANON };
	unsigned long long llru[] = { A_SLOW, A_LLRU, A_ANON };
	unsigned long long bare[] = { A_SLOW, A_IRQS, A_LRUV };

	lockstat_init(&ls, text, data, 1);
	lockstat_name(&ls, 0xffff888000001000ULL, lru, 6, n, sizeof(n));
	is_str(n, "lru_lock",
	    "lruvec lock: by name, from its helper folio_lruvec_lock_irqsave "
	    "(tracing and lock frames skipped)");
	lockstat_name(&ls, 0xffff888000001000ULL, put, 4, n, sizeof(n));
	is_str(n, "lru_lock", "lruvec lock: by name from folios_put_refs, "
	    "whose only spinlock it is");
	lockstat_name(&ls, 0xffff888000001000ULL, bare, 3, n, sizeof(n));
	is_str(n, "lru_lock", "the helper alone names it");
	lockstat_name(&ls, 0xffff888000004000ULL, llru, 3, n, sizeof(n));
	is_str(n, "list_lru_node.lock", "list_lru_add: the list_lru node lock");
	lockstat_name(&ls, 0xffff888000002000ULL, zone, 4, n, sizeof(n));
	is_str(n, "zone lock?@rmqueue_bulk", "zone lock: a guess, by caller");
	lockstat_name(&ls, 0xffff888000003000ULL, split, 3, n, sizeof(n));
	is_str(n, "split_queue_lock",
	    "deferred_split_folio: the deferred split queue lock");
	lockstat_name(&ls, 0xffffffff82000000ULL, mtx, 2, n, sizeof(n));
	is_str(n, "swap_lock", "a static lock by its data symbol");
	lockstat_name(&ls, 0xffffffff82000048ULL, mtx, 2, n, sizeof(n));
	is_str(n, "shrinker_mutex+0x8", "inside a static symbol: +offset");
	lockstat_name(&ls, 0x12008ULL, mtx, 2, n, sizeof(n));
	is_str(n, "?@shrinker_register",
	    "a per-CPU offset is not a static lock; __mutex_lock.constprop.0 skipped");
	lockstat_name(&ls, 0xffffffff82001000ULL + 70000, mtx, 2, n, sizeof(n));
	is_str(n, "?@shrinker_register", "far past the last symbol: by callers");
	lockstat_name(&ls, 0xffff888000001000ULL, lru, 0, n, sizeof(n));
	is_str(n, "?@[unknown]", "no callchain");
	lockstat_release(&ls);
	lockstat_init(&ls, text, data, 2);
	lockstat_name(&ls, 0xffff888000001000ULL, lru, 6, n, sizeof(n));
	is_str(n, "lru_lock@folio_batch_move_lru",
	    "depth 2: the class and one caller");
	lockstat_name(&ls, 0xffff888000002000ULL, zone, 4, n, sizeof(n));
	is_str(n, "zone lock?@rmqueue_bulk;do_anonymous_page",
	    "depth 2 without a class: two callers");
	lockstat_name(&ls, 0xffff888000002000ULL, zone, 4, n, 12);
	is_int(strlen(n), 11, "names are cut to the buffer");
	lockstat_release(&ls);
	is_str(lockstat_kind(LOCKSTAT_F_SPIN), "spinlock", "spinlock kind");
	is_str(lockstat_kind(LOCKSTAT_F_MUTEX), "mutex", "mutex kind");
	is_str(lockstat_kind(LOCKSTAT_F_READ), "rwsem", "rwsem kind");
	is_str(lockstat_kind(LOCKSTAT_F_SPIN | LOCKSTAT_F_WRITE), "rwlock",
	    "rwlock kind");
}

static struct lockstat_rec
rec(int end, unsigned tid, unsigned cpu, unsigned long long t,
    unsigned long long addr, const unsigned long long *ips, int n)
{
	struct lockstat_rec r;

	memset(&r, 0, sizeof(r));
	r.end = end;
	r.tid = r.pid = tid;
	r.cpu = cpu;
	r.time = t;
	r.addr = addr;
	r.arg = 1;
	if (n > 0)
		memcpy(r.ips, ips, 8 * n);
	r.nips = n;
	return r;
}

static const struct lockstat_lock *
find(const struct lockstat *ls, const char *name)
{
	int i;

	for (i = 0; i < ls->nlocks; i++)
		if (strcmp(ls->locks[i].name, name) == 0)
			return &ls->locks[i];
	return NULL;
}

static void
test_pairing(const struct prof_syms *text, const struct prof_syms *data)
{
	unsigned long long lru[] = { A_SLOW, A_IRQS, A_LRUV, A_BATCH };
	unsigned long long zone[] = { A_SLOW, A_IRQS, A_RMQ };
	const unsigned long long L1 = 0xffff888000001000ULL;
	const unsigned long long L2 = 0xffff888000002000ULL;
	const unsigned long long Z = 0xffff888000009000ULL;
	const unsigned long long M = 0xffff88800000a000ULL;
	unsigned long long mtx[] = { A_MUTEX, A_SHRK };
	struct lockstat_rec v[20];
	const struct lockstat_lock *l;
	struct lockstat ls;
	int n = 0, i;

	/* out of order on purpose: sorting puts them right */
	v[n++] = rec(1, 10, 0, 400, L1, NULL, 0);	/* 10 waits 300 */
	v[n++] = rec(0, 10, 0, 100, L1, lru, 4);
	v[n++] = rec(0, 11, 1, 150, L2, lru, 4);	/* other lruvec, */
	v[n++] = rec(1, 11, 1, 250, L2, NULL, 0);	/* same row: 100 */
	/* nested: task 10 in an interrupt waits on the zone lock */
	v[n++] = rec(0, 10, 0, 500, L1, lru, 4);
	v[n++] = rec(0, 10, 0, 510, Z, zone, 3);
	v[n++] = rec(1, 10, 0, 530, Z, NULL, 0);	/* zone: 20 */
	v[n++] = rec(1, 10, 0, 900, L1, NULL, 0);	/* lru: 400 */
	v[n++] = rec(1, 12, 2, 950, L1, NULL, 0);	/* end, no begin */
	v[n++] = rec(0, 0, 3, 960, Z, zone, 3);		/* idle task, CPU 3 */
	v[n++] = rec(0, 0, 2, 965, Z, zone, 3);		/* idle task, CPU 2 */
	v[n++] = rec(1, 0, 3, 970, Z, NULL, 0);		/* zone: 10 */
	v[n++] = rec(1, 0, 2, 985, Z, NULL, 0);		/* zone: 20 */
	v[n++] = rec(0, 13, 1, 990, L1, lru, 4);	/* never ends */
	/* a mutex: begin (spin), begin again (sleep), end: one wait */
	v[n++] = rec(0, 14, 1, 1000, M, mtx, 2);
	v[n++] = rec(0, 14, 1, 1100, M, mtx, 2);
	v[n++] = rec(1, 14, 2, 1600, M, NULL, 0);	/* woke elsewhere */
	lockstat_sort_recs(v, n);
	ok(v[0].time == 100 && v[n - 1].time == 1600, "records sorted by time");
	lockstat_init(&ls, text, data, 1);
	for (i = 0; i < n; i++)
		lockstat_add(&ls, &v[i]);
	lockstat_sort(&ls);
	l = find(&ls, "lru_lock");
	ok(l != NULL, "the lru_lock row");
	if (l) {
		is_int(l->count, 3, "three lruvec waits, two lruvecs, one row");
		is_int(l->total_ns, 300 + 100 + 400, "wait total");
		is_int(l->max_ns, 400, "wait max");
	}
	l = find(&ls, "zone lock?@rmqueue_bulk");
	ok(l != NULL, "the zone lock row");
	if (l) {
		is_int(l->count, 3, "nested and per-CPU idle waits paired");
		is_int(l->total_ns, 20 + 10 + 20, "zone wait total");
	}
	is_int(ls.unpaired, 2, "an end without begin and an open begin: unpaired");
	l = find(&ls, "?@shrinker_register");
	ok(l && l->count == 1 && l->total_ns == 600,
	    "a mutex's second begin continues its wait (600 ns from the first)");
	is_str(ls.locks[0].name, "lru_lock", "sorted by wait total");
	lockstat_release(&ls);
}

/* A caller that takes several locks cannot name one; an address seen
   under a class before keeps it. */
static void
test_learn(const struct prof_syms *text, const struct prof_syms *data)
{
	unsigned long long dsf[] = { A_SLOW, A_IRQS, A_SPLIT };
	unsigned long long shp[] = { A_SLOW, A_IRQS, A_SHP, A_ANON };
	const unsigned long long Q = 0xffff888000005000ULL;
	const unsigned long long X = 0xffff888000006000ULL;
	struct lockstat_rec v[8];
	const struct lockstat_lock *l;
	struct lockstat ls;
	int n = 0, i;

	v[n++] = rec(0, 20, 0, 100, Q, shp, 4);		/* before: unknown */
	v[n++] = rec(1, 20, 0, 110, Q, NULL, 0);
	v[n++] = rec(0, 21, 1, 200, Q, dsf, 3);		/* learns Q */
	v[n++] = rec(1, 21, 1, 230, Q, NULL, 0);
	v[n++] = rec(0, 22, 2, 300, Q, shp, 4);		/* Q: its class */
	v[n++] = rec(1, 22, 2, 350, Q, NULL, 0);
	v[n++] = rec(0, 23, 3, 400, X, shp, 4);		/* X: not learnt */
	v[n++] = rec(1, 23, 3, 440, X, NULL, 0);
	lockstat_init(&ls, text, data, 1);
	for (i = 0; i < n; i++)
		lockstat_add(&ls, &v[i]);
	lockstat_sort(&ls);
	l = find(&ls, "split_queue_lock");
	ok(l && l->count == 2 && l->total_ns == 30 + 50,
	    "split_huge_page_to_list_to_order at a learnt address: the split "
	    "queue lock's row");
	l = find(&ls, "?@split_huge_page_to_list_to_order");
	ok(l && l->count == 2 && l->total_ns == 10 + 40,
	    "before it was learnt, and at another address: by caller");
	lockstat_release(&ls);
}

static void
test_params(void)
{
	char *p;

	p = lockstat_params("mode=shmem,target=fault-free,tasks=4",
	    "lru_lock?@folio_batch_move_lru");
	is_str(p, "lock=lru_lock?@folio_batch_move_lru,mode=shmem,"
	    "target=fault-free,tasks=4", "lock= in its sorted place");
	free(p);
	p = lockstat_params("depth=1,event=auto,freq=999", "a,b=c d");
	is_str(p, "depth=1,event=auto,freq=999,lock=a_b_c d",
	    "last; separators replaced, spaces kept");
	free(p);
	p = lockstat_params("", "swap_lock");
	is_str(p, "lock=swap_lock", "empty params");
	free(p);
	p = lockstat_params("lockdep=1,zz=2", "x");
	is_str(p, "lock=x,lockdep=1,zz=2", "a key that starts with lock");
	free(p);
	{
		char big[300];

		memset(big, 'a', 240);
		memcpy(big, "k=", 2);
		big[240] = '\0';
		p = lockstat_params(big, "a_very_long_lock_name_that_is_cut");
		ok(strlen(p) <= 256, "params stay within 256 bytes (%zu)",
		    strlen(p));
		free(p);
	}
}

static void
test_emit(const struct prof_syms *text, const struct prof_syms *data)
{
	unsigned long long lru[] = { A_SLOW, A_IRQS, A_LRUV, A_BATCH };
	struct lockstat_rec v[2];
	struct lockstat ls;
	char buf[8192];
	FILE *f = tmpfile();
	size_t n;

	lockstat_init(&ls, text, data, 1);
	v[0] = rec(0, 5, 0, 1000, 0xffff888000001000ULL, lru, 4);
	v[1] = rec(1, 5, 0, 2001000, 0xffff888000001000ULL, NULL, 0);
	lockstat_add(&ls, &v[0]);
	lockstat_add(&ls, &v[1]);
	sample_set_output(f);
	is_int(lockstat_emit(&ls, "lock-profile", "mode=shmem,tasks=2", 10,
	    2 * 1e9), 1, "one lock written");
	sample_set_output(stdout);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ok(strstr(buf, "\"params\":\"lock=lru_lock,mode=shmem,tasks=2\",\"iteration\":1,\"metric\":\"wait_share\",\"value\":0.1") != NULL,
	    "wait_share: 2 ms of 2 tasks x 1 s = 0.1 %%");
	ok(strstr(buf, "\"metric\":\"wait_total\",\"value\":2.0,\"unit\":\"ms\",\"better\":\"lower\"") != NULL,
	    "wait_total in ms, lower is better");
	ok(strstr(buf, "\"metric\":\"wait_count\",\"value\":1.0,") != NULL, "count");
	ok(strstr(buf, "\"metric\":\"wait_max\",\"value\":2000.0,\"unit\":\"us\"") != NULL,
	    "max in us");
	ok(strstr(buf, "lock=(all),mode=shmem") != NULL, "an (all) row");
	lockstat_release(&ls);
	lockstat_init(&ls, text, data, 1);
	f = tmpfile();
	sample_set_output(f);
	is_int(lockstat_emit(&ls, "lock-profile", "mode=shmem", 10, 1e9), 0,
	    "no waits: no locks");
	sample_set_output(stdout);
	ok(ftell(f) == 0, "and no lines, not even (all)");
	fclose(f);
	lockstat_release(&ls);
}

int
main(void)
{
	struct lockstat_fmt fb, fe;
	struct prof_syms text, data;

	load_set_quiet(1);
	ok(prof_syms_parse(&text, syms_text, strlen(syms_text)) == 0 &&
	    prof_syms_parse_data(&data, syms_text, strlen(syms_text)) == 0,
	    "kallsyms: text and data symbols");
	is_int(data.n, 4, "four data symbols");
	ok(prof_syms_addr(&text, "__lock_text_start") == 0xffffffff81004000ULL,
	    "symbol by name");
	test_fmt(&fb, &fe);
	test_records(&fb, &fe);
	test_names(&text, &data);
	test_pairing(&text, &data);
	test_learn(&text, &data);
	test_params();
	test_emit(&text, &data);
	prof_syms_release(&text);
	prof_syms_release(&data);
	return tap_done();
}
