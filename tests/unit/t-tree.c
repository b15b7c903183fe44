/*
 * Unit tests for core/tree.c on small repositories made here with the git
 * CLI: exact-line apply through libgit2, a moved hunk through the git 3-way
 * fallback, a rejected hunk and its message, renames, binary patches,
 * missing files, corrupt hunks, base selection, reproducible commit ids,
 * export and the changed-path list used by incremental builds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/series.h"
#include "core/tree.h"
#include "lib/buf.h"
#include "lib/run.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"
#include "tests/unit/testsh.h"

static char *dir, *repo;

static int
sh(const char *script)
{
	return testsh_run(repo, script, 1);
}

static char *
capture(const char *script)
{
	return testsh_capture(repo, script);
}

static struct patch
mkpatch(int m, int k, const char *subject, const char *diff)
{
	struct patch p;

	memset(&p, 0, sizeof(p));
	p.counter = m;
	p.total = k;
	p.subject = (char *)subject;
	p.author = "Jane Doe";
	p.email = "jane@example.org";
	p.date = "Mon, 4 Nov 2024 10:00:00 +0100";
	p.date_epoch = 1730710800;
	p.message = xasprintf("%s\n\nBody of %s.\n\nSigned-off-by: Jane Doe "
	    "<jane@example.org>\n", subject, subject);
	p.diff = (char *)diff;
	return p;
}

static const char exact_diff[] =
    "diff --git a/f b/f\n"
    "index 0000000..1111111 100644\n"
    "--- a/f\n"
    "+++ b/f\n"
    "@@ -9,3 +9,3 @@\n"
    " 9\n"
    "-10\n"
    "+ten\n"
    " 11\n"
    "-- \n"
    "2.39.5\n";

static void
test_exact_and_deterministic(const char *base)
{
	struct patch p = mkpatch(1, 1, "f: spell ten", exact_diff);
	struct tree_applied a, b;
	struct buf err = BUF_INIT(4096);
	char *s, *cmd;

	ok(tree_apply(repo, base, &p, 1, "refs/kperfci/series/1", &a, &err) == 0,
	    "exact-line patch applies (%s)", err.data ? err.data : "");
	is_str(a.npaths == 1 ? a.paths[0] : NULL, TREE_PATH_LIBGIT2,
	    "applied by libgit2");
	s = capture("git rev-parse refs/kperfci/series/1");
	is_str(s, a.commit, "ref points at the patched commit");
	free(s);
	cmd = xasprintf("git log -1 --format='%%an <%%ae> %%ad|%%s|%%b' "
	    "--date=raw %s", a.commit);
	s = capture(cmd);
	is_str(s, "Jane Doe <jane@example.org> 1730710800 +0100|f: spell ten|"
	    "Body of f: spell ten.\n\nSigned-off-by: Jane Doe <jane@example.org>",
	    "author, date, zone and message kept");
	free(s);
	free(cmd);
	cmd = xasprintf("git show %s:f | sed -n 10p", a.commit);
	s = capture(cmd);
	is_str(s, "ten", "content changed");
	free(s);
	free(cmd);
	ok(tree_apply(repo, base, &p, 1, NULL, &b, &err) == 0 &&
	    strcmp(a.commit, b.commit) == 0,
	    "the same series on the same base gives the same commit id");
	tree_applied_release(&a);
	tree_applied_release(&b);
	free(p.message);
	buf_release(&err);
}

static void
test_offset_fallback(const char *moved)
{
	struct patch p = mkpatch(1, 1, "f: spell ten", exact_diff);
	struct tree_applied a;
	struct buf err = BUF_INIT(4096);
	char *s, *cmd;

	ok(tree_apply(repo, moved, &p, 1, "refs/kperfci/series/2", &a, &err) == 0,
	    "hunk moved by three lines applies (%s)", err.data ? err.data : "");
	is_str(a.npaths == 1 ? a.paths[0] : NULL, TREE_PATH_GIT3WAY,
	    "moved hunk went through the git fallback");
	cmd = xasprintf("git show %s:f | sed -n 13p; git log -1 --format=%%an "
	    "%s", a.commit, a.commit);
	s = capture(cmd);
	is_str(s, "ten\nJane Doe", "fallback commit has the content and author");
	free(s);
	free(cmd);
	tree_applied_release(&a);
	free(p.message);
	buf_release(&err);
}

static void
test_failures(const char *base, const char *base_short)
{
	static const char bad_hunk[] =
	    "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
	    "@@ -19,3 +19,3 @@\n 19\n-twenty\n+XX\n 21\n";
	static const char missing[] =
	    "diff --git a/mm/nosuch.c b/mm/nosuch.c\n--- a/mm/nosuch.c\n"
	    "+++ b/mm/nosuch.c\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
	static const char corrupt[] =
	    "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
	    "@@ -9,3 +9,3 @@\n 9\n-10\n+ten\nthis is not a diff line\n";
	static const char binary[] =
	    "diff --git a/blob.bin b/blob.bin\nnew file mode 100644\n"
	    "index 0000000..e69de29\nGIT binary patch\nliteral 4\n"
	    "LcmZQzWMT#N00aO5\n\nliteral 0\nHcmV?d00001\n";
	struct patch ps[2];
	struct tree_applied a;
	struct buf err = BUF_INIT(4096);
	char *want, *before, *after;
	int rc;

	before = capture("git for-each-ref | sort; git count-objects | cut -d' ' -f1");
	ps[0] = mkpatch(1, 2, "f: spell ten", exact_diff);
	ps[1] = mkpatch(2, 2, "f: shout twenty", bad_hunk);
	ok(tree_apply(repo, base, ps, 2, "refs/kperfci/series/3", &a, &err) == -1,
	    "a rejected hunk fails the series");
	want = xasprintf("patch 2/2 \"f: shout twenty\" does not apply to %s: "
	    "f @@ -19,3 +19,3 @@", base_short);
	is_str(err.data, want, "failure names the patch, base and first "
	    "rejected hunk");
	free(want);
	free(ps[0].message);
	free(ps[1].message);

	buf_reset(&err);
	ps[0] = mkpatch(1, 1, "mm: touch a file the tree lacks", missing);
	rc = tree_apply(repo, base, ps, 1, "refs/kperfci/series/3", &a, &err);
	ok(rc == -1 &&
	    strstr(err.data, "patch 1/1 \"mm: touch a file the tree lacks\" "
	    "does not apply") && strstr(err.data, "mm/nosuch.c"),
	    "a file the tree lacks is named (%s)", err.data);
	free(ps[0].message);

	buf_reset(&err);
	ps[0] = mkpatch(1, 1, "f: corrupt", corrupt);
	rc = tree_apply(repo, base, ps, 1, "refs/kperfci/series/3", &a, &err);
	ok(rc == -1 && strstr(err.data, "corrupt patch"),
	    "a corrupt hunk is reported as corrupt (%s)", err.data);
	free(ps[0].message);

	buf_reset(&err);
	ps[0] = mkpatch(1, 1, "add a blob", binary);
	rc = tree_apply(repo, base, ps, 1, "refs/kperfci/series/3", &a, &err);
	ok(rc == -1 && strstr(err.data, "binary patches are not supported"),
	    "a binary patch is refused (%s)", err.data);
	free(ps[0].message);

	buf_reset(&err);
	ps[0] = mkpatch(1, 1, "f: spell ten", exact_diff);
	ok(tree_apply(repo, "0123456789012345678901234567890123456789", ps, 1,
	    "refs/kperfci/series/3", &a, &err) == -1 &&
	    strstr(err.data, "is not a commit"), "an unknown base is refused");
	free(ps[0].message);

	after = capture("git for-each-ref | sort; git count-objects | cut -d' ' -f1");
	ok(strstr(after, "refs/kperfci/series/3") == NULL,
	    "no ref made by failed applies");
	{
		/* Objects may be added (harmless); refs must not change. */
		char *rb = xstrndup(before, strrchr(before, '\n') - before);
		char *ra = xstrndup(after, strrchr(after, '\n') - after);

		is_str(ra, rb, "refs unchanged after failures");
		free(rb);
		free(ra);
	}
	free(before);
	free(after);
	buf_release(&err);
}

