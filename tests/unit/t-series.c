/*
 * Unit tests for series_pick / series_to_json over the fixture threads in
 * tests/fixtures/threads (see gen.py there for what each one holds).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "core/mbox.h"
#include "core/mime.h"
#include "core/series.h"
#include "lib/run.h"
#include "tests/unit/tap.h"

struct thread {
	struct mbox mb;
	struct msg *msgs;
	struct msg **ptrs;
	size_t	 n;
};

static int
load(const char *name, struct thread *t)
{
	struct buf data = BUF_INIT(0), err = BUF_INIT(1024);
	char path[1024];
	size_t i;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/tests/fixtures/threads/%s",
	    KPERFCI_SRCDIR, name);
	if (buf_read_file(&data, path) < 0 ||
	    mbox_split(data.data, data.len, &t->mb, &err) < 0) {
		printf("# %s: %s\n", path, err.data ? err.data : "unreadable");
		buf_release(&data);
		buf_release(&err);
		return -1;
	}
	t->msgs = calloc(t->mb.n, sizeof(*t->msgs));
	t->ptrs = calloc(t->mb.n, sizeof(*t->ptrs));
	for (i = 0; i < t->mb.n; i++) {
		if (msg_parse(t->mb.msgs[i].data, t->mb.msgs[i].len,
		    &t->msgs[t->n], &err) == 0) {
			t->ptrs[t->n] = &t->msgs[t->n];
			t->n++;
		}
	}
	buf_release(&data);
	buf_release(&err);
	return 0;
}

static void
unload(struct thread *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		msg_release(&t->msgs[i]);
	free(t->msgs);
	free(t->ptrs);
	mbox_release(&t->mb);
}

static char *
trailers_str(const struct patch *p)
{
	struct buf b = BUF_INIT(0);
	size_t i;

	buf_addstr(&b, "");
	for (i = 0; i < p->ntrailers; i++)
		buf_addf(&b, "%s: %s|", p->trailers[i].name, p->trailers[i].value);
	return buf_detach(&b, NULL);
}

/* git itself must accept the diff (what libgit2 and git am get) */
static int
git_accepts(const char *diff)
{
	char tmp[] = "/tmp/t-series-XXXXXX";
	const char *argv[] = { "git", "apply", "--numstat", tmp, NULL };
	struct run r = { 0 };
	struct buf out = BUF_INIT(4096);
	int fd = mkstemp(tmp), ret;

	if (fd < 0)
		return 0;
	ret = write(fd, diff, strlen(diff)) == (ssize_t)strlen(diff);
	close(fd);
	r.argv = argv;
	ret = ret && run_capture(&r, &out) == 0 && out.len > 0;
	unlink(tmp);
	buf_release(&out);
	return ret;
}

