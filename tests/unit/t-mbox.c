/* Unit tests for core/mbox.c: mboxrd splitting, table-driven. */
#include <stdlib.h>
#include <string.h>

#include "core/mbox.h"
#include "tests/unit/tap.h"

static const struct {
	const char *name, *in;
	int	 ret;
	size_t	 n, truncated;
	const char *first, *last, *err;
} cases[] = {
	{ "two messages", "From a@b Mon\nSubject: 1\n\nbody1\n\nFrom c@d Tue\nSubject: 2\n\nbody2\n",
	  0, 2, 0, "Subject: 1\n\nbody1\n", "Subject: 2\n\nbody2\n", NULL },
	{ "mboxrd unescaping", "From x\nS: 1\n\n>From here\n>>From there\n>Fromage\n",
	  0, 1, 0, "S: 1\n\nFrom here\n>From there\n>Fromage\n", NULL, NULL },
	{ "CRLF becomes LF", "From x\r\nS: 1\r\n\r\nbody\r\n",
	  0, 1, 0, "S: 1\n\nbody\n", NULL, NULL },
	{ "From in body without blank line is not a separator",
	  "From x\nS: 1\n\nline\nFrom y is text\n", 0, 1, 0,
	  "S: 1\n\nline\nFrom y is text\n", NULL, NULL },
	{ "no final newline", "From x\nS: 1\n\nbody", 0, 1, 0, "S: 1\n\nbody\n", NULL, NULL },
	{ "cut inside the headers of the last message",
	  "From x\nS: 1\n\nbody\n\nFrom y\nS: 2\nFro", 0, 1, 1, "S: 1\n\nbody\n", NULL, NULL },
	{ "single message without From line", "Subject: hi\nFrom: a@b\n\nbody\n",
	  0, 1, 0, "Subject: hi\nFrom: a@b\n\nbody\n", NULL, NULL },
	{ "leading blank lines", "\n\nFrom x\nS: 1\n\nb\n", 0, 1, 0, "S: 1\n\nb\n", NULL, NULL },
	{ "empty", "", -1, 0, 0, NULL, NULL, "empty mbox" },
	{ "blank only", "\n\r\n\n", -1, 0, 0, NULL, NULL, "empty mbox" },
	{ "not an mbox", "hello world\nthis is text\n", -1, 0, 0, NULL, NULL,
	  "not an mbox: the first line is neither a 'From ' separator nor a mail header" },
	{ "only a truncated message", "From x\nSubject: never ends", -1, 0, 1, NULL, NULL,
	  "mbox is truncated: 1 message(s) cut off inside their headers and none complete" },
};

/* What passes for mail before an upload is stored. */
static void
test_looks_like_mail(void)
{
	static const struct {
		const char *in;
		int	 ok;
		const char *name;
	} c[] = {
		{ "From 1234 Mon Sep 17 00:00:00 2001\nFrom: a@b\n\nx\n", 1,
		    "format-patch mbox" },
		{ "From mboxrd@z Thu Jan  1 00:00:00 1970\nSubject: s\n"
		    " folded\n\n", 1, "mboxrd with a folded header" },
		{ "\n\nReturn-Path: <a@b>\r\nSubject: x\r\n\r\nbody", 1,
		    "leading blank lines, CRLF headers" },
		{ "Subject: only headers", 1, "a cut-off header block" },
		{ "From nobody\n\nbody\n", 0, "a From line and no headers" },
		{ "hello world\n", 0, "plain text" },
		{ " Subject: x\n", 0, "a continuation first" },
		{ "Subject: x\nbad\x01line: y\n", 0, "a control byte" },
		{ "", 0, "empty" },
		{ "\x7f\x45LF: x\n", 0, "a field name with DEL" },
	};
	struct buf err = BUF_INIT(1024);
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		buf_reset(&err);
		is_int(mbox_looks_like_mail(c[i].in, strlen(c[i].in), &err),
		    c[i].ok ? 0 : -1, "looks like mail: %s", c[i].name);
		if (!c[i].ok)
			ok(strstr(err.data, "not mail") != NULL, "  says why: %s",
			    err.data);
	}
	buf_release(&err);
}

int
main(void)
{
	size_t i;

	test_looks_like_mail();

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mbox mb;
		struct buf err = BUF_INIT(1024);
		int r = mbox_split(cases[i].in, strlen(cases[i].in), &mb, &err);

		is_int(r, cases[i].ret, "%s: return", cases[i].name);
		if (r == 0) {
			is_int(mb.n, cases[i].n, "%s: count", cases[i].name);
			is_int(mb.truncated, cases[i].truncated, "%s: truncated", cases[i].name);
			if (mb.n)
				is_str(mb.msgs[0].data, cases[i].first, "%s: first", cases[i].name);
			if (cases[i].last && mb.n)
				is_str(mb.msgs[mb.n - 1].data, cases[i].last, "%s: last",
				    cases[i].name);
			if (mb.n)
				is_int(mb.msgs[0].len, strlen(cases[i].first), "%s: len",
				    cases[i].name);
		} else {
			is_str(err.data, cases[i].err, "%s: error", cases[i].name);
		}
		mbox_release(&mb);
		buf_release(&err);
	}
	/* the limit on messages holds */
	{
		size_t n = MBOX_MAX_MESSAGES + 1, i2;
		char *big = malloc(n * 16 + 1), *p = big;
		struct mbox mb;
		struct buf err = BUF_INIT(1024);

		for (i2 = 0; i2 < n; i2++)
			p += sprintf(p, "From x\nS: 1\n\nb\n\n");
		ok(mbox_split(big, p - big, &mb, &err) == -1 &&
		    strstr(err.data, "more than"), "too many messages refused: %s",
		    err.data ? err.data : "");
		buf_release(&err);
		free(big);
	}
	return tap_done();
}
