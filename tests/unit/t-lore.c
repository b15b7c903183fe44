/* Unit tests for core/lore.c: URL forms, allowlist, message-ids. */
#include <string.h>

#include "core/lore.h"
#include "tests/unit/tap.h"

static const char *const bases[] = { "https://lore.kernel.org/",
    "http://127.0.0.1:8081/", "https://example.org/pi" };
#define NB (sizeof(bases) / sizeof(bases[0]))

static const struct {
	const char *url;
	int	 ret;
	const char *base, *list, *msgid;
	int	 version;
	const char *err;	/* a substring of the error */
} cases[] = {
	{ "https://lore.kernel.org/linux-mm/20231114-a@b.org/", 0,
	  "https://lore.kernel.org/", "linux-mm", "20231114-a@b.org", 0, NULL },
	{ "https://lore.kernel.org/linux-mm/20231114-a@b.org", 0,
	  "https://lore.kernel.org/", "linux-mm", "20231114-a@b.org", 0, NULL },
	{ "https://lore.kernel.org/all/x@y/T/", 0, "https://lore.kernel.org/", "all", "x@y", 0, NULL },
	{ "https://lore.kernel.org/all/x@y/t/#u", 0, "https://lore.kernel.org/", "all", "x@y", 0, NULL },
	{ "https://lore.kernel.org/lkml/x@y/T/#m1234abcd", 0, "https://lore.kernel.org/", "lkml", "x@y", 0, NULL },
	{ "https://lore.kernel.org/r/x@y", 0, "https://lore.kernel.org/", "all", "x@y", 0, NULL },
	{ "https://lore.kernel.org/linux-mm/x@y/t.mbox.gz", 0, "https://lore.kernel.org/", "linux-mm", "x@y", 0, NULL },
	{ "https://lore.kernel.org/linux-mm/x@y/raw", 0, "https://lore.kernel.org/", "linux-mm", "x@y", 0, NULL },
	{ "HTTPS://LORE.KERNEL.ORG:443/linux-mm/x@y/", 0, "https://lore.kernel.org/", "linux-mm", "x@y", 0, NULL },
	{ "https://lore.kernel.org/linux-mm/a%2Fb@c/T/", 0, "https://lore.kernel.org/", "linux-mm", "a/b@c", 0, NULL },
	{ "https://lore.kernel.org/linux-mm/a/b@c/T/", 0, "https://lore.kernel.org/", "linux-mm", "a/b@c", 0, NULL },
	{ "https://lore.kernel.org/linux-mm/%3Cx%2By%40z%3E/", 0, "https://lore.kernel.org/", "linux-mm", "x+y@z", 0, NULL },
	{ "https://lore.kernel.org/linux-mm/x@y/?v=3", 0, "https://lore.kernel.org/", "linux-mm", "x@y", 3, NULL },
	{ "https://lore.kernel.org/linux-mm/x@y/T/?a=b&v=2#frag", 0, "https://lore.kernel.org/", "linux-mm", "x@y", 2, NULL },
	{ "http://127.0.0.1:8081/test/m1@example.org/", 0, "http://127.0.0.1:8081/", "test", "m1@example.org", 0, NULL },
	{ "https://example.org/pi/list/m@x/", 0, "https://example.org/pi/", "list", "m@x", 0, NULL },
	/* refused */
	{ "https://lore.kernel.org/linux-mm/x%20y@z/", -1, NULL, NULL, NULL, 0, "contains a space" },
	{ "https://lore.kernel.org/linux-mm/x y@z/", -1, NULL, NULL, NULL, 0, "space or a control" },
	{ "https://lore.kernel.org/linux-mm/x%0Ay@z/", -1, NULL, NULL, NULL, 0, "control character" },
	{ "https://lore.kernel.org/linux-mm/x%00y@z/", -1, NULL, NULL, NULL, 0, "malformed %-escape" },
	{ "https://lore.kernel.org/linux-mm/x%zzy/", -1, NULL, NULL, NULL, 0, "malformed %-escape" },
	{ "https://lore.kernel.org/linux-mm/", -1, NULL, NULL, NULL, 0, "names no message" },
	{ "https://lore.kernel.org/linux-mm/%3C%3E/", -1, NULL, NULL, NULL, 0, "empty message-id" },
	{ "https://lore.kernel.org/linux-mm/a%3Eb/", -1, NULL, NULL, NULL, 0, "'<' or '>'" },
	{ "https://lore.kernel.org/linux-mm/x@y/?v=abc", -1, NULL, NULL, NULL, 0, "?v= wants a revision" },
	{ "https://evil.example.com/linux-mm/x@y/", -1, NULL, NULL, NULL, 0,
	  "is not on an allowed lore base (allowed: https://lore.kernel.org/, http://127.0.0.1:8081/, https://example.org/pi)" },
	{ "http://lore.kernel.org/linux-mm/x@y/", -1, NULL, NULL, NULL, 0, "not on an allowed lore base" },
	{ "http://127.0.0.1:8082/test/x@y/", -1, NULL, NULL, NULL, 0, "not on an allowed lore base" },
	{ "https://example.org/pix/list/m@x/", -1, NULL, NULL, NULL, 0, "not on an allowed lore base" },
	{ "ftp://lore.kernel.org/linux-mm/x@y/", -1, NULL, NULL, NULL, 0, "only http and https" },
	{ "file:///etc/passwd", -1, NULL, NULL, NULL, 0, "only http and https" },
	{ "https://lore.kernel.org@evil.com/linux-mm/x@y/", -1, NULL, NULL, NULL, 0, "user information" },
	{ "https://user:pw@lore.kernel.org/linux-mm/x@y/", -1, NULL, NULL, NULL, 0, "user information" },
	{ "https://lore.kernel.org/../etc/x@y/", -1, NULL, NULL, NULL, 0, "'..'" },
	{ "https://lore.kernel.org/linux-mm/%2e%2e/x/", -1, NULL, NULL, NULL, 0, "'..'" },
	{ "https://lore.kernel.org:99999/linux-mm/x@y/", -1, NULL, NULL, NULL, 0, "malformed port" },
	{ "lore.kernel.org/linux-mm/x@y/", -1, NULL, NULL, NULL, 0, "not a URL" },
	{ "https:///linux-mm/x@y/", -1, NULL, NULL, NULL, 0, "no host" },
	{ "https://lore.kernel.org/li$t/x@y/", -1, NULL, NULL, NULL, 0, "not a lore list name" },
};

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lore_url u;
		struct buf err = BUF_INIT(4096);
		int r = lore_parse_url(cases[i].url, bases, NB, &u, &err);

		is_int(r, cases[i].ret, "%s: result", cases[i].url);
		if (r == 0) {
			is_str(u.base, cases[i].base, "%s: base", cases[i].url);
			is_str(u.list, cases[i].list, "%s: list", cases[i].url);
			is_str(u.msgid, cases[i].msgid, "%s: msgid", cases[i].url);
			is_int(u.version, cases[i].version, "%s: version", cases[i].url);
		} else if (cases[i].err) {
			if (!ok(err.data && strstr(err.data, cases[i].err),
			    "%s: error names the problem", cases[i].url))
				printf("#   got: %s\n", err.data ? err.data : "(none)");
		}
		lore_url_release(&u);
		buf_release(&err);
	}

	/* without an allowlist, the origin is the base */
	{
		struct lore_url u;
		struct buf err = BUF_INIT(4096);
		ok(lore_parse_url("http://[::1]:9000/l/m@x/", NULL, 0, &u, &err) == 0,
		    "no allowlist: parses");
		is_str(u.base, "http://[::1]:9000/", "no allowlist: origin is the base");
		lore_url_release(&u);
		buf_release(&err);
	}
	/* lore_check_allowed for redirect targets */
	{
		struct buf err = BUF_INIT(4096);
		is_int(lore_check_allowed("http://127.0.0.1:8081/all/x/t.mbox.gz", bases, NB, &err),
		    0, "allowed redirect target");
		is_int(lore_check_allowed("http://127.0.0.2:8081/all/x/", bases, NB, &err),
		    -1, "redirect to another host refused");
		buf_release(&err);
	}
	/* escaping for the fetch path */
	{
		struct buf b = BUF_INIT(0);
		lore_escape_msgid(&b, "a/b c%d?e#f@g.h+i");
		is_str(b.data, "a%2Fb%20c%25d%3Fe%23f@g.h+i", "message-id escaped for a path");
		buf_release(&b);
	}
	/* message-id checks */
	{
		struct buf err = BUF_INIT(4096);
		char longid[LORE_MSGID_MAX + 2];
		memset(longid, 'a', sizeof(longid) - 1);
		longid[sizeof(longid) - 1] = '\0';
		is_int(lore_check_msgid("", &err), -1, "empty id refused");
		is_int(lore_check_msgid(longid, &err), -1, "overlong id refused");
		is_int(lore_check_msgid("a\tb", &err), -1, "tab refused");
		is_int(lore_check_msgid("20231114.abc-1-x@kernel.org", &err), 0, "normal id accepted");
		buf_release(&err);
	}
	return tap_done();
}
