/*
 * wl_lock_profile: seeds/000 and 004 ("52.8% of cycles spinning on
 * lru_lock", "perf lock share 64% -> 20%").  Runs a target workload
 * (--target, with the target's own parameters) in a child process while
 * this process watches the kernel with perf_event_open(2), in up to two
 * ways at once (--pass):
 *
 *  - profile: samples the kernel itself, CPU cycles where a hardware PMU
 *    can sample (bare metal), else the software cpu-clock (qemu TCG, most
 *    VMs), at --freq Hz on every online CPU, kernel only,
 *    PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN.  Addresses are resolved with
 *    /proc/kallsyms and attributed by prof.c; the result is one JSON line
 *    of type "lock-profile" ("where the cycles go"; shares are of all
 *    kernel samples; "event" says which event was used).
 *  - contention: the lock:contention_begin / lock:contention_end
 *    tracepoints (tracefs, mounted here when it is not), every event,
 *    PERF_SAMPLE_TID | TIME | CPU | RAW and the callchain of each begin,
 *    in per-CPU rings; lockstat.c pairs them into waits per lock and the
 *    result is ordinary samples of this workload with lock=NAME in the
 *    params: wait_share (% of tasks x wall), wait_total, wait_count and
 *    wait_max per lock, and for "(all)" locks, so the daemon compares them
 *    base against patched like any other metric.
 *
 * No perf binary is needed.  The target's own samples are not emitted in
 * this pass: a profile perturbs what it measures.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/load/lockstat.h"
#include "agents/load/prof.h"
#include "agents/load/sample.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"

#define LP_PAGES	64	/* data pages per CPU ring (power of two) */
#define LP_TP_PAGES	128	/* contention_begin rings: callchains */
#define LP_MAX_STACK	128
#define LP_MAX_REC	4096	/* larger records are skipped */

struct lp_ring {
	int	 fd;
	void	*base;
	size_t	 pages;
};

static void
lp_ring_close(struct lp_ring *rg)
{
	if (rg->base)
		munmap(rg->base, (1 + rg->pages) * getpagesize());
	if (rg->fd >= 0)
		close(rg->fd);
	rg->base = NULL;
	rg->fd = -1;
}

