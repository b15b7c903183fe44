/*
 * tree: kernel git trees — the ONLY module that talks to libgit2.
 *
 * It owns: importing Debian's linux-source tarball into a repository with a
 * reproducible commit id, fetching trees that have a URL, resolving revisions,
 * choosing the base of a series, applying a series onto that base (libgit2
 * first, git's own 3-way apply as the fallback) and listing what a commit
 * changed relative to another (for incremental builds).
 *
 * Every function opens its own git_repository handle (libgit2 handles are
 * not shared between threads), so they can be called from any thread.  Two
 * calls on the same repository are safe: apply only adds objects and one
 * ref, and refs are updated atomically by libgit2.
 *
 * Ownership: struct tree_conf's strings and arrays are owned by the struct
 * (tree_conf_release).  struct tree_applied is owned by the caller and freed
 * with tree_applied_release.
 */
#ifndef KPERFCI_TREE_H
#define KPERFCI_TREE_H

#include <stddef.h>

#include "lib/buf.h"

struct patch;

/* One [tree "NAME"] section of kperfci.conf. */
struct tree_conf {
	char	*name;
	char	*url;		/* fetched with the git CLI; or NULL */
	char	*path;		/* the repository (for url: where it lives) */
	char	*branch;	/* default "master" */
	char	*config;	/* base config: a file path or a make target
				   ("tinyconfig", "defconfig") */
	char	**fragments;	/* etc/kconfig fragment paths merged over it */
	size_t	 nfragments;
};

void	tree_conf_release(struct tree_conf *);

/*
 * The project's one way to run the git CLI: git -C repo args... (repo
 * NULL: no -C), its own process group, killed after timeout_sec; stdout
 * into out when out is not NULL.  0, or -1 with git's stderr (or how it
 * ended) in err.
 */
int	tree_run_git(const char *repo, const char *const *args,
	    int timeout_sec, struct buf *out, struct buf *err);

/* The fixed identity and date of an imported tarball commit: the same bytes
   give the same commit id on every machine. */
#define TREE_IMPORT_NAME	"kperfci import"
#define TREE_IMPORT_EMAIL	"kperfci@localhost"
#define TREE_IMPORT_DATE	"1731888000 +0000"	/* 2024-11-18 */

/*
 * Imports a linux-source tarball (a single top-level directory) into a new
 * git repository at dir (which must not exist or be empty), on branch
 * "master", with one commit.  commit_out gets its id.  On failure dir is
 * removed again and err says what went wrong.
 */
int	tree_import_tarball(const char *tarball, const char *dir,
	    char commit_out[41], struct buf *err);

/*
 * Fetches url's branch into repo (created bare if missing) as
 * refs/heads/<branch>.  Progress goes to log_path (git's stderr).
 */
int	tree_fetch(const char *repo, const char *url, const char *branch,
	    const char *log_path, int timeout_sec, struct buf *err);

/* Resolves rev to a commit id.  0 when found, -1 (no log) when not. */
int	tree_resolve(const char *repo, const char *rev, char out[41]);

enum tree_base_kind {
	TREE_BASE_FOOTER,	/* the series' base-commit: footer */
	TREE_BASE_SUBMITTED,	/* the "base" given at submission */
	TREE_BASE_HEAD,		/* the tracked branch head */
};

const char *tree_base_kind_name(enum tree_base_kind);

/*
 * Chooses the base commit: footer (may be NULL) if the tree has it, else
 * submitted (may be NULL) if it resolves, else the head of branch.  reason
 * gets one sentence saying which and why ("base-commit 1234abcd from the
 * series is not in tree linux-6.12; using the branch head master").
 * Returns -1 only when nothing resolves (err says so).
 */
int	tree_choose_base(const char *repo, const char *branch,
	    const char *footer, const char *submitted, char out[41],
	    enum tree_base_kind *kind, struct buf *reason);

/* How each patch was applied. */
#define TREE_PATH_LIBGIT2	"libgit2"
#define TREE_PATH_GIT3WAY	"git apply -3"

struct tree_applied {
	char	 commit[41];	/* the patched commit */
	const char **paths;	/* per patch: TREE_PATH_* (static strings) */
	size_t	 npaths;
};

void	tree_applied_release(struct tree_applied *);

/*
 * Applies patches[0..n) in order onto base and commits each with the
 * patch's author, date and message; the committer is a fixed kperfci
 * identity with the author date, so applying the same series to the same
 * base always gives the same commit id (a resubmission is a cache hit).
 * On success ref (e.g. "refs/kperfci/series/12") points at the last commit.
 * On failure err reads
 *   patch 3/7 "subject" does not apply to 1234abcdef12: <first rejected hunk>
 * and no ref is touched.
 */
int	tree_apply(const char *repo, const char *base,
	    const struct patch *patches, size_t n, const char *ref,
	    struct tree_applied *out, struct buf *err);

/*
 * Lists the paths that differ between commits a and b (renames appear as
 * a deletion and an addition).  paths is a NUL-separated list in out.
 */
int	tree_changed_paths(const char *repo, const char *a, const char *b,
	    struct buf *out, struct buf *err);

/*
 * The unified diff a..b without context lines (each hunk's ranges are
 * exactly the changed lines), appended to out (its max bounds it).
 */
int	tree_diff_text(const char *repo, const char *a, const char *b,
	    struct buf *out, struct buf *err);

/* Appends the content of path in commit to out: 0, 1 when the commit has
   no such file, -1 (err says why, also when out's max is exceeded). */
int	tree_read_blob(const char *repo, const char *commit, const char *path,
	    struct buf *out, struct buf *err);

/*
 * Writes the full tree of commit into dir (created; must not exist).  The
 * files get the current time as mtime: older than anything built later.
 */
int	tree_export(const char *repo, const char *commit, const char *dir,
	    struct buf *err);

/* Writes one file of commit (path relative to the tree root) to dest,
   replacing dest by a new inode (hard links to it are left alone).  A path
   the commit lacks removes dest.  */
int	tree_write_path(const char *repo, const char *commit, const char *path,
	    const char *dest, struct buf *err);

#endif
