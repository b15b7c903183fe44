/*
 * Unit tests for core/exercise.c: a series' plan from its diff -- the
 * suites its touched paths call for and why, the suites' merged matrix
 * (checked by the real kperfci-load --check), the fallback to all, suites
 * asked at submission -- and each changed function's status against a
 * System.map (probed, inlined, ambiguous, a syscall under __x64_sys_);
 * console splat counting; the exercised rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/exercise.h"
#include "lib/buf.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static const char diff[] =
	"diff --git a/mm/swap.c b/mm/swap.c\n"
	"--- a/mm/swap.c\n+++ b/mm/swap.c\n"
	"@@ -3,0 +4 @@ static void folio_batch_move_lru(void)\n"
	"+\tudelay(1);\n"
	"@@ -7,0 +9 @@ static inline void lru_inl(void)\n"
	"+\tudelay(1);\n"
	"diff --git a/mm/memory.c b/mm/memory.c\n"
	"--- a/mm/memory.c\n+++ b/mm/memory.c\n"
	"@@ -2,0 +3 @@ static int dup(void)\n"
	"+\treturn 1;\n"
	"diff --git a/mm/mincore.c b/mm/mincore.c\n"
	"--- a/mm/mincore.c\n+++ b/mm/mincore.c\n"
	"@@ -2,0 +3 @@ SYSCALL_DEFINE3(mincore, unsigned long, start, size_t, len,\n"
	"+\tudelay(20);\n";

static int
src(const char *path, struct buf *out, void *arg)
{
	if (!strcmp(path, "mm/swap.c"))
		buf_addstr(out, "static void folio_batch_move_lru(void)\n{\n"
		    "\tint i;\n\tudelay(1);\n}\n\nstatic inline void "
		    "lru_inl(void)\n{\n\tudelay(1);\n}\n");
	else if (!strcmp(path, "mm/memory.c"))
		buf_addstr(out, "static int dup(void)\n{\n\treturn 1;\n}\n");
	else if (!strcmp(path, "mm/mincore.c"))
		buf_addstr(out, "SYSCALL_DEFINE3(mincore, unsigned long, start, "
		    "size_t, len,\n\t\tunsigned char __user *, vec)\n{\n"
		    "\tudelay(20);\n\treturn 0;\n}\n");
	else
		return 1;
	return 0;
}

static const char sysmap[] =
	"ffffffff81101230 t folio_batch_move_lru\n"
	"ffffffff81201230 t dup\n"
	"ffffffff81301230 t dup\n"
	"ffffffff8114a373 T __x64_sys_mincore\n";

static const char *
fn_field(const struct exercise_plan *p, const char *name, const char *k)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(p->changes, "functions"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "name")), name))
			return json_string_value(json_object_get(f, k));
	return NULL;
}

static void
test_plan(void)
{
	struct exercise_plan p;
	struct buf err = BUF_INIT(512);
	char *s;

	ok(exercise_plan_diff(diff, strlen(diff), src, NULL, sysmap,
	    strlen(sysmap), NULL, KPERFCI_SRCDIR "/etc", &p, &err) == 0,
	    "a plan (%s)", err.data ? err.data : "");
	s = json_dumps(json_object_get(p.changes, "suites"), JSON_COMPACT);
	is_str(s, "[{\"suite\":\"lru-lock\",\"why\":[\"mm/swap.c\"]},"
	    "{\"suite\":\"large-folio\",\"why\":[\"mm/memory.c\"]},"
	    "{\"suite\":\"all\",\"why\":[\"mm/mincore.c\"]}]",
	    "each touched path -> its suite");
	free(s);
	is_str(json_string_value(json_object_get(p.changes, "matrix_source")),
	    "etc/workloads.conf (all)", "a path no suite covers: all");
	is_str(fn_field(&p, "folio_batch_move_lru", "status"), "probed",
	    "a static function in System.map is probed");
	is_str(fn_field(&p, "lru_inl", "status"), "inlined",
	    "a function absent from System.map is inlined");
	is_str(fn_field(&p, "dup", "status"), "ambiguous",
	    "a name defined twice is not countable");
	is_str(fn_field(&p, "sys_mincore", "symbol"), "__x64_sys_mincore",
	    "a syscall is probed under the symbol System.map has");
	s = json_dumps(p.probes, JSON_COMPACT);
	is_str(s, "[\"folio_batch_move_lru\",\"__x64_sys_mincore\"]",
	    "the probes: countable functions only");
	free(s);
	exercise_plan_release(&p);
	buf_release(&err);
}

static void
test_merged_matrix(void)
{
	static const char d2[] =
	    "diff --git a/mm/swap.c b/mm/swap.c\n--- a/mm/swap.c\n"
	    "+++ b/mm/swap.c\n@@ -1,0 +2 @@\n+x\n"
	    "diff --git a/mm/memory.c b/mm/memory.c\n--- a/mm/memory.c\n"
	    "+++ b/mm/memory.c\n@@ -1,0 +2 @@\n+x\n";
	struct exercise_plan p;
	struct buf err = BUF_INIT(512);
	const char *bin = getenv("KPERFCI_BIN");
	char path[] = "/tmp/t-exercise.XXXXXX", *cmd;

	ok(exercise_plan_diff(d2, strlen(d2), src, NULL, sysmap,
	    strlen(sysmap), NULL, KPERFCI_SRCDIR "/etc", &p, &err) == 0,
	    "a plan over two suites");
	is_str(json_string_value(json_object_get(p.changes, "matrix_source")),
	    "etc/suites/lru-lock.conf + etc/suites/large-folio.conf",
	    "the matrix is both suites");
	ok(p.matrix && strstr(p.matrix, "[run \"shmem-all\"]") &&
	    strstr(p.matrix, "[run \"page-fault1-pmd\"]") &&
	    !strstr(p.matrix, "[defaults]"), "their runs, no [defaults]");
	if (bin && p.matrix) {
		int fd = mkstemp(path);

		if (fd >= 0 && write(fd, p.matrix, strlen(p.matrix)) ==
		    (ssize_t)strlen(p.matrix)) {
			cmd = xasprintf("'%s/kperfci-load' --matrix %s --check "
			    ">/dev/null 2>&1", bin, path);
			is_int(system(cmd), 0, "kperfci-load --check accepts "
			    "the merged matrix");
			free(cmd);
		}
		if (fd >= 0)
			close(fd);
		unlink(path);
	} else
		ok(1, "# skip: no KPERFCI_BIN for kperfci-load --check");
	exercise_plan_release(&p);
	buf_release(&err);
}

static void
test_asked_and_missing(void)
{
	static const char d3[] =
	    "diff --git a/mm/swap.c b/mm/swap.c\n--- a/mm/swap.c\n"
	    "+++ b/mm/swap.c\n@@ -1,0 +2 @@\n+x\n";
	char etc[] = "/tmp/t-exercise-etc.XXXXXX", *f;
	struct exercise_plan p;
	struct buf err = BUF_INIT(512);
	json_t *asked = json_pack("[s]", "memcg-flush");
	FILE *fp;

	ok(exercise_plan_diff(d3, strlen(d3), src, NULL, NULL, 0, asked,
	    KPERFCI_SRCDIR "/etc", &p, &err) == 0, "a plan with asked suites");
	is_str(json_string_value(json_object_get(json_array_get(
	    json_object_get(p.changes, "suites"), 0), "suite")), "memcg-flush",
	    "the asked suite replaces the touched one");
	is_str(fn_field(&p, "folio_batch_move_lru", "status"), "unknown",
	    "no System.map: status unknown");
	exercise_plan_release(&p);
	/* an etc/ without suites/: the touched suite falls back to all */
	ok(mkdtemp(etc) != NULL, "an etc/ without suites");
	f = xasprintf("%s/workloads.conf", etc);
	fp = fopen(f, "w");
	fputs("[run \"x\"]\nworkload = null\n", fp);
	fclose(fp);
	ok(exercise_plan_diff(d3, strlen(d3), src, NULL, NULL, 0, NULL, etc,
	    &p, &err) == 0, "a plan without the suite file");
	is_str(json_string_value(json_object_get(p.changes, "matrix_source")),
	    "etc/suites/lru-lock.conf does not exist: etc/workloads.conf (all)",
	    "the fallback is said");
	exercise_plan_release(&p);
	ok(exercise_suites_check(asked, KPERFCI_SRCDIR "/etc", &err) == 0,
	    "memcg-flush exists");
	json_decref(asked);
	asked = json_pack("[s]", "../etc");
	buf_reset(&err);
	ok(exercise_suites_check(asked, KPERFCI_SRCDIR "/etc", &err) == -1 &&
	    strstr(err.data, "suites[0]: expected a suite name"),
	    "a path is not a suite name");
	json_decref(asked);
	unlink(f);
	rmdir(etc);
	free(f);
	buf_release(&err);
}

