/* Unit tests for daemon/config.c: syntax, types, defaults, file:line errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/config.h"
#include "tests/unit/tap.h"

/* Parses text; returns the rc and leaves the messages in err. */
static int
parse(struct config *c, const char *text, struct buf *err)
{
	config_init(c);
	buf_reset(err);
	return config_parse(c, "t.conf", text, err);
}

static void
test_good(void)
{
	struct buf err = BUF_INIT(0);
	struct config c;

	is_int(parse(&c, "# comment\n; another\n\n[daemon]\n  port = 9000 \n"
	    "listen=::1\nmax_body = 2M\n[lore]\nallow = http://a/\n"
	    "allow = \"https://b/x/\"\n", &err), 0, "valid file parses");
	is_int(config_int(&c, "daemon", NULL, "port"), 9000, "int value");
	is_str(config_str(&c, "daemon", NULL, "listen"), "::1",
	    "value without spaces around =");
	is_int(config_int(&c, "daemon", NULL, "max_body"), 2 << 20,
	    "size with M suffix");
	is_int(config_int(&c, "daemon", NULL, "threads"), 4,
	    "default from the table when absent");
	is_str(config_list(&c, "lore", NULL, "allow", 0), "http://a/",
	    "repeatable key: first value");
	is_str(config_list(&c, "lore", NULL, "allow", 1), "https://b/x/",
	    "repeatable key: second value, quotes removed");
	ok(config_list(&c, "lore", NULL, "allow", 2) == NULL,
	    "repeatable key: end of list");
	config_release(&c);
	buf_release(&err);
}

static void
test_last_wins(void)
{
	struct buf err = BUF_INIT(0);
	struct config c;

	parse(&c, "[daemon]\nport = 1\nport = 2\n", &err);
	is_int(config_int(&c, "daemon", NULL, "port"), 2,
	    "a repeated scalar keeps the last value");
	config_release(&c);
	buf_release(&err);
}

static const struct {
	const char *text;
	const char *want;	/* substring of the error */
} bad[] = {
	{ "[daemon]\nportt = 1\n", "t.conf:2: unknown key \"portt\" in [daemon]" },
	{ "[nosuch]\n", "t.conf:1: unknown section [nosuch]" },
	{ "\n\n[daemon]\nport = x1\n", "t.conf:4: port must be an integer" },
	{ "[daemon]\nport = 70000\n", "t.conf:2: port 70000 is not in 0..65535" },
	{ "[daemon]\nmax_body = 12Q\n", "t.conf:2: max_body must be a size" },
	{ "[daemon]\nthreads = 0\n", "t.conf:2: 0 must be at least 1" },
	{ "port = 1\n", "t.conf:1: key \"port\" outside a section" },
	{ "[daemon\n", "t.conf:1: malformed section header" },
	{ "[daemon]\njust words\n", "t.conf:2: expected key = value" },
	{ "[daemon \"x\"]\n", "t.conf:1: section [daemon] takes no name" },
	{ "[daemon]\nlisten = localhost\n", "t.conf:2: listen address \"localhost\" is not" },
	{ "[lore]\nallow = ftp://x/\n", "t.conf:2: \"ftp://x/\" is not an http(s) URL" },
	{ "[sched]\nmax_rows = 0\n", "t.conf:2: max_rows 0 is not in 1..1000000" },
	{ "[sched]\nmax_rows = lots\n", "t.conf:2: max_rows must be an integer" },
};

static void
test_bad(void)
{
	struct buf err = BUF_INIT(0);
	struct config c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		is_int(parse(&c, bad[i].text, &err), -1, "bad input %zu fails",
		    i);
		if (!ok(err.data && strstr(err.data, bad[i].want),
		    "error names the problem: %s", bad[i].want))
			printf("#   got: %s", err.data ? err.data : "(none)");
		config_release(&c);
	}
	/* every bad line is reported, not only the first */
	parse(&c, "[daemon]\na = 1\nb = 2\n", &err);
	ok(strstr(err.data, "t.conf:2:") && strstr(err.data, "t.conf:3:"),
	    "all errors reported");
	config_release(&c);
	buf_release(&err);
}

static void
test_default_and_file(void)
{
	struct buf err = BUF_INIT(0);
	struct config c;
	char path[] = "/tmp/t-config.XXXXXX";
	int fd;

	config_init(&c);
	is_int(config_load_default(&c, &err), 0,
	    "embedded etc/kperfci.conf parses");
	is_int(config_int(&c, "daemon", NULL, "port"), 8080,
	    "embedded default port is 8080");
	is_str(config_str(&c, "daemon", NULL, "listen"), "127.0.0.1",
	    "embedded default listens on loopback");
	ok(config_list(&c, "lore", NULL, "allow", 0) != NULL,
	    "embedded default allows a lore base");
	config_release(&c);

	fd = mkstemp(path);
	ok(fd >= 0 && write(fd, "[daemon]\nbogus = 1\n", 19) == 19,
	    "temp file written");
	close(fd);
	config_init(&c);
	buf_reset(&err);
	is_int(config_load(&c, path, &err), -1, "file with bad key fails");
	ok(err.data && strstr(err.data, path) && strstr(err.data, ":2:"),
	    "file error names file:line");
	config_release(&c);
	buf_reset(&err);
	is_int(config_load(&c, "/nonexistent/k.conf", &err), -1,
	    "missing file fails");
	ok(err.data && strstr(err.data, "/nonexistent/k.conf"),
	    "missing file named");
	unlink(path);
	config_release(&c);
	buf_release(&err);
}

int
main(void)
{
	test_good();
	test_last_wins();
	test_bad();
	test_default_and_file();
	return tap_done();
}