static void
test_rename(const char *base)
{
	static const char ren[] =
	    "diff --git a/g b/h\nsimilarity index 90%\nrename from g\n"
	    "rename to h\n--- a/g\n+++ b/h\n@@ -1,3 +1,3 @@\n alpha\n-beta\n"
	    "+BETA\n gamma\n";
	static const char ren_missing[] =
	    "diff --git a/nosuch b/h\nsimilarity index 100%\nrename from nosuch\n"
	    "rename to h\n";
	struct patch p = mkpatch(1, 1, "rename g to h", ren);
	struct tree_applied a;
	struct buf err = BUF_INIT(4096), paths = BUF_INIT(0);
	char *s, *cmd;
	int rc;

	rc = tree_apply(repo, base, &p, 1, NULL, &a, &err);
	ok(rc == 0,
	    "a rename with an edit applies (%s)", err.data ? err.data : "");
	cmd = xasprintf("git ls-tree --name-only %s | tr '\\n' ' '; "
	    "git show %s:h | sed -n 2p", a.commit, a.commit);
	s = capture(cmd);
	is_str(s, "f h BETA", "g is gone, h has the edit");
	free(s);
	free(cmd);
	ok(tree_changed_paths(repo, base, a.commit, &paths, &err) == 0 &&
	    paths.len == 4 && !memcmp(paths.data, "g\0h\0", 4),
	    "changed paths list both sides of the rename");
	buf_release(&paths);
	tree_applied_release(&a);
	free(p.message);

	buf_reset(&err);
	p = mkpatch(1, 1, "rename a ghost", ren_missing);
	rc = tree_apply(repo, base, &p, 1, NULL, &a, &err);
	ok(rc == -1 && strstr(err.data, "nosuch"), "renaming a missing file fails (%s)",
	    err.data);
	free(p.message);
	buf_release(&err);
}

