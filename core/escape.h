/*
 * escape: text made safe for HTML and URLs.  Every piece of text that is
 * not a literal in our source goes through html_txt (element content) or
 * html_attr (attribute values); the pages (daemon/html.h) and the charts
 * (core/svg.c) share them.
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

#endif