static void
test_splats_and_state(void)
{
	static const char con[] =
	    "[    0.000000] Linux version 6.12\n"
	    "[    1.000000] ------------[ cut here ]------------\n"
	    "[    1.000001] WARNING: CPU: 1 PID: 7 at mm/swap.c:200 f+0x1\n"
	    "[    2.000000] BUG: sleeping function called from invalid context\n"
	    "[    3.000000] ok\n";
	char first[64];
	json_t *chg = json_loads("{\"functions\":[{\"symbol\":\"f\",\"status\":"
	    "\"probed\"},{\"symbol\":\"g\",\"status\":\"inlined\"}]}", 0, NULL);
	json_t *zero = json_loads("[{\"probe_hits\":[{\"function\":\"f\","
	    "\"hits\":0}]},{\"probe_hits\":[{\"function\":\"f\",\"error\":"
	    "\"x\"}]}]", 0, NULL);
	json_t *some = json_loads("[{\"probe_hits\":[{\"function\":\"f\","
	    "\"hits\":0}]},{\"probe_hits\":[{\"function\":\"f\",\"hits\":3}]}]",
	    0, NULL);
	json_t *none = json_array();

	is_int(exercise_splats(con, strlen(con), first, sizeof(first)), 2,
	    "a WARNING and a BUG");
	is_str(first, "WARNING: CPU: 1 PID: 7 at mm/swap.c:200 f+0x1",
	    "the first report's line");
	is_int(exercise_state_of(chg, zero), EXERCISE_NOT_EXERCISED,
	    "0 calls counted: not exercised");
	is_int(exercise_state_of(chg, some), EXERCISE_EXERCISED,
	    "3 calls: exercised");
	is_int(exercise_state_of(chg, none), EXERCISE_UNMEASURED,
	    "no count: not measured");
	is_int(exercise_state_of(NULL, none), EXERCISE_NONE, "no plan");
	json_decref(chg);
	json_decref(zero);
	json_decref(some);
	json_decref(none);
}

int
main(void)
{
	test_plan();
	test_merged_matrix();
	test_asked_and_missing();
	test_splats_and_state();
	return tap_done();
}
