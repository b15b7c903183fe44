/*
 * exercise_series: exercise_plan_make for a stored series -- finds its
 * tree, base and patched commits, the patched build's System.map and the
 * suites its submitter asked for, and makes the plan the scheduler stores
 * with the comparison (see exercise.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/db_build.h"
#include "daemon/db_exercise.h"
#include "daemon/exercise_series.h"
#include "daemon/trees.h"
#include "core/tree.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#define EXERCISE_MAX_SYSMAP	(64 * 1024 * 1024)

/* etc/ next to the schema directory (the source tree or share/). */
char *
exercise_etc_dir(void)
{
	return xasprintf("%s/../etc", app.schema_dir ? app.schema_dir :
	    KPERFCI_SRCDIR "/schema");
}

int
exercise_series_plan(struct db *db, long long sid, struct exercise_plan *p,
    struct buf *err)
{
	struct db_series_build sb;
	struct tree_conf tc;
	struct db_build b;
	struct buf map = BUF_INIT(EXERCISE_MAX_SYSMAP);
	json_t *asked = NULL;
	char *etc = exercise_etc_dir(), *path;
	int rc = -1, have_tc = 0, have_b = 0;

	memset(p, 0, sizeof(*p));
	memset(&b, 0, sizeof(b));
	if (db_build_series_get(db, sid, &sb) != 0) {
		buf_addstr(err, "no apply or build is recorded");
		free(etc);
		return -1;
	}
	if (!sb.tree || !sb.base_commit || !sb.patched_commit) {
		buf_addstr(err, "the series has no patched commit");
		goto out;
	}
	if (trees_conf(sb.tree, &tc, err) == -1)
		goto out;
	have_tc = 1;
	if (sb.patched_build > 0 && db_build_get(db, sb.patched_build,
	    &b) == 0) {
		have_b = 1;
		path = xasprintf("%s/System.map", b.dir ? b.dir : "/nonexistent");
		if (buf_read_file(&map, path) == -1) {
			log_warnx("series %lld: %s cannot be read: changed "
			    "functions cannot be checked", sid, path);
			buf_release(&map);
		}
		free(path);
	}
	if (db_exercise_request_get(db, sid, &asked) == -1) {
		buf_addstr(err, "the submission's suites cannot be read");
		goto out;
	}
	rc = exercise_plan_make(tc.path, sb.base_commit, sb.patched_commit,
	    map.data, map.len, asked, etc, p, err);
out:
	if (have_tc)
		tree_conf_release(&tc);
	if (have_b)
		db_build_release(&b);
	db_series_build_release(&sb);
	json_decref(asked);
	buf_release(&map);
	free(etc);
	return rc;
}
