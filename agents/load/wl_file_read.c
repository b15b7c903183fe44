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

static int
fr_reader(const char *dir, int nfiles, size_t size, int cpu, int rfd)
{
	char path[PATH_MAX], *buf = load_xcalloc(1, size), c;
	struct stat st;
	int j, fd;

	load_pin_cpu(cpu);
	if (read(rfd, &c, 1) != 1)
		return -1;
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
	int nfiles = (int)wl_get_int(r, "files");
	size_t size = wl_get_size(r, "size");
	struct cg *cgs = load_xcalloc(groups, sizeof(*cgs));
	pid_t *pids = load_xcalloc(groups, sizeof(pid_t));
	int *wfd = load_xcalloc(groups, sizeof(int));
	struct rusage ru0, ru1;
	char dir[PATH_MAX], name[32];
	int i, rc = -1, fds[2], crc;
	double t0, t1;

	for (i = 0; i < groups; i++)
		wfd[i] = -1;
	for (i = 0; i < groups; i++) {
		snprintf(dir, sizeof(dir), "%.3000s/g%d", top, i);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			load_err("file-read: cannot create %s: %s", dir, strerror(errno));
			goto out;
		}
		snprintf(name, sizeof(name), "reader%d", i);
		if (cg_create(&cgs[i], NULL, name) < 0)
			goto out;
		if (pipe2(fds, O_CLOEXEC) < 0) {
			load_err("pipe: %s", strerror(errno));
			goto out;
		}
		fflush(NULL);
		pids[i] = fork();
		if (pids[i] == 0) {
			close(fds[1]);
			crc = fr_reader(dir, nfiles, size, cpus[i % ncpus], fds[0]);
			_exit(crc < 0 ? 1 : 0);
		}
		close(fds[0]);
		wfd[i] = fds[1];
		if (pids[i] < 0) {
			load_err("fork: %s", strerror(errno));
			goto out;
		}
		if (cg_add_proc(&cgs[i], pids[i]) < 0)
			goto out;
	}
	getrusage(RUSAGE_CHILDREN, &ru0);
	t0 = load_now();
	for (i = 0; i < groups; i++) {
		if (write(wfd[i], "g", 1) != 1) {
			load_err("cannot release reader %d", i);
			goto out;
		}
		close(wfd[i]);
		wfd[i] = -1;
	}
	rc = 0;
	for (i = 0; i < groups; i++) {
		if (wl_wait(pids[i], "file-read reader") < 0)
			rc = -1;
		pids[i] = 0;
	}
	t1 = load_now();
	getrusage(RUSAGE_CHILDREN, &ru1);
	if (rc == 0) {
		wl_emit(r, it, "wall_sec", t1 - t0, "s", 0);
		wl_emit(r, it, "sys_sec", fr_tv(ru1.ru_stime) - fr_tv(ru0.ru_stime), "s", 0);
		wl_emit(r, it, "user_sec", fr_tv(ru1.ru_utime) - fr_tv(ru0.ru_utime), "s", 0);
	}
out:
	for (i = 0; i < groups; i++) {
		if (wfd[i] >= 0)
			close(wfd[i]);
		if (pids[i] > 0)
			wl_wait(pids[i], "file-read reader");
		if (cgs[i].path[0] && cg_destroy(&cgs[i]) < 0)
			rc = -1;
		snprintf(dir, sizeof(dir), "%.3000s/g%d", top, i);
		rmdir(dir);
	}
	free(cgs);
	free(pids);
	free(wfd);
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
