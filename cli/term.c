/*
 * term: terminal-safe output of outside data (see term.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/term.h"

void
term_add(struct buf *b, const char *s, size_t n, int lines)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; s && i < n; i++) {
		unsigned char c = p[i];

		if (c == '\t' || (c == '\n' && lines)) {
			buf_addch(b, c);
		} else if (c < 0x20 || c == 0x7f) {
			buf_addch(b, '?');
		} else if (c == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 &&
		    p[i + 1] <= 0x9f) {
			buf_addch(b, '?');	/* a C1 control in UTF-8 */
			i++;
		} else {
			buf_addch(b, c);
		}
	}
}

const char *
term_clean(const char *s)
{
	static char *ring[TERM_RING];
	static unsigned next;
	struct buf b = BUF_INIT(0);
	char *r;

	if (!s)
		return "";
	term_add(&b, s, strlen(s), 0);
	r = buf_detach(&b, NULL);
	free(ring[next % TERM_RING]);
	ring[next++ % TERM_RING] = r;
	return r ? r : "";
}

static int
term_vfprintf(FILE *f, const char *fmt, va_list ap)
{
	struct buf raw = BUF_INIT(0), out = BUF_INIT(0);
	int n;

	buf_vaddf(&raw, fmt, ap);
	term_add(&out, raw.data, raw.len, 1);
	n = (int)out.len;
	if (out.len)
		fwrite(out.data, 1, out.len, f);
	buf_release(&raw);
	buf_release(&out);
	return n;
}

int
term_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = term_vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}

int
term_eprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = term_vfprintf(stderr, fmt, ap);
	va_end(ap);
	return n;
}
