/*
 * mbox: mboxrd splitting (see mbox.h).  Works line by line over the input
 * without copying it: a message is found first (its end, whether it needs
 * unescaping, whether it is too big), then lent where it lies or
 * rewritten into the iterator's one buffer.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/mbox.h"
#include "lib/xalloc.h"

static int
mbox_is_header_line(const char *p, size_t n)
{
	size_t i;

	/* RFC 5322 field name: printable ASCII except ':' then ':' */
	for (i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (c == ':')
			return i > 0;
		if (c <= ' ' || c > '~')
			return 0;
	}
	return 0;
}

/* A message is complete when its header block ends (a blank line) before
   any NUL byte (as it always was: the test ran over a C string). */
static int
mbox_has_header_end(const char *m, size_t n)
{
	const char *z = memchr(m, '\0', n);

	return n > 0 && (m[0] == '\n' || memmem(m, z ? (size_t)(z - m) : n,
	    "\n\n", 2));
}

/* 1 when the line p[0..n) (no LF, no CR) is an escaped ">From " line. */
static int
mbox_is_escaped_from(const char *p, size_t n)
{
	size_t k = 0;

	while (k < n && p[k] == '>')
		k++;
	return k > 0 && n - k >= 5 && memcmp(p + k, "From ", 5) == 0;
}

/* Appends the Message-ID of the raw message m[0..n) (its header block,
   the first 16 KiB at most) to err, for a sentence about it. */
static void
mbox_add_msgid(struct buf *err, const char *m, size_t n)
{
	const char *p = m, *end = m + (n < (16u << 10) ? n : (16u << 10));
	const char *nl, *v;
	size_t k;

	for (; p < end && *p != '\n' && *p != '\r'; p = nl + 1) {
		if (!(nl = memchr(p, '\n', end - p)))
			break;
		if (nl - p < 11 || strncasecmp(p, "Message-ID:", 11) != 0)
			continue;
		for (v = p + 11; v < nl && (*v == ' ' || *v == '\t'); v++)
			;
		for (k = 0; v + k < nl && k < 128 && v[k] > ' ' && v[k] <= '~'; k++)
			;
		if (k) {
			buf_addf(err, "Message-ID %.*s", (int)k, v);
			return;
		}
	}
	buf_addstr(err, "no Message-ID");
}

static int
mbox_too_big(const struct mbox_iter *it, const char *m, size_t n, struct buf *err)
{
	buf_addf(err, "message %zu of the mbox (", it->pos);
	mbox_add_msgid(err, m, n);
	buf_addf(err, ") is larger than %u MiB, the most one message may be",
	    MBOX_MAX_MESSAGE >> 20);
	return -1;
}

/*
 * Finds the end of the message that starts at it->p: the next separator
 * or the end of the input.  *copy says whether the message must be
 * rewritten (CR line ends, ">From " lines, no final newline).  0, or -1
 * when it is larger than MBOX_MAX_MESSAGE.
 */
static int
mbox_extent(struct mbox_iter *it, const char **stop, int *copy,
    struct buf *err)
{
	const char *start = it->p, *p = it->p, *end = it->end;
	int prev_blank = 0;

	*copy = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *next = nl ? nl + 1 : end;
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (it->mboxmode && prev_blank && n >= 5 &&
		    memcmp(p, "From ", 5) == 0)
			break;
		if (!nl || (nl > p && nl[-1] == '\r') || (it->mboxmode &&
		    n > 0 && *p == '>' && mbox_is_escaped_from(p, n)))
			*copy = 1;
		if ((size_t)(next - start) > MBOX_MAX_MESSAGE)
			return mbox_too_big(it, start, next - start, err);
		prev_blank = n == 0;
		p = next;
	}
	*stop = p;
	return 0;
}

/* mboxrd writes one blank line after each message: not content. */
static int
mbox_trailing_blank(const char *m, size_t n)
{
	return n >= 2 && m[n - 1] == '\n' && m[n - 2] == '\n';
}

/* The message p[0..stop) rewritten into it->copy: LF line ends, one '>'
   less on ">From " lines, a final newline, no blank line after it. */