static const struct {
	const char *file, *msgid;
	int	 want_version;
	int	 ret, version;
	size_t	 npatches;
	const char *err;
	const char *trailers[3];
	int	 from_version[3];
	const char *base_commit, *change_id, *cover;
} cases[] = {
	{ "basic.mbox", NULL, 0, 0, 1, 3, NULL,
	  { "Signed-off-by: Alice Maintainer <alice@example.org>|Reviewed-by: Bob Reviewer <bob@example.com>|",
	    "Signed-off-by: Alice Maintainer <alice@example.org>|",
	    "Signed-off-by: Alice Maintainer <alice@example.org>|Tested-by: Carol Tester <carol@example.net>|" },
	  { 1, 1, 1 }, "6dad8b86a10822fb5451a5c4533e37edf24af69c",
	  "20231114-lru-lock-1a2b3c4d5e6f", "mm: LRU lock contention fixes" },
	{ "basic.mbox", "basic-r2@example.com", 0, 0, 1, 3, NULL, { NULL }, { 1, 1, 1 },
	  "6dad8b86a10822fb5451a5c4533e37edf24af69c", NULL, "mm: LRU lock contention fixes" },
	{ "basic.mbox", "nonexistent@x", 0, -1, 0, 0,
	  "message <nonexistent@x> is not in the thread", { NULL }, { 0 }, NULL, NULL, NULL },
	{ "basic.mbox", NULL, 2, -1, 0, 0,
	  "revision v2 not found; the thread has v1", { NULL }, { 0 }, NULL, NULL, NULL },
	{ "rerolls.mbox", NULL, 0, 0, 3, 3, NULL,
	  { "Signed-off-by: Alice Maintainer <alice@example.org>|Reviewed-by: Bob Reviewer <bob@example.com>|",
	    "Signed-off-by: Alice Maintainer <alice@example.org>|",
	    "Signed-off-by: Alice Maintainer <alice@example.org>|Reviewed-by: Bob Reviewer <bob@example.com>|" },
	  { 2, 3, 2 }, NULL, NULL, "mm: batching" },
	{ "rerolls.mbox", NULL, 1, 0, 1, 3, NULL,
	  { "Signed-off-by: Alice Maintainer <alice@example.org>|",
	    "Signed-off-by: Alice Maintainer <alice@example.org>|",
	    "Signed-off-by: Alice Maintainer <alice@example.org>|Reviewed-by: Bob Reviewer <bob@example.com>|" },
	  { 1, 1, 1 }, "6dad8b86a10822fb5451a5c4533e37edf24af69c", NULL, "mm: batching" },
	{ "rerolls.mbox", NULL, 4, -1, 0, 0,
	  "revision v4 not found; the thread has v1, v2, v3", { NULL }, { 0 }, NULL, NULL, NULL },
	{ "rfc-forms.mbox", NULL, 0, 0, 2, 2, NULL,
	  { "Signed-off-by: J\xc3\xb6rg R\xc3\xb6" "del <joerg@example.org>|",
	    "Signed-off-by: J\xc3\xb6rg R\xc3\xb6" "del <joerg@example.org>|Tested-by: J\xc3\xb6rg R\xc3\xb6" "del <joerg@example.org>|" },
	  { 2, 2 }, "6dad8b86a10822fb5451a5c4533e37edf24af69c", NULL, "RFC: bigger batches" },
	{ "attach-crlf.mbox", NULL, 0, 0, 1, 1, NULL,
	  { "Signed-off-by: J\xc3\xb6rg R\xc3\xb6" "del <joerg@example.org>|" }, { 1 },
	  "6dad8b86a10822fb5451a5c4533e37edf24af69c", NULL, NULL },
	{ "quirks.mbox", NULL, 0, 0, 1, 2, NULL,
	  { "Signed-off-by: Alice Maintainer <alice@example.org>|Acked-by: Bob Reviewer <bob@example.com>|"
	    "Reviewed-by: Dave Name <dave@example.org>|Fixes: abcdef012345 (\"mm: x\")|",
	    "Signed-off-by: Alice Maintainer <alice@example.org>|Reviewed-by: Bob Reviewer <bob@example.com>|"
	    "Tested-by: Carol Tester <carol@example.net>|" },
	  { 1, 1 }, "6dad8b86a10822fb5451a5c4533e37edf24af69c", NULL, NULL },
	{ "no-patches.mbox", NULL, 0, -1, 0, 0, "no patches in thread", { NULL }, { 0 },
	  NULL, NULL, NULL },
	{ "truncated.mbox", NULL, 0, 0, 1, 3, NULL, { NULL }, { 1, 1, 1 },
	  "6dad8b86a10822fb5451a5c4533e37edf24af69c", NULL, NULL },
};