static void
test_base(const char *base, const char *moved)
{
	struct buf why = BUF_INIT(4096);
	enum tree_base_kind k;
	char out[41];
	int rc;

	rc = tree_choose_base(repo, "master", base, moved, out, &k, &why);
	ok(rc == 0 &&
	    k == TREE_BASE_FOOTER && !strcmp(out, base),
	    "base-commit footer wins when the tree has it: %s", why.data);
	buf_reset(&why);
	rc = tree_choose_base(repo, "master",
	    "abcdefabcdefabcdefabcdefabcdefabcdefabcd", base, out, &k, &why);
	ok(rc == 0 &&
	    k == TREE_BASE_SUBMITTED && !strcmp(out, base) &&
	    strstr(why.data, "not in the tree"),
	    "unknown footer falls back to the submitted base: %s", why.data);
	buf_reset(&why);
	rc = tree_choose_base(repo, "master",
	    "abcdefabcdefabcdefabcdefabcdefabcdefabcd", NULL, out, &k, &why);
	ok(rc == 0 &&
	    k == TREE_BASE_HEAD && !strcmp(out, moved) &&
	    strstr(why.data, "not in the tree") && strstr(why.data, "master"),
	    "then the branch head, saying why: %s", why.data);
	buf_reset(&why);
	ok(tree_choose_base(repo, "master", NULL, "HEAD@{1}", out, &k, &why) == 0 &&
	    k == TREE_BASE_HEAD, "revision syntax from a submitter is not "
	    "interpreted");
	buf_reset(&why);
	ok(tree_choose_base(repo, "nosuch", NULL, NULL, out, &k, &why) == -1,
	    "nothing resolves: an error");
	buf_release(&why);
}

