/*
 * wl_memcg_flush: seeds/002 (root memcg flush 69 us idle, ~0.9 ms with 128
 * memcgs allocating).  --groups memcgs under one parent, each with a
 * process that keeps mapping, touching and unmapping --size of anonymous
 * memory, so per-cpu memcg stats keep changing.  Meanwhile this process
 * reads the whole memory.stat of the root (--target root) or of the
 * groups' parent (--target parent) --reads times, --interval us apart:
 * reading it flushes the rstat tree below it, and the time of the read is
 * the flush latency.  Allocators run at nice 19 so that the reader does
 * not wait for a CPU (what is timed is the flush, including its wait for
 * the rstat lock).  Allocators start once; each iteration is one series
 * of reads.  Metrics: p50 and p99 read latency in microseconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/load/cg.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"

static void
mf_alloc_child(int cpu, int rfd, size_t size)
{
	long pg = getpagesize();
	size_t i;
	char *p, c;

	load_pin_cpu(cpu);
	/* the reader must not queue behind the allocators: what is timed
	   is the flush, not a wait for a CPU (128 of them on 4 vCPUs) */
	if (nice(19) < 0 && errno)
		_exit(5);
	if (read(rfd, &c, 1) != 1)
		_exit(3);
	for (;;) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(4);
		for (i = 0; i < size; i += pg)
			p[i] = 1;
		munmap(p, size);
	}
}

static int
mf_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* nearest-rank percentile of sorted v */
static double
mf_pct(const double *v, int n, double p)
{
	int k = (int)ceil(p / 100.0 * n) - 1;

	if (k < 0)
		k = 0;
	if (k >= n)
		k = n - 1;
	return v[k];
}

static int
mf_read_once(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, cap)) > 0)
		;
	close(fd);
	return n < 0 ? -1 : 0;
}

static int
mf_run(struct wl_run *r)
{
	int groups = (int)wl_get_int(r, "groups"), reads = (int)wl_get_int(r, "reads");
	double interval = wl_get_int(r, "interval") / 1e6;
	size_t size = wl_get_size(r, "size");
	struct cg parent = { "" }, *cgs = load_xcalloc(groups, sizeof(*cgs));
	pid_t *pids = load_xcalloc(groups, sizeof(pid_t));
	double *lat = load_xcalloc(reads, sizeof(double)), t0;
	char path[PATH_MAX + 16], name[32], *buf = load_xmalloc(1 << 16);
	int *cpus = NULL, n, i, it, rc = -1, fds[2];

	if (wl_get_tasks(r, "tasks", &cpus, &n) < 0)
		goto out;
	if (cg_create(&parent, NULL, "flush") < 0 || cg_enable_memory(&parent) < 0)
		goto out;
	if (strcmp(wl_get(r, "target"), "root") == 0)
		snprintf(path, sizeof(path), "%s/memory.stat", cg_mount());
	else
		snprintf(path, sizeof(path), "%s/memory.stat", parent.path);
	if (access(path, R_OK) < 0) {
		load_err("memcg-flush: cannot read %s: %s (try --target parent)",
		    path, strerror(errno));
		goto out;
	}
	for (i = 0; i < groups; i++) {
		snprintf(name, sizeof(name), "alloc%d", i);
		if (cg_create(&cgs[i], &parent, name) < 0)
			goto out;
		if (pipe2(fds, O_CLOEXEC) < 0) {
			load_err("pipe: %s", strerror(errno));
			goto out;
		}
		fflush(NULL);
		pids[i] = fork();
		if (pids[i] == 0) {
			close(fds[1]);
			mf_alloc_child(cpus[i % n], fds[0], size);
		}
		close(fds[0]);
		if (pids[i] < 0) {
			close(fds[1]);
			load_err("fork: %s", strerror(errno));
			goto out;
		}
		if (cg_add_proc(&cgs[i], pids[i]) < 0 || write(fds[1], "g", 1) != 1) {
			close(fds[1]);
			goto out;
		}
		close(fds[1]);
	}
	wl_sleep(interval * 10);	/* let the allocators get going */
	for (it = 0; it < r->warmup + r->iterations; it++) {
		for (i = 0; i < reads; i++) {
			wl_sleep(interval);
			t0 = load_now();
			if (mf_read_once(path, buf, 1 << 16) < 0) {
				load_err("memcg-flush: reading %s: %s", path, strerror(errno));
				goto out;
			}
			lat[i] = (load_now() - t0) * 1e6;
		}
		for (i = 0; i < groups; i++)
			if (waitpid(pids[i], NULL, WNOHANG) == pids[i]) {
				pids[i] = 0;
				load_err("memcg-flush: allocator %d died", i);
				goto out;
			}
		qsort(lat, reads, sizeof(double), mf_cmp);
		wl_emit(r, it, "flush_p50_us", mf_pct(lat, reads, 50), "us", 0);
		wl_emit(r, it, "flush_p99_us", mf_pct(lat, reads, 99), "us", 0);
	}
	rc = 0;
out:
	for (i = 0; i < groups; i++)
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
				;
		}
	for (i = 0; i < groups; i++)
		if (cgs[i].path[0] && cg_destroy(&cgs[i]) < 0)
			rc = -1;
	if (parent.path[0] && cg_destroy(&parent) < 0)
		rc = -1;
	free(cgs);
	free(pids);
	free(lat);
	free(buf);
	free(cpus);
	return rc;
}

static const struct wl_param mf_params[] = {
	{ "groups", WL_COUNT, "16", "memcgs with an allocating process each (0: idle baseline)", 0, 4096, NULL },
	{ "size", WL_SIZE, "8M", "memory each allocator maps, touches and unmaps in a loop", 1 << 16, 1LL << 34, NULL },
	{ "reads", WL_INT, "200", "stat reads (flushes) per iteration", 10, 1000000, NULL },
	{ "interval", WL_INT, "2000", "microseconds between reads", 0, 10000000, NULL },
	{ "target", WL_ENUM, "root", "whose memory.stat is read", 0, 0, "root|parent" },
	{ "tasks", WL_TASKS, "all", "CPUs the allocators are pinned to (round robin)", 0, 0, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

const struct wl_def wl_memcg_flush = {
	.name = "memcg-flush",
	.desc = "latency of memcg stat flushes (reading memory.stat) while K memcgs allocate; p50/p99 us",
	.params = mf_params,
	.needs_cgroup = 1,
	.run = mf_run,
};
