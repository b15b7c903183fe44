/*
 * watch: watched lists.  A [watch "NAME"] section names a lore base and a
 * list, the paths a series must touch (mm/, fs/dcache.c), how often to
 * poll, how many series a day it may submit and their priority (behind
 * interactive submissions, which carry 0).  One thread polls each list's
 * Atom feed (<base><list>/new.atom), finds new series (a cover letter, or
 * a single patch; patch 1/K only when the thread has no cover letter),
 * picks each the way b4 does, and submits those that touch a watched path.
 *
 * Every message seen is stored with what came of it, so a restart or a
 * feed that repeats entries never submits twice.  A newer revision of a
 * series this watch submitted supersedes the older one when the older one
 * has not started its boots yet.  A feed that is down or malformed is
 * logged and polled again with a growing delay; nothing stored is lost.
 */
#ifndef KPERFCI_WATCH_H
#define KPERFCI_WATCH_H

#include <stddef.h>

struct buf;

/* Starts and stops the polling thread (nothing to do without watches). */
int	watch_start(void);
void	watch_stop(void);

/*
 * Whether a series with these changed paths falls under a watch's
 * filter: a filter entry ending in '/' is a directory prefix, any other
 * entry a whole path.
 */
int	watch_paths_match(const char *const *filter, size_t nfilter,
	    const char *const *paths, size_t npaths);

/* The changed paths of a patch's diff ("diff --git a/X b/Y": X and Y),
   appended to *paths (malloc'd strings; duplicates skipped). */
void	watch_diff_paths(const char *diff, char ***paths, size_t *n);

#endif
