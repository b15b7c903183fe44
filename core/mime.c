/*
 * mime: one raw message -> struct msg, through GMime 3 (see mime.h).
 * GMime does the RFC 2047 / 2231 decoding, the transfer decodings and the
 * charset conversion; this file picks the parts that make up what a
 * reviewer reads (the text and any patch attachment) and undoes
 * format=flowed, which GMime leaves alone.  msg_parse_mbox() runs a whole
 * mbox through it, one message at a time as mbox_next() lends them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>

#include "core/mbox.h"
#include "core/mime.h"
#include "lib/xalloc.h"

static pthread_once_t mime_once = PTHREAD_ONCE_INIT;

static void
mime_init_once(void)
{
	g_mime_init();
}

/* Collapses runs of whitespace (folding leftovers) into one space. */
static char *
mime_fold_ws(const char *s)
{
	char *r, *w;
	int sp = 0;

	if (!s)
		return xstrdup("");
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	r = w = xmalloc(strlen(s) + 1);
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') {
			sp = 1;
			continue;
		}
		if (sp && w != r)
			*w++ = ' ';
		sp = 0;
		*w++ = *s;
	}
	*w = '\0';
	return r;
}

/* text[0..n) (g_malloc'd, NUL-terminated) as valid UTF-8: itself, or a
   repaired copy when it is not (invalid bytes and NULs become U+FFFD);
   text is taken. */
static char *
mime_utf8(char *text, size_t n)
{
	char *v;

	if (g_utf8_validate_len(text, n, NULL))
		return text;
	v = g_utf8_make_valid(text, (gssize)n);
	g_free(text);
	return v;
}

static void
mime_crlf(char *s)
{
	char *w = s;

	for (; *s; s++)
		if (!(s[0] == '\r' && s[1] == '\n'))
			*w++ = *s;
	*w = '\0';
}

void
mime_unflow(char *text, int delsp)
{
	char *r = text, *w = text;

	/*
	 * RFC 3676: a line that ends in a space continues on the next line
	 * (of the same quote depth); a leading space after the quote marks
	 * is stuffing.  "-- " is the signature separator, never flowed.
	 */
	while (*r) {
		char *eol = strchr(r, '\n');
		size_t n = eol ? (size_t)(eol - r) : strlen(r);
		size_t depth = 0, i = 0;
		int flowed;

		while (i < n && r[i] == '>')
			i++, depth++;
		if (i < n && r[i] == ' ')
			i++;		/* stuffing */
		flowed = n > i && r[n - 1] == ' ' &&
		    !(n - i == 3 && memcmp(r + i, "-- ", 3) == 0);
		if (w != text && w[-1] == '\x01') {
			/* previous line flowed into this one: drop our quote
			   marks and stuffing */
			w--;
		} else {
			if (depth) {
				memmove(w, r, depth);
				w += depth;
				if (i > depth)
					*w++ = ' ';
			}
		}
		memmove(w, r + i, n - i - (flowed && delsp ? 1 : 0));
		w += n - i - (flowed && delsp ? 1 : 0);
		if (flowed && eol && eol[1]) {
			*w++ = '\x01';	/* marker: join with the next line */
		} else if (eol) {
			*w++ = '\n';
		}
		r = eol ? eol + 1 : r + n;
	}
	if (w != text && w[-1] == '\x01')
		w[-1] = '\n';
	*w = '\0';
}

static int
mime_wanted_type(GMimeContentType *ct, GMimeObject *obj)
{
	const char *type = g_mime_content_type_get_media_type(ct);
	const char *sub = g_mime_content_type_get_media_subtype(ct);
	const char *fn;

	if (!type || !sub)
		return 1;	/* no Content-Type: text/plain by default */
	if (g_ascii_strcasecmp(type, "text") == 0)
		return g_ascii_strcasecmp(sub, "plain") == 0 ||
		    g_ascii_strcasecmp(sub, "x-patch") == 0 ||
		    g_ascii_strcasecmp(sub, "x-diff") == 0;
	if (g_ascii_strcasecmp(type, "application") != 0)
		return 0;
	if (g_ascii_strcasecmp(sub, "x-patch") == 0 ||
	    g_ascii_strcasecmp(sub, "x-diff") == 0)
		return 1;
	/* some mailers send patches as application/octet-stream */
	fn = GMIME_IS_PART(obj) ? g_mime_part_get_filename(GMIME_PART(obj)) : NULL;
	if (g_ascii_strcasecmp(sub, "octet-stream") == 0 && fn) {
		size_t l = strlen(fn);
		return (l > 6 && g_ascii_strcasecmp(fn + l - 6, ".patch") == 0) ||
		    (l > 5 && g_ascii_strcasecmp(fn + l - 5, ".diff") == 0);
	}
	return 0;
}

/* The decoded text of a leaf part, as UTF-8 with LF line ends
   (g_malloc'd).  GMime's own buffer is kept: the text is copied again
   only to repair invalid UTF-8. */