static void
test_case(size_t c)
{
	struct thread t;
	struct series s;
	struct buf err = BUF_INIT(1024);
	size_t i;
	int r;

	if (!ok(load(cases[c].file, &t) == 0, "%s: loads", cases[c].file))
		return;
	r = series_pick(t.ptrs, t.n, cases[c].msgid, cases[c].want_version, &s, &err);
	is_int(r, cases[c].ret, "%s v%d: return", cases[c].file, cases[c].want_version);
	if (r < 0) {
		is_str(err.data, cases[c].err, "%s: error", cases[c].file);
		goto out;
	}
	is_int(s.version, cases[c].version, "%s: version", cases[c].file);
	is_int(s.npatches, cases[c].npatches, "%s: patches", cases[c].file);
	is_str(s.base_commit, cases[c].base_commit, "%s: base-commit", cases[c].file);
	if (cases[c].change_id)
		is_str(s.change_id, cases[c].change_id, "%s: change-id", cases[c].file);
	if (cases[c].cover)
		is_str(s.cover_subject, cases[c].cover, "%s: cover", cases[c].file);
	for (i = 0; i < s.npatches && i < 3; i++) {
		struct patch *p = &s.patches[i];
		is_int(p->counter, i + 1, "%s: patch %zu counter", cases[c].file, i + 1);
		is_int(p->from_version, cases[c].from_version[i],
		    "%s: patch %zu from v%d", cases[c].file, i + 1, cases[c].from_version[i]);
		if (cases[c].trailers[i]) {
			char *ts = trailers_str(p);
			is_str(ts, cases[c].trailers[i], "%s: patch %zu trailers",
			    cases[c].file, i + 1);
			free(ts);
		}
		ok(strncmp(p->diff, "diff --git ", 11) == 0 && git_accepts(p->diff),
		    "%s: patch %zu diff is a diff git accepts", cases[c].file, i + 1);
		ok(!strstr(p->diff, "\n-- \n") && !strstr(p->diff, "base-commit:"),
		    "%s: patch %zu diff stops before footers", cases[c].file, i + 1);
		ok(!strstr(p->message, "\n---\n") && !strstr(p->message, "diff --git"),
		    "%s: patch %zu message has no diff part", cases[c].file, i + 1);
	}
	series_release(&s);
out:
	buf_release(&err);
	unload(&t);
}

static void
test_message_and_json(void)
{
	struct thread t;
	struct series s;
	struct buf err = BUF_INIT(1024);
	json_t *j, *p;

	if (load("basic.mbox", &t) < 0 ||
	    !ok(series_pick(t.ptrs, t.n, NULL, 0, &s, &err) == 0, "basic picks"))
		return;
	is_str(s.patches[0].message,
	    "mm: move LRU stat updates out of lru_lock\n\n"
	    "The stat update does not need the lock.\n\n"
	    "Signed-off-by: Alice Maintainer <alice@example.org>\n"
	    "Reviewed-by: Bob Reviewer <bob@example.com>\n",
	    "commit message as git am writes it, with the follow-up trailer");
	is_str(s.patches[1].message,
	    "mm/lru: batch folio moves\n\nBatch them.\n\n"
	    "From the review of v1: the batch is now 15 folios.\n\n"
	    "Signed-off-by: Alice Maintainer <alice@example.org>\n",
	    "a reply that quotes the diff adds nothing");
	is_int(s.ncover_trailers, 1, "the Acked-by sent to the cover letter is kept aside");
	is_int(s.nignored_trailers, 1, "the Tested-by from another sender is ignored");
	j = series_to_json(&s);
	is_int(json_integer_value(json_object_get(j, "version")), 1, "json version");
	is_str(json_string_value(json_object_get(j, "cover_subject")),
	    "mm: LRU lock contention fixes", "json cover_subject");
	p = json_array_get(json_object_get(j, "patches"), 2);
	is_str(json_string_value(json_object_get(p, "msgid")), "basic-v1-3@example.org",
	    "json patch msgid");
	is_str(json_string_value(json_object_get(json_array_get(
	    json_object_get(p, "trailers"), 1), "name")), "Tested-by", "json trailer name");
	{
		/* exactly the documented keys (series.h), no more, no fewer */
		static const char *const want[] = { "version", "total",
		    "cover_subject", "cover_msgid", "change_id", "base_commit",
		    "author", "email", "versions", "patches", "partial_reroll",
		    "cover_trailers", "ignored_trailers" };
		static const char *const pwant[] = { "counter", "total",
		    "subject", "author", "email", "date", "msgid",
		    "from_version", "trailers" };
		const char *key;
		json_t *v;
		size_t k, stray = 0, pstray = 0;

		json_object_foreach(j, key, v) {
			for (k = 0; k < 13 && strcmp(key, want[k]); k++)
				;
			stray += k == 13;
		}
		json_object_foreach(p, key, v) {
			for (k = 0; k < 9 && strcmp(key, pwant[k]); k++)
				;
			pstray += k == 9;
		}
		ok(stray == 0 && json_object_size(j) == 13,
		    "series json has exactly the documented fields (%zu, %zu "
		    "stray)", json_object_size(j), stray);
		ok(pstray == 0 && json_object_size(p) == 9,
		    "patch json has exactly the documented fields (%zu, %zu "
		    "stray)", json_object_size(p), pstray);
	}
	json_decref(j);
	series_release(&s);
	unload(&t);

	/* a missing patch is named */
	if (load("basic.mbox", &t) == 0) {
		size_t i, k = 0;
		for (i = 0; i < t.n; i++)
			if (strcmp(t.ptrs[i]->msgid, "basic-v1-2@example.org"))
				t.ptrs[k++] = t.ptrs[i];
		buf_reset(&err);
		ok(series_pick(t.ptrs, k, NULL, 0, &s, &err) == -1,
		    "a series without patch 2 is refused");
		is_str(err.data, "patch 2/3 of v1 is missing", "and the error names it");
		unload(&t);
	}
	buf_release(&err);
}

