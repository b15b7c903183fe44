/*
 * initramfs: a cpio "newc" archive writer (the format the kernel unpacks
 * into its rootfs, Documentation/driver-api/early-userspace/buffer-format).
 * Written here rather than through cpio(1) so the archive is built from a
 * list in memory: no staging directory, device nodes without root, and
 * deterministic output (mtime 0, inode numbers in order).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "agents/agent.h"
#include "lib/log.h"

void
initramfs_init(struct initramfs *fs)
{
	buf_init(&fs->out, 0);
	fs->ino = 1;
	fs->err = 0;
}

void
initramfs_release(struct initramfs *fs)
{
	buf_release(&fs->out);
}

static void
pad4(struct initramfs *fs)
{
	static const char z[4];

	if (fs->out.len % 4)
		buf_add(&fs->out, z, 4 - fs->out.len % 4);
}

static int
entry(struct initramfs *fs, const char *path, unsigned mode,
    unsigned rmaj, unsigned rmin, const void *data, size_t len)
{
	/* Paths in the archive are relative: "init", "bin/busybox". */
	while (*path == '/')
		path++;
	if (*path == '\0' || len > 0xffffffffu || strlen(path) > 4096) {
		fs->err = 1;
		return error("initramfs: bad entry '%s'", path);
	}
	buf_addf(&fs->out, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X"
	    "%08X%08zX%08X", fs->ino++, mode, 0u, 0u,
	    (mode & S_IFMT) == S_IFDIR ? 2u : 1u, 0u, len, 0u, 0u, rmaj, rmin,
	    strlen(path) + 1, 0u);
	buf_add(&fs->out, path, strlen(path) + 1);
	pad4(fs);
	if (len)
		buf_add(&fs->out, data, len);
	pad4(fs);
	return 0;
}

int
initramfs_dir(struct initramfs *fs, const char *path, unsigned mode)
{
	return entry(fs, path, S_IFDIR | (mode & 07777), 0, 0, NULL, 0);
}

int
initramfs_file(struct initramfs *fs, const char *path, unsigned mode,
    const void *data, size_t len)
{
	return entry(fs, path, S_IFREG | (mode & 07777), 0, 0, data, len);
}

int
initramfs_copy(struct initramfs *fs, const char *path, const char *host_path,
    unsigned mode)
{
	struct buf b = BUF_INIT(512 * 1024 * 1024);
	struct stat st;
	int rc;

	if (stat(host_path, &st) == -1 || buf_read_file(&b, host_path) == -1) {
		fs->err = 1;
		buf_release(&b);
		return error("initramfs: %s: %s", host_path, strerror(errno));
	}
	rc = initramfs_file(fs, path, mode ? mode : st.st_mode, b.data, b.len);
	buf_release(&b);
	return rc;
}

int
initramfs_symlink(struct initramfs *fs, const char *path, const char *target)
{
	return entry(fs, path, S_IFLNK | 0777, 0, 0, target, strlen(target));
}

int
initramfs_chardev(struct initramfs *fs, const char *path, unsigned mode,
    unsigned major, unsigned minor)
{
	return entry(fs, path, S_IFCHR | (mode & 07777), major, minor, NULL, 0);
}

int
initramfs_finish(struct initramfs *fs)
{
	static const char z[512];

	entry(fs, "TRAILER!!!", 0, 0, 0, NULL, 0);
	if (fs->out.len % 512)
		buf_add(&fs->out, z, 512 - fs->out.len % 512);
	return fs->err ? -1 : 0;
}
