/*
 * tree: kernel git trees — the ONLY file that talks to libgit2 (see tree.h).
 *
 * libgit2 does what it does fast and in-process: resolving revisions,
 * applying a patch to a tree without a checkout (0.14 s on the kernel) and
 * writing commits with exact authors and dates.  The git CLI (through
 * lib/run.h) does what libgit2 1.5 does slowly or not at all:
 *  - importing 85k files (`git add` is several times faster than building
 *    an index through libgit2, which hashes file by file on one thread);
 *  - fetching (no shallow/partial clone, slow pack negotiation);
 *  - applying a hunk that moved (libgit2 matches only at the exact line, no
 *    offset, no 3-way): `git apply --cached -3` against a private index
 *    file.  We use `git apply` rather than `git am` because am goes through
 *    mailinfo (which rewrites subjects and cuts messages at "---") and stamps
 *    the committer date with "now"; we want the commit to carry exactly the
 *    series' message and to get the same id on every run, so the commit
 *    itself is always written here with libgit2.  It also needs no worktree
 *    checkout of 85k files.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "core/series.h"
#include "core/tree.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/strvec.h"
#include "lib/xalloc.h"

#define TREE_GIT_OUT_MAX	(64u << 20)	/* git's stdout we read */
#define TREE_ERR_MAX		(256u << 10)

/* The committer of applied patches: fixed, so commit ids are reproducible. */
#define TREE_COMMITTER_NAME	"kperfci"
#define TREE_COMMITTER_EMAIL	"kperfci@localhost"

static pthread_once_t tree_once = PTHREAD_ONCE_INIT;

static void
tree_init_once(void)
{
	git_libgit2_init();
}

