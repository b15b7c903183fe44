/*
 * html: writing HTML safely, cgit style.  Every piece of text that is not a
 * literal in our source goes through html_txt (element content) or
 * html_attr (attribute values) of core/escape.h, so nothing raw slips out.
 *
 * The page frame (html_page_begin / html_page_end) is shared by every page:
 * the header with navigation, the footer, the stylesheet.  Areas add a nav
 * entry by one row in html.c's nav table.
 */
#ifndef KPERFCI_HTML_H
#define KPERFCI_HTML_H

#include "core/escape.h"
#include "lib/buf.h"

struct http_resp;

/* A time as "YYYY-MM-DD HH:MM UTC". */
void	html_time(struct buf *, long long t);
/* A state word in <span class="state state-WORD">. */
void	html_state(struct buf *, const char *state);

/*
 * Starts a page: doctype, head (title, viewport, style.css), the header with
 * navigation (nav: "series", "agents", "nightly"... marks the current one).
 * refresh > 0 adds a meta refresh of that many seconds (pages that follow a
 * running request).
 */
void	html_page_begin(struct buf *, const char *title, const char *nav,
	    int refresh);
void	html_page_end(struct buf *);

/* A whole error page with status into resp (message escaped). */
void	html_error_page(struct http_resp *, int status, const char *msg);
/* Sets resp to 200 text/html with the page in b (b is emptied). */
void	html_reply(struct http_resp *, int status, struct buf *b);

#endif
