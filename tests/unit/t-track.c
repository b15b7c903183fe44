/*
 * t-track: the [track] configuration (checks of at/every, the
 * cross-section check settings_load runs for -n and start-up: unknown
 * tree, unreadable matrix, at and every together, each with file:line) and the timer rule (track_due): a missed
 * time runs once, not once per missed night; nothing before the track was
 * first seen; manual-only tracks never fire.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/config.h"
#include "daemon/settings.h"
#include "daemon/track.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static int
check(const char *text, struct buf *err)
{
	struct config c;
	int rc;

	config_init(&c);
	buf_reset(err);
	rc = config_parse(&c, "t.conf", text, err);
	if (rc == 0) {
		struct settings s;

		rc = settings_load(&c, &s, err);
		settings_release(&s);
	}
	config_release(&c);
	return rc;
}

static void
test_config(void)
{
	struct buf err = BUF_INIT(0);

	is_int(check("[tree \"t\"]\npath = /x\n[track \"n\"]\ntree = t\n"
	    "at = 02:00\nboots = 2\n", &err), 0, "a valid track");
	is_int(check("[tree \"t\"]\npath = /x\n[track \"n\"]\ntree = u\n",
	    &err), -1, "an unknown tree is refused");
	ok(strstr(err.data, "t.conf:4: [track \"n\"]: tree \"u\" is not a "
	    "configured [tree]") != NULL, "naming file:line (%s)", err.data);
	is_int(check("[tree \"t\"]\npath = /x\n[track \"n\"]\nboots = 2\n",
	    &err), -1, "a track without a tree is refused");
	ok(strstr(err.data, "t.conf:4:") && strstr(err.data, "needs tree"),
	    "naming file:line (%s)", err.data);
	is_int(check("[tree \"t\"]\npath = /x\n[track \"n\"]\ntree = t\n"
	    "matrix = /nonexistent/m.conf\n", &err), -1,
	    "an unreadable matrix is refused");
	ok(strstr(err.data, "t.conf:5:") && strstr(err.data, "m.conf"),
	    "naming file:line (%s)", err.data);
	is_int(check("[tree \"t\"]\npath = /x\n[track \"n\"]\ntree = t\n"
	    "at = 02:00\nevery = 6h\n", &err), -1, "at and every together");
	is_int(check("[track \"n\"]\nat = 2:00\n", &err), -1,
	    "at must be HH:MM");
	ok(strstr(err.data, "t.conf:2:") != NULL, "file:line (%s)", err.data);
	is_int(check("[track \"n\"]\nat = 24:00\n", &err), -1,
	    "at 24:00 is refused");
	is_int(check("[track \"n\"]\nevery = 6\n", &err), -1,
	    "every needs a unit");
	/* The unit is looked for without reading past the value's end (a
	   value that ends the file, or a copy of exactly its length: ASan
	   saw the byte after "6" read). */
	is_int(check("[track \"n\"]\nevery = 6", &err), -1,
	    "every needs a unit at the end of the file");
	{
		char *six = xstrdup("6");

		buf_reset(&err);
		is_int(track_check_every(six, &err), -1,
		    "every = 6 (a copy of its length) is refused");
		ok(strstr(err.data, "\"6\"") != NULL, "naming it (%s)",
		    err.data);
		free(six);
	}
	is_int(check("[track \"n\"]\nevery = 0h\n", &err), -1,
	    "every must be positive");
	is_int(check("[tree \"t\"]\npath = /x\n[track \"n\"]\ntree = t\n"
	    "every = 90m\n", &err), 0,
	    "every = 90m parses");
	buf_release(&err);
}

static time_t
local(int y, int mo, int d, int h, int mi)
{
	struct tm tm = { 0 };

	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

static void
test_due(void)
{
	struct track_conf tc = { 0 };
	time_t since = local(2026, 11, 1, 12, 0);

	tc.at_min = 2 * 60;
	ok(!track_due(&tc, since, 0, local(2026, 11, 1, 23, 0)),
	    "at 02:00: not before the first 02:00 after the track appeared");
	ok(track_due(&tc, since, 0, local(2026, 11, 2, 2, 0)),
	    "due at 02:00");
	ok(!track_due(&tc, since, local(2026, 11, 2, 2, 0),
	    local(2026, 11, 2, 9, 0)), "not again the same day");
	ok(track_due(&tc, since, local(2026, 11, 2, 2, 0),
	    local(2026, 11, 5, 9, 0)),
	    "daemon down for three nights: due when it comes back");
	ok(!track_due(&tc, since, local(2026, 11, 5, 9, 0),
	    local(2026, 11, 5, 9, 1)), "and only once, not per missed night");
	tc.at_min = -1;
	tc.every_sec = 6 * 3600;
	ok(!track_due(&tc, since, 0, since + 5 * 3600),
	    "every 6h: not within the first 6 hours");
	ok(track_due(&tc, since, 0, since + 6 * 3600), "due after 6 hours");
	ok(!track_due(&tc, since, since + 6 * 3600, since + 11 * 3600),
	    "not again before the next slot");
	ok(track_due(&tc, since, since + 6 * 3600, since + 30 * 3600),
	    "due once after a long gap");
	tc.every_sec = 0;
	ok(!track_due(&tc, since, 0, since + 100 * 86400),
	    "a track with neither at nor every is manual only");
}

int
main(void)
{
	test_config();
	test_due();
	return tap_done();
}