/* Opens attr on cpu and maps its ring; -1 with errno (nothing logged). */
static int
lp_ring_open(struct lp_ring *rg, struct perf_event_attr *at, int cpu,
    size_t pages)
{
	int e;

	rg->pages = pages;
	rg->base = NULL;
	rg->fd = (int)syscall(SYS_perf_event_open, at, -1, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (rg->fd < 0)
		return -1;
	rg->base = mmap(NULL, (1 + pages) * getpagesize(),
	    PROT_READ | PROT_WRITE, MAP_SHARED, rg->fd, 0);
	if (rg->base == MAP_FAILED) {
		e = errno;
		rg->base = NULL;
		lp_ring_close(rg);
		errno = e;
		return -1;
	}
	return 0;
}

/*
 * hw: sample CPU cycles with the hardware PMU (NMI-driven on x86, so time
 * spent spinning with interrupts off is seen where it is spent); else the
 * cpu-clock software event (an hrtimer: irq-off time is charged to where
 * interrupts come back on, often the caller when the unlock is inlined).
 */
static int
lp_open(struct lp_ring *rg, int cpu, long freq, int hw)
{
	struct perf_event_attr at;

	memset(&at, 0, sizeof(at));
	at.size = sizeof(at);
	if (hw) {
		at.type = PERF_TYPE_HARDWARE;
		at.config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		at.type = PERF_TYPE_SOFTWARE;
		at.config = PERF_COUNT_SW_CPU_CLOCK;
		at.exclude_idle = 1;
	}
	at.freq = 1;
	at.sample_freq = freq;
	at.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	at.exclude_user = 1;
	at.exclude_hv = 1;
	at.exclude_callchain_user = 1;
	at.disabled = 1;
	if (lp_ring_open(rg, &at, cpu, LP_PAGES) == 0)
		return 0;
	if (hw)
		return -1;	/* the caller falls back or says so */
	return load_err("lock-profile: perf_event_open(cpu-clock, CPU %d): %s (needs CONFIG_PERF_EVENTS and root or kernel.perf_event_paranoid <= 0)",
	    cpu, strerror(errno));
}

static void
lp_copy(unsigned char *dst, const unsigned char *data, size_t size,
    unsigned long long off, size_t len)
{
	size_t o = off % size, first = len < size - o ? len : size - o;

	memcpy(dst, data + o, first);
	memcpy(dst + first, data, len - first);
}

/*
 * Reads every complete record out of one ring: fn gets each
 * PERF_RECORD_SAMPLE (the header and the body); PERF_RECORD_LOST adds to
 * *lost.
 */
static void
lp_drain(struct lp_ring *rg, void (*fn)(void *, const unsigned char *,
    size_t), void *arg, long *lost)
{
	struct perf_event_mmap_page *mp = rg->base;
	long pg = getpagesize();
	size_t size = rg->pages * pg;
	unsigned char *data = (unsigned char *)rg->base + pg;
	unsigned long long head, tail;
	static unsigned char rec[LP_MAX_REC];
	struct perf_event_header h;

	if (!rg->base)
		return;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail + sizeof(h) <= head) {
		lp_copy((unsigned char *)&h, data, size, tail, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size <= sizeof(rec)) {
			lp_copy(rec, data, size, tail, h.size);
			fn(arg, rec + sizeof(h), h.size - sizeof(h));
		} else if (h.type == PERF_RECORD_LOST &&
		    h.size >= sizeof(h) + 16) {
			unsigned long long l[2];

			lp_copy((unsigned char *)l, data, size,
			    tail + sizeof(h), 16);
			*lost += (long)l[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

/* ---- the sampling profile ------------------------------------------------ */

struct lp_prof {
	struct prof	 prof;
	const struct prof_syms *syms;
};

/* One IP | CALLCHAIN sample into the profile. */
static void
lp_on_sample(void *arg, const unsigned char *body, size_t len)
{
	struct lp_prof *lp = arg;
	unsigned long long u[LP_MAX_STACK + 2], ips[LP_MAX_STACK], ip, nr, i;
	int n = 0;

	if (len < 16)
		return;
	memcpy(u, body, len < sizeof(u) ? len : sizeof(u));
	ip = u[0];
	nr = u[1];
	if (nr > (len - 16) / 8 || nr > LP_MAX_STACK)
		return;
	ips[n++] = ip;
	for (i = 0; i < nr && n < LP_MAX_STACK; i++) {
		/* context markers (PERF_CONTEXT_KERNEL...) */
		if (u[2 + i] >= (unsigned long long)PERF_CONTEXT_MAX)
			continue;
		if (n == 1 && u[2 + i] == ip)
			continue;
		ips[n++] = u[2 + i];
	}
	prof_add(&lp->prof, lp->syms, ips, n);
}

/* Opens the sampler on every CPU: cycles, or cpu-clock without a PMU. */
static int
lp_prof_open(struct wl_run *r, struct lp_ring *rings, int *hwp)
{
	const char *ev = wl_get(r, "event");
	int hw = strcmp(ev, "cpu-clock") != 0, i, k;

	for (i = 0; i < r->topo->ncpus; i++) {
		if (lp_open(&rings[i], r->topo->cpus[i].id,
		    wl_get_int(r, "freq"), hw) == 0)
			continue;
		if (!hw)
			return -1;
		if (strcmp(ev, "cycles") == 0)
			return load_err("lock-profile: --event cycles: no hardware PMU sampling here (perf_event_open: %s); use --event cpu-clock",
			    strerror(errno));
		/* auto: no PMU (qemu TCG, most VMs): start over with cpu-clock */
		for (k = 0; k < i; k++)
			lp_ring_close(&rings[k]);
		hw = 0;
		i = -1;
	}
	*hwp = hw;
	return 0;
}

/* ---- the contention tracepoints ----------------------------------------- */

struct lp_trace {
	struct lockstat_fmt fb, fe;
	struct lp_ring	*begin, *end;	/* per CPU */
	struct lockstat_rec *recs;	/* one drain's records */
	size_t		 nrecs, cap;
	long		 lost, bad;
	struct lockstat	 ls;
};

static const char *const lp_tracefs[] = { "/sys/kernel/tracing",
    "/sys/kernel/debug/tracing", NULL };

/* Reads events/lock/NAME/format, mounting tracefs when it is not. */
static int
lp_tp_format(struct lockstat_fmt *f, const char *name, const char *arg)
{
	char path[256];
	size_t len;
	char *text = NULL;
	int i, rc;

	for (i = 0; !text && lp_tracefs[i]; i++) {
		snprintf(path, sizeof(path), "%s/events/lock/%s/format",
		    lp_tracefs[i], name);
		text = load_read_all(path, 1 << 16, &len);
	}
	if (!text) {
		mkdir(lp_tracefs[0], 0755);
		if (mount("tracefs", lp_tracefs[0], "tracefs", 0, NULL) < 0 &&
		    errno != EBUSY)
			return load_err("lock-contention: tracefs is not mounted and mount(tracefs, %s) failed: %s (needs CONFIG_FTRACE/TRACEPOINTS)",
			    lp_tracefs[0], strerror(errno));
		snprintf(path, sizeof(path), "%s/events/lock/%s/format",
		    lp_tracefs[0], name);
		text = load_read_all(path, 1 << 16, &len);
	}
	if (!text)
		return load_err("lock-contention: cannot read %s: %s (a kernel without the lock:%s tracepoint, 5.19+)",
		    path, strerror(errno), name);
	rc = lockstat_fmt_parse(f, text, len, arg);
	free(text);
	if (rc < 0)
		return load_err("lock-contention: %s: %s", path,
		    load_last_error());
	return 0;
}

static struct lockstat_rec *
lp_rec_slot(struct lp_trace *tr)
{
	if (tr->nrecs == tr->cap) {
		tr->cap = tr->cap ? tr->cap * 2 : 4096;
		tr->recs = load_xrealloc(tr->recs, tr->cap * sizeof(*tr->recs));
	}
	return &tr->recs[tr->nrecs];
}

/* A contention_begin record (with its callchain). */
static void
lp_on_begin(void *arg, const unsigned char *body, size_t len)
{
	struct lp_trace *tr = arg;

	if (lockstat_rec_parse(lp_rec_slot(tr), body, len, 1, &tr->fb,
	    NULL) == 0)
		tr->nrecs++;
	else
		tr->bad++;
}

/* A contention_end record. */
static void
lp_on_end(void *arg, const unsigned char *body, size_t len)
{
	struct lp_trace *tr = arg;

	if (lockstat_rec_parse(lp_rec_slot(tr), body, len, 0, NULL,
	    &tr->fe) == 0)
		tr->nrecs++;
	else
		tr->bad++;
}

static int
lp_tp_open(struct lp_ring *rg, const struct lockstat_fmt *f, int cpu,
    int callchain)
{
	struct perf_event_attr at;

	memset(&at, 0, sizeof(at));
	at.size = sizeof(at);
	at.type = PERF_TYPE_TRACEPOINT;
	at.config = (unsigned long long)f->id;
	at.sample_period = 1;
	at.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	if (callchain) {
		at.sample_type |= PERF_SAMPLE_CALLCHAIN;
		at.exclude_callchain_user = 1;
		at.sample_max_stack = LOCKSTAT_MAX_STACK;
	}
	at.disabled = 1;
	if (lp_ring_open(rg, &at, cpu, callchain ? LP_TP_PAGES : LP_PAGES) == 0)
		return 0;
	return load_err("lock-contention: perf_event_open(lock:contention_%s, CPU %d): %s (needs root and CONFIG_PERF_EVENTS)",
	    callchain ? "begin" : "end", cpu, strerror(errno));
}

/* Opens both tracepoints on every CPU. */
static int
lp_trace_open(struct lp_trace *tr, const struct load_topo *topo)
{
	int i;

	if (lp_tp_format(&tr->fb, "contention_begin", "flags") < 0 ||
	    lp_tp_format(&tr->fe, "contention_end", "ret") < 0)
		return -1;
	for (i = 0; i < topo->ncpus; i++)
		if (lp_tp_open(&tr->begin[i], &tr->fb, topo->cpus[i].id, 1) < 0 ||
		    lp_tp_open(&tr->end[i], &tr->fe, topo->cpus[i].id, 0) < 0)
			return -1;
	return 0;
}

/* Every ring's records, in time order, into the lock totals. */
static void
lp_trace_drain(struct lp_trace *tr, int ncpus)
{
	size_t k;
	int i;

	for (i = 0; i < ncpus; i++) {
		lp_drain(&tr->begin[i], lp_on_begin, tr, &tr->lost);
		lp_drain(&tr->end[i], lp_on_end, tr, &tr->lost);
	}
	lockstat_sort_recs(tr->recs, tr->nrecs);
	for (k = 0; k < tr->nrecs; k++)
		lockstat_add(&tr->ls, &tr->recs[k]);
	tr->nrecs = 0;
}

static int
lp_target(void *arg)
{
	struct wl_run *t = arg;

	return wl_execute(t);
}

/* Everything one lock-profile run holds. */
struct lp {
	struct wl_run	*r;
	const struct wl_def *tdef;
	struct wl_run	 t;		/* the target */
	int		 configured;
	int		 prof_on, trace_on, hw;
	struct prof_syms syms, data;
	struct lp_ring	*rings;		/* the sampler's, per CPU */
	struct lp_prof	 lp;
	struct lp_trace	 tr;
	double		 wall;		/* seconds the target ran */
};

/* The target gets every parameter that is its own. */
static int
lp_configure_target(struct lp *l)
{
	struct wl_run *r = l->r;
	const char *keys[WL_MAX_PARAMS], *vals[WL_MAX_PARAMS];
	const struct wl_param *p;
	int i, n = 0;

	l->tdef = wl_find(wl_get(r, "target"));
	for (i = 0; i < r->nparams; i++)
		for (p = l->tdef->params; p->name; p++)
			if (strcmp(p->name, r->keys[i]) == 0) {
				keys[n] = r->keys[i];
				vals[n++] = r->vals[i];
			}
	if (wl_configure(&l->t, l->tdef, r->topo, n, keys, vals) < 0)
		return -1;
	l->configured = 1;
	l->t.seconds = r->seconds;
	l->t.iterations = r->iterations;
	l->t.warmup = 0;
	l->t.quiet = 1;
	return 0;
}

/* Opens what --pass asks for; "both" goes on without the tracepoints
   when the kernel has none (said on stderr). */
static int
lp_open_passes(struct lp *l)
{
	const char *pass = wl_get(l->r, "pass");
	int i, ncpus = l->r->topo->ncpus;

	l->prof_on = strcmp(pass, "contention") != 0;
	l->trace_on = strcmp(pass, "profile") != 0;
	l->rings = load_xcalloc(ncpus, sizeof(*l->rings));
	l->tr.begin = load_xcalloc(ncpus, sizeof(*l->tr.begin));
	l->tr.end = load_xcalloc(ncpus, sizeof(*l->tr.end));
	for (i = 0; i < ncpus; i++)
		l->rings[i].fd = l->tr.begin[i].fd = l->tr.end[i].fd = -1;
	if (l->prof_on && lp_prof_open(l->r, l->rings, &l->hw) < 0)
		return -1;
	if (l->trace_on && lp_trace_open(&l->tr, l->r->topo) < 0) {
		if (!l->prof_on)
			return -1;
		fprintf(stderr, "kperfci-load: lock-profile: no contention pass, the profile alone: %s\n",
		    load_last_error());
		load_clear_error();
		for (i = 0; i < ncpus; i++) {
			lp_ring_close(&l->tr.begin[i]);
			lp_ring_close(&l->tr.end[i]);
		}
		l->trace_on = 0;
	}
	return 0;
}

static void
lp_enable(struct lp *l, unsigned long req)
{
	int i;

	for (i = 0; i < l->r->topo->ncpus; i++) {
		if (l->rings[i].fd >= 0)
			ioctl(l->rings[i].fd, req, 0);
		if (l->tr.begin[i].fd >= 0)
			ioctl(l->tr.begin[i].fd, req, 0);
		if (l->tr.end[i].fd >= 0)
			ioctl(l->tr.end[i].fd, req, 0);
	}
}

static void
lp_drain_all(struct lp *l)
{
	int i;

	for (i = 0; l->prof_on && i < l->r->topo->ncpus; i++)
		lp_drain(&l->rings[i], lp_on_sample, &l->lp, &l->lp.prof.lost);
	if (l->trace_on)
		lp_trace_drain(&l->tr, l->r->topo->ncpus);
}

/* Runs the target while draining every ring; 0 when it succeeded. */
static int
lp_watch(struct lp *l)
{
	pid_t pid, w;
	double t0;
	int st = 0;

	lp_enable(l, PERF_EVENT_IOC_ENABLE);
	t0 = load_now();
	if ((pid = wl_fork(lp_target, &l->t)) < 0)
		return -1;
	for (;;) {
		w = waitpid(pid, &st, WNOHANG);
		lp_drain_all(l);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			load_err("lock-profile: waiting for %s: %s",
			    l->tdef->name, strerror(errno));
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -1;
		}
		wl_sleep(0.02);
	}
	l->wall = load_now() - t0;
	lp_enable(l, PERF_EVENT_IOC_DISABLE);
	lp_drain_all(l);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return load_err("lock-profile: the target %s failed (its message is above)",
		    l->tdef->name);
	return 0;
}

/* CPUs the target's tasks run on: its "tasks" parameter, else all. */
static int
lp_task_cpus(struct lp *l)
{
	const struct wl_param *p;
	int *cpus = NULL, n = 0;

	for (p = l->tdef->params; p->name; p++)
		if (strcmp(p->name, "tasks") == 0 &&
		    wl_get_tasks(&l->t, "tasks", &cpus, &n) == 0) {
			free(cpus);
			return n > 0 ? n : 1;
		}
	return l->r->topo->ncpus;
}

static int
lp_emit(struct lp *l)
{
	struct wl_run *r = l->r;
	struct sample_json j;
	int tasks;

	if (l->prof_on && l->lp.prof.total == 0)
		return load_err("lock-profile: no kernel samples were taken while %s ran",
		    l->tdef->name);
	if (r->quiet)
		return 0;
	if (l->prof_on) {
		sample_json_init(&j);
		l->lp.prof.event = l->hw ? "cycles" : "cpu-clock";
		prof_json(&l->lp.prof, r->params, (int)wl_get_int(r, "top"),
		    &j);
		sample_emit_raw(&j);
		sample_json_release(&j);
	}
	if (l->trace_on) {
		tasks = lp_task_cpus(l);
		lockstat_emit(&l->tr.ls, r->def->name, r->params,
		    (int)wl_get_int(r, "top"), tasks * l->wall * 1e9);
		fprintf(stderr, "kperfci-load: lock-contention: %lld begins, %lld ends, %lld unpaired, %ld lost, %ld unreadable records, %d locks, %d tasks x %.2f s\n",
		    l->tr.ls.begins, l->tr.ls.ends, l->tr.ls.unpaired,
		    l->tr.lost, l->tr.bad, l->tr.ls.nlocks, tasks, l->wall);
	}
	return 0;
}

static void
lp_release(struct lp *l)
{
	int i;

	for (i = 0; i < l->r->topo->ncpus; i++) {
		if (l->rings)
			lp_ring_close(&l->rings[i]);
		if (l->tr.begin)
			lp_ring_close(&l->tr.begin[i]);
		if (l->tr.end)
			lp_ring_close(&l->tr.end[i]);
	}
	free(l->rings);
	free(l->tr.begin);
	free(l->tr.end);
	free(l->tr.recs);
	lockstat_release(&l->tr.ls);
	prof_release(&l->lp.prof);
	prof_syms_release(&l->syms);
	prof_syms_release(&l->data);
	if (l->configured)
		wl_run_release(&l->t);
}

static int
lp_run(struct wl_run *r)
{
	struct lp l;
	int rc = -1;

	memset(&l, 0, sizeof(l));
	l.r = r;
	if (lp_configure_target(&l) < 0)
		goto out;
	if (prof_syms_load(&l.syms, &l.data, "/proc/kallsyms") < 0)
		goto out;
	l.lp.syms = &l.syms;
	lockstat_init(&l.tr.ls, &l.syms, &l.data, (int)wl_get_int(r, "depth"));
	if (lp_open_passes(&l) < 0 || lp_watch(&l) < 0 || lp_emit(&l) < 0)
		goto out;
	rc = 0;
out:
	lp_release(&l);
	return rc;
}

static const struct wl_param lp_params[] = {
	{ "target", WL_STR, "fault-free", "workload to profile (with its own parameters)", 0, 0, NULL },
	{ "event", WL_ENUM, "auto", "what to sample: cycles (hardware PMU), cpu-clock, or auto (cycles if the PMU samples, else cpu-clock)", 0, 0, "auto|cycles|cpu-clock" },
	{ "freq", WL_INT, "999", "samples per second per CPU", 10, 100000, NULL },
	{ "top", WL_INT, "10", "locks, callers and symbols kept", 1, 1000, NULL },
	{ "pass", WL_ENUM, "both", "profile (cycles sampler), contention (lock:contention_begin/end tracepoints: wait time per lock as samples) or both", 0, 0, "both|profile|contention" },
	{ "depth", WL_INT, "1", "callers naming a lock that has no symbol of its own (contention pass)", 1, 3, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

const struct wl_def wl_lock_profile = {
	.name = "lock-profile",
	.desc = "runs --target while sampling the kernel (perf_event_open cpu-clock, callchains: top contended locks and their callers as one JSON line) and tracing lock:contention_begin/end (wait time, count, max and share per lock, as samples)",
	.params = lp_params,
	.needs_cgroup = 0,
	.run = lp_run,
};