static char *
mime_part_text(GMimeObject *obj)
{
	GMimeContentType *ct = g_mime_object_get_content_type(obj);
	const char *fmt, *dsp;
	char *text;
	size_t n;

	if (GMIME_IS_TEXT_PART(obj)) {
		text = g_mime_text_part_get_text(GMIME_TEXT_PART(obj));
		if (!text)
			return NULL;
		n = strlen(text);
	} else {
		GMimeDataWrapper *dw = g_mime_part_get_content(GMIME_PART(obj));
		GMimeStream *ms;
		GByteArray *ba;

		if (!dw)
			return NULL;
		ms = g_mime_stream_mem_new();
		g_mime_data_wrapper_write_to_stream(dw, ms);
		ba = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(ms));
		g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(ms), FALSE);
		g_object_unref(ms);
		n = ba->len;
		g_byte_array_append(ba, (const guint8 *)"", 1);
		text = (char *)g_byte_array_free(ba, FALSE);
	}
	text = mime_utf8(text, n);
	mime_crlf(text);
	fmt = ct ? g_mime_content_type_get_parameter(ct, "format") : NULL;
	if (fmt && g_ascii_strcasecmp(fmt, "flowed") == 0) {
		dsp = g_mime_content_type_get_parameter(ct, "delsp");
		mime_unflow(text, dsp && g_ascii_strcasecmp(dsp, "yes") == 0);
	}
	return text;
}

static void
mime_collect(GMimeObject *obj, struct buf *body, int depth)
{
	GMimeContentType *ct;
	char *t;

	if (!obj || depth > 16)		/* nesting bombs */
		return;
	ct = g_mime_object_get_content_type(obj);
	if (GMIME_IS_MULTIPART(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);
		int i, n = g_mime_multipart_get_count(mp);
		const char *sub = ct ? g_mime_content_type_get_media_subtype(ct) : NULL;

		if (sub && g_ascii_strcasecmp(sub, "alternative") == 0) {
			/* the plain text alternative only */
			for (i = 0; i < n; i++) {
				GMimeObject *c = g_mime_multipart_get_part(mp, i);
				GMimeContentType *cct = g_mime_object_get_content_type(c);
				if (GMIME_IS_PART(c) && cct &&
				    g_mime_content_type_is_type(cct, "text", "plain")) {
					mime_collect(c, body, depth + 1);
					return;
				}
			}
			return;
		}
		for (i = 0; i < n; i++)
			mime_collect(g_mime_multipart_get_part(mp, i), body,
			    depth + 1);
		return;
	}
	if (!GMIME_IS_PART(obj) || !mime_wanted_type(ct, obj))
		return;		/* forwarded messages, images, signatures */
	t = mime_part_text(obj);
	if (!t)
		return;
	if (body->len && body->data[body->len - 1] != '\n')
		buf_addch(body, '\n');
	buf_addstr(body, t);
	g_free(t);
}

static char *
mime_first_ref(const char *hdr, char ***all, size_t *nall)
{
	GMimeReferences *refs;
	char *first = NULL;
	int i, n;

	if (!hdr)
		return NULL;
	refs = g_mime_references_parse(NULL, hdr);
	if (!refs)
		return NULL;
	n = g_mime_references_length(refs);
	for (i = 0; i < n; i++) {
		const char *id = g_mime_references_get_message_id(refs, i);
		if (!id || !*id)
			continue;
		if (!first)
			first = xstrdup(id);
		if (all && *nall < MSG_MAX_REFERENCES) {
			*all = xrealloc(*all, (*nall + 1) * sizeof(**all));
			(*all)[(*nall)++] = xstrdup(id);
		}
	}
	g_mime_references_free(refs);
	return first;
}

