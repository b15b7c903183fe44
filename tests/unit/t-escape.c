/*
 * t-escape: core/escape.c -- the one link helper every href from outside
 * data goes through (http(s) only, the lore bases where the caller knows
 * them; anything else is text), and the HTML escaping it relies on.
 */
#include <string.h>

#include "core/escape.h"
#include "tests/unit/tap.h"

static void
test_link_ok(void)
{
	static const char *const lore[] = { "https://lore.kernel.org/",
	    "http://127.0.0.1:9" };

	ok(html_link_ok("https://lore.kernel.org/all/x@y/", NULL, 0),
	    "https is a link");
	ok(html_link_ok("http://example.org", NULL, 0), "http is a link");
	ok(html_link_ok("HTTPS://example.org/a", NULL, 0),
	    "the scheme in any case");
	ok(!html_link_ok("javascript:alert(1)", NULL, 0), "javascript: is not");
	ok(!html_link_ok("JavaScript:alert(1)", NULL, 0), "in any case");
	ok(!html_link_ok(" javascript:alert(1)", NULL, 0), "nor spaced");
	ok(!html_link_ok("java\tscript:alert(1)", NULL, 0), "nor with a tab");
	ok(!html_link_ok("data:text/html,<script>", NULL, 0), "data: is not");
	ok(!html_link_ok("vbscript:x", NULL, 0), "vbscript: is not");
	ok(!html_link_ok("//evil.example/", NULL, 0),
	    "a scheme-relative URL is not");
	ok(!html_link_ok("/local/path", NULL, 0), "a path is not");
	ok(!html_link_ok("https://", NULL, 0), "no host: not");
	ok(!html_link_ok("https:///x", NULL, 0), "an empty host: not");
	ok(!html_link_ok("https://@evil/", NULL, 0), "an empty user: not");
	ok(!html_link_ok("https://a b/", NULL, 0), "a space: not");
	ok(!html_link_ok("https://a/\x1b[2J", NULL, 0), "an ESC: not");
	ok(!html_link_ok("https://a\\@b/", NULL, 0), "a backslash: not");
	ok(!html_link_ok(NULL, NULL, 0), "NULL: not");
	ok(html_link_ok("https://lore.kernel.org/all/x/", lore, 2),
	    "under a lore base");
	ok(html_link_ok("http://127.0.0.1:9/linux-mm/x/", lore, 2),
	    "under a base without a slash");
	ok(!html_link_ok("http://127.0.0.1:90/x/", lore, 2),
	    "not a longer port of it");
	ok(!html_link_ok("https://lore.kernel.org.evil/x/", lore, 2),
	    "not a longer host");
	ok(!html_link_ok("https://evil.example/", lore, 2),
	    "not another site when bases are given");
	ok(!html_link_ok("javascript:x", lore, 2), "nor javascript:");
}

static void
test_link(void)
{
	struct buf b = BUF_INIT(0);

	is_int(html_link(&b, "javascript:alert('x')", NULL, NULL, 0), 0,
	    "javascript: is text");
	is_str(b.data, "javascript:alert(&#39;x&#39;)", "escaped as text");
	buf_reset(&b);
	is_int(html_link(&b, "https://e.org/?a=1&b=\"2\"", "t<i>", NULL, 0),
	    1, "https is a link");
	is_str(b.data, "<a href=\"https://e.org/?a=1&amp;b=&quot;2&quot;\" "
	    "rel=\"noreferrer nofollow\">t&lt;i&gt;</a>",
	    "href and text escaped");
	buf_reset(&b);
	html_link(&b, "data:x", "subject", NULL, 0);
	is_str(b.data, "subject", "a refused link leaves its text");
	buf_release(&b);
}

int
main(void)
{
	test_link_ok();
	test_link();
	return tap_done();
}
