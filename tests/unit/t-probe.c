/*
 * Unit tests for the agent's changed-functions pass (agents/probe.c and
 * the PROBE/ENV markers of agent_state.c): the probe pass's matrix, the
 * guest's probe list, what the guest prints turned into probe_hits and
 * environment, and that the upload passes the daemon's checks.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "agents/agent.h"
#include "lib/proto.h"
#include "tests/unit/tap.h"

static const char matrix[] =
	"[defaults]\n"
	"seconds = 1\n"
	"iterations = 3\n"
	"warmup = 1\n"
	"\n"
	"[run \"fault-free-shmem-node\"]\n"
	"workload = fault-free\n"
	"  iterations=5\n"
	"tasks = node\n";

/* The list-lru suite's shape: a lock-profile run of file-read beside
   file-read's own run, and one of a target nothing else measures. */
static void
test_matrix_profiles(void)
{
	static const char m2[] =
	    "# a comment first\n"
	    "[defaults]\n"
	    "seconds = 1\n"
	    "\n"
	    "[run \"file-read-ext2-cpus\"]\n"
	    "workload = file-read\n"
	    "iterations = 7\n"
	    "\n"
	    "[run \"lock-contention-file-read\"]\n"
	    "workload = lock-profile\n"
	    "pass = contention\n"
	    "target =  file-read \n"
	    "iterations = 1\n"
	    "\n"
	    "[run \"lock-profile-root-refault\"]\n"
	    "workload = lock-profile\n"
	    "target = root-refault\n";
	char *m = probe_matrix(m2);

	ok(strstr(m, "lock-contention-file-read") == NULL && strstr(m,
	    "pass = contention") == NULL,
	    "a lock-profile run of a target another run measures is left out");
	ok(strstr(m, "[run \"file-read-ext2-cpus\"]\niterations = 1\n"
	    "warmup = 0\nworkload = file-read\n") != NULL,
	    "its target's run stays, at one iteration");
	ok(strstr(m, "[run \"lock-profile-root-refault\"]\niterations = 1\n") &&
	    strstr(m, "target = root-refault"),
	    "one whose target nothing else measures stays");
	ok(strncmp(m, "# a comment first\n[defaults]\nseconds = 1\n", 41) == 0,
	    "what comes before the runs is kept");
	free(m);
	m = probe_matrix("[run \"only\"]\nworkload = lock-profile\n"
	    "target = fault-free\n");
	ok(strstr(m, "[run \"only\"]") != NULL,
	    "a matrix of lock-profile runs alone keeps them");
	free(m);
	m = probe_matrix("");
	ok(m && *m == '\0', "an empty matrix stays empty");
	free(m);
}

static void
test_matrix(void)
{
	char *m = probe_matrix(matrix);

	ok(strstr(m, "iterations = 3") == NULL && strstr(m, "iterations=5") ==
	    NULL, "the measured iterations are gone");
	ok(strstr(m, "warmup = 1") == NULL, "the warm-up is gone");
	ok(strstr(m, "[run \"fault-free-shmem-node\"]\niterations = 1\n"
	    "warmup = 0\n") != NULL, "each run: one iteration, no warm-up");
	ok(strstr(m, "seconds = 1") && strstr(m, "tasks = node"),
	    "everything else is kept");
	free(m);
	test_matrix_profiles();
}

