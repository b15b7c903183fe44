/*
 * wl_page_fault: seeds/004, will-it-scale's page_fault1/2/3 with exactly
 * their work per operation, so ops/s compare with published figures:
 *   1: mmap 128 MiB MAP_PRIVATE|MAP_ANONYMOUS, write one byte per page
 *      (one op per page), munmap;
 *   2: the same over a MAP_PRIVATE mapping of the task's own 128 MiB file
 *      (mkstemp in --dir, ftruncate, unlink: tmpfs under /tmp normally);
 *   3: the same over a MAP_SHARED mapping of that file.
 * Tasks are processes (will-it-scale's default, separate mms) or threads
 * (one mm: mmap_lock contention too).  --thp N sets the mTHP size N kB to
 * "always" in /sys/kernel/mm/transparent_hugepage/hugepages-NkB/enabled for
 * the run and restores the previous setting after it (--thp 2048 is the
 * PMD size: THPs that 6.12 queues for deferred split at fault time); with
 * --thp the metric thp_fault_share says which part of the faulted memory
 * came as folios of that size (hugepages-NkB/stats/anon_fault_alloc), so a
 * run that silently fell back to small pages shows.  Tasks start once;
 * each iteration is a window of --seconds over the running tasks (as
 * will-it-scale samples its counters every second).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/load/util.h"
#include "agents/load/wl.h"

#define PF_MEMSIZE	(128UL * 1024 * 1024)

struct pf_arg {
	int	 variant;
	char	 dir[PATH_MAX];
};

static void
pf_task(struct wl_task *t)
{
	struct pf_arg *a = t->arg;
	unsigned long pgsize = getpagesize(), i;
	int fd = -1, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	char *c;

	if (a->variant != 1) {
		char tmpfile[PATH_MAX];

		snprintf(tmpfile, sizeof(tmpfile), "%.3000s/willitscale.XXXXXX", a->dir);
		fd = mkstemp(tmpfile);
		if (fd < 0) {
			wl_task_fail(t, "mkstemp in %s: %s", a->dir, strerror(errno));
			return;
		}
		if (ftruncate(fd, PF_MEMSIZE) < 0) {
			wl_task_fail(t, "ftruncate %s: %s", tmpfile, strerror(errno));
			unlink(tmpfile);
			close(fd);
			return;
		}
		unlink(tmpfile);
		flags = a->variant == 2 ? MAP_PRIVATE : MAP_SHARED;
	}
	while (!*t->stop) {
		c = mmap(NULL, PF_MEMSIZE, PROT_READ | PROT_WRITE, flags, fd, 0);
		if (c == MAP_FAILED) {
			wl_task_fail(t, "mmap of 128 MiB: %s", strerror(errno));
			break;
		}
		for (i = 0; i < PF_MEMSIZE; i += pgsize) {
			c[i] = 0;
			wl_count(t, 1);
		}
		munmap(c, PF_MEMSIZE);
	}
	if (fd >= 0)
		close(fd);
}

/* Sets hugepages-<kb>kB/enabled to "always"; old receives the current
   bracketed choice to restore. */
static int
pf_thp_set(long kb, char *path, size_t pathsz, char *old, size_t oldsz)
{
	char cur[256], *b, *e;

	snprintf(path, pathsz,
	    "/sys/kernel/mm/transparent_hugepage/hugepages-%ldkB/enabled", kb);
	if (load_read_small(path, cur, sizeof(cur)) < 0)
		return load_err("page-fault: mTHP size %ld kB is not available on this kernel (%s: %s)",
		    kb, path, strerror(errno));
	b = strchr(cur, '[');
	e = b ? strchr(b, ']') : NULL;
	if (!b || !e)
		return load_err("page-fault: cannot parse %s: \"%s\"", path, cur);
	snprintf(old, oldsz, "%.*s", (int)(e - b - 1), b + 1);
	if (load_write_str(path, "always") < 0)
		return load_err("page-fault: cannot write \"always\" to %s: %s",
		    path, strerror(errno));
	return 0;
}

