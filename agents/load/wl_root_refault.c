/*
 * wl_root_refault: seeds/002 ("skip the root memcg flush in
 * workingset_test_recent()").  The patch changes what a refault costs when
 * the evicted page belonged to the ROOT memcg, so this workload makes
 * exactly that happen: it moves itself into the root cgroup, writes a
 * --file bytes file on an ext2 zram disk (zram.c; pages of one repeated
 * word, which zram stores for free), and leaves the page cache only --room
 * bytes of the first NUMA node: a child in the root cgroup too holds the
 * rest of that node's free memory (anonymous, no swap: never reclaimed),
 * and both are bound to that node (MPOL_BIND).  One unmeasured read leaves
 * shadow entries; reading the file end to end --passes times per
 * iteration then refaults and evicts again every page in the root memcg: workingset_refault() ->
 * workingset_test_recent(flush=true) for root.  Meanwhile a thread on the
 * reader's CPU reads the root's memory.stat every --interval us (a root
 * flush).
 *
 * Metrics: refaults_per_sec (workingset_refault_file of /proc/vmstat per
 * second of reading, higher is better), read_mb_per_sec, and the root
 * memory.stat read latency flush_p50_us during the reads.  No p99: its
 * tail is the wait for the reader to reach a scheduling point (the perf
 * kernels are not preemptible), which in the TCG guest fell from 33 ms to
 * 6 ms when a calibration slowed the refault path (more exits to the
 * emulator, not a faster flush); the median did not move (613 us).
 * An iteration that saw no refault is an error (the file fit in memory).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/load/cg.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"
#include "agents/load/zram.h"

#define RR_MPOL_BIND	2
#define RR_CHUNK	(256 << 10)
#define RR_MAX_LAT	100000

struct rr_lat {
	volatile int	 stop;
	double		 interval;
	char		 path[PATH_MAX];
	double		*lat;
	int		 n;
	int		 failed;
};

static int
rr_bind(int node)
{
	unsigned long mask[16];

	if (node < 0 || node >= (int)(sizeof(mask) * 8))
		return load_err("root-refault: node %d out of range", node);
	memset(mask, 0, sizeof(mask));
	mask[node / (8 * sizeof(long))] = 1UL << (node % (8 * sizeof(long)));
	if (syscall(SYS_set_mempolicy, RR_MPOL_BIND, mask, sizeof(mask) * 8) < 0)
		return load_err("root-refault: set_mempolicy(MPOL_BIND, node %d): %s (needs CONFIG_NUMA)",
		    node, strerror(errno));
	return 0;
}

/* A field of /proc/vmstat or a node's meminfo ("Node 0 MemFree: N kB"). */
static long long
rr_field(const char *path, const char *key)
{
	char *text = load_read_all(path, 1 << 20, NULL), *p;
	long long v = -1;
	size_t kl = strlen(key);

	if (!text)
		return -1;
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char *k = strstr(p, key);
		char *eol = strchr(p, '\n');

		if (k && (!eol || k < eol) && (k == p || k[-1] == ' ') &&
		    (k[kl] == ' ' || k[kl] == ':')) {
			k += kl;
			while (*k == ' ' || *k == ':')
				k++;
			v = strtoll(k, NULL, 10);
			break;
		}
	}
	free(text);
	return v;
}

