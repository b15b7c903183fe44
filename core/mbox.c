/*
 * mbox: mboxrd splitting (see mbox.h).  Works line by line over the input
 * without copying it first; each message is built in its own buffer.
 */
#include <stdlib.h>
#include <string.h>

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

/* A message is complete when its header block ends (a blank line). */
static int
mbox_has_header_end(const struct buf *m)
{
	return m->len > 0 && (m->data[0] == '\n' || strstr(m->data, "\n\n"));
}

static void
mbox_push(struct mbox *out, struct buf *m, size_t *cap)
{
	/* mboxrd writes one blank line after each message: not content */
	if (m->len >= 2 && m->data[m->len - 1] == '\n' &&
	    m->data[m->len - 2] == '\n')
		m->data[--m->len] = '\0';
	if (m->len == 0)
		goto drop;
	if (!mbox_has_header_end(m)) {
		out->truncated++;
		goto drop;
	}
	if (out->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		out->msgs = xrealloc(out->msgs, *cap * sizeof(*out->msgs));
	}
	out->msgs[out->n].len = m->len;
	out->msgs[out->n].data = buf_detach(m, NULL);
	out->n++;
	return;
drop:
	buf_release(m);
}

int
mbox_split(const char *data, size_t len, struct mbox *out, struct buf *err)
{
	struct buf m = BUF_INIT(0);
	const char *p = data, *end = data + len;
	size_t cap = 0;
	int prev_blank = 1, mboxmode, ret = -1;

	memset(out, 0, sizeof(*out));
	/* leading blank lines carry nothing */
	while (p < end && (*p == '\n' || *p == '\r'))
		p++;
	if (p == end) {
		buf_addstr(err, "empty mbox");
		return -1;
	}
	mboxmode = end - p >= 5 && memcmp(p, "From ", 5) == 0;
	if (!mboxmode) {
		const char *nl = memchr(p, '\n', end - p);
		if (!mbox_is_header_line(p, nl ? (size_t)(nl - p) : (size_t)(end - p))) {
			buf_addstr(err, "not an mbox: the first line is neither a "
			    "'From ' separator nor a mail header");
			return -1;
		}
	}

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *next = nl ? nl + 1 : end;
		const char *q = p;

		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (mboxmode && prev_blank && n >= 5 && memcmp(p, "From ", 5) == 0) {
			if (m.len || m.data)
				mbox_push(out, &m, &cap);
			if (out->n >= MBOX_MAX_MESSAGES) {
				buf_addf(err, "mbox holds more than %d messages",
				    MBOX_MAX_MESSAGES);
				goto out;
			}
			buf_addstr(&m, "");	/* a message has started */
			prev_blank = 0;
			p = next;
			continue;
		}
		/* mboxrd: ">From " with any number of '>' loses one */
		if (mboxmode && n > 0 && *q == '>') {
			size_t k = 0;
			while (k < n && q[k] == '>')
				k++;
			if (n - k >= 5 && memcmp(q + k, "From ", 5) == 0) {
				q++;
				n--;
			}
		}
		buf_add(&m, q, n);
		buf_addch(&m, '\n');
		prev_blank = n == 0;
		p = next;
	}
	mbox_push(out, &m, &cap);
	if (out->n == 0) {
		if (out->truncated)
			buf_addf(err, "mbox is truncated: %zu message(s) cut off "
			    "inside their headers and none complete",
			    out->truncated);
		else
			buf_addstr(err, "mbox holds no messages");
		goto out;
	}
	ret = 0;
out:
	buf_release(&m);
	if (ret)
		mbox_release(out);
	return ret;
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
