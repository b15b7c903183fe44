/*
 * html: escaping helpers and the shared page frame (see html.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/html.h"
#include "daemon/http.h"

/* Navigation, one row per area page: { key, label, href }. */
static const struct {
	const char *key, *label, *href;
} html_nav[] = {
	{ "series", "Series", "/" },
	{ "agents", "Agents", "/agents" },
	/* agents, nightly: add a row here */
};

void
html_time(struct buf *b, long long t)
{
	char s[32];
	time_t tt = t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M UTC", &tm);
	html_txt(b, s);
}

void
html_state(struct buf *b, const char *state)
{
	buf_addstr(b, "<span class=\"state state-");
	html_attr(b, state);
	buf_addstr(b, "\">");
	html_txt(b, state);
	buf_addstr(b, "</span>");
}

void
html_page_begin(struct buf *b, const char *title, const char *nav,
    int refresh)
{
	size_t i;

	buf_addstr(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, "
	    "initial-scale=1\">\n");
	if (refresh > 0)
		buf_addf(b, "<meta http-equiv=\"refresh\" content=\"%d\">\n",
		    refresh);
	buf_addstr(b, "<title>");
	html_txt(b, title);
	buf_addstr(b, " - kperfci</title>\n"
	    "<link rel=\"stylesheet\" href=\"/static/style.css\">\n"
	    "</head>\n<body>\n<header><a class=\"brand\" href=\"/\">kperfci"
	    "</a>\n<nav>");
	for (i = 0; i < sizeof(html_nav) / sizeof(html_nav[0]); i++) {
		buf_addstr(b, "<a href=\"");
		html_attr(b, html_nav[i].href);
		buf_addstr(b, "\"");
		if (nav && !strcmp(nav, html_nav[i].key))
			buf_addstr(b, " class=\"current\"");
		buf_addstr(b, ">");
		html_txt(b, html_nav[i].label);
		buf_addstr(b, "</a>");
	}
	buf_addstr(b, "</nav></header>\n<main>\n");
}

void
html_page_end(struct buf *b)
{
	buf_addstr(b, "</main>\n<footer>kperfci &middot; performance CI for "
	    "the Linux kernel &middot; <a href=\"/api/v1/series\">JSON</a>"
	    "</footer>\n</body>\n</html>\n");
}

void
html_reply(struct http_resp *resp, int status, struct buf *b)
{
	resp->status = status;
	resp->content_type = "text/html; charset=utf-8";
	buf_release(&resp->body);
	resp->body = *b;
	buf_init(b, b->max);
}

void
html_error_page(struct http_resp *resp, int status, const char *msg)
{
	struct buf b = BUF_INIT(0);
	char title[32];

	snprintf(title, sizeof(title), "Error %d", status);
	html_page_begin(&b, title, NULL, 0);
	buf_addf(&b, "<h1>Error %d</h1>\n<p class=\"error\">", status);
	html_txt(&b, msg);
	buf_addstr(&b, "</p>\n<p><a href=\"/\">Back to the series list</a>"
	    "</p>\n");
	html_page_end(&b);
	html_reply(resp, status, &b);
}
