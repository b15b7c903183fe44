/*
 * wl_file_read: seeds/001 (list_lru per-cgroup split: "file read
 * inode/dentry in many cgroups").  --groups memcgs with one reader process
 * each.  Every iteration, in fresh memcgs, each reader creates --files
 * small files of --size bytes in its own directory under --dir, reads each
 * back through a fresh open, stats it, unlinks it, and looks the names up
 * again (now negative dentries).  Dentries and inodes are charged to the
 * reader's memcg, so their LRU lists (list_lru, per memcg and node) churn;
 * between iterations the parent drops the dentry/inode caches through
 * /proc/sys/vm/drop_caches (not measured), so the next pass starts cold.
 * This works on tmpfs (the initramfs rootfs) where files are never evicted:
 * the churn comes from creating and unlinking them, not from reclaim.
 * Metrics: wall seconds of the readers, and their system/user CPU seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/load/cg.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"

struct fr_args {
	const char *top;
	int	 nfiles;
	size_t	 size;
};

/* Reader i, in its own cgroup (a wl_gate child): writes, reads, unlinks
   and looks up again its files in <top>/g<i>. */
static int
fr_reader(int i, void *arg)
{
	const struct fr_args *a = arg;
	int nfiles = a->nfiles;
	size_t size = a->size;
	char dir[PATH_MAX], path[PATH_MAX], *buf = load_xcalloc(1, size);
	struct stat st;
	int j, fd;

	snprintf(dir, sizeof(dir), "%.3000s/g%d", a->top, i);
	for (j = 0; j < nfiles; j++) {
		snprintf(path, sizeof(path), "%.3000s/f%d", dir, j);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, buf, size) != (ssize_t)size)
			return load_err("file-read: cannot write %s: %s", path,
			    strerror(errno));
		close(fd);
	}
	for (j = 0; j < nfiles; j++) {
		snprintf(path, sizeof(path), "%.3000s/f%d", dir, j);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, buf, size) < 0)
			return load_err("file-read: cannot read %s: %s", path,
			    strerror(errno));
		close(fd);
	}
	for (j = 0; j < nfiles; j++) {
		snprintf(path, sizeof(path), "%.3000s/f%d", dir, j);
		if (stat(path, &st) < 0 || unlink(path) < 0)
			return load_err("file-read: cannot unlink %s: %s", path,
			    strerror(errno));
	}
	/* negative dentries: names looked up after they are gone */
	for (j = 0; j < nfiles; j++) {
		snprintf(path, sizeof(path), "%.3000s/f%d", dir, j);
		stat(path, &st);
	}
	free(buf);
	return 0;
}

static double
fr_tv(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static int
fr_iteration(struct wl_run *r, int it, const char *top, const int *cpus,
    int ncpus)
{
	int groups = (int)wl_get_int(r, "groups");
	struct fr_args a = { top, (int)wl_get_int(r, "files"),
	    wl_get_size(r, "size") };
	struct wl_gate g;
	struct rusage ru0, ru1;
	char dir[PATH_MAX];
	int i, rc = -1;
	double t0, t1;

	memset(&g, 0, sizeof(g));
	for (i = 0; i < groups; i++) {
		snprintf(dir, sizeof(dir), "%.3000s/g%d", top, i);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			load_err("file-read: cannot create %s: %s", dir, strerror(errno));
			goto out;
		}
	}
	if (wl_gate_start(&g, groups, "reader", NULL, cpus, ncpus, fr_reader,
	    &a) < 0)
		goto out;
	getrusage(RUSAGE_CHILDREN, &ru0);
	t0 = load_now();
	if (wl_gate_open(&g) < 0)
		goto out;
	rc = wl_gate_wait(&g, "file-read reader", NULL);
	t1 = load_now();
	getrusage(RUSAGE_CHILDREN, &ru1);
	if (rc == 0) {
		wl_emit(r, it, "wall_sec", t1 - t0, "s", 0);
		wl_emit(r, it, "sys_sec", fr_tv(ru1.ru_stime) - fr_tv(ru0.ru_stime), "s", 0);
		wl_emit(r, it, "user_sec", fr_tv(ru1.ru_utime) - fr_tv(ru0.ru_utime), "s", 0);
	}
out:
	if (wl_gate_release(&g) < 0)
		rc = -1;
	for (i = 0; i < groups; i++) {
		snprintf(dir, sizeof(dir), "%.3000s/g%d", top, i);
		rmdir(dir);
	}
	return rc;
}

static int
fr_run(struct wl_run *r)
{
	char top[PATH_MAX];
	int *cpus = NULL, n, it, rc = -1, made = 0;

	if (wl_get_tasks(r, "tasks", &cpus, &n) < 0)
		return -1;
	snprintf(top, sizeof(top), "%.3000s/kperfci-file-read-%d", wl_get(r, "dir"),
	    (int)getpid());
	/* a bare initramfs may have no /tmp yet */
	if (mkdir(wl_get(r, "dir"), 01777) < 0 && errno != EEXIST) {
		load_err("file-read: cannot create --dir %s: %s", wl_get(r, "dir"),
		    strerror(errno));
		goto out;
	}
	if (mkdir(top, 0755) < 0) {
		load_err("file-read: cannot create %s: %s", top, strerror(errno));
		goto out;
	}
	made = 1;
	for (it = 0; it < r->warmup + r->iterations; it++) {
		sync();
		if (load_write_str("/proc/sys/vm/drop_caches", "2") < 0) {
			load_err("file-read: cannot drop caches (/proc/sys/vm/drop_caches): %s",
			    strerror(errno));
			goto out;
		}
		if (fr_iteration(r, it, top, cpus, n) < 0)
			goto out;
	}
	rc = 0;
out:
	if (made)
		rmdir(top);
	free(cpus);
	return rc;
}

static const struct wl_param fr_params[] = {
	{ "groups", WL_INT, "8", "memcgs, one reader process each", 1, 1024, NULL },
	{ "files", WL_INT, "1000", "files each reader creates, reads and unlinks", 1, 1000000, NULL },
	{ "size", WL_SIZE, "4K", "bytes per file", 1, 1 << 24, NULL },
	{ "dir", WL_STR, "/tmp", "where the files live", 0, 0, NULL },
	{ "tasks", WL_TASKS, "all", "CPUs the readers are pinned to (round robin)", 0, 0, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

const struct wl_def wl_file_read = {
	.name = "file-read",
	.desc = "readers in many memcgs create, read, stat and unlink many small files (dentry/inode list_lru churn); wall and sys seconds",
	.params = fr_params,
	.needs_cgroup = 1,
	.run = fr_run,
};