int
msg_parse(const char *raw, size_t len, struct msg *out, struct buf *err)
{
	GMimeStream *stream = NULL;
	GMimeParser *parser = NULL;
	GMimeMessage *m = NULL;
	InternetAddressList *from;
	GDateTime *dt;
	struct buf body = BUF_INIT(0);
	const char *s;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	pthread_once(&mime_once, mime_init_once);
	stream = g_mime_stream_mem_new_with_buffer(raw, len);
	parser = g_mime_parser_new_with_stream(stream);
	m = g_mime_parser_construct_message(parser, NULL);
	if (!m) {
		buf_addstr(err, "message has no headers GMime can parse");
		goto out;
	}

	out->subject = mime_fold_ws(g_mime_message_get_subject(m));
	from = g_mime_message_get_from(m);
	if (from && internet_address_list_length(from) > 0) {
		InternetAddress *ia = internet_address_list_get_address(from, 0);
		if (INTERNET_ADDRESS_IS_GROUP(ia)) {
			InternetAddressList *mem =
			    internet_address_group_get_members(INTERNET_ADDRESS_GROUP(ia));
			ia = mem && internet_address_list_length(mem) > 0 ?
			    internet_address_list_get_address(mem, 0) : NULL;
		}
		if (ia && INTERNET_ADDRESS_IS_MAILBOX(ia)) {
			const char *addr = internet_address_mailbox_get_addr(
			    INTERNET_ADDRESS_MAILBOX(ia));
			const char *name = internet_address_get_name(ia);
			out->from_email = mime_fold_ws(addr);
			out->from_name = mime_fold_ws(name && *name ? name : addr);
		}
	}
	if (!out->from_email) {
		out->from_email = xstrdup("");
		out->from_name = xstrdup("");
	}
	out->date = mime_fold_ws(g_mime_object_get_header(GMIME_OBJECT(m), "Date"));
	dt = g_mime_message_get_date(m);
	if (dt)
		out->date_epoch = g_date_time_to_unix(dt);
	s = g_mime_message_get_message_id(m);
	if (s && *s)
		out->msgid = mime_fold_ws(s);
	out->in_reply_to = mime_first_ref(
	    g_mime_object_get_header(GMIME_OBJECT(m), "In-Reply-To"), NULL, NULL);
	free(mime_first_ref(g_mime_object_get_header(GMIME_OBJECT(m), "References"),
	    &out->references, &out->nreferences));

	mime_collect(g_mime_message_get_mime_part(m), &body, 0);
	/* the newline before a MIME boundary belongs to the boundary */
	if (body.len && body.data[body.len - 1] != '\n')
		buf_addch(&body, '\n');
	buf_addstr(&body, "");
	/* a thread's bodies are all held at once: no slack behind them */
	out->body_len = body.len;
	out->body = xrealloc(buf_detach(&body, NULL), out->body_len + 1);
	ret = 0;
out:
	if (m)
		g_object_unref(m);
	if (parser)
		g_object_unref(parser);
	if (stream)
		g_object_unref(stream);
	if (ret)
		msg_release(out);
	return ret;
}

void
msg_release(struct msg *m)
{
	size_t i;

	free(m->from_name);
	free(m->from_email);
	free(m->subject);
	free(m->date);
	free(m->msgid);
	free(m->in_reply_to);
	for (i = 0; i < m->nreferences; i++)
		free(m->references[i]);
	free(m->references);
	free(m->body);
	memset(m, 0, sizeof(*m));
}

int
msg_parse_mbox(const char *data, size_t len, struct msg_list *out,
    void (*skipped)(size_t pos, const char *why, void *arg), void *arg,
    struct buf *err)
{
	struct mbox_iter it;
	struct mbox_msg raw;
	struct buf why = BUF_INIT(1024);
	size_t cap = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (mbox_iter_init(&it, data, len, err) < 0)
		return -1;
	while ((r = mbox_next(&it, &raw, err)) > 0) {
		struct msg *m = xcalloc(1, sizeof(*m));

		buf_reset(&why);
		if (msg_parse(raw.data, raw.len, m, &why) < 0) {
			if (skipped)
				skipped(it.pos, why.data, arg);
			free(m);
			continue;
		}
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			out->v = xrealloc(out->v, cap * sizeof(*out->v));
		}
		out->v[out->n++] = m;
	}
	out->nmbox = it.n;
	out->truncated = it.truncated;
	mbox_iter_release(&it);
	buf_release(&why);
	if (r < 0)
		msg_list_release(out);
	return r;
}

void
msg_list_release(struct msg_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		msg_release(l->v[i]);
		free(l->v[i]);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Appends the mailboxes of list (groups flattened) to *v. */
static void
mime_list_addrs(InternetAddressList *list, char ***v, size_t *n, int depth)
{
	int len = list ? internet_address_list_length(list) : 0;

	for (int i = 0; i < len && *n < MSG_MAX_RECIPIENTS; i++) {
		InternetAddress *ia = internet_address_list_get_address(list, i);

		if (INTERNET_ADDRESS_IS_GROUP(ia) && depth < 2)
			mime_list_addrs(internet_address_group_get_members(
			    INTERNET_ADDRESS_GROUP(ia)), v, n, depth + 1);
		else if (INTERNET_ADDRESS_IS_MAILBOX(ia)) {
			const char *a = internet_address_mailbox_get_addr(
			    INTERNET_ADDRESS_MAILBOX(ia));

			if (!a || !*a || strlen(a) > 254)
				continue;
			*v = xrealloc(*v, (*n + 1) * sizeof(**v));
			(*v)[(*n)++] = mime_fold_ws(a);
		}
	}
}

int
msg_recipients(const char *raw, size_t len, char ***addrs, size_t *n)
{
	GMimeStream *stream;
	GMimeParser *parser;
	GMimeMessage *m;

	*addrs = NULL;
	*n = 0;
	pthread_once(&mime_once, mime_init_once);
	stream = g_mime_stream_mem_new_with_buffer(raw, len);
	parser = g_mime_parser_new_with_stream(stream);
	m = g_mime_parser_construct_message(parser, NULL);
	if (m) {
		mime_list_addrs(g_mime_message_get_to(m), addrs, n, 0);
		mime_list_addrs(g_mime_message_get_cc(m), addrs, n, 0);
		g_object_unref(m);
	}
	g_object_unref(parser);
	g_object_unref(stream);
	return m ? 0 : -1;
}
