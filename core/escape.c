/*
 * escape: HTML and URL escaping (see escape.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/escape.h"

static void
html_escape(struct buf *b, const char *s, int attr)
{
	for (; s && *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '&': buf_addstr(b, "&amp;"); break;
		case '<': buf_addstr(b, "&lt;"); break;
		case '>': buf_addstr(b, "&gt;"); break;
		case '"': buf_addstr(b, "&quot;"); break;
		case '\'': buf_addstr(b, "&#39;"); break;
		case '\n': buf_addstr(b, attr ? "&#10;" : "\n"); break;
		case '\t': buf_addch(b, c); break;
		default:
			if (c < 0x20 || c == 0x7f)
				break;
			buf_addch(b, c);
		}
	}
}

void
html_txt(struct buf *b, const char *s)
{
	html_escape(b, s, 0);
}

void
html_attr(struct buf *b, const char *s)
{
	html_escape(b, s, 1);
}

void
html_txtf(struct buf *b, const char *fmt, ...)
{
	struct buf t = BUF_INIT(0);
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&t, fmt, ap);
	va_end(ap);
	html_txt(b, t.data);
	buf_release(&t);
}

void
html_url_escape(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c)) {
			buf_addch(b, c);
		} else {
			buf_addch(b, '%');
			buf_addch(b, hex[c >> 4]);
			buf_addch(b, hex[c & 15]);
		}
	}
}

/* 1 when url starts with base, ending there at a path boundary. */
static int
html_link_base(const char *url, const char *base)
{
	size_t n = strlen(base);

	if (!n || strncasecmp(url, base, n))
		return 0;
	return base[n - 1] == '/' || url[n] == '\0' || url[n] == '/' ||
	    url[n] == '?' || url[n] == '#';
}

int
html_link_ok(const char *url, const char *const *bases, size_t nbases)
{
	const unsigned char *p;
	const char *host;
	size_t i;

	if (!url)
		return 0;
	if (!strncasecmp(url, "https://", 8))
		host = url + 8;
	else if (!strncasecmp(url, "http://", 7))
		host = url + 7;
	else
		return 0;
	if (!*host || strchr("/?#@:", *host))
		return 0;		/* no host */
	for (p = (const unsigned char *)url; *p; p++)
		if (*p <= 0x20 || *p == 0x7f || *p == '\\')
			return 0;
	if (!nbases)
		return 1;
	for (i = 0; i < nbases; i++)
		if (bases[i] && html_link_base(url, bases[i]))
			return 1;
	return 0;
}

int
html_link(struct buf *b, const char *url, const char *text,
    const char *const *bases, size_t nbases)
{
	if (!text)
		text = url ? url : "";
	if (!html_link_ok(url, bases, nbases)) {
		html_txt(b, text);
		return 0;
	}
	buf_addstr(b, "<a href=\"");
	html_attr(b, url);
	buf_addstr(b, "\" rel=\"noreferrer nofollow\">");
	html_txt(b, text);
	buf_addstr(b, "</a>");
	return 1;
}
