/*
 * escape: HTML and URL escaping (see escape.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
