/*
 * t-watch: the pieces of watched lists that need no network: the Atom
 * feed reader (a real public-inbox feed, entities, malformed feeds), the
 * changed paths of a diff and the path filter.  The polling itself runs
 * against a real public-inbox in tests/e2e/t2600-watch.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "core/atom.h"
#include "daemon/watch.h"
#include "lib/buf.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static void
test_atom(void)
{
	struct atom_feed f;
	struct buf err = BUF_INIT(4096), feed = BUF_INIT(0);

	ok(buf_read_file(&feed, KPERFCI_SRCDIR
	    "/tests/fuzz/corpus/fuzz-atom/new.atom") >= 0, "read the feed");
	is_int(atom_parse(feed.data, feed.len, &f, &err), 0, "parse it");
	is_int(f.n, 1, "one entry");
	is_str(f.v[0].title, "[PATCH 1/1] mm/swap: hold lru_lock longer & more",
	    "title, &amp; decoded");
	is_str(f.v[0].link, "http://127.0.0.1:18481/linux-mm/"
	    "kperfci-calibration-lru-delay-1@kperfci.invalid/",
	    "link: the entry's own, not thr:in-reply-to's");
	atom_feed_release(&f);

	is_int(atom_parse("<feed></feed>", 13, &f, &err), 0,
	    "an empty feed is fine");
	is_int(f.n, 0, "with no entries");
	buf_reset(&err);
	is_int(atom_parse("<html>oops</html>", 17, &f, &err), -1,
	    "not a feed: refused");
	ok(err.data && strstr(err.data, "no <feed>"), "saying why: %s",
	    err.data);
	buf_reset(&err);
	is_int(atom_parse("<feed><entry><title>x</title>", 29, &f, &err), 0,
	    "an entry not closed: skipped, the feed still read");
	ok(f.n == 0 && f.nskipped == 1 && strstr(f.skipped[0].why,
	    "entry 1 is not closed"), "naming the entry: %s",
	    f.nskipped ? f.skipped[0].why : "none");
	atom_feed_release(&f);
	buf_reset(&err);
	{
		const char *t = "<feed><entry><title>x &bogus; y</title><link "
		    "href=\"h\"/></entry>";

		is_int(atom_parse(t, strlen(t), &f, &err), 0,
		    "a bad entity: the entry is skipped");
		is_int(f.nskipped, 1, "and listed");
		atom_feed_release(&f);
	}
	buf_reset(&err);
	{
		const char *t = "<feed><entry><title>&#x41;&#66;</title><link "
		    "href=\"h\"/></entry>";

		is_int(atom_parse(t, strlen(t), &f, &err), 0,
		    "numeric entities");
	}
	is_str(f.n ? f.v[0].title : "", "AB", "decoded");
	atom_feed_release(&f);
	buf_release(&err);
	buf_release(&feed);
}

/* A bad entry beside good ones: skipped and listed, never the poll's end. */
static void
test_atom_bad_entry(void)
{
	struct buf t = BUF_INIT(0), err = BUF_INIT(4096);
	struct atom_feed f;

	buf_addstr(&t, "<feed><entry><author><name>A</name><email>a@example."
	    "org</email></author><title>[PATCH] good one</title><link "
	    "href=\"http://l/list/1@x/\"/></entry><entry><title>");
	for (int i = 0; i < 5000; i++)
		buf_addch(&t, 'x');
	buf_addstr(&t, "</title><link href=\"http://l/list/2@x/\"/></entry>"
	    "<entry><title>[PATCH] good two</title><link href=\"http://l/"
	    "list/3@x/\"/></entry></feed>");
	is_int(atom_parse(t.data, t.len, &f, &err), 0,
	    "a feed with a 5,000-byte title in entry 2 parses");
	is_int(f.n, 2, "both good entries are read");
	is_int(f.nskipped, 1, "the bad one is skipped");
	ok(f.nskipped && f.skipped[0].entry == 2 && strstr(f.skipped[0].why,
	    "entry 2"), "and listed by its place (%s)", f.nskipped ?
	    f.skipped[0].why : "");
	is_str(f.n && f.v[0].email ? f.v[0].email : "", "a@example.org",
	    "the author's address is read");
	ok(f.n == 2 && f.v[1].email == NULL, "an entry without one: NULL");
	atom_feed_release(&f);
	buf_release(&t);
	buf_release(&err);
}

static void
test_paths(void)
{
	const char *diff = "diff --git a/mm/swap.c b/mm/swap.c\n--- a/mm/swap.c\n"
	    "+++ b/mm/swap.c\n@@ -1 +1 @@\n-a\n+b\n"
	    "diff --git a/drivers/x.c b/drivers/y.c\nsimilarity index 90%\n"
	    "diff --git a/mm/swap.c b/mm/swap.c\n";
	const char *mm[] = { "mm/" }, *dcache[] = { "fs/dcache.c" };
	const char *drv[] = { "drivers/x.c" }, *fsx[] = { "fs/dcache.cx" };
	char **p = NULL;
	size_t n = 0;

	watch_diff_paths(diff, &p, &n);
	is_int(n, 3, "three paths (a rename has two; duplicates once)");
	ok(n == 3 && !strcmp(p[0], "mm/swap.c") && !strcmp(p[1], "drivers/x.c")
	    && !strcmp(p[2], "drivers/y.c"), "in order");
	ok(watch_paths_match(mm, 1, (const char *const *)p, n),
	    "mm/ matches mm/swap.c");
	ok(!watch_paths_match(mm, 1, drv, 1), "mm/ does not match drivers/");
	ok(watch_paths_match(dcache, 1, dcache, 1), "a whole path matches");
	ok(!watch_paths_match(dcache, 1, fsx, 1),
	    "a whole path is not a prefix");
	for (size_t i = 0; i < n; i++)
		free(p[i]);
	free(p);
}

int
main(void)
{
	test_atom();
	test_atom_bad_entry();
	test_paths();
	return tap_done();
}
