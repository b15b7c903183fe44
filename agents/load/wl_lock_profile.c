/*
 * wl_lock_profile: seeds/000 and 004 ("52.8% of cycles spinning on
 * lru_lock", "perf lock share 64% -> 20%").  Runs a target workload
 * (--target, with the target's own parameters) in a child process while
 * this process samples the kernel itself with perf_event_open(2): CPU
 * cycles where a hardware PMU can sample (bare metal), else the software
 * cpu-clock (qemu TCG, most VMs), at --freq Hz on every online CPU, kernel
 * only, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN.  No perf binary is needed.
 * The line says which event was used ("event").  Addresses are
 * resolved with /proc/kallsyms and attributed by prof.c; the result is one
 * JSON line of type "lock-profile" (shares are of all kernel samples).
 * The target's own samples are not emitted in this pass: a profile
 * perturbs what it measures.
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/load/prof.h"
#include "agents/load/sample.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"

#define LP_PAGES	64	/* data pages per CPU ring (power of two) */
#define LP_MAX_STACK	128

struct lp_ring {
	int	 fd;
	void	*base;
};

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
	long pg = getpagesize();

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
	rg->fd = (int)syscall(SYS_perf_event_open, &at, -1, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (rg->fd < 0) {
		if (hw)
			return -1;	/* the caller falls back or says so */
		return load_err("lock-profile: perf_event_open(cpu-clock, CPU %d): %s (needs CONFIG_PERF_EVENTS and root or kernel.perf_event_paranoid <= 0)",
		    cpu, strerror(errno));
	}
	rg->base = mmap(NULL, (1 + LP_PAGES) * pg, PROT_READ | PROT_WRITE,
	    MAP_SHARED, rg->fd, 0);
	if (rg->base == MAP_FAILED) {
		rg->base = NULL;
		return load_err("lock-profile: cannot map the perf ring of CPU %d: %s",
		    cpu, strerror(errno));
	}
	return 0;
}

static void
lp_copy(unsigned char *dst, const unsigned char *data, size_t size,
    unsigned long long off, size_t len)
{
	size_t o = off % size, first = len < size - o ? len : size - o;

	memcpy(dst, data + o, first);
	memcpy(dst + first, data, len - first);
}

