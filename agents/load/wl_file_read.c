/*
 * wl_file_read: seeds/001 (list_lru per-cgroup split: "file read
 * inode/dentry in many cgroups").  --groups memcgs with one reader process
 * each, in fresh memcgs every iteration (memory.max = --limit unless 0).
 *
 * --mode read (the seed's test): the files are made once, --files of
 * --size bytes per reader in its own directory; before every iteration
 * the parent syncs and drops the page, dentry and inode caches
 * (drop_caches=3, not measured), then each reader opens, reads and stats
 * its files cold.  New dentries and inodes go on the super block's
 * list_lrus (per memcg and node); with memory.max below what a reader
 * touches, memcg reclaim runs the shrinkers, which walk and trim them.
 * --mode churn: each reader creates, reads, stats, unlinks its files and
 * looks the names up again (negative dentries) - LRU churn without reclaim,
 * what works where files are never evicted (tmpfs).
 *
 * --fs ext2 puts the files on a real block file system (zram.c: a zram
 * disk of --disk bytes, ext2 by mke2fs, mounted with the ext4 driver), as
 * the seed's machine had; --fs dir uses --dir as it is (tmpfs in the
 * guest).  Metrics: wall seconds of the readers, and their system/user CPU
 * seconds.
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
#include "agents/load/zram.h"

struct fr_args {
	const char *top;
	int	 nfiles;
	size_t	 size;
	int	 churn;
};

/* --mode read: reader i opens, reads and stats its files. */
static int
fr_read_only(const struct fr_args *a, int i)
{
	char path[PATH_MAX], *buf = load_xcalloc(1, a->size);
	struct stat st;
	int j, fd;

	for (j = 0; j < a->nfiles; j++) {
		snprintf(path, sizeof(path), "%.3000s/g%d/f%d", a->top, i, j);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, buf, a->size) < 0 || fstat(fd, &st) < 0) {
			load_err("file-read: cannot read %s: %s", path, strerror(errno));
			free(buf);
			return -1;
		}
		close(fd);
	}
	free(buf);
	return 0;
}

/* Writes nfiles files of size bytes in dir (made). */
static int
fr_make_files(const char *dir, int nfiles, size_t size)
{
	char path[PATH_MAX], *buf = load_xmalloc(size);
	int j, fd;

	memset(buf, 'k', size);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		free(buf);
		return load_err("file-read: cannot create %s: %s", dir, strerror(errno));
	}
	for (j = 0; j < nfiles; j++) {
		snprintf(path, sizeof(path), "%.3000s/f%d", dir, j);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, buf, size) != (ssize_t)size) {
			load_err("file-read: cannot write %s: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			free(buf);
			return -1;
		}
		close(fd);
	}
	free(buf);
	return 0;
}

static void
fr_remove_files(const char *dir, int nfiles)
{
	char path[PATH_MAX];
	int j;

	for (j = 0; j < nfiles; j++) {
		snprintf(path, sizeof(path), "%.3000s/f%d", dir, j);
		unlink(path);
	}
	rmdir(dir);
}

/* Reader i, in its own cgroup (a wl_gate child): writes, reads, unlinks
   and looks up again its files in <top>/g<i>. */
static int
fr_reader(int i, void *arg)
{
	const struct fr_args *a = arg;
	int nfiles = a->nfiles;
	size_t size = a->size;
	char dir[PATH_MAX], path[PATH_MAX], *buf;
	struct stat st;
	int j, fd;

	if (!a->churn)
		return fr_read_only(a, i);
	buf = load_xcalloc(1, size);
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
	    wl_get_size(r, "size"), strcmp(wl_get(r, "mode"), "churn") == 0 };
	unsigned long long limit = wl_get_size(r, "limit");
	struct wl_gate g;
	struct rusage ru0, ru1;
	char dir[PATH_MAX], max[32];
	int i, rc = -1;
	double t0, t1;

	memset(&g, 0, sizeof(g));
	snprintf(max, sizeof(max), "%llu", limit);
	for (i = 0; i < groups && a.churn; i++) {
		snprintf(dir, sizeof(dir), "%.3000s/g%d", top, i);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			load_err("file-read: cannot create %s: %s", dir, strerror(errno));
			goto out;
		}
	}
	if (wl_gate_start(&g, groups, "reader", limit ? max : NULL, cpus,
	    ncpus, fr_reader, &a) < 0)
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
	for (i = 0; i < groups && a.churn; i++) {
		snprintf(dir, sizeof(dir), "%.3000s/g%d", top, i);
		rmdir(dir);
	}
	return rc;
}

static int
fr_run(struct wl_run *r)
{
	char top[PATH_MAX], dir[PATH_MAX];
	int groups = (int)wl_get_int(r, "groups");
	int nfiles = (int)wl_get_int(r, "files");
	int churn = strcmp(wl_get(r, "mode"), "churn") == 0;
	int ext2 = strcmp(wl_get(r, "fs"), "ext2") == 0;
	int *cpus = NULL, n, it, i, rc = -1, made = 0, files = 0;
	struct zram z;

	z.id = -1;
	z.mounted = z.made_mnt = 0;
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
	if (ext2) {
		if (zram_create(&z, wl_get_size(r, "disk"), "file-read") < 0 ||
		    zram_mkfs_mount(&z, top, "file-read") < 0)
			goto out;
	} else if (mkdir(top, 0755) < 0) {
		load_err("file-read: cannot create %s: %s", top, strerror(errno));
		goto out;
	} else {
		made = 1;
	}
	for (i = 0; i < groups && !churn; i++) {
		files = i + 1;
		snprintf(dir, sizeof(dir), "%.3000s/g%d", top, i);
		if (fr_make_files(dir, nfiles, wl_get_size(r, "size")) < 0)
			goto out;
	}
	for (it = 0; it < r->warmup + r->iterations; it++) {
		sync();
		if (load_write_str("/proc/sys/vm/drop_caches", churn ? "2" : "3") < 0) {
			load_err("file-read: cannot drop caches (/proc/sys/vm/drop_caches): %s",
			    strerror(errno));
			goto out;
		}
		if (fr_iteration(r, it, top, cpus, n) < 0)
			goto out;
	}
	rc = 0;
out:
	for (i = 0; i < files; i++) {
		snprintf(dir, sizeof(dir), "%.3000s/g%d", top, i);
		fr_remove_files(dir, nfiles);
	}
	zram_destroy(&z);
	if (made)
		rmdir(top);
	free(cpus);
	return rc;
}

static const struct wl_param fr_params[] = {
	{ "groups", WL_COUNT, "8", "memcgs, one reader process each", 1, 4096, NULL },
	{ "files", WL_INT, "1000", "files per reader", 1, 1000000, NULL },
	{ "size", WL_SIZE, "4K", "bytes per file", 1, 1 << 24, NULL },
	{ "mode", WL_ENUM, "churn", "read: read made files cold; churn: create, read, unlink", 0, 0, "churn|read" },
	{ "limit", WL_SIZE, "0", "memory.max of each reader's memcg (0: none)", 0, 1LL << 44, NULL },
	{ "fs", WL_ENUM, "dir", "dir: files under --dir; ext2: on a zram disk made for the run", 0, 0, "dir|ext2" },
	{ "disk", WL_SIZE, "256M", "zram disk size with --fs ext2", 16 << 20, 1LL << 44, NULL },
	{ "dir", WL_STR, "/tmp", "where the files (or the ext2 mount) live", 0, 0, NULL },
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