/* anon_fault_alloc of the mTHP size kb, or -1 (no stats on this kernel) */
static long long
pf_thp_allocs(long kb)
{
	char path[PATH_MAX], buf[64];
	long v;

	snprintf(path, sizeof(path),
	    "/sys/kernel/mm/transparent_hugepage/hugepages-%ldkB/stats/anon_fault_alloc",
	    kb);
	if (load_read_small(path, buf, sizeof(buf)) < 0 ||
	    load_parse_long(buf, &v) < 0)
		return -1;
	return v;
}

static int
pf_run(struct wl_run *r)
{
	struct pf_arg a;
	struct wl_tasks g;
	char thp_path[PATH_MAX], thp_old[64];
	int *cpus = NULL, n, it, rc = -1, started = 0;
	unsigned long long c0, c1;
	long thp = wl_get_int(r, "thp");
	double t0, t1, ops;
	long long a0, a1;

	memset(&a, 0, sizeof(a));
	a.variant = (int)wl_get_int(r, "variant");
	snprintf(a.dir, sizeof(a.dir), "%s", wl_get(r, "dir"));
	thp_path[0] = '\0';
	if (wl_get_tasks(r, "tasks", &cpus, &n) < 0)
		return -1;
	/* a bare initramfs may have no /tmp yet */
	if (a.variant != 1 && mkdir(a.dir, 01777) < 0 && errno != EEXIST) {
		load_err("page-fault: cannot create --dir %s: %s", a.dir, strerror(errno));
		goto out;
	}
	if (thp && pf_thp_set(thp, thp_path, sizeof(thp_path), thp_old,
	    sizeof(thp_old)) < 0) {
		thp_path[0] = '\0';
		goto out;
	}
	if (wl_tasks_start(&g, cpus, n, strcmp(wl_get(r, "mode"), "process") == 0,
	    pf_task, &a) < 0)
		goto out;
	started = 1;
	for (it = 0; it < r->warmup + r->iterations; it++) {
		a0 = thp ? pf_thp_allocs(thp) : -1;
		t0 = load_now();
		c0 = wl_tasks_sum(&g);
		wl_sleep(r->seconds);
		c1 = wl_tasks_sum(&g);
		t1 = load_now();
		a1 = thp ? pf_thp_allocs(thp) : -1;
		if (wl_tasks_failed(&g))
			goto out;
		ops = (c1 - c0) / (t1 - t0);
		wl_emit(r, it, "ops_per_sec", ops, "ops/s", 1);
		wl_emit(r, it, "ops_per_sec_per_task", ops / n, "ops/s", 1);
		if (a0 >= 0 && a1 >= a0 && c1 > c0)
			wl_emit(r, it, "thp_fault_share", (double)(a1 - a0) * thp *
			    1024 / ((double)(c1 - c0) * getpagesize()), "ratio", 1);
	}
	rc = 0;
out:
	if (started && wl_tasks_stop(&g) < 0)
		rc = -1;
	if (thp_path[0] && load_write_str(thp_path, thp_old) < 0)
		rc = load_err("page-fault: cannot restore \"%s\" in %s: %s",
		    thp_old, thp_path, strerror(errno));
	free(cpus);
	return rc;
}

static const struct wl_param pf_params[] = {
	{ "variant", WL_INT, "1", "1 anon, 2 private file, 3 shared file (will-it-scale page_faultN)", 1, 3, NULL },
	{ "tasks", WL_TASKS, "all", "tasks, one per CPU", 0, 0, NULL },
	{ "mode", WL_ENUM, "process", "tasks as processes or threads of one process", 0, 0, "process|thread" },
	{ "thp", WL_INT, "0", "mTHP size in kB set to always for the run (0: leave as is)", 0, 1 << 21, NULL },
	{ "dir", WL_STR, "/tmp", "where variants 2 and 3 create their files", 0, 0, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

const struct wl_def wl_page_fault = {
	.name = "page-fault",
	.desc = "will-it-scale page_fault1/2/3: map 128 MiB, write every page (one op each), unmap; ops/s total and per task",
	.params = pf_params,
	.needs_cgroup = 0,
	.run = pf_run,
};