/* picks from an mbox given inline */
static int
pick_inline(const char *mbox, const char *want, struct series *s, struct buf *err)
{
	struct mbox mb;
	struct msg msgs[16], *ptrs[16];
	size_t i, n = 0;
	int r;

	if (mbox_split(mbox, strlen(mbox), &mb, err) < 0)
		return -1;
	for (i = 0; i < mb.n && n < 16; i++)
		if (msg_parse(mb.msgs[i].data, mb.msgs[i].len, &msgs[n], err) == 0) {
			ptrs[n] = &msgs[n];
			n++;
		}
	r = series_pick(ptrs, n, want, 0, s, err);
	for (i = 0; i < n; i++)
		msg_release(&msgs[i]);
	mbox_release(&mb);
	return r;
}

#define DIFF "---\n x | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n" \
	"diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" \
	"-- \n2.39.5\n"

static void
test_inline(void)
{
	struct series s;
	struct buf err = BUF_INIT(1024);

	/* in-body From: and Date: (someone sending another's patch) */
	if (ok(pick_inline("From x\nFrom: Sender <s@example.org>\nSubject: [PATCH] x: y\n"
	    "Message-Id: <ib@x>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\n"
	    "From: Real Author <ra@example.org>\nDate: Sun, 31 Dec 2023 10:00:00 +0000\n\n"
	    "Body.\n\nSigned-off-by: Real Author <ra@example.org>\n" DIFF,
	    NULL, &s, &err) == 0, "in-body From: picks")) {
		is_str(s.patches[0].author, "Real Author", "in-body From: name is the author");
		is_str(s.patches[0].email, "ra@example.org", "in-body From: address");
		is_str(s.patches[0].date, "Sun, 31 Dec 2023 10:00:00 +0000", "in-body Date:");
		is_str(s.patches[0].message, "x: y\n\nBody.\n\n"
		    "Signed-off-by: Real Author <ra@example.org>\n", "message without in-body headers");
		is_str(s.patches[0].diff, "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n"
		    "+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "diff ends with its hunk");
		ok(s.patches[0].notes == NULL,
		    "nothing but the diffstat below the cut: no notes");
		series_release(&s);
	}
	/* below the cut: a changelog and results, then the diffstat */
	buf_reset(&err);
	if (ok(pick_inline("From x\nFrom: A <a@x.org>\nSubject: [PATCH] n\n"
	    "Message-Id: <n@x>\n\nBody.\n\nSigned-off-by: A <a@x.org>\n---\n"
	    "v2: real 12.0s -> 9.0s\n\n"
	    " mm/x.c    | 2 +-\n mm/y.png  | Bin 0 -> 12 bytes\n"
	    " 2 files changed, 1 insertion(+), 1 deletion(-)\n"
	    " create mode 100644 mm/y.png\n\n"
	    "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
	    NULL, &s, &err) == 0, "a patch with notes picks")) {
		is_str(s.patches[0].notes, "v2: real 12.0s -> 9.0s\n\n\n",
		    "notes: the changelog, not the diffstat nor the diff");
		is_str(s.patches[0].message, "n\n\nBody.\n\n"
		    "Signed-off-by: A <a@x.org>\n", "the commit message stops at the cut");
		series_release(&s);
	}
	ok(series_is_diffstat_line(" mm/swap.c | 12 ++++--", 21) &&
	    series_is_diffstat_line(" 1 file changed, 2 insertions(+)", 32) &&
	    !series_is_diffstat_line("a | b", 5) &&
	    !series_is_diffstat_line(" 6 / 192M / 3G | 5258 / 5235 / -0.3%", 36),
	    "diffstat lines, and a results table that is none");
	/* the same message twice (lore's /all/ returns one per list) */
	buf_reset(&err);
	if (ok(pick_inline("From x\nFrom: A <a@x.org>\nSubject: [PATCH] d\nMessage-Id: <d@x>\n\nB\n" DIFF
	    "\nFrom x\nFrom: A <a@x.org>\nSubject: [PATCH] d\nMessage-Id: <d@x>\n\nB\n" DIFF
	    "\nFrom x\nFrom: R <r@x.org>\nSubject: Re: [PATCH] d\nMessage-Id: <r@x>\n"
	    "In-Reply-To: <d@x>\n\nAcked-by: R <r@x.org>\n",
	    NULL, &s, &err) == 0, "duplicate message-id picks")) {
		is_int(s.npatches, 1, "duplicates count once");
		is_int(s.patches[0].ntrailers, 1, "and collect the trailer once");
		series_release(&s);
	}
	/* an unrelated message with a patch: only the wanted thread counts */
	buf_reset(&err);
	if (ok(pick_inline("From x\nFrom: A <a@x.org>\nSubject: [PATCH v2] mine\nMessage-Id: <m@x>\n\nB\n" DIFF
	    "\nFrom x\nFrom: O <o@x.org>\nSubject: [PATCH v5] other\nMessage-Id: <o@x>\n\nB\n" DIFF,
	    "m@x", &s, &err) == 0, "unrelated thread picks")) {
		is_int(s.version, 2, "the unrelated v5 is not in the thread");
		is_str(s.patches[0].subject, "mine", "the wanted patch");
		series_release(&s);
	}
	/* a v2 that resends one patch, not as a reply to v1's: b4 does not
	   fill it from v1 (not a "sane" partial reroll), so it is incomplete */
	buf_reset(&err);
	is_int(pick_inline("From x\nFrom: A <a@x.org>\nSubject: [PATCH 1/2] a\nMessage-Id: <a1@x>\n\nB\n" DIFF
	    "\nFrom x\nFrom: A <a@x.org>\nSubject: [PATCH 2/2] b\nMessage-Id: <a2@x>\nIn-Reply-To: <a1@x>\n\nB\n" DIFF
	    "\nFrom x\nFrom: A <a@x.org>\nSubject: [PATCH v2 2/2] b\nMessage-Id: <b2@x>\n\nB\n" DIFF,
	    NULL, &s, &err), -1, "an unlinked partial v2 is not filled");
	is_str(err.data, "patch 1/2 of v2 is missing", "and the gap is named");

	/* [PATCH 6/5]: the counter wins */
	buf_reset(&err);
	is_int(pick_inline("From x\nFrom: A <a@x.org>\nSubject: [PATCH 2/1] six\n"
	    "Message-Id: <s@x>\n\nB\n" DIFF, NULL, &s, &err), -1,
	    "[PATCH 2/1] extends the series to 2 patches");
	is_str(err.data, "patch 1/2 of v1 is missing", "and names the gap");
	buf_release(&err);
}

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		test_case(i);
	test_message_and_json();
	test_inline();
	return tap_done();
}
