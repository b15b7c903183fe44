/*
 * escape: text made safe for HTML and URLs.  Every piece of text that is
 * not a literal in our source goes through html_txt (element content) or
 * html_attr (attribute values); the pages (daemon/html.h) and the charts
 * (core/svg.c) share them.  Every href made from outside data goes through
 * html_link, which admits http(s) only.
 */
#ifndef KPERFCI_ESCAPE_H
#define KPERFCI_ESCAPE_H

#include "lib/buf.h"

/* Escapes &, <, >, " and ' (and drops NUL/control bytes other than \t\n). */
void	html_txt(struct buf *, const char *);
void	html_attr(struct buf *, const char *);
/* Appends a formatted string through html_txt. */
void	html_txtf(struct buf *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* Percent-encodes s for use inside a URL path segment or query value. */
void	html_url_escape(struct buf *, const char *);

/*
 * Links to URLs from outside data (a commit's Link: trailer, a mail, an
 * upload) go through these two and nothing else, so a javascript:, data:
 * or vbscript: URL never becomes an href.
 *
 * html_link_ok: 1 when url is an absolute http:// or https:// URL (scheme
 * in any case) with a host, no byte below 0x21, no DEL and no backslash;
 * when nbases > 0 it must also start with one of bases (the configured
 * lore bases), at a '/' boundary ("https://lore.kernel.org" does not
 * admit "https://lore.kernel.org.evil/").  0 otherwise.
 */
int	html_link_ok(const char *url, const char *const *bases, size_t nbases);
/*
 * Appends <a href="URL" rel="noreferrer nofollow">TEXT</a> when
 * html_link_ok(url, bases, nbases), else TEXT as plain text; text NULL
 * means the URL itself.  Both are escaped.  Returns 1 for a link, 0 for
 * text.  url and text are borrowed.
 */
int	html_link(struct buf *, const char *url, const char *text,
	    const char *const *bases, size_t nbases);

#endif