static const char *
tree_git_err(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

static int
tree_open(const char *path, git_repository **repo, struct buf *err)
{
	pthread_once(&tree_once, tree_init_once);
	if (git_repository_open(repo, path) < 0) {
		if (err)
			buf_addf(err, "cannot open repository %s: %s", path,
			    tree_git_err());
		return -1;
	}
	return 0;
}

void
tree_conf_release(struct tree_conf *t)
{
	free(t->name);
	free(t->url);
	free(t->path);
	free(t->branch);
	free(t->config);
	for (size_t i = 0; i < t->nfragments; i++)
		free(t->fragments[i]);
	free(t->fragments);
	memset(t, 0, sizeof(*t));
}

void
tree_applied_release(struct tree_applied *a)
{
	free(a->paths);
	memset(a, 0, sizeof(*a));
}

const char *
tree_base_kind_name(enum tree_base_kind k)
{
	switch (k) {
	case TREE_BASE_FOOTER:
		return "base-commit";
	case TREE_BASE_SUBMITTED:
		return "submitted";
	case TREE_BASE_HEAD:
		return "branch-head";
	}
	return "?";
}

/* A scratch directory for one operation; removed by tree_tmp_remove. */
static char *
tree_tmp_dir(void)
{
	const char *t = getenv("TMPDIR");
	char *d = xasprintf("%s/kperfci-tree.XXXXXX", t && *t ? t : "/tmp");

	if (!mkdtemp(d)) {
		log_warn("mkdtemp %s", d);
		free(d);
		return NULL;
	}
	return d;
}

static void
tree_tmp_remove(char *d)
{
	const char *argv[] = { "rm", "-rf", "--", d, NULL };
	struct run r = { 0 };

	if (!d)
		return;
	r.argv = argv;
	run_cmd(&r);
	free(d);
}

/*
 * Runs git with args in repo.  stdout goes to out (may be NULL), the first
 * lines of stderr to err_text (may be NULL).  env: extra "K=V" or NULL.
 */
static int
tree_git(const char *repo, const char *const *args, const char *const *env,
    int timeout_sec, struct buf *out, struct buf *err_text)
{
	struct strvec argv = STRVEC_INIT;
	char *tmp = NULL, *errlog = NULL;
	struct run r = { 0 };
	int rc = -1;

	strvec_push(&argv, "git");
	if (repo) {
		strvec_push(&argv, "-C");
		strvec_push(&argv, repo);
	}
	strvec_pushv(&argv, args);
	if (!(tmp = tree_tmp_dir()))
		goto out;
	errlog = xasprintf("%s/stderr", tmp);
	r.argv = strvec_argv(&argv);
	r.env = env;
	r.log_path = errlog;
	r.timeout_sec = timeout_sec;
	if (out)
		rc = run_capture(&r, out);
	else
		rc = run_cmd(&r);
	if (rc != 0 && err_text) {
		struct buf e = BUF_INIT(TREE_ERR_MAX);

		buf_read_file(&e, errlog);
		if (e.len == 0)
			buf_addf(err_text, "git %s: %s", args[0],
			    run_status(&r));
		else
			buf_add(err_text, e.data, e.len);
		buf_release(&e);
	}
out:
	free(errlog);
	tree_tmp_remove(tmp);
	strvec_clear(&argv);
	return rc;
}

int
tree_run_git(const char *repo, const char *const *args, int timeout_sec,
    struct buf *out, struct buf *err)
{
	return tree_git(repo, args, NULL, timeout_sec, out, err);
}

/* Trims trailing newlines/spaces of b in place. */
static void
tree_chomp(struct buf *b)
{
	while (b->len && (b->data[b->len - 1] == '\n' ||
	    b->data[b->len - 1] == '\r' || b->data[b->len - 1] == ' '))
		b->data[--b->len] = '\0';
}

/*
 * Makes dir (and its missing parents) for an import.  An existing empty
 * directory is fine; anything else is an error naming the real cause.
 */
static int
tree_import_mkdir(const char *dir, struct buf *err)
{
	char *p = xstrdup(dir);
	int rc = -1;

	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) == -1 && errno != EEXIST) {
			buf_addf(err, "cannot create %s: %s", p, strerror(errno));
			goto out;
		}
		*s = '/';
	}
	if (mkdir(dir, 0755) == 0) {
		rc = 0;
		goto out;
	}
	if (errno != EEXIST) {
		buf_addf(err, "cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	if (rmdir(dir) == -1 || mkdir(dir, 0755) == -1) {
		buf_addf(err, "%s exists and is not an empty directory (%s)",
		    dir, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(p);
	return rc;
}

int
tree_import_tarball(const char *tarball, const char *dir, char commit_out[41],
    struct buf *err)
{
	const char *tar[] = { "tar", "-x", "--strip-components=1",
	    "--no-same-owner", "-f", tarball, "-C", dir, NULL };
	const char *init[] = { "init", "-q", "-b", "master", NULL };
	/* -f: the kernel's .gitignore files match a few tracked files */
	const char *add[] = { "add", "-A", "-f", ".", NULL };
	const char *commit[] = { "-c", "user.useConfigOnly=false",
	    "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify",
	    "-m", NULL, NULL };
	const char *revparse[] = { "rev-parse", "HEAD", NULL };
	const char *env[] = {
	    "GIT_AUTHOR_NAME=" TREE_IMPORT_NAME,
	    "GIT_AUTHOR_EMAIL=" TREE_IMPORT_EMAIL,
	    "GIT_AUTHOR_DATE=" TREE_IMPORT_DATE,
	    "GIT_COMMITTER_NAME=" TREE_IMPORT_NAME,
	    "GIT_COMMITTER_EMAIL=" TREE_IMPORT_EMAIL,
	    "GIT_COMMITTER_DATE=" TREE_IMPORT_DATE,
	    NULL };
	struct buf out = BUF_INIT(4096);
	struct run r = { 0 };
	struct stat st;
	const char *base;
	char *msg = NULL, *tarlog = NULL, *tmp = NULL;
	int rc = -1, made = 0;

	if (stat(tarball, &st) == -1 || !S_ISREG(st.st_mode)) {
		buf_addf(err, "tarball %s: %s", tarball,
		    errno ? strerror(errno) : "not a regular file");
		return -1;
	}
	if (tree_import_mkdir(dir, err) != 0)
		return -1;
	made = 1;

	if (!(tmp = tree_tmp_dir())) {
		buf_addf(err, "cannot create a temporary directory");
		goto out;
	}
	tarlog = xasprintf("%s/tar.log", tmp);
	r.argv = tar;
	r.log_path = tarlog;
	r.timeout_sec = 1800;
	if (run_cmd(&r) != 0) {
		struct buf e = BUF_INIT(4096);

		buf_read_file(&e, tarlog);
		buf_addf(err, "tar -xf %s: %s: %.400s", tarball, run_status(&r),
		    e.data ? e.data : "");
		buf_release(&e);
		goto out;
	}
	if (tree_git(dir, init, NULL, 60, NULL, err) != 0 ||
	    tree_git(dir, add, NULL, 1800, NULL, err) != 0)
		goto out;
	base = strrchr(tarball, '/');
	base = base ? base + 1 : tarball;
	/* The message names only the tarball's file name: a different path on
	   another machine must not change the commit id. */
	msg = xasprintf("Import %s\n\nImported by kperfci tree import.\n", base);
	commit[8] = msg;
	if (tree_git(dir, commit, env, 600, NULL, err) != 0 ||
	    tree_git(dir, revparse, NULL, 60, &out, err) != 0)
		goto out;
	tree_chomp(&out);
	if (out.len != 40) {
		buf_addf(err, "git rev-parse HEAD printed \"%s\"", out.data);
		goto out;
	}
	memcpy(commit_out, out.data, 41);
	rc = 0;
out:
	if (rc != 0 && made) {
		const char *rm[] = { "rm", "-rf", "--", dir, NULL };
		struct run rr = { 0 };

		rr.argv = rm;
		run_cmd(&rr);
	}
	buf_release(&out);
	free(msg);
	free(tarlog);
	tree_tmp_remove(tmp);
	return rc;
}

int
tree_fetch(const char *repo, const char *url, const char *branch,
    const char *log_path, int timeout_sec, struct buf *err)
{
	const char *init[] = { "init", "-q", "--bare", repo, NULL };
	char *refspec = xasprintf("+refs/heads/%s:refs/heads/%s", branch,
	    branch);
	const char *fetch[] = { "git", "-C", repo, "fetch", "--progress",
	    "--no-tags", "--", url, refspec, NULL };
	struct run r = { 0 };
	struct stat st;
	int rc = -1;

	/* A branch starting with '-' or holding ':' would change what git
	   does with the refspec. */
	if (!*branch || branch[0] == '-' || strpbrk(branch, ": \t\n~^?*[\\")) {
		buf_addf(err, "invalid branch name \"%s\"", branch);
		goto out;
	}
	if (url[0] == '-') {
		buf_addf(err, "invalid url \"%s\"", url);
		goto out;
	}
	if (stat(repo, &st) == -1 &&
	    tree_git(NULL, init, NULL, 60, NULL, err) != 0)
		goto out;
	r.argv = fetch;
	r.log_path = log_path;
	r.timeout_sec = timeout_sec;
	if (run_cmd(&r) != 0) {
		struct buf e = BUF_INIT(TREE_ERR_MAX);
		const char *last = "";

		int len = 300;

		if (log_path && buf_read_file(&e, log_path) == 0 && e.data) {
			const char *f = strstr(e.data, "fatal: ");

			/* git's "fatal:" line says why; else its last line */
			tree_chomp(&e);
			if (f) {
				const char *nl = strchr(f, '\n');

				last = f + 7;
				if (nl && nl - last < len)
					len = (int)(nl - last);
			} else {
				last = strrchr(e.data, '\n');
				last = last ? last + 1 : e.data;
			}
		}
		buf_addf(err, "git fetch %s %s: %s: %.*s", url, branch,
		    run_status(&r), len, last);
		buf_release(&e);
		goto out;
	}
	rc = 0;
out:
	free(refspec);
	return rc;
}

static int
tree_lookup_commit(git_repository *repo, const char *rev, git_commit **c)
{
	git_object *obj = NULL, *peeled = NULL;
	int rc = -1;

	/* Only ids and ref names: revparse syntax like "@{-1}" or ":/text"
	   from a submitter is not ours to interpret. */
	if (!*rev || rev[0] == '-' || strpbrk(rev, ":@{}^~ \t\n\\") ||
	    strlen(rev) > 200)
		return -1;
	if (git_revparse_single(&obj, repo, rev) < 0)
		goto out;
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0)
		goto out;
	*c = (git_commit *)peeled;
	peeled = NULL;
	rc = 0;
out:
	git_object_free(obj);
	git_object_free(peeled);
	return rc;
}

int
tree_resolve(const char *path, const char *rev, char out[41])
{
	git_repository *repo = NULL;
	git_commit *c = NULL;
	int rc = -1;

	if (tree_open(path, &repo, NULL) < 0)
		return -1;
	if (tree_lookup_commit(repo, rev, &c) == 0) {
		git_oid_tostr(out, 41, git_commit_id(c));
		rc = 0;
	}
	git_commit_free(c);
	git_repository_free(repo);
	return rc;
}

int
tree_choose_base(const char *repo, const char *branch, const char *footer,
    const char *submitted, char out[41], enum tree_base_kind *kind,
    struct buf *reason)
{
	struct buf why = BUF_INIT(2048);
	int rc = -1;

	if (footer && *footer) {
		if (tree_resolve(repo, footer, out) == 0) {
			*kind = TREE_BASE_FOOTER;
			buf_addf(reason, "base-commit %.12s from the series "
			    "is in the tree", footer);
			rc = 0;
			goto out;
		}
		buf_addf(&why, "base-commit %.40s from the series is not in "
		    "the tree; ", footer);
	}
	if (submitted && *submitted) {
		if (tree_resolve(repo, submitted, out) == 0) {
			*kind = TREE_BASE_SUBMITTED;
			buf_addf(reason, "%susing the base %.60s given at "
			    "submission", why.len ? why.data : "", submitted);
			rc = 0;
			goto out;
		}
		buf_addf(&why, "the submitted base %.60s is not in the tree; ",
		    submitted);
	}
	if (tree_resolve(repo, branch, out) == 0) {
		*kind = TREE_BASE_HEAD;
		if (why.len)
			buf_addf(reason, "%susing the head of branch %s",
			    why.data, branch);
		else
			buf_addf(reason, "the series names no base; using the "
			    "head of branch %s", branch);
		rc = 0;
		goto out;
	}
	buf_addf(reason, "%sbranch %s does not resolve either",
	    why.len ? why.data : "", branch);
out:
	buf_release(&why);
	return rc;
}

/* "+0100" at the end of an RFC 2822 date -> minutes east of UTC. */
static int
tree_tz_minutes(const char *date)
{
	const char *p;
	int h, m;

	if (!date || !(p = strrchr(date, ' ')))
		return 0;
	p++;
	if ((p[0] != '+' && p[0] != '-') || strlen(p) < 5)
		return 0;
	for (int i = 1; i < 5; i++)
		if (p[i] < '0' || p[i] > '9')
			return 0;
	h = (p[1] - '0') * 10 + (p[2] - '0');
	m = (p[3] - '0') * 10 + (p[4] - '0');
	return (p[0] == '-' ? -1 : 1) * (h * 60 + m);
}

/*
 * The diff to hand to libgit2 and git apply: the patch's diff without a
 * trailing "-- \n<git version>" mail signature.
 */
static void
tree_patch_diff(const struct patch *p, struct buf *out)
{
	const char *d = p->diff ? p->diff : "";
	size_t len = strlen(d);
	const char *sig = NULL;

	for (const char *s = d; (s = strstr(s, "\n-- \n")); s++)
		sig = s;
	if (sig && !strstr(sig, "\n@@") && !strstr(sig, "\ndiff --git"))
		len = (size_t)(sig - d) + 1;
	buf_add(out, d, len);
	if (out->len && out->data[out->len - 1] != '\n')
		buf_addch(out, '\n');
}

/*
 * The hunk git apply rejected: "patch failed: FILE:LINE" names the file and
 * the old start line; we quote that file's "@@ -LINE" header from the diff.
 * Otherwise the first "error:" line says what was wrong.
 */
static void
tree_first_rejected(const char *diff, const char *stderr_text,
    struct buf *out)
{
	const char *pf = strstr(stderr_text, "patch failed: ");
	const char *e;

	if (pf) {
		const char *file = pf + strlen("patch failed: ");
		const char *eol = strchr(file, '\n');
		const char *colon = NULL;

		for (const char *c = file; c < (eol ? eol : file + strlen(file));
		    c++)
			if (*c == ':')
				colon = c;
		if (colon) {
			char *name = xstrndup(file, (size_t)(colon - file));
			long line = strtol(colon + 1, NULL, 10);
			char *hdr = xasprintf("\n+++ b/%s\n", name);
			char *at = xasprintf("\n@@ -%ld,", line);
			char *at1 = xasprintf("\n@@ -%ld ", line);
			const char *f = strstr(diff, hdr);
			const char *h = NULL;

			if (f) {
				const char *next = strstr(f + 1, "\ndiff --git ");
				const char *h1 = strstr(f, at), *h2 = strstr(f, at1);

				h = h1 && (!h2 || h1 < h2) ? h1 : h2;
				if (h && next && h > next)
					h = NULL;
			}
			if (h) {
				const char *hend = strchr(h + 1, '\n');

				buf_addf(out, "%s %.*s", name,
				    (int)(hend ? hend - h - 1 : 200), h + 1);
			} else
				buf_addf(out, "%s at line %ld", name, line);
			free(name);
			free(hdr);
			free(at);
			free(at1);
			return;
		}
	}
	if ((e = strstr(stderr_text, "error: ")) != NULL) {
		const char *eol = strchr(e, '\n');

		buf_addf(out, "%.*s", (int)(eol ? eol - e - 7 : 300), e + 7);
		return;
	}
	buf_addf(out, "%.300s", *stderr_text ? stderr_text : "git apply failed");
}

/* Fallback: git apply --cached -3 of diff onto parent's tree, in a private
   index.  tree_out gets the resulting tree id. */
static int
tree_apply_git(const char *path, const git_oid *parent, const struct buf *diff,
    git_oid *tree_out, struct buf *reject)
{
	char *tmp = tree_tmp_dir(), *idx_env = NULL, *pfile = NULL;
	char parent_hex[41];
	const char *env[2];
	struct buf out = BUF_INIT(4096), err = BUF_INIT(TREE_ERR_MAX);
	int rc = -1;

	if (!tmp) {
		buf_addf(reject, "cannot create a temporary directory");
		return -1;
	}
	git_oid_tostr(parent_hex, sizeof(parent_hex), parent);
	idx_env = xasprintf("GIT_INDEX_FILE=%s/index", tmp);
	pfile = xasprintf("%s/patch", tmp);
	env[0] = idx_env;
	env[1] = NULL;
	if (buf_write_file(pfile, diff->data, diff->len) == -1) {
		buf_addf(reject, "cannot write %s: %s", pfile, strerror(errno));
		goto out;
	}
	{
		const char *rt[] = { "read-tree", parent_hex, NULL };
		const char *ap[] = { "apply", "--cached", "-3",
		    "--whitespace=nowarn", pfile, NULL };
		const char *wt[] = { "write-tree", NULL };

		if (tree_git(path, rt, env, 300, NULL, &err) != 0) {
			buf_addf(reject, "git read-tree: %.300s", err.data);
			goto out;
		}
		if (tree_git(path, ap, env, 300, NULL, &err) != 0) {
			tree_first_rejected(diff->data, err.data ? err.data : "",
			    reject);
			goto out;
		}
		if (tree_git(path, wt, env, 300, &out, &err) != 0) {
			buf_addf(reject, "git write-tree: %.300s", err.data);
			goto out;
		}
	}
	tree_chomp(&out);
	if (git_oid_fromstr(tree_out, out.data ? out.data : "") < 0) {
		buf_addf(reject, "git write-tree printed \"%.80s\"", out.data);
		goto out;
	}
	rc = 0;
out:
	buf_release(&out);
	buf_release(&err);
	free(idx_env);
	free(pfile);
	tree_tmp_remove(tmp);
	return rc;
}

/* Binary patches cannot come through a mail body we decoded as text. */
static int
tree_is_binary(const char *diff)
{
	return strstr(diff, "\nGIT binary patch") || !strncmp(diff,
	    "GIT binary patch", 16) || strstr(diff, "\nBinary files ");
}

/* The tree patch p makes on parent: libgit2's apply, else git apply -3
   (*how says which).  0, or -1 with why in *reject. */
static int
tree_apply_tree(git_repository *repo, const char *path, git_commit *parent,
    const struct patch *p, const struct buf *diff, git_oid *tree_id,
    const char **how, struct buf *reject)
{
	git_apply_options opts = GIT_APPLY_OPTIONS_INIT;
	git_diff *gd = NULL;
	git_tree *tree = NULL;
	git_index *index = NULL;
	int rc = -1;

	if (tree_is_binary(diff->data)) {
		buf_addf(reject, "binary patches are not supported");
		goto out;
	}
	if (!p->message || !*p->message) {
		buf_addf(reject, "the patch has no commit message");
		goto out;
	}
	if (diff->len <= 1) {
		buf_addf(reject, "the patch has no diff");
		goto out;
	}
	if (git_commit_tree(&tree, parent) == 0 &&
	    git_diff_from_buffer(&gd, diff->data, diff->len) == 0 &&
	    git_apply_to_tree(&index, repo, tree, gd, &opts) == 0 &&
	    git_index_write_tree_to(tree_id, index, repo) == 0) {
		*how = TREE_PATH_LIBGIT2;
		rc = 0;
	} else if (tree_apply_git(path, git_commit_id(parent), diff, tree_id,
	    reject) == 0) {
		*how = TREE_PATH_GIT3WAY;
		rc = 0;
	}
out:
	git_index_free(index);
	git_tree_free(tree);
	git_diff_free(gd);
	return rc;
}

/* Commits tree_id on *parent with p's message and author, and moves
   *parent to the new commit.  0, or -1 with why in *reject. */
static int
tree_apply_commit(git_repository *repo, git_commit **parent,
    const struct patch *p, const git_oid *tree_id, git_oid *cid,
    struct buf *reject)
{
	git_signature *author = NULL, *committer = NULL;
	git_tree *tree = NULL;
	size_t ml = strlen(p->message);
	char *msg = ml && p->message[ml - 1] == '\n' ?
	    xstrdup(p->message) : xasprintf("%s\n", p->message);
	int rc = -1;

	if (git_tree_lookup(&tree, repo, tree_id) < 0 ||
	    git_signature_new(&author, p->author && *p->author ?
	    p->author : (p->email ? p->email : "unknown"),
	    p->email ? p->email : "", (git_time_t)p->date_epoch,
	    tree_tz_minutes(p->date)) < 0) {
		buf_addf(reject, "%s", tree_git_err());
		goto out;
	}
	/* The committer date is the author date so that the
	   same series on the same base is the same commit. */
	if (git_signature_new(&committer, TREE_COMMITTER_NAME,
	    TREE_COMMITTER_EMAIL, (git_time_t)p->date_epoch, 0) < 0 ||
	    git_commit_create(cid, repo, NULL, author, committer,
	    "UTF-8", msg, tree, 1, (const git_commit **)parent) < 0) {
		buf_addf(reject, "commit: %s", tree_git_err());
		goto out;
	}
	git_commit_free(*parent);
	*parent = NULL;
	if (git_commit_lookup(parent, repo, cid) < 0) {
		buf_addf(reject, "%s", tree_git_err());
		goto out;
	}
	rc = 0;
out:
	free(msg);
	git_signature_free(author);
	git_signature_free(committer);
	git_tree_free(tree);
	return rc;
}

int
tree_apply(const char *path, const char *base, const struct patch *patches,
    size_t n, const char *ref, struct tree_applied *res, struct buf *err)
{
	git_repository *repo = NULL;
	git_commit *parent = NULL;
	git_reference *r = NULL;
	char base_short[13];
	git_oid head;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (tree_open(path, &repo, err) < 0)
		return -1;
	if (tree_lookup_commit(repo, base, &parent) < 0) {
		buf_addf(err, "base %.60s is not a commit in %s", base, path);
		goto out;
	}
	snprintf(base_short, sizeof(base_short), "%s", git_oid_tostr_s(
	    git_commit_id(parent)));
	res->paths = xcalloc(n ? n : 1, sizeof(*res->paths));
	res->npaths = n;
	git_oid_cpy(&head, git_commit_id(parent));

	for (size_t i = 0; i < n; i++) {
		const struct patch *p = &patches[i];
		struct buf diff = BUF_INIT(0), reject = BUF_INIT(4096);
		git_oid tree_id, cid;
		int ok;

		tree_patch_diff(p, &diff);
		ok = tree_apply_tree(repo, path, parent, p, &diff, &tree_id,
		    &res->paths[i], &reject) == 0 &&
		    tree_apply_commit(repo, &parent, p, &tree_id, &cid,
		    &reject) == 0;
		if (ok)
			git_oid_cpy(&head, &cid);
		else
			buf_addf(err, "patch %d/%d \"%.200s\" does not apply to "
			    "%s: %s", p->counter ? p->counter : (int)i + 1,
			    p->total ? p->total : (int)n,
			    p->subject ? p->subject : "", base_short,
			    reject.len ? reject.data : "unknown reason");
		buf_release(&diff);
		buf_release(&reject);
		if (!ok)
			goto out;
	}
	/* Another process sharing the tree (a second daemon, `kperfci tree
	   apply`) may hold the ref's lock file for a moment: wait for it,
	   up to 2 s, rather than fail the series. */
	for (int tries = 0; ref; tries++) {
		int e = git_reference_create(&r, repo, ref, &head, 1,
		    "kperfci: series applied");

		if (e >= 0)
			break;
		if (e != GIT_ELOCKED || tries == 100) {
			buf_addf(err, "cannot set %s: %s", ref,
			    tree_git_err());
			goto out;
		}
		usleep(20 * 1000);
	}
	git_oid_tostr(res->commit, sizeof(res->commit), &head);
	rc = 0;
out:
	if (rc != 0)
		tree_applied_release(res);
	git_reference_free(r);
	git_commit_free(parent);
	git_repository_free(repo);
	return rc;
}

int
tree_changed_paths(const char *path, const char *a, const char *b,
    struct buf *out, struct buf *err)
{
	git_repository *repo = NULL;
	git_commit *ca = NULL, *cb = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *d = NULL;
	int rc = -1;

	if (tree_open(path, &repo, err) < 0)
		return -1;
	if (tree_lookup_commit(repo, a, &ca) < 0 ||
	    tree_lookup_commit(repo, b, &cb) < 0) {
		buf_addf(err, "%s or %s is not a commit in %s", a, b, path);
		goto out;
	}
	if (git_commit_tree(&ta, ca) < 0 || git_commit_tree(&tb, cb) < 0 ||
	    git_diff_tree_to_tree(&d, repo, ta, tb, NULL) < 0) {
		buf_addf(err, "diff %s..%s: %s", a, b, tree_git_err());
		goto out;
	}
	/* Without rename detection a rename is a delete plus an add: both
	   paths must be updated in a copied source tree. */
	for (size_t i = 0; i < git_diff_num_deltas(d); i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);

		buf_add(out, dl->old_file.path, strlen(dl->old_file.path) + 1);
		if (strcmp(dl->old_file.path, dl->new_file.path))
			buf_add(out, dl->new_file.path,
			    strlen(dl->new_file.path) + 1);
	}
	rc = 0;
out:
	git_diff_free(d);
	git_tree_free(ta);
	git_tree_free(tb);
	git_commit_free(ca);
	git_commit_free(cb);
	git_repository_free(repo);
	return rc;
}

