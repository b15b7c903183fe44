/*
 * db_build: the store of trees, kernel builds and each series' base choice,
 * apply paths and builds (schema/0002-trees-builds.sql).  Only this file
 * holds SQL for them.  Every char * in the structs is owned by the struct.
 */
#ifndef KPERFCI_DB_BUILD_H
#define KPERFCI_DB_BUILD_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct patch;

struct db_build {
	int64_t	 id;
	char	*key, *tree, *commit_id, *config, *state;
	int64_t	 base_build;		/* 0: none */
	int	 progress;		/* -1: unknown */
	char	*dir, *sha256, *error, *log_tail;
	double	 seconds;
	int	 cc_lines;
	long long created, updated;
};

void	 db_build_release(struct db_build *);

struct db_series_build {
	char	*tree, *base_commit, *base_kind, *base_reason;
	char	*patched_commit, *ref;
	int64_t	 base_build, patched_build;	/* 0: none yet */
	char	**paths;		/* apply path per patch, by counter */
	int	*counters;
	size_t	 npaths;
};

void	 db_series_build_release(struct db_series_build *);

/* Records a configured tree (insert or update url/path/branch). */
int	 db_build_tree_upsert(struct db *, const char *name, const char *url,
	    const char *path, const char *branch);
/* Fetch progress of a tree: state "fetching", "done" or "failed". */
int	 db_build_tree_fetch_state(struct db *, const char *name,
	    const char *state, const char *error, const char *head);

/* The last fetch of a tree: state (NULL: never fetched) and error, owned
   by the caller.  0 found, 1 not found, -1 error. */
int	 db_build_tree_fetch_get(struct db *, const char *name, char **state,
	    char **error);

/*
 * The build row of key, created (state queued) when missing.  *id gets its
 * id.  A failed row is reset to queued so it can be tried again.
 */
int	 db_build_claim(struct db *, const char *key, const char *tree,
	    const char *commit, const char *config, int64_t base_build,
	    int64_t *id);
/* Live state while building (progress -1: unknown). */
int	 db_build_set_state(struct db *, int64_t id, const char *state,
	    int progress);
/* The outcome; strings may be NULL. */
int	 db_build_finish(struct db *, int64_t id, const char *state,
	    const char *dir, const char *sha256, const char *error,
	    const char *log_tail, double seconds, int cc_lines);
/* The bytes the build's artifacts keep in the cache (the storage
   quota, db_limits.c). */
int	 db_build_set_bytes(struct db *, int64_t id, long long bytes);
/* 0 found, 1 not found, -1 error. */
int	 db_build_get(struct db *, int64_t id, struct db_build *);
int	 db_build_get_key(struct db *, const char *key, struct db_build *);
/* Every build key the store knows (results may still open their
   artifacts): a malloc'd array of malloc'd strings.  0 or -1. */
int	 db_build_keys(struct db *, char ***keys, size_t *n);

/*
 * Stores the apply stage's decision for a series (replacing an earlier
 * one): tree, base and why, the patched commit and ref (NULL when apply
 * failed), and the apply path of patches [0..n) with their counters.
 */
int	 db_build_series_set(struct db *, int64_t series_id, const char *tree,
	    const char *base_commit, const char *base_kind,
	    const char *base_reason, const char *patched_commit,
	    const char *ref, const int *counters, const char *const *paths,
	    size_t n);
int	 db_build_series_set_builds(struct db *, int64_t series_id,
	    int64_t base_build, int64_t patched_build);
/* 0 found, 1 not found, -1 error. */
int	 db_build_series_get(struct db *, int64_t series_id,
	    struct db_series_build *);

/*
 * The stored patches of a series as struct patch (series.h), in order,
 * with date_epoch; free each with a plain loop of free() via
 * db_build_patches_free.
 */
int	 db_build_patches(struct db *, int64_t series_id, struct patch **out,
	    size_t *n);
void	 db_build_patches_free(struct patch *, size_t n);

#endif