static void
mbox_unescape(struct mbox_iter *it, const char *p, const char *stop)
{
	buf_reset(&it->copy);
	while (p < stop) {
		const char *nl = memchr(p, '\n', stop - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(stop - p);
		const char *next = nl ? nl + 1 : stop;

		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (it->mboxmode && n > 0 && *p == '>' &&
		    mbox_is_escaped_from(p, n))
			buf_add(&it->copy, p + 1, n - 1);
		else
			buf_add(&it->copy, p, n);
		buf_addch(&it->copy, '\n');
		p = next;
	}
	buf_addstr(&it->copy, "");	/* data never NULL */
	if (mbox_trailing_blank(it->copy.data, it->copy.len))
		it->copy.data[--it->copy.len] = '\0';
}

int
mbox_iter_init(struct mbox_iter *it, const char *data, size_t len,
    struct buf *err)
{
	const char *p = data, *end = data + len, *nl;

	memset(it, 0, sizeof(*it));
	buf_init(&it->copy, MBOX_MAX_MESSAGE + 1);
	/* leading blank lines carry nothing */
	while (p < end && (*p == '\n' || *p == '\r'))
		p++;
	if (p == end)
		return buf_addstr(err, "empty mbox"), -1;
	it->mboxmode = end - p >= 5 && memcmp(p, "From ", 5) == 0;
	nl = memchr(p, '\n', end - p);
	if (!it->mboxmode &&
	    !mbox_is_header_line(p, nl ? (size_t)(nl - p) : (size_t)(end - p)))
		return buf_addstr(err, "not an mbox: the first line is "
		    "neither a 'From ' separator nor a mail header"), -1;
	it->p = p;
	it->end = end;
	return 0;
}

/* The end of the input: an error when no message came out of it. */
static int
mbox_at_end(struct mbox_iter *it, struct buf *err)
{
	if (it->n)
		return 0;
	if (it->truncated)
		buf_addf(err, "mbox is truncated: %zu message(s) cut off inside "
		    "their headers and none complete", it->truncated);
	else
		buf_addstr(err, "mbox holds no messages");
	return -1;
}

int
mbox_next(struct mbox_iter *it, struct mbox_msg *msg, struct buf *err)
{
	const char *start, *stop;
	int copy;

	while (it->p < it->end) {
		if (it->mboxmode) {
			const char *nl = memchr(it->p, '\n', it->end - it->p);

			if (it->n >= MBOX_MAX_MESSAGES)
				return buf_addf(err, "mbox holds more than %d "
				    "messages", MBOX_MAX_MESSAGES), -1;
			it->p = nl ? nl + 1 : it->end;	/* the "From " line */
		}
		it->pos++;
		start = it->p;
		if (mbox_extent(it, &stop, &copy, err) < 0)
			return -1;
		it->p = stop;
		if (copy) {
			mbox_unescape(it, start, stop);
			msg->data = it->copy.data;
			msg->len = it->copy.len;
		} else {
			msg->data = (char *)start;	/* lent, never written */
			msg->len = stop - start;
			if (mbox_trailing_blank(msg->data, msg->len))
				msg->len--;
		}
		if (msg->len == 0)
			continue;
		if (!mbox_has_header_end(msg->data, msg->len)) {
			it->truncated++;
			continue;
		}
		it->n++;
		return 1;
	}
	return mbox_at_end(it, err);
}

void
mbox_iter_release(struct mbox_iter *it)
{
	buf_release(&it->copy);
	memset(it, 0, sizeof(*it));
}

int
mbox_split(const char *data, size_t len, struct mbox *out, struct buf *err)
{
	struct mbox_iter it;
	struct mbox_msg m;
	size_t cap = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (mbox_iter_init(&it, data, len, err) < 0)
		return -1;
	while ((r = mbox_next(&it, &m, err)) > 0) {
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			out->msgs = xrealloc(out->msgs, cap * sizeof(*out->msgs));
		}
		out->msgs[out->n].data = xmalloc(m.len + 1);
		memcpy(out->msgs[out->n].data, m.data, m.len);
		out->msgs[out->n].data[m.len] = '\0';
		out->msgs[out->n].len = m.len;
		out->n++;
	}
	out->truncated = it.truncated;
	mbox_iter_release(&it);
	if (r < 0)
		mbox_release(out);
	return r;
}

void
mbox_release(struct mbox *mb)
{
	size_t i;

	for (i = 0; i < mb->n; i++)
		free(mb->msgs[i].data);
	free(mb->msgs);
	memset(mb, 0, sizeof(*mb));
}

int
mbox_check(const char *data, size_t len, struct buf *err)
{
	struct mbox_iter it;
	struct mbox_msg m;
	int r;

	if (mbox_iter_init(&it, data, len, err) < 0)
		return -1;
	while ((r = mbox_next(&it, &m, err)) > 0)
		;
	mbox_iter_release(&it);
	return r;
}

/* ---- is it mail at all? ---------------------------------------------- */

#define MBOX_SNIFF_MAX	(16u << 10)

/* 1 if the line is "Name: ..." with an RFC 5322 field name. */
static int
mbox_header_line(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && p[i] != ':'; i++)
		if (p[i] < '!' || p[i] > '~')
			return 0;
	return i > 0 && i < n;
}

int
mbox_looks_like_mail(const char *data, size_t len, struct buf *err)
{
	const char *p = data, *end, *nl;
	size_t n, lineno = 1, i, k;
	int from = 0;

	if (len > MBOX_SNIFF_MAX)
		len = MBOX_SNIFF_MAX;
	end = data + len;
	while (p < end && (*p == '\n' || *p == '\r')) {
		lineno += *p == '\n';
		p++;
	}
	if (p == end)
		return buf_addstr(err, "not mail: the upload is empty or "
		    "blank"), -1;
	for (k = 0; p < end; p = nl + 1, lineno++, k++) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;	/* a cut-off last line */
		n = nl - p;
		if (n && p[n - 1] == '\r')
			n--;
		for (i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20 && p[i] != '\t')
				return buf_addf(err, "not mail: line %zu holds "
				    "a control byte 0x%02x in the header block",
				    lineno, (unsigned char)p[i]), -1;
		if (n == 0)
			break;		/* end of the first header block */
		if (k == 0 && n >= 5 && !memcmp(p, "From ", 5)) {
			from = 1;
			continue;
		}
		if ((*p == ' ' || *p == '\t') && k > (size_t)from)
			continue;	/* a folded header line */
		if (!mbox_header_line(p, n))
			return buf_addf(err, "not mail: line %zu is neither "
			    "an mbox \"From \" line nor a header field "
			    "(\"Name: value\")", lineno), -1;
	}
	if (from && k <= 1)
		return buf_addstr(err, "not mail: a \"From \" line with no "
		    "header fields after it"), -1;
	return 0;
}
