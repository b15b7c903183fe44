/* zram: block devices for swap and file systems (see zram.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/load/util.h"
#include "agents/load/zram.h"

#define ZRAM_EXT_MAGIC	0xEF53	/* ext2, ext3 and ext4 */

int
zram_create(struct zram *z, unsigned long long bytes, const char *who)
{
	char path[PATH_MAX], buf[64];
	unsigned maj, min;
	long id;

	memset(z, 0, sizeof(*z));
	z->id = -1;
	if (load_read_small("/sys/class/zram-control/hot_add", buf, sizeof(buf)) == 0 &&
	    load_parse_long(buf, &id) == 0) {
		z->id = (int)id;
		z->hot_added = 1;
	} else if (load_read_small("/sys/block/zram0/disksize", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "0") == 0) {
		z->id = 0;
	} else {
		return load_err("%s: no free zram device (is CONFIG_ZRAM set? /sys/class/zram-control/hot_add: %s)",
		    who, strerror(errno));
	}
	snprintf(path, sizeof(path), "/sys/block/zram%d/disksize", z->id);
	snprintf(buf, sizeof(buf), "%llu", bytes);
	if (load_write_str(path, buf) < 0) {
		load_err("%s: cannot set %s to %s: %s", who, path, buf,
		    strerror(errno));
		goto fail;
	}
	snprintf(z->dev, sizeof(z->dev), "/dev/zram%d", z->id);
	if (access(z->dev, F_OK) < 0) {
		/* no devtmpfs on /dev: make the node ourselves */
		snprintf(path, sizeof(path), "/sys/block/zram%d/dev", z->id);
		if (load_read_small(path, buf, sizeof(buf)) < 0 ||
		    sscanf(buf, "%u:%u", &maj, &min) != 2) {
			load_err("%s: cannot read %s", who, path);
			goto fail;
		}
		if (mknod(z->dev, S_IFBLK | 0600, makedev(maj, min)) < 0) {
			snprintf(z->dev, sizeof(z->dev), "/tmp/kperfci-zram%d", z->id);
			if (mknod(z->dev, S_IFBLK | 0600, makedev(maj, min)) < 0) {
				load_err("%s: cannot create a device node for zram%d: %s",
				    who, z->id, strerror(errno));
				goto fail;
			}
		}
		z->made_node = 1;
	}
	return 0;
fail:
	zram_destroy(z);
	return -1;
}

int
zram_swapon(struct zram *z, unsigned long long bytes, const char *who)
{
	long pg = getpagesize();
	unsigned char *h;
	uint32_t v;
	int fd, rc = -1;

	h = load_xcalloc(1, pg);
	v = 1;				/* version */
	memcpy(h + 1024, &v, 4);
	v = (uint32_t)(bytes / pg - 1);	/* last_page */
	memcpy(h + 1028, &v, 4);
	/* nr_badpages (1032) stays 0; uuid and label may be zero */
	memcpy(h + pg - 10, "SWAPSPACE2", 10);
	fd = open(z->dev, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		load_err("%s: cannot open %s: %s", who, z->dev, strerror(errno));
		goto out;
	}
	if (pwrite(fd, h, pg, 0) != pg || fsync(fd) < 0) {
		load_err("%s: cannot write the swap header to %s: %s", who,
		    z->dev, strerror(errno));
		goto out;
	}
	if (swapon(z->dev, SWAP_FLAG_PREFER | (32767 & SWAP_FLAG_PRIO_MASK)) < 0) {
		load_err("%s: swapon %s: %s", who, z->dev, strerror(errno));
		goto out;
	}
	z->swapped_on = 1;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(h);
	return rc;
}

int
zram_mkfs_mount(struct zram *z, const char *mnt, const char *who)
{
	char *const argv[] = { "mke2fs", "-F", "-b", "4096", "-m", "0",
	    z->dev, NULL };
	struct statfs sf;
	pid_t pid;
	int st, fd;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return load_err("%s: fork: %s", who, strerror(errno));
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "kperfci-load: %s: cannot run mke2fs: %s\n", who,
		    strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return load_err("%s: waiting for mke2fs: %s", who, strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return load_err("%s: mke2fs %s failed (status %d; is mke2fs installed?)",
		    who, z->dev, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (mkdir(mnt, 0755) == 0)
		z->made_mnt = 1;
	else if (errno != EEXIST)
		return load_err("%s: cannot create %s: %s", who, mnt, strerror(errno));
	snprintf(z->mnt, sizeof(z->mnt), "%s", mnt);
	if (mount(z->dev, mnt, "ext4", 0, NULL) < 0) {
		return load_err("%s: mount -t ext4 %s %s: %s (needs CONFIG_EXT4_FS with EXT4_USE_FOR_EXT2)",
		    who, z->dev, mnt, strerror(errno));
	}
	z->mounted = 1;
	if (statfs(mnt, &sf) < 0 || sf.f_type != ZRAM_EXT_MAGIC)
		return load_err("%s: %s is not on the ext2/ext4 file system just mounted",
		    who, mnt);
	return 0;
}

void
zram_destroy(struct zram *z)
{
	char path[PATH_MAX], num[16];

	if (z->mounted && umount(z->mnt) < 0)
		load_err("umount %s: %s", z->mnt, strerror(errno));
	z->mounted = 0;
	if (z->made_mnt)
		rmdir(z->mnt);
	z->made_mnt = 0;
	if (z->id < 0)
		return;
	if (z->swapped_on && swapoff(z->dev) < 0)
		load_err("swapoff %s: %s", z->dev, strerror(errno));
	snprintf(path, sizeof(path), "/sys/block/zram%d/reset", z->id);
	load_write_str(path, "1");
	if (z->made_node)
		unlink(z->dev);
	if (z->hot_added) {
		snprintf(num, sizeof(num), "%d", z->id);
		load_write_str("/sys/class/zram-control/hot_remove", num);
	}
	z->id = -1;
}
