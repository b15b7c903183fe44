/*
 * wl_swap_memhog: seeds/001 (list_lru per-cgroup split: "memhog swap over
 * zram in many cgroups").  --groups memcgs, each with memory.max = --limit
 * below what its one process allocates (--size), so every pass over the
 * memory swaps pages out to a zram device and back in.  The zram swap
 * device is set up here (hot_add or zram0, disksize, device node, a swap
 * header written by hand since a bare initramfs has no mkswap, swapon(2))
 * and torn down after the run.  Metrics per iteration: wall seconds from
 * the release of the memhogs to the last exit, and the system and user CPU
 * seconds of those children (getrusage RUSAGE_CHILDREN deltas).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/load/cg.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"
#include "agents/load/zram.h"

struct sm_args {
	size_t	 size;
	int	 passes;
};

/* Memhog i, in its memcg (a wl_gate child): touches every page of size
   bytes, passes times, so memory.max below size makes it swap. */
static int
memhog_child(int i, void *arg)
{
	const struct sm_args *a = arg;
	long pg = getpagesize();
	char *p;
	size_t j;
	int k;

	p = mmap(NULL, a->size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return load_err("memhog %d: mmap of %zu bytes: %s", i, a->size,
		    strerror(errno));
	for (k = 0; k < a->passes; k++)
		for (j = 0; j < a->size; j += pg)
			p[j] = (char)(k + 1);
	return 0;
}

static double
tv_sec(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static int
sm_iteration(struct wl_run *r, int it, const int *cpus, int ncpus)
{
	int groups = (int)wl_get_int(r, "groups");
	struct sm_args a = { wl_get_size(r, "size"),
	    (int)wl_get_int(r, "passes") };
	struct wl_gate g;
	struct rusage ru0, ru1;
	char limit[32], hint[96];
	double t0, t1;
	int rc = -1;

	memset(&g, 0, sizeof(g));
	snprintf(limit, sizeof(limit), "%llu", wl_get_size(r, "limit"));
	snprintf(hint, sizeof(hint), " (killed: OOM with memory.max=%s?)",
	    limit);
	if (wl_gate_start(&g, groups, "memhog", limit, cpus, ncpus,
	    memhog_child, &a) < 0)
		goto out;
	getrusage(RUSAGE_CHILDREN, &ru0);
	t0 = load_now();
	if (wl_gate_open(&g) < 0)
		goto out;
	rc = wl_gate_wait(&g, "memhog in group", hint);
	t1 = load_now();
	getrusage(RUSAGE_CHILDREN, &ru1);
	if (rc == 0) {
		wl_emit(r, it, "wall_sec", t1 - t0, "s", 0);
		wl_emit(r, it, "sys_sec", tv_sec(ru1.ru_stime) - tv_sec(ru0.ru_stime), "s", 0);
		wl_emit(r, it, "user_sec", tv_sec(ru1.ru_utime) - tv_sec(ru0.ru_utime), "s", 0);
	}
out:
	if (wl_gate_release(&g) < 0)
		rc = -1;
	return rc;
}

static int
sm_run(struct wl_run *r)
{
	struct zram z;
	int *cpus = NULL, n, it, rc = -1;

	if (wl_get_size(r, "limit") >= wl_get_size(r, "size"))
		return load_err("swap-memhog: --limit must be below --size, or nothing swaps");
	if (wl_get_tasks(r, "tasks", &cpus, &n) < 0)
		return -1;
	z.id = -1;
	if (zram_create(&z, wl_get_size(r, "zram"), "swap-memhog") < 0 ||
	    zram_swapon(&z, wl_get_size(r, "zram"), "swap-memhog") < 0)
		goto out;
	for (it = 0; it < r->warmup + r->iterations; it++)
		if (sm_iteration(r, it, cpus, n) < 0)
			goto out;
	rc = 0;
out:
	zram_destroy(&z);
	free(cpus);
	return rc;
}

static const struct wl_param sm_params[] = {
	{ "groups", WL_COUNT, "4", "memcgs, one memhog process each", 1, 4096, NULL },
	{ "size", WL_SIZE, "96M", "memory each memhog writes", 1 << 20, 1LL << 40, NULL },
	{ "limit", WL_SIZE, "48M", "memory.max of each memcg (below size)", 1 << 20, 1LL << 40, NULL },
	{ "passes", WL_INT, "2", "passes over the memory (swap out, then in)", 1, 100, NULL },
	{ "zram", WL_SIZE, "1G", "zram swap device size", 1 << 20, 1LL << 40, NULL },
	{ "tasks", WL_TASKS, "all", "CPUs the memhogs are pinned to (round robin)", 0, 0, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

const struct wl_def wl_swap_memhog = {
	.name = "swap-memhog",
	.desc = "memhogs in several memcgs with memory.max below their size swap to zram; wall and sys seconds",
	.params = sm_params,
	.needs_cgroup = 1,
	.run = sm_run,
};
