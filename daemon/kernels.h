/*
 * kernels: the daemon's one way to build a kernel.  A series' base and
 * patched kernels (stage_build.c), a track's nightly head and every bisect
 * step (track.c) are built here and nowhere else, so all of them run in
 * the same sandbox with the same limits: bubblewrap, no network, the
 * store, the uploads and the other builds hidden ([daemon] data covered by
 * an empty tmpfs), and [build] pids_max, mem_max, file_max, output_max and
 * timeout.  A second copy of this path once lost the store hiding and the
 * limits; a build that needs another policy adds a field to
 * kernels_request, not a copy.
 */
#ifndef KPERFCI_KERNELS_H
#define KPERFCI_KERNELS_H

#include <stdint.h>

#include "lib/buf.h"

struct db;
struct tree_conf;
struct build_opts;

struct kernels_request {
	const struct tree_conf *tree;
	const char *commit;
	const char *base_commit;	/* incremental from this build, or NULL */
	const char *base_key;		/* its key (with base_commit) */
	int64_t	 base_id;		/* its build row, or 0 */
	const char *desc;		/* the config as the pages name it
					   (NULL: the tree's config) */
	volatile int *stop;		/* the daemon is stopping */
	/* Called once the build row exists, before the build runs (a series
	   links it to its page here). */
	void	(*claimed)(void *arg, int64_t build_id);
	void	*arg;
};

/*
 * Builds req's commit, recording the build row's live state and outcome
 * in the store.  *build_id, key (the cache key) and, when dir is not NULL,
 * *dir (the build directory, malloc'd) out.  0 built (or a cache hit), -1
 * failed (the reason in err; the row says failed), 1 interrupted by the
 * daemon stopping (the row back to queued).
 */
int	kernels_build(struct db *, const struct kernels_request *,
	    int64_t *build_id, char key[65], char **dir, struct buf *err);

/* The build cache directory ([build] cache, absolute), malloc'd. */
char	*kernels_cache_dir(void);

/* The sandbox and limits every daemon build gets (exposed for tests). */
void	kernels_opts(struct build_opts *);

#endif
