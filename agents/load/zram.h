/*
 * zram: compressed RAM block devices made in the guest for the workloads
 * that need a disk: swap for swap-memhog (seeds/001), and a real block
 * file system for file-read and root-refault (ext2 made by mke2fs, the
 * busybox applet in the guest, mounted with the ext4 driver), since the
 * initramfs rootfs is tmpfs, whose inodes and dentries never go through
 * the list_lru shrinkers the way a disk file system's do.
 *
 * A device is hot-added (or zram0 taken when it is free), sized, given a
 * node under /dev if devtmpfs did not make one, and fully reset and
 * removed again by zram_destroy, which also swaps off and unmounts what
 * was set up on it.
 */
#ifndef KPERFCI_LOAD_ZRAM_H
#define KPERFCI_LOAD_ZRAM_H

#include <limits.h>

struct zram {
	int	 id;			/* -1: none */
	int	 hot_added;
	int	 swapped_on;
	int	 made_node;
	char	 dev[PATH_MAX];
	char	 mnt[PATH_MAX];		/* mount point, "" if none */
	int	 mounted;
	int	 made_mnt;
};

/* who names the workload in messages.  0 or -1. */
int	 zram_create(struct zram *, unsigned long long bytes, const char *who);
/* Writes a swap header (no mkswap in a bare initramfs) and swaps on. */
int	 zram_swapon(struct zram *, unsigned long long bytes, const char *who);
/* mke2fs -F -b 4096 -m 0 on the device, mounted at mnt (created) with
   the ext4 driver; checks with statfs that mnt is that file system. */
int	 zram_mkfs_mount(struct zram *, const char *mnt, const char *who);
/* Undoes whatever of the above was done; safe on a failed create. */
void	 zram_destroy(struct zram *);

#endif