static void
test_export(const char *base)
{
	struct buf err = BUF_INIT(4096);
	char *out = xasprintf("%s/export", dir), *dest, *s, *cmd;
	struct stat st;

	ok(tree_export(repo, base, out, &err) == 0, "export a commit (%s)",
	    err.data ? err.data : "");
	dest = xasprintf("%s/f", out);
	ok(stat(dest, &st) == 0 && st.st_size > 0, "exported file exists");
	cmd = xasprintf("ln %s/f %s/f.link", out, out);
	sh(cmd);
	free(cmd);
	ok(tree_write_path(repo, "refs/kperfci/series/1", "f", dest, &err) == 0,
	    "write one changed path");
	cmd = xasprintf("sed -n 10p %s/f; sed -n 10p %s/f.link", out, out);
	s = capture(cmd);
	is_str(s, "ten\n10", "new content in a new inode; hard link untouched");
	free(s);
	free(cmd);
	free(dest);
	dest = xasprintf("%s/g", out);
	ok(tree_write_path(repo, "refs/kperfci/series/1", "nosuchfile", dest,
	    &err) == 0 && access(dest, F_OK) == -1,
	    "a path the commit lacks is removed");
	free(dest);
	free(out);
	buf_release(&err);
}

static void
test_fetch(const char *moved)
{
	struct buf err = BUF_INIT(4096);
	char *bare = xasprintf("%s/fetched.git", dir);
	char *log = xasprintf("%s/fetch.log", dir);
	char *url = xasprintf("file://%s", repo);
	char *bad = xasprintf("file://%s/nonexistent", dir);
	char out[41];
	int rc;

	rc = tree_fetch(bare, url, "master", log, 60, &err);
	ok(rc == 0, "fetch a branch from a URL into a new bare repository");
	ok(tree_resolve(bare, "master", out) == 0 && !strcmp(out, moved),
	    "fetched branch head is the source's head");
	rc = tree_fetch(bare, bad, "master", log, 60, &err);
	ok(rc == -1 && strstr(err.data, "git fetch") &&
	    strstr(err.data, "nonexistent"), "a failed fetch says so: %s",
	    err.data ? err.data : "");
	buf_reset(&err);
	rc = tree_fetch(bare, url, "--upload-pack=evil", log, 60, &err);
	ok(rc == -1 && strstr(err.data, "invalid branch"),
	    "an option-like branch is refused");
	ok(tree_resolve(bare, "master", out) == 0 && !strcmp(out, moved),
	    "failed fetches leave the repository as it was");
	free(bare);
	free(log);
	free(url);
	free(bad);
	buf_release(&err);
}

int
main(void)
{
	char tmpl[] = "/tmp/t-tree.XXXXXX";
	char *base, *moved, *base_short;

	if (!mkdtemp(tmpl))
		return 1;
	dir = tmpl;
	repo = xasprintf("%s/repo", dir);
	mkdir(repo, 0755);
	ok(sh("git init -q -b master; seq 1 30 > f; printf 'alpha\\nbeta\\n"
	    "gamma\\n' > g; git add f g; git commit -qm base; "
	    "(echo a; echo b; echo c; cat f) > f.new; mv f.new f; "
	    "git commit -qam 'three lines on top'") == 0, "fixture repository");
	base = capture("git rev-parse HEAD~1");
	moved = capture("git rev-parse HEAD");
	base_short = xstrndup(base, 12);

	test_exact_and_deterministic(base);
	test_offset_fallback(moved);
	test_failures(base, base_short);
	test_rename(base);
	test_base(base, moved);
	test_export(base);
	test_fetch(moved);

	{
		char *cmd = xasprintf("rm -rf %s", dir);

		sh(cmd);
		free(cmd);
	}
	free(base);
	free(moved);
	free(base_short);
	free(repo);
	return tap_done();
}
