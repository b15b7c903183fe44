/*
 * wl_fault_free: seeds/000.  Threads pinned one per CPU repeatedly fault in
 * and free memory inside ONE memcg, the pattern where folio_batch_move_lru()
 * (fault in: LRU add) and folios_put_refs() (free) fight over the memcg's
 * lruvec lru_lock.  anon: a private anonymous chunk per thread, touched then
 * MADV_DONTNEED (or, on a kernel without madvise(2), a fresh MAP_FIXED
 * mapping over it); shmem: a memfd chunk per thread, touched through a shared
 * mapping then freed with fallocate(PUNCH_HOLE).  Each iteration runs in a
 * freshly created memcg (the seed averages over 7 fresh memcgs per run);
 * the metric is pages faulted in (and freed) per second over all threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agents/load/cg.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"

#define FF_ALIGN	(2UL << 20)

struct ff_arg {
	int	 shmem;
	size_t	 size;
};

static void
ff_task(struct wl_task *t)
{
	struct ff_arg *a = t->arg;
	size_t pg = (size_t)getpagesize(), npages = a->size / pg, i;
	char *p, *res;
	int fd = -1, no_madvise = 0;

	/*
	 * Each thread's chunk starts on its own 2 MiB boundary, in a region
	 * of its own: chunks of different threads never share a page table
	 * page, so its split PTE lock is not what they contend on.
	 */
	res = mmap(NULL, a->size + FF_ALIGN, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED) {
		wl_task_fail(t, "mmap of %zu bytes: %s", a->size, strerror(errno));
		return;
	}
	p = (char *)(((uintptr_t)res + FF_ALIGN - 1) & ~(uintptr_t)(FF_ALIGN - 1));
	if (a->shmem) {
		fd = memfd_create("kperfci-fault-free", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, a->size) < 0) {
			wl_task_fail(t, "memfd of %zu bytes: %s", a->size, strerror(errno));
			goto out;
		}
		p = mmap(p, a->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		    fd, 0);
	} else {
		p = mmap(p, a->size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	}
	if (p == MAP_FAILED) {
		wl_task_fail(t, "mmap of %zu bytes: %s", a->size, strerror(errno));
		goto out;
	}
	while (!*t->stop) {
		for (i = 0; i < npages; i++)
			p[i * pg] = 1;
		if (a->shmem) {
			if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			    0, a->size) < 0) {
				wl_task_fail(t, "fallocate punch hole: %s", strerror(errno));
				break;
			}
		} else if (!no_madvise && madvise(p, a->size, MADV_DONTNEED) < 0) {
			/* kernels without ADVISE_SYSCALLS (tinyconfig): map a
			   fresh anonymous range over it, which frees the pages */
			if (errno != ENOSYS) {
				wl_task_fail(t, "madvise(MADV_DONTNEED): %s", strerror(errno));
				break;
			}
			no_madvise = 1;
		}
		if (!a->shmem && no_madvise && mmap(p, a->size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
			wl_task_fail(t, "mmap(MAP_FIXED) of %zu bytes: %s", a->size,
			    strerror(errno));
			break;
		}
		wl_count(t, npages);
	}
out:
	munmap(res, a->size + FF_ALIGN);
	if (fd >= 0)
		close(fd);
}

static int
ff_run(struct wl_run *r)
{
	struct ff_arg a;
	struct wl_tasks g;
	struct cg cg = { "" };
	int *cpus = NULL, n, it, rc = -1;
	unsigned long long c0, c1;
	double t0, t1;

	a.shmem = strcmp(wl_get(r, "mode"), "shmem") == 0;
	a.size = wl_get_size(r, "size");
	if (wl_get_tasks(r, "tasks", &cpus, &n) < 0)
		return -1;
	for (it = 0; it < r->warmup + r->iterations; it++) {
		if (cg_create(&cg, NULL, "fault-free") < 0)
			goto out;
		/* the whole process joins, so every thread shares one memcg */
		if (cg_add_proc(&cg, 0) < 0)
			goto out;
		if (wl_tasks_start(&g, cpus, n, 0, ff_task, &a) < 0)
			goto out;
		t0 = load_now();
		c0 = wl_tasks_sum(&g);
		wl_sleep(r->seconds);
		c1 = wl_tasks_sum(&g);
		t1 = load_now();
		if (wl_tasks_stop(&g) < 0)
			goto out;
		if (cg_leave() < 0 || cg_destroy(&cg) < 0)
			goto out;
		wl_emit(r, it, "pages_per_sec", (c1 - c0) / (t1 - t0), "pages/s", 1);
	}
	rc = 0;
out:
	if (cg.path[0]) {
		cg_leave();
		cg_destroy(&cg);
	}
	free(cpus);
	return rc;
}

static const struct wl_param ff_params[] = {
	{ "mode", WL_ENUM, "shmem", "memory faulted in and freed", 0, 0, "anon|shmem" },
	{ "tasks", WL_TASKS, "all", "threads, one per CPU", 0, 0, NULL },
	{ "size", WL_SIZE, "1M", "chunk each thread faults in then frees", 4096, 1LL << 34, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

const struct wl_def wl_fault_free = {
	.name = "fault-free",
	.desc = "threads pinned one per CPU fault in and free anon or shmem memory in one fresh memcg per iteration; pages/s",
	.params = ff_params,
	.needs_cgroup = 1,
	.run = ff_run,
};
