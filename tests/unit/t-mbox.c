/*
 * Unit tests for core/mbox.c: mboxrd splitting, table-driven; the
 * iterator that lends each message in turn; the cap on one message.
 */
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

/* mbox_next lends a plain message where it lies, an escaped one copied. */
static void
test_iter(void)
{
	static const char in[] = "From a\nS: 1\n\nbody1\n\n"
	    "From b\r\nS: 2\r\n\r\n>From x\r\n\r\n"
	    "From c\nS: cut";
	struct mbox_iter it;
	struct mbox_msg m;
	struct buf err = BUF_INIT(1024);

	ok(mbox_iter_init(&it, in, strlen(in), &err) == 0, "iter: starts");
	is_int(mbox_next(&it, &m, &err), 1, "iter: first message");
	ok(m.data >= in && m.data + m.len <= in + strlen(in),
	    "iter: a plain message is lent where it lies");
	is_int(m.len, strlen("S: 1\n\nbody1\n"), "iter: its length");
	ok(m.len == strlen("S: 1\n\nbody1\n") &&
	    !memcmp(m.data, "S: 1\n\nbody1\n", m.len), "iter: its bytes");
	is_int(it.pos, 1, "iter: position 1");
	is_int(mbox_next(&it, &m, &err), 1, "iter: second message");
	ok(m.data < in || m.data >= in + strlen(in),
	    "iter: a CRLF message is rewritten apart");
	is_str(m.data, "S: 2\n\nFrom x\n", "iter: unescaped, LF ends");
	is_int(it.pos, 2, "iter: position 2");
	is_int(mbox_next(&it, &m, &err), 0, "iter: then the end");
	is_int(it.truncated, 1, "iter: the cut-off third counted");
	is_int(it.pos, 3, "iter: and its position taken");
	mbox_iter_release(&it);
	buf_release(&err);
}

/*
 * An mbox of three messages whose second takes `size` bytes of the mbox
 * (everything between its "From " line and the next one), with the given
 * Message-ID header line ("" for none).  *len set; free() it.
 */
static char *
big_mbox(size_t size, const char *idline, size_t *len)
{
	static const char one[] = "From a\nMessage-ID: <one@example.org>\n"
	    "Subject: one\n\nbody\n\n";
	static const char three[] = "From c\nSubject: three\n\nbody\n";
	char head[256];
	size_t hl = (size_t)snprintf(head, sizeof(head), "%sSubject: big\n\n",
	    idline);
	size_t fill = size - hl - 2;	/* a line of x, its LF, a blank */
	char *b = malloc(sizeof(one) + 7 + size + sizeof(three)), *p = b;

	p = mempcpy(p, one, sizeof(one) - 1);
	p = mempcpy(p, "From b\n", 7);
	p = mempcpy(p, head, hl);
	memset(p, 'x', fill);
	p += fill;
	p = mempcpy(p, "\n\n", 2);
	p = mempcpy(p, three, sizeof(three) - 1);
	*len = p - b;
	return b;
}

/* No message over MBOX_MAX_MESSAGE: the whole mbox is refused, saying
   which message and the cap; one at the cap passes. */
static void
test_too_big(void)
{
	static const char want[] = "message 2 of the mbox (Message-ID "
	    "<big@example.org>) is larger than 8 MiB, the most one message "
	    "may be";
	const char *id = "Message-ID: <big@example.org>\n";
	struct buf err = BUF_INIT(1024);
	struct mbox mb;
	struct mbox_iter it;
	struct mbox_msg m;
	size_t len;
	char *b = big_mbox(MBOX_MAX_MESSAGE, id, &len);

	is_int(mbox_split(b, len, &mb, &err), 0, "a message of 8 MiB passes");
	is_int(mb.n, 3, "  with the others");
	is_int(mb.msgs[1].len, MBOX_MAX_MESSAGE - 1, "  whole (less the "
	    "blank line after it)");
	mbox_release(&mb);
	free(b);

	b = big_mbox(MBOX_MAX_MESSAGE + 1, id, &len);
	buf_reset(&err);
	is_int(mbox_split(b, len, &mb, &err), -1, "one byte more is refused");
	is_str(err.data, want, "  naming the message and the cap");
	is_int(mb.n, 0, "  and nothing of the mbox kept");
	buf_reset(&err);
	is_int(mbox_check(b, len, &err), -1, "mbox_check refuses it too");
	is_str(err.data, want, "  with the same sentence");
	buf_reset(&err);
	mbox_iter_init(&it, b, len, &err);
	is_int(mbox_next(&it, &m, &err), 1, "iter: the message before it");
	is_int(mbox_next(&it, &m, &err), -1, "iter: then the refusal");
	is_str(err.data, want, "  the same sentence");
	mbox_iter_release(&it);
	free(b);

	b = big_mbox(MBOX_MAX_MESSAGE + 1, "", &len);
	buf_reset(&err);
	mbox_split(b, len, &mb, &err);
	is_str(err.data, "message 2 of the mbox (no Message-ID) is larger than "
	    "8 MiB, the most one message may be", "a big one without an id");
	free(b);

	/* one message alone (a .eml upload), 9 MiB */
	len = 9u << 20;
	b = malloc(len);
	memset(b, 'x', len);
	memcpy(b, "Message-Id:  <eml@x>\n\n", 22);
	buf_reset(&err);
	is_int(mbox_check(b, len, &err), -1, "a single 9 MiB message refused");
	is_str(err.data, "message 1 of the mbox (Message-ID <eml@x>) is larger "
	    "than 8 MiB, the most one message may be", "  saying so");
	free(b);
	buf_release(&err);
}

int
main(void)
{
	size_t i;

	test_looks_like_mail();
	test_iter();
	test_too_big();

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
