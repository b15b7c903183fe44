/*
 * t-track: the [track] configuration (checks of at/every, the
 * cross-section check settings_load runs for -n and start-up: unknown
 * tree, unreadable matrix, at and every together, each with file:line) and the timer rule (track_due): a missed
 * time runs once, not once per missed night; nothing before the track was
 * first seen; manual-only tracks never fire.  And the analysis after
 * every night (track_analyse on a real store): two metrics that drop at
 * the same night open one regression listing both; a lock-contention row
 * that jumps after three nights (too few to know its noise) opens none; a
 * quiet one that jumps later opens its own.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "daemon/config.h"
#include "daemon/db.h"
#include "daemon/db_track.h"
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

		is_int(config_parse_every(six), -1,
		    "every = 6 (a copy of its length) is refused");
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

/* Row r's value at night i (boot noise from g). */
static double
row_value(gsl_rng *g, int r, int i)
{
	switch (r) {
	case 0:		/* higher is better, -10 % from night 12 */
		return 1000 * (i >= 12 ? 0.90 : 1) *
		    (1 + 0.01 * gsl_ran_gaussian(g, 1));
	case 1:		/* higher is better, -6 % from night 12 */
		return 500 * (i >= 12 ? 0.94 : 1) *
		    (1 + 0.01 * gsl_ran_gaussian(g, 1));
	case 2:		/* a lock row, +/-60 % per boot, x3.8 from night 3
			   (issue 15: three nights of history, no verdict) */
		return 40 * (i >= 3 ? 3.8 : 1) * (1 + 0.6 *
		    fabs(gsl_ran_gaussian(g, 1)));
	default:	/* a quiet lock row, x1.5 from night 16 */
		return 40 * (i >= 16 ? 1.5 : 1) *
		    (1 + 0.01 * gsl_ran_gaussian(g, 1));
	}
}

static void
add_night(struct db *db, gsl_rng *g, int i, long long *run)
{
	static const char *const metric[] = { "ops", "ops2", "wait_count",
	    "wait_count" };
	static const char *const params[] = { "", "", "lock=lru_lock,tasks=2",
	    "lock=zone_lock,tasks=2" };
	struct track_point p[4 * 3];
	struct track_run r;
	char head[41];
	int existing, k = 0, b, w;

	db_track_run_new(db, "x", "manual", 3, 1000 + i, run, &existing);
	db_track_run_get(db, *run, &r);
	snprintf(head, sizeof(head), "%040d", i + 1);
	free(r.state);
	r.state = xstrdup("done");
	r.head = xstrdup(head);
	r.kernel_id = 1;
	db_track_run_save(db, &r, 1000 + i);
	track_run_release(&r);
	for (w = 0; w < 4; w++)
		for (b = 0; b < 3; b++, k++) {
			memset(&p[k], 0, sizeof(p[k]));
			p[k].run_id = *run;
			p[k].boot = b + 1;
			p[k].workload = w < 2 ? "w" : "lock-profile";
			p[k].params = (char *)params[w];
			p[k].metric = (char *)metric[w];
			p[k].unit = "x";
			p[k].better = w < 2 ? 1 : -1;
			p[k].value = row_value(g, w, i);
		}
	db_track_points_add(db, p, k);
}

static void
test_analyse(void)
{
	char dir[] = "/tmp/t-track.XXXXXX", *path;
	struct track_regression *regs = NULL;
	struct track_reg_metric *m = NULL;
	long long run[24];
	size_t n = 0, nm = 0, i, at12 = 0, at3 = 0, at16 = 0;
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	struct db *db;
	int night;

	gsl_rng_set(g, 5);
	if (!mkdtemp(dir))
		return;
	path = xasprintf("%s/t.db", dir);
	db = db_open(path);
	ok(db && db_migrate(db, KPERFCI_SRCDIR "/schema") == 0,
	    "a store with the schema");
	if (!db)
		goto out;
	for (night = 0; night < 24; night++) {
		add_night(db, g, night, &run[night]);
		track_analyse(db, "x");
	}
	db_track_regressions(db, "x", &regs, &n);
	for (i = 0; i < n; i++) {
		at12 += regs[i].bad_run == run[12];
		at3 += regs[i].bad_run == run[3];
		at16 += regs[i].bad_run == run[16];
	}
	is_int(at12, 1, "two metrics dropping on night 12: one regression");
	is_int(at3, 0, "a lock row's jump after three nights opens none");
	is_int(at16, 1, "a quiet lock row's jump on night 16 opens one");
	is_int(n, 2, "and nothing else (%zu)", n);
	for (i = 0; i < n; i++)
		if (regs[i].bad_run == run[12])
			break;
	if (i < n) {
		is_str(regs[i].metric, "ops", "headed by the surer row");
		is_int(regs[i].good_run, run[11], "last good: night 11");
		db_track_reg_metrics(db, regs[i].id, &m, &nm);
		ok(nm >= 2 && !strcmp(m[0].metric, "ops") &&
		    !strcmp(m[1].metric, "ops2") && m[0].carries &&
		    m[1].carries, "listing both metrics (%zu)", nm);
		is_str(regs[i].state, "bisecting", "with one bisect");
	}
out:
	track_reg_metrics_free(m, nm);
	track_regressions_free(regs, n);
	if (db)
		db_close(db);
	unlink(path);
	free(path);
	gsl_rng_free(g);
}

int
main(void)
{
	test_config();
	test_due();
	test_analyse();
	return tap_done();
}