int
tree_diff_text(const char *path, const char *a, const char *b,
    struct buf *out, struct buf *err)
{
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	git_repository *repo = NULL;
	git_commit *ca = NULL, *cb = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *d = NULL;
	git_buf gb = { 0 };
	int rc = -1;

	if (tree_open(path, &repo, err) < 0)
		return -1;
	if (tree_lookup_commit(repo, a, &ca) < 0 ||
	    tree_lookup_commit(repo, b, &cb) < 0) {
		buf_addf(err, "%s or %s is not a commit in %s", a, b, path);
		goto out;
	}
	opts.context_lines = 0;
	if (git_commit_tree(&ta, ca) < 0 || git_commit_tree(&tb, cb) < 0 ||
	    git_diff_tree_to_tree(&d, repo, ta, tb, &opts) < 0 ||
	    git_diff_to_buf(&gb, d, GIT_DIFF_FORMAT_PATCH) < 0) {
		buf_addf(err, "diff %s..%s: %s", a, b, tree_git_err());
		goto out;
	}
	if (buf_add(out, gb.ptr, gb.size) == -1) {
		buf_addf(err, "diff %s..%s: larger than %zu bytes", a, b,
		    out->max);
		goto out;
	}
	rc = 0;
out:
	git_buf_dispose(&gb);
	git_diff_free(d);
	git_tree_free(ta);
	git_tree_free(tb);
	git_commit_free(ca);
	git_commit_free(cb);
	git_repository_free(repo);
	return rc;
}