/* Reads every complete record out of one ring. */
static void
lp_drain(struct lp_ring *rg, struct prof *p, const struct prof_syms *s)
{
	struct perf_event_mmap_page *mp = rg->base;
	long pg = getpagesize();
	size_t size = LP_PAGES * pg;
	unsigned char *data = (unsigned char *)rg->base + pg;
	unsigned long long head, tail;
	unsigned char rec[8 + 8 + 8 + 8 * (LP_MAX_STACK + 8)];
	struct perf_event_header h;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail + sizeof(h) <= head) {
		lp_copy((unsigned char *)&h, data, size, tail, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size <= sizeof(rec)) {
			unsigned long long *u, ip, nr, ips[LP_MAX_STACK];
			int n = 0;

			lp_copy(rec, data, size, tail, h.size);
			u = (unsigned long long *)(rec + sizeof(h));
			ip = u[0];
			nr = u[1];
			if (16 + sizeof(h) + nr * 8 <= h.size) {
				unsigned long long i;

				ips[n++] = ip;
				for (i = 0; i < nr && n < LP_MAX_STACK; i++) {
					/* context markers (PERF_CONTEXT_KERNEL...) */
					if (u[2 + i] >= (unsigned long long)PERF_CONTEXT_MAX)
						continue;
					if (n == 1 && u[2 + i] == ip)
						continue;
					ips[n++] = u[2 + i];
				}
				prof_add(p, s, ips, n);
			}
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			unsigned long long lost[2];

			lp_copy((unsigned char *)lost, data, size,
			    tail + sizeof(h), 16);
			p->lost += (long)lost[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static int
lp_target(void *arg)
{
	struct wl_run *t = arg;

	return wl_execute(t);
}

static int
lp_run(struct wl_run *r)
{
	const struct wl_def *tdef = wl_find(wl_get(r, "target"));
	const char *keys[WL_MAX_PARAMS], *vals[WL_MAX_PARAMS];
	struct lp_ring *rings = NULL;
	struct prof_syms syms = { 0 };
	struct prof prof;
	struct sample_json j;
	struct wl_run t;
	int i, k, n = 0, rc = -1, configured = 0, st, hw;
	const char *ev;
	long pg = getpagesize();
	pid_t pid = -1;

	memset(&prof, 0, sizeof(prof));
	/* the target gets every parameter that is its own */
	for (i = 0; i < r->nparams; i++) {
		const struct wl_param *p;

		for (p = tdef->params; p->name; p++)
			if (strcmp(p->name, r->keys[i]) == 0) {
				keys[n] = r->keys[i];
				vals[n++] = r->vals[i];
			}
	}
	if (wl_configure(&t, tdef, r->topo, n, keys, vals) < 0)
		return -1;
	configured = 1;
	t.seconds = r->seconds;
	t.iterations = r->iterations;
	t.warmup = 0;
	t.quiet = 1;
	if (prof_syms_load(&syms, "/proc/kallsyms") < 0)
		goto out;
	rings = load_xcalloc(r->topo->ncpus, sizeof(*rings));
	for (i = 0; i < r->topo->ncpus; i++)
		rings[i].fd = -1;
	ev = wl_get(r, "event");
	hw = strcmp(ev, "cpu-clock") != 0;
	for (i = 0; i < r->topo->ncpus; i++) {
		if (lp_open(&rings[i], r->topo->cpus[i].id, wl_get_int(r, "freq"),
		    hw) == 0)
			continue;
		if (!hw || rings[i].fd >= 0)
			goto out;
		if (strcmp(ev, "cycles") == 0) {
			load_err("lock-profile: --event cycles: no hardware PMU sampling here (perf_event_open: %s); use --event cpu-clock",
			    strerror(errno));
			goto out;
		}
		/* auto: no PMU (qemu TCG, most VMs): start over with cpu-clock */
		for (k = 0; k < i; k++) {
			munmap(rings[k].base, (1 + LP_PAGES) * pg);
			close(rings[k].fd);
			rings[k].base = NULL;
			rings[k].fd = -1;
		}
		hw = 0;
		i = -1;
	}
	for (i = 0; i < r->topo->ncpus; i++)
		ioctl(rings[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	pid = wl_fork(lp_target, &t);
	if (pid < 0)
		goto out;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		for (i = 0; i < r->topo->ncpus; i++)
			lp_drain(&rings[i], &prof, &syms);
		if (w == pid) {
			pid = -1;
			break;
		}
		if (w < 0 && errno != EINTR) {
			load_err("lock-profile: waiting for %s: %s", tdef->name,
			    strerror(errno));
			goto out;
		}
		wl_sleep(0.05);
	}
	for (i = 0; i < r->topo->ncpus; i++) {
		ioctl(rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
		lp_drain(&rings[i], &prof, &syms);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		load_err("lock-profile: the target %s failed (its message is above)",
		    tdef->name);
		goto out;
	}
	if (prof.total == 0) {
		load_err("lock-profile: no kernel samples were taken while %s ran",
		    tdef->name);
		goto out;
	}
	sample_json_init(&j);
	prof.event = hw ? "cycles" : "cpu-clock";
	prof_json(&prof, r->params, (int)wl_get_int(r, "top"), &j);
	if (!r->quiet)
		sample_emit_raw(&j);
	sample_json_release(&j);
	rc = 0;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	for (i = 0; rings && i < r->topo->ncpus; i++) {
		if (rings[i].base)
			munmap(rings[i].base, (1 + LP_PAGES) * pg);
		if (rings[i].fd >= 0)
			close(rings[i].fd);
	}
	free(rings);
	prof_release(&prof);
	prof_syms_release(&syms);
	if (configured)
		wl_run_release(&t);
	return rc;
}

static const struct wl_param lp_params[] = {
	{ "target", WL_STR, "fault-free", "workload to profile (with its own parameters)", 0, 0, NULL },
	{ "event", WL_ENUM, "auto", "what to sample: cycles (hardware PMU), cpu-clock, or auto (cycles if the PMU samples, else cpu-clock)", 0, 0, "auto|cycles|cpu-clock" },
	{ "freq", WL_INT, "999", "samples per second per CPU", 10, 100000, NULL },
	{ "top", WL_INT, "10", "locks, callers and symbols kept", 1, 1000, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

const struct wl_def wl_lock_profile = {
	.name = "lock-profile",
	.desc = "runs --target while sampling the kernel (perf_event_open cpu-clock, callchains); top contended locks and their callers as one JSON line",
	.params = lp_params,
	.needs_cgroup = 0,
	.run = lp_run,
};
