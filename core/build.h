/*
 * build: cached, incremental, sandboxed kernel builds.
 *
 * A build is keyed by (commit, config hash, compiler version); its directory
 * <cache>/b/<key>/ holds, once done, the artifacts bzImage, System.map,
 * config, build.log and a "done" file with the sha256 of bzImage.  A key
 * whose "done" file exists is a cache hit and costs nothing.
 *
 * Layout of one build (kbuild puts srctree = ".." when O= is a direct child
 * of the source, so every path recorded in the objects is relative and a
 * copied build directory stays valid in another copy of the source):
 *   <cache>/src/<commit>/      the commit exported once (never written again)
 *   <cache>/b/<key>/linux/     hard links to src/<commit>, plus for a
 *                              patched build fresh files for what the series
 *                              changed (new mtime, new inode)
 *   <cache>/b/<key>/linux/kbuild/   O=, copied from the base build for a
 *                              patched build, so only what changed recompiles
 * The sandbox binds only kbuild/ writable: the hard-linked source is shared
 * with the cache and must stay read-only.
 *
 * DESIGN (threads): build_run blocks; callers are background workers (the
 * pipeline), never HTTP handlers.  A process-wide slot count bounds how many
 * builds run at once; a caller waiting for a slot is "queued".
 */
#ifndef KPERFCI_BUILD_H
#define KPERFCI_BUILD_H

#include <stddef.h>

#include "lib/buf.h"

enum build_state {
	BUILD_QUEUED,
	BUILD_CONFIGURING,
	BUILD_BUILDING,
	BUILD_DONE,
	BUILD_FAILED,
};

const char *build_state_name(enum build_state);

struct build_spec {
	const char *repo;		/* the tree's git repository */
	const char *commit;		/* 40 hex */
	const char *config;		/* make target ("tinyconfig") or file */
	const char *const *fragments;	/* kconfig fragment files */
	size_t	 nfragments;
	const char *base_commit;	/* patched build: its base; or NULL */
	const char *base_key;		/* patched build: the base's done key */
};

struct build_opts {
	const char *cache_dir;		/* absolute */
	int	 jobs;			/* make -jN */
	int	 timeout_sec;		/* wall clock for the whole build */
	int	 sandbox;		/* 1: bubblewrap (always in the daemon) */
	const char *target;		/* default "bzImage" */
	/* Called from the building thread on every state change and about
	   once a second while building; percent is -1 when unknown. */
	void	(*progress)(void *arg, enum build_state, int percent);
	void	*arg;
	volatile int *cancel;
	/* Paths the build must not see (the daemon's data directory): each
	   is covered by an empty tmpfs; the cache directory always is. */
	const char *const *hide;
	size_t	 nhide;
	/* Bounds on what a build may spend; 0: the BUILD_DEFAULT_* below.
	   pids_max: tasks of the build user (RLIMIT_NPROC); mem_max: address
	   space per process (RLIMIT_AS); file_max: one file (RLIMIT_FSIZE);
	   output_max: the whole build directory, checked while it builds. */
	long long pids_max, mem_max, file_max, output_max;
};

#define BUILD_DEFAULT_PIDS	512
#define BUILD_DEFAULT_MEM	(8LL << 30)
#define BUILD_DEFAULT_FILE	(4LL << 30)
#define BUILD_DEFAULT_OUTPUT	(32LL << 30)

struct build_result {
	char	 key[65];
	char	 dir[4096];		/* <cache>/b/<key> */
	char	 sha256[65];		/* of bzImage */
	int	 cache_hit;
	double	 seconds;
	int	 cc_lines;		/* compiler invocations this build */
	char	 error[1024];		/* first compiler error, or the cause */
	char	 log_tail[4096];	/* last lines of build.log */
};

/* Sets the number of concurrent builds (default 1). */
void	build_set_slots(int);

/*
 * Hash of the configuration inputs: the base config (target name, or the
 * file's bytes) and every fragment's bytes, in order.
 */
int	build_config_hash(const char *config, const char *const *fragments,
	    size_t n, char out[65], struct buf *err);
/* "gcc (Debian 12.2.0-14) 12.2.0": the first line of cc --version. */
int	build_compiler_id(struct buf *out);
/* sha256 of commit, config hash and compiler id. */
void	build_key(const char *commit, const char *config_hash,
	    const char *compiler, char out[65]);

/* The cache key build_run will use for spec (config hash and compiler
   computed now).  0, or -1 with err. */
int	build_spec_key(const struct build_spec *, char out[65], struct buf *err);

/*
 * Builds spec (or finds it in the cache).  Two threads asking for the same
 * key do not both build: the second waits for the first and then finds
 * the result in the cache (or builds again if the first failed).  0 with res filled (artifacts in
 * res->dir), or -1 with res->error and res->log_tail saying why; a failed
 * build leaves no "done" file, so the next attempt starts over.
 */
int	build_run(const struct build_spec *, const struct build_opts *,
	    struct build_result *res);

/*
 * Cache garbage collection under a size budget.  The cache's size is the
 * bytes of every build directory that are its own (files not hard-linked
 * from an exported source) plus every exported source (src/<commit>).
 * While it is over max, build trees are evicted least recently used first
 * (a build is used when it is built or hit; its "done" file's mtime):
 * a build whose key is in keep (the store still has a row for it, so a
 * result page may open it) keeps bzImage, System.map, config and
 * build.log and loses the rest (its tree, its "done": a later build of
 * the key starts over); any other build is removed whole.  An exported
 * source is removed once no remaining tree links it.  A build being built
 * or locked by another process is skipped.  Blocks new builds while it
 * runs.  0, or -1 when the cache cannot be read (logged).
 */
struct build_gc_stats {
	long long before, after;	/* bytes */
	int	 trees_evicted;		/* artifacts kept */
	int	 builds_removed;	/* removed whole */
	int	 sources_removed;
	int	 busy;			/* skipped: in use */
};

int	build_cache_gc(const char *cache_dir, long long max,
	    const char *const *keep, size_t nkeep, struct build_gc_stats *);

/* Progress from a build log: count of compiler lines ("  CC ", "  AS ",
   "  LD ", ...).  Exposed for tests. */
int	build_count_steps(const char *log, size_t len);
/* The first compiler error line of a log ("mm/swap.c:12:1: error: ..."),
   or of make ("make[2]: *** ... Error 1") when there is none. */
void	build_first_error(const char *log, size_t len, struct buf *out);
/* The last nlines of a log. */
void	build_log_tail(const char *log, size_t len, int nlines,
	    struct buf *out);

#endif