static int
rr_write_file(const char *path, unsigned long long size)
{
	unsigned long long off, *buf = load_xmalloc(RR_CHUNK);
	size_t pg = getpagesize(), i;
	int fd, rc = -1;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		load_err("root-refault: cannot create %s: %s", path, strerror(errno));
		goto out;
	}
	for (off = 0; off < size; off += RR_CHUNK) {
		size_t len = size - off < RR_CHUNK ? size - off : RR_CHUNK;

		/* one word per page, repeated: zram keeps such pages as
		   that word, so the disk costs no memory */
		for (i = 0; i < RR_CHUNK / sizeof(*buf); i++)
			buf[i] = (off + i * sizeof(*buf)) / pg + 1;
		if (write(fd, buf, len) != (ssize_t)len) {
			load_err("root-refault: cannot write %s: %s", path, strerror(errno));
			goto out;
		}
	}
	if (fsync(fd) < 0) {
		load_err("root-refault: fsync %s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* The hog: bound to the node, touches bytes of anonymous memory, then
   waits to be killed.  Reports on fd when done. */
static int
rr_hog(int node, unsigned long long bytes, int fd)
{
	size_t pg = getpagesize(), i;
	char *p, c = 'h';

	if (rr_bind(node) < 0)
		return -1;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return load_err("root-refault: hog mmap of %llu bytes: %s", bytes,
		    strerror(errno));
	madvise(p, bytes, MADV_HUGEPAGE);	/* fewer faults; optional */
	for (i = 0; i < bytes; i += pg)
		p[i] = 1;
	if (write(fd, &c, 1) != 1)
		return -1;
	for (;;)
		pause();
}

static void *
rr_lat_thread(void *arg)
{
	struct rr_lat *l = arg;
	char *buf = load_xmalloc(1 << 16);
	double t0;
	int fd;

	while (!l->stop && l->n < RR_MAX_LAT) {
		wl_sleep(l->interval);
		t0 = load_now();
		fd = open(l->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, buf, 1 << 16) < 0) {
			l->failed = 1;
			if (fd >= 0)
				close(fd);
			break;
		}
		close(fd);
		l->lat[l->n++] = (load_now() - t0) * 1e6;
	}
	free(buf);
	return NULL;
}

static int
rr_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
rr_pct(const double *v, int n, double p)
{
	int k = (int)ceil(p / 100.0 * n) - 1;

	return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

/* One iteration: passes reads of the file, the latency thread alongside. */
static int
rr_iteration(struct wl_run *r, int it, const char *file, struct rr_lat *l)
{
	unsigned long long size = wl_get_size(r, "file"), done = 0;
	int passes = (int)wl_get_int(r, "passes"), p, fd = -1, rc = -1;
	char *buf = load_xmalloc(RR_CHUNK);
	long long f0, f1;
	pthread_t th;
	double t0, t1;
	ssize_t n;

	l->stop = 0;
	l->n = 0;
	l->failed = 0;
	f0 = rr_field("/proc/vmstat", "workingset_refault_file");
	if (pthread_create(&th, NULL, rr_lat_thread, l)) {
		free(buf);
		return load_err("root-refault: cannot start the latency thread");
	}
	t0 = load_now();
	for (p = 0; p < passes; p++) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		while ((n = read(fd, buf, RR_CHUNK)) > 0)
			done += n;
		close(fd);
		if (n < 0)
			break;
	}
	t1 = load_now();
	l->stop = 1;
	pthread_join(th, NULL);
	f1 = rr_field("/proc/vmstat", "workingset_refault_file");
	if (p < passes) {
		load_err("root-refault: reading %s: %s", file, strerror(errno));
		goto out;
	}
	if (f0 < 0 || f1 < 0) {
		load_err("root-refault: no workingset_refault_file in /proc/vmstat");
		goto out;
	}
	if (f1 == f0) {
		load_err("root-refault: no refault while reading %llu bytes %d times: the file fits in memory (raise --file or lower --room)",
		    size, passes);
		goto out;
	}
	if (l->failed || l->n == 0) {
		load_err("root-refault: cannot read %s", l->path);
		goto out;
	}
	qsort(l->lat, l->n, sizeof(double), rr_cmp);
	wl_emit(r, it, "refaults_per_sec", (f1 - f0) / (t1 - t0), "refaults/s", 1);
	wl_emit(r, it, "read_mb_per_sec", done / (t1 - t0) / (1 << 20), "MB/s", 1);
	wl_emit(r, it, "flush_p50_us", rr_pct(l->lat, l->n, 50), "us", 0);
	rc = 0;
out:
	free(buf);
	return rc;
}

/* One unmeasured read: a cold first read finds no shadow entries, so it
   cannot refault; it evicts and leaves the shadows the iterations find. */
static int
rr_prime(const char *file)
{
	char *buf = load_xmalloc(RR_CHUNK);
	ssize_t n;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return load_err("root-refault: cannot open %s: %s", file, strerror(errno));
	}
	while ((n = read(fd, buf, RR_CHUNK)) > 0)
		;
	close(fd);
	free(buf);
	return n < 0 ? load_err("root-refault: reading %s: %s", file, strerror(errno)) : 0;
}