static void
test_results(void)
{
	static const char guest[] =
	    "KPERFCI READY\r\n"
	    "KPERFCI DONE rc=0\r\n"
	    "KPERFCI ENV thp_enabled always [madvise] never\r\n"
	    "KPERFCI ENV mthp  16kB:never 64kB:always\r\n"
	    "KPERFCI ENV cmdline console=ttyS0 panic=-1\r\n"
	    "KPERFCI ENV evil \x01rm\r\n"
	    "KPERFCI PROBE-ERR 1\r\n"
	    "KPERFCI PROBE f0 4096\r\n"
	    "KPERFCI PROBE f2 0\r\n"
	    "KPERFCI PROBE f99999 1\r\n"
	    "KPERFCI PROBE f3 -4\r\n"
	    "KPERFCI PROBES-DONE\r\n";
	json_t *probes = json_pack("[ssss]", "folio_batch_move_lru",
	    "inlined_one", "sys_mincore", "weird");
	json_t *up = json_pack("{s:s,s:i,s:s,s:[]}", "agent", "q1", "attempt",
	    1, "status", "done", "samples");
	struct agent_results r;
	struct buf err = BUF_INIT(512);
	json_t *h, *env;
	char *list = probe_list(probes);

	is_str(list, "folio_batch_move_lru\ninlined_one\nsys_mincore\nweird\n",
	    "the guest's probe list, one per line");
	free(list);
	agent_results_init(&r);
	agent_results_parse(&r, guest, strlen(guest));
	ok(r.probes_done, "the probe pass ended");
	is_int(r.junk, 3, "an unknown ENV key, a probe index out of range and "
	    "negative hits are junk");
	probe_upload(probes, &r, "tcg, icount shift=3,sleep=off", up);
	h = json_object_get(up, PROTO_PROBE_HITS);
	is_int(json_array_size(h), 4, "one entry per probe");
	is_int(json_integer_value(json_object_get(json_array_get(h, 0),
	    "hits")), 4096, "hits of f0");
	ok(json_object_get(json_array_get(h, 1), "error") &&
	    !json_object_get(json_array_get(h, 1), "hits"),
	    "a refused probe has an error, not 0 hits");
	ok(json_is_integer(json_object_get(json_array_get(h, 2), "hits")) &&
	    json_integer_value(json_object_get(json_array_get(h, 2),
	    "hits")) == 0, "0 hits is a count");
	ok(json_object_get(json_array_get(h, 3), "error") != NULL,
	    "a probe without a count says so");
	env = json_object_get(up, PROTO_ENVIRONMENT);
	is_str(json_string_value(json_object_get(env, "thp_enabled")),
	    "always [madvise] never", "THP setting");
	is_str(json_string_value(json_object_get(env, "mthp")),
	    "16kB:never 64kB:always", "mTHP settings");
	is_str(json_string_value(json_object_get(env, "accel")),
	    "tcg, icount shift=3,sleep=off", "the accelerator");
	ok(proto_check_upload(up, &err) == 0, "the upload passes the "
	    "daemon's checks (%s)", err.data ? err.data : "");
	agent_results_release(&r);
	json_decref(probes);
	json_decref(up);
	buf_release(&err);
}

static void
test_no_pass(void)
{
	static const char guest[] = "KPERFCI READY\nKPERFCI DONE rc=0\n";
	json_t *probes = json_pack("[s]", "folio_batch_move_lru");
	json_t *up = json_object();
	struct agent_results r;

	agent_results_init(&r);
	agent_results_parse(&r, guest, strlen(guest));
	probe_upload(probes, &r, NULL, up);
	is_str(json_string_value(json_object_get(json_array_get(
	    json_object_get(up, PROTO_PROBE_HITS), 0), "error")),
	    "the probe pass did not finish", "a pass that never ended");
	agent_results_release(&r);
	json_decref(up);
	up = json_object();
	agent_results_init(&r);
	json_decref(probes);
	probes = json_array();
	probe_upload(probes, &r, NULL, up);
	ok(json_object_get(up, PROTO_PROBE_HITS) == NULL,
	    "no probes: no probe_hits");
	agent_results_release(&r);
	json_decref(up);
	json_decref(probes);
}

static void
put(const char *root, const char *rel, const char *text)
{
	char path[512], *d;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	d = strdup(path);
	for (char *p = d + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(d, 0755);
		*p = '/';
	}
	free(d);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void
test_native_env(void)
{
	char root[] = "/tmp/t-probe.XXXXXX";
	json_t *up = json_object(), *env;
	struct buf err = BUF_INIT(256);

	ok(mkdtemp(root) != NULL, "a fake root");
	put(root, "/sys/kernel/mm/transparent_hugepage/enabled",
	    "always [madvise] never\n");
	put(root, "/sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled",
	    "always inherit madvise [never]\n");
	put(root, "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
	    "[always] inherit madvise never\n");
	put(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro \x01quiet\n");
	probe_native_environment(root, up);
	env = json_object_get(up, PROTO_ENVIRONMENT);
	is_str(json_string_value(json_object_get(env, "thp_enabled")),
	    "always [madvise] never", "native THP");
	is_str(json_string_value(json_object_get(env, "mthp")),
	    "16kB:never 64kB:always", "native mTHP, smallest first");
	is_str(json_string_value(json_object_get(env, "cmdline")),
	    "BOOT_IMAGE=/vmlinuz ro ?quiet", "native cmdline, control bytes "
	    "replaced");
	ok(json_object_get(env, "thp_defrag") == NULL, "a missing file is "
	    "left out");
	ok(proto_check(env, proto_environment, "environment.", &err) == 0,
	    "passes the daemon's check");
	json_decref(up);
	buf_release(&err);
}

int
main(void)
{
	test_native_env();
	test_matrix();
	test_results();
	test_no_pass();
	return tap_done();
}