int
tree_read_blob(const char *path, const char *commit, const char *file,
    struct buf *out, struct buf *err)
{
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	int rc = -1;

	if (tree_open(path, &repo, err) < 0)
		return -1;
	if (tree_lookup_commit(repo, commit, &c) < 0 ||
	    git_commit_tree(&t, c) < 0) {
		buf_addf(err, "%s is not a commit in %s", commit, path);
		goto out;
	}
	if (git_tree_entry_bypath(&e, t, file) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		rc = 1;
		goto out;
	}
	if (git_blob_lookup(&blob, repo, git_tree_entry_id(e)) < 0) {
		buf_addf(err, "%s in %s: %s", file, commit, tree_git_err());
		goto out;
	}
	if (buf_add(out, git_blob_rawcontent(blob),
	    (size_t)git_blob_rawsize(blob)) == -1) {
		buf_addf(err, "%s in %s: larger than %zu bytes", file, commit,
		    out->max);
		goto out;
	}
	rc = 0;
out:
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(c);
	git_repository_free(repo);
	return rc;
}

int
tree_export(const char *path, const char *commit, const char *dir,
    struct buf *err)
{
	char *tmp = NULL, *idx_env = NULL, *prefix = NULL;
	const char *env[2];
	int rc = -1;

	if (mkdir(dir, 0755) == -1) {
		buf_addf(err, "mkdir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!(tmp = tree_tmp_dir())) {
		buf_addf(err, "cannot create a temporary directory");
		goto out;
	}
	idx_env = xasprintf("GIT_INDEX_FILE=%s/index", tmp);
	prefix = xasprintf("--work-tree=%s", dir);
	env[0] = idx_env;
	env[1] = NULL;
	{
		/* A private index and dir as the work tree (so bare, fetched
		   repositories work too): checkout-index writes the whole tree
		   much faster than a libgit2 checkout. */
		const char *rt[] = { "read-tree", commit, NULL };
		const char *co[] = { prefix, "checkout-index", "-a", "-f", NULL };

		if (tree_git(path, rt, env, 300, NULL, err) != 0 ||
		    tree_git(path, co, env, 1800, NULL, err) != 0)
			goto out;
	}
	rc = 0;
out:
	free(idx_env);
	free(prefix);
	tree_tmp_remove(tmp);
	return rc;
}

int
tree_write_path(const char *path, const char *commit, const char *file,
    const char *dest, struct buf *err)
{
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	char *tmp = NULL;
	int rc = -1, fd = -1;

	if (tree_open(path, &repo, err) < 0)
		return -1;
	if (tree_lookup_commit(repo, commit, &c) < 0 ||
	    git_commit_tree(&t, c) < 0) {
		buf_addf(err, "%s is not a commit in %s", commit, path);
		goto out;
	}
	/* Always a new inode: dest may be a hard link into another tree. */
	if (unlink(dest) == -1 && errno != ENOENT) {
		buf_addf(err, "unlink %s: %s", dest, strerror(errno));
		goto out;
	}
	if (git_tree_entry_bypath(&e, t, file) < 0) {
		rc = 0;		/* deleted by the commit */
		goto out;
	}
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(e)) < 0) {
		buf_addf(err, "%s in %s is not a file", file, commit);
		goto out;
	}
	{
		/* Parent directories of a file the series adds. */
		char *d = xstrdup(dest);

		for (char *s = d + 1; (s = strchr(s, '/')); s++) {
			*s = '\0';
			mkdir(d, 0755);
			*s = '/';
		}
		free(d);
	}
	if (git_tree_entry_filemode(e) == GIT_FILEMODE_LINK) {
		tmp = xstrndup(git_blob_rawcontent(blob),
		    (size_t)git_blob_rawsize(blob));
		if (symlink(tmp, dest) == -1) {
			buf_addf(err, "symlink %s: %s", dest, strerror(errno));
			goto out;
		}
		rc = 0;
		goto out;
	}
	fd = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    git_tree_entry_filemode(e) == GIT_FILEMODE_BLOB_EXECUTABLE ?
	    0755 : 0644);
	if (fd == -1 || write(fd, git_blob_rawcontent(blob),
	    (size_t)git_blob_rawsize(blob)) != (ssize_t)git_blob_rawsize(blob)) {
		buf_addf(err, "write %s: %s", dest, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	free(tmp);
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(c);
	git_repository_free(repo);
	return rc;
}