/* Starts the hog: node's free memory less room.  Returns its pid or -1. */
static pid_t
rr_start_hog(int node, unsigned long long room)
{
	char path[PATH_MAX], c;
	long long free_kb;
	unsigned long long hog;
	int fds[2];
	pid_t pid;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	free_kb = rr_field(path, "MemFree");
	if (free_kb < 0)
		free_kb = rr_field("/proc/meminfo", "MemFree");
	if (free_kb < 0 || (unsigned long long)free_kb * 1024 <= room + (16 << 20)) {
		load_err("root-refault: node %d has %lld kB free, not more than --room %llu bytes",
		    node, free_kb, room);
		return -1;
	}
	hog = (unsigned long long)free_kb * 1024 - room;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		load_err("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(rr_hog(node, hog, fds[1]) < 0 ? 1 : 0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &c, 1) != 1) {
		close(fds[0]);
		if (pid > 0)
			wl_wait(pid, "the memory hog");
		load_err("root-refault: the memory hog of %llu bytes did not start", hog);
		return -1;
	}
	close(fds[0]);
	return pid;
}

static int
rr_run(struct wl_run *r)
{
	struct cg root;
	struct zram z;
	struct rr_lat l;
	char mnt[PATH_MAX], file[PATH_MAX + 8];
	int node = r->topo && r->topo->nnodes ? r->topo->nodes[0].id : 0;
	int it, rc = -1, in_root = 0;
	pid_t hog = -1;

	memset(&l, 0, sizeof(l));
	z.id = -1;
	z.mounted = z.made_mnt = 0;
	l.interval = wl_get_int(r, "interval") / 1e6;
	l.lat = load_xcalloc(RR_MAX_LAT, sizeof(double));
	if (wl_get_size(r, "room") >= wl_get_size(r, "file")) {
		load_err("root-refault: --room must be below --file, or nothing is evicted");
		goto out;
	}
	if (cg_setup("root-refault") < 0)
		goto out;
	snprintf(root.path, sizeof(root.path), "%s", cg_mount());
	snprintf(l.path, sizeof(l.path), "%s/memory.stat", cg_mount());
	if (cg_add_proc(&root, 0) < 0)
		goto out;
	in_root = 1;
	snprintf(mnt, sizeof(mnt), "/tmp/kperfci-root-refault-%d", (int)getpid());
	if (mkdir("/tmp", 01777) < 0 && errno != EEXIST) {
		load_err("root-refault: cannot create /tmp: %s", strerror(errno));
		goto out;
	}
	if (zram_create(&z, wl_get_size(r, "file") + wl_get_size(r, "file") / 8 +
	    (32 << 20), "root-refault") < 0 ||
	    zram_mkfs_mount(&z, mnt, "root-refault") < 0)
		goto out;
	snprintf(file, sizeof(file), "%s/big", mnt);
	if (rr_write_file(file, wl_get_size(r, "file")) < 0)
		goto out;
	sync();
	load_write_str("/proc/sys/vm/drop_caches", "1");
	hog = rr_start_hog(node, wl_get_size(r, "room"));
	if (hog < 0 || rr_bind(node) < 0 || rr_prime(file) < 0)
		goto out;
	/* the reader and the latency thread (created later, inheriting
	   this) share one CPU of the node: a stat read then waits for the
	   guest scheduler, never for another vCPU's turn in an emulator */
	if (r->topo && topo_node(r->topo, node) &&
	    topo_node(r->topo, node)->ncpus > 0 &&
	    load_pin_cpu(topo_node(r->topo, node)->cpus[0]) < 0)
		goto out;
	for (it = 0; it < r->warmup + r->iterations; it++)
		if (rr_iteration(r, it, file, &l) < 0)
			goto out;
	rc = 0;
out:
	if (hog > 0) {
		kill(hog, SIGKILL);
		while (waitpid(hog, NULL, 0) < 0 && errno == EINTR)
			;
	}
	syscall(SYS_set_mempolicy, 0, NULL, 0);	/* MPOL_DEFAULT */
	zram_destroy(&z);
	if (in_root && cg_leave() < 0)
		rc = -1;
	free(l.lat);
	return rc;
}

static const struct wl_param rr_params[] = {
	{ "file", WL_SIZE, "node/8", "size of the file read over and over", 1 << 20, 1LL << 44, NULL },
	{ "room", WL_SIZE, "node/16", "page cache left to it on the first node (below --file)", 1 << 20, 1LL << 44, NULL },
	{ "passes", WL_INT, "1", "reads of the whole file per iteration", 1, 1000, NULL },
	{ "interval", WL_INT, "2000", "microseconds between root memory.stat reads", 0, 10000000, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

const struct wl_def wl_root_refault = {
	.name = "root-refault",
	.desc = "refaults in the root memcg: a file larger than the page cache left on one node, read over and over; refaults/s and root flush latency (median)",
	.params = rr_params,
	.needs_cgroup = 1,
	.run = rr_run,
};
