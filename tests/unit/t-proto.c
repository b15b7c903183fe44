/* t-proto: the agent<->daemon message checks name the field at fault. */
#include <stdlib.h>
#include <string.h>

#include "lib/proto.h"
#include "tests/unit/tap.h"

static struct buf err = BUF_INIT(4096);

/* Checks text with fn; returns the error text ("" when accepted). */
static const char *
check(int (*fn)(const json_t *, struct buf *), const char *text)
{
	json_t *o = json_loads(text, 0, NULL);

	buf_reset(&err);
	if (o == NULL)
		return "(bad test JSON)";
	if (fn(o, &err) == 0 && err.len == 0)
		buf_addstr(&err, "");
	json_decref(o);
	return err.data ? err.data : "";
}

static const char *check(int (*)(const json_t *, struct buf *),
    const char *);

/* An upload whose one profile has nlocks locks of ncallers callers. */
static char *
big_profile(size_t nlocks, size_t ncallers)
{
	struct buf b = BUF_INIT(0);
	size_t i, k;

	buf_addstr(&b, "{\"agent\":\"q1\",\"attempt\":1,\"status\":"
	    "\"done\",\"samples\":[],\"profiles\":[{\"type\":"
	    "\"lock-profile\",\"workload\":\"lock-profile\",\"locks\":[");
	for (i = 0; i < nlocks; i++) {
		buf_addf(&b, "%s{\"lock\":\"l%zu\",\"symbol\":\"s\","
		    "\"share\":0.001,\"callers\":[", i ? "," : "", i);
		for (k = 0; k < ncallers; k++)
			buf_addf(&b, "%s{\"symbol\":\"c%zu\",\"share\":0}",
			    k ? "," : "", k);
		buf_addstr(&b, "]}");
	}
	buf_addstr(&b, "]}]}");
	return buf_detach(&b, NULL);
}

/* Caps on what one upload may make the daemon merge (issue 18, 2 and 9). */
static void
test_upload_caps(void)
{
	struct buf b = BUF_INIT(0);
	char *t;
	size_t i;

	t = big_profile(1000, 2);
	is_str(check(proto_check_upload, t), "", "upload: 1000 locks of a "
	    "profile (kperfci-load's largest top) accepted");
	free(t);
	t = big_profile(1001, 0);
	is_str(check(proto_check_upload, t), "profiles[0].locks: expected an "
	    "array of at most 1000 locks", "upload: 1001 locks refused, "
	    "naming the cap");
	free(t);
	t = big_profile(2, 1001);
	is_str(check(proto_check_upload, t), "profiles[0].locks[0].callers: "
	    "expected an array of at most 1000 callers",
	    "upload: 1001 callers of a lock refused");
	free(t);
	t = big_profile(70, 999);
	ok(strstr(check(proto_check_upload, t), "more than 65536 lock and "
	    "caller entries") != NULL, "upload: 70k entries in all refused");
	free(t);
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"status\":\"done\",\"samples\":[],\"profiles\":[{\"type\":"
	    "\"lock-profile\",\"workload\":\"lock-profile\",\"locks\":[{"
	    "\"lock\":\"a\\u001b[2J\",\"symbol\":\"s\",\"share\":0.1}]}]}"),
	    "profiles[0].locks[0].lock: expected 1..256 printable characters",
	    "upload: a lock name with ESC refused");
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"status\":\"done\",\"samples\":[{\"workload\":\"x\","
	    "\"params\":\"\",\"iteration\":1,\"metric\":\"m\\u0007\","
	    "\"value\":1,\"unit\":\"u\",\"better\":\"higher\"}]}"),
	    "samples[0].metric: only printable ASCII",
	    "upload: a metric name with BEL refused at upload, not at compare");
	buf_addstr(&b, "{\"agent\":\"q1\",\"attempt\":1,\"status\":"
	    "\"done\",\"samples\":[");
	for (i = 0; i < 4097; i++)
		buf_addf(&b, "%s{\"workload\":\"x\",\"params\":\"\","
		    "\"iteration\":1,\"metric\":\"m%zu\",\"value\":1,"
		    "\"unit\":\"u\",\"better\":\"higher\"}", i ? "," : "", i);
	buf_addstr(&b, "]}");
	is_str(check(proto_check_upload, b.data), "samples[4096]: more than "
	    "4096 distinct workload/params/metric rows in one upload",
	    "upload: 4097 distinct rows refused");
	buf_release(&b);
}

#define TOPO "{\"sockets\":2,\"nodes\":2,\"cpus\":4,\"cores\":4," \
	"\"cpu_model\":\"X\",\"memory_mb\":2048,\"node_cpus\":[\"0-1\",\"2-3\"]}"
#define SAMPLE "{\"workload\":\"fault-free\",\"params\":\"mode=shmem\"," \
	"\"iteration\":1,\"metric\":\"pages_per_sec\",\"value\":12.5," \
	"\"unit\":\"pages/s\",\"better\":\"higher\"}"

int
main(void)
{
	json_t *o;

	is_str(check(proto_check_register, "{\"agent\":\"q1\",\"backend\":"
	    "\"qemu\",\"topology\":" TOPO "}"), "", "register: good");
	is_str(check(proto_check_register, "{\"agent\":\"q1\",\"backend\":"
	    "\"qemu\"}"), "topology: missing", "register: missing topology");
	is_str(check(proto_check_register, "{\"agent\":\"q1\",\"backend\":"
	    "\"qemu\",\"topology\":{\"sockets\":\"2\",\"nodes\":2,\"cpus\":4,"
	    "\"cpu_model\":\"X\",\"memory_mb\":1}}"),
	    "topology.sockets: expected a non-negative integer",
	    "register: sockets as a string names topology.sockets");
	is_str(check(proto_check_register, "{\"agent\":\"../etc\",\"backend\":"
	    "\"qemu\",\"topology\":" TOPO "}"),
	    "agent: must be 1-64 of [A-Za-z0-9._-], not starting with '.' or "
	    "'-'", "register: a path as a name is refused");
	is_str(check(proto_check_register, "{\"agent\":\"q1\",\"backend\":"
	    "\"qemu\",\"topology\":" TOPO ",\"extra\":1}"),
	    "extra: unknown field", "register: unknown field named");
	is_str(check(proto_check_register, "{\"agent\":\"q1\",\"backend\":"
	    "\"qemu\",\"topology\":{\"sockets\":0,\"nodes\":2,\"cpus\":4,"
	    "\"cpu_model\":\"X\",\"memory_mb\":1}}"),
	    "topology.sockets/nodes/cpus: must be at least 1",
	    "register: zero sockets refused");
	is_str(check(proto_check_register, "{\"agent\":\"q1\",\"backend\":"
	    "\"qemu\",\"topology\":{\"sockets\":1,\"nodes\":1,\"cpus\":4,"
	    "\"cpu_model\":\"X\",\"memory_mb\":1,\"node_cpus\":[\"0-3;rm\"]}}"),
	    "topology.node_cpus[0]: expected a CPU list like \"0-3,8\"",
	    "register: bad cpu list named with its index");

	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"status\":\"done\",\"samples\":[" SAMPLE "]}"), "",
	    "upload: good");
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":\"1\","
	    "\"status\":\"done\",\"samples\":[]}"),
	    "attempt: expected a non-negative integer",
	    "upload: attempt as a string");
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"status\":\"fine\",\"samples\":[]}"),
	    "status: expected \"done\", \"boot-failed\" or \"failed\"",
	    "upload: unknown status");
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"status\":\"done\",\"samples\":[" SAMPLE ",{\"workload\":\"x\","
	    "\"params\":\"\",\"iteration\":1,\"metric\":\"m\",\"value\":\"fast\","
	    "\"unit\":\"u\",\"better\":\"higher\"}]}"),
	    "samples[1].value: expected a number",
	    "upload: bad sample named with its index");
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"status\":\"done\",\"samples\":[{\"workload\":\"x\",\"params\":"
	    "\"\",\"iteration\":1,\"metric\":\"m\",\"value\":1,\"unit\":\"u\","
	    "\"better\":\"sideways\"}]}"),
	    "samples[0].better: expected \"higher\" or \"lower\"",
	    "upload: better must be higher or lower");
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"status\":\"done\",\"samples\":{}}"),
	    "samples: expected an array", "upload: samples as an object");
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"status\":\"done\",\"samples\":[],\"profiles\":[{\"type\":"
	    "\"lock-profile\",\"workload\":\"lock-profile\",\"locks\":[]}]}"),
	    "", "upload: a lock profile is accepted whole");
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"status\":\"done\",\"samples\":[],\"profiles\":[{\"type\":"
	    "\"lock-profile\",\"workload\":\"lock-profile\",\"params\":"
	    "\"target=a\\u001b[2J\",\"locks\":[]}]}"),
	    "profiles[0].params: only printable ASCII",
	    "upload: an escape byte in a lock profile's params");
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"status\":\"done\",\"samples\":[],\"profiles\":[{\"type\":"
	    "\"lock-profile\",\"workload\":\"lock\\u0007\",\"locks\":[]}]}"),
	    "profiles[0].workload: only printable ASCII",
	    "upload: a BEL in a lock profile's workload");
	is_str(check(proto_check_upload, "{\"agent\":\"q1\",\"attempt\":0,"
	    "\"status\":\"done\",\"samples\":[]}"),
	    "attempt: must be at least 1", "upload: attempt 0");
	test_upload_caps();
	is_str(check(proto_check_upload, "[1,2]"),
	    "body: expected a JSON object", "upload: an array body");

	is_str(check(proto_check_job, "{\"id\":3,\"attempt\":1,\"kernel\":{"
	    "\"id\":1,\"sha256\":\"" "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef\",\"size\":10,\"url\":"
	    "\"/api/v1/kernels/1/bzImage\"},\"matrix\":\"[run \\\"a\\\"]\","
	    "\"cmdline\":\"quiet\",\"lease_seconds\":60}"), "", "job: good");
	is_str(check(proto_check_job, "{\"id\":3,\"attempt\":1,\"kernel\":{"
	    "\"id\":1,\"sha256\":\"ABC\",\"size\":10,\"url\":\"/k\"},"
	    "\"matrix\":\"\",\"lease_seconds\":60}"),
	    "kernel.sha256: expected 64 lowercase hex digits",
	    "job: bad sha256 named");
	is_str(check(proto_check_job, "{\"id\":3,\"attempt\":1,\"kernel\":{"
	    "\"id\":1,\"sha256\":\"" "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef\",\"size\":10,\"url\":"
	    "\"http://evil/x\"},\"matrix\":\"\",\"lease_seconds\":60}"),
	    "kernel.url: expected an absolute path on the server",
	    "job: a URL to another host is refused");
	is_str(check(proto_check_job, "{\"id\":3,\"attempt\":1,\"kernel\":{"
	    "\"id\":1,\"sha256\":\"" "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef\",\"size\":10,\"url\":\"/k\"},"
	    "\"matrix\":\"\",\"cmdline\":\"a\\\"b\",\"lease_seconds\":60}"),
	    "cmdline: only printable ASCII without quotes or backslashes",
	    "job: a quote in the cmdline is refused");

	is_str(check(proto_check_heartbeat, "{\"agent\":\"q1\",\"attempt\":2,"
	    "\"progress\":\"booting\"}"), "", "heartbeat: good");
	is_str(check(proto_check_heartbeat, "{\"agent\":\"q1\"}"),
	    "attempt: missing", "heartbeat: missing attempt");

	is_str(check(proto_check_release, "{\"agent\":\"q1\",\"attempt\":2,"
	    "\"reason\":\"lava-run: Infrastructure error\"}"), "",
	    "release: good");
	is_str(check(proto_check_release, "{\"agent\":\"q1\",\"attempt\":2}"),
	    "reason: missing", "release: a reason is required");
	is_str(check(proto_check_release, "{\"agent\":\"q1\",\"attempt\":0,"
	    "\"reason\":\"x\"}"), "attempt: must be at least 1",
	    "release: attempt 0");
	is_str(check(proto_check_release, "{\"agent\":\"q1\",\"attempt\":1,"
	    "\"reason\":\"a\\nb\"}"), "reason: only printable ASCII",
	    "release: a newline in the reason (it goes into the log)");

	/* Strings with NUL bytes cannot hide text from C consumers. */
	o = json_object();
	json_object_set_new(o, "agent", json_stringn("q\0x", 3));
	json_object_set_new(o, "attempt", json_integer(1));
	buf_reset(&err);
	ok(proto_check_heartbeat(o, &err) == -1 &&
	    strcmp(err.data, "agent: contains a NUL byte") == 0,
	    "a NUL inside a string is refused");
	json_decref(o);

	ok(proto_valid_name("qemu-1.lab_2"), "name: ordinary");
	ok(!proto_valid_name(""), "name: empty");
	ok(!proto_valid_name("-x"), "name: leading dash");
	ok(!proto_valid_name("a/b"), "name: slash");
	ok(!proto_valid_sha256("0123"), "sha256: short");
	ok(proto_valid_cmdline("rdinit=/x quiet"), "cmdline: ordinary");
	ok(!proto_valid_cmdline("a\nb"), "cmdline: newline");

	/* changed functions: the job's probes and the upload's hits */
#define JOB_PRE "{\"id\":3,\"attempt\":1,\"kernel\":{\"id\":1," \
	"\"sha256\":\"0123456789abcdef0123456789abcdef0123456789abcdef" \
	"0123456789abcdef\",\"size\":10,\"url\":\"/api/v1/kernels/1/bzImage\"}," \
	"\"matrix\":\"[run \\\"a\\\"]\",\"lease_seconds\":60,\"probes\":"
	is_str(check(proto_check_job, JOB_PRE "[\"folio_batch_move_lru\","
	    "\"sys_mincore\"]}"), "", "job: probes accepted");
	is_str(check(proto_check_job, JOB_PRE "[\"x\\n-:y\"]}"),
	    "probes[0]: expected a C identifier of at most 127 bytes",
	    "job: a probe that is no identifier is refused");
	is_str(check(proto_check_job, JOB_PRE "[\"a\",\"a\"]}"),
	    "probes[1]: a is listed twice", "job: a probe twice is refused");
#define UP_PRE "{\"agent\":\"q1\",\"attempt\":1,\"status\":\"done\"," \
	"\"samples\":[],"
	is_str(check(proto_check_upload, UP_PRE "\"probe_hits\":[{\"function\":"
	    "\"folio_batch_move_lru\",\"hits\":12},{\"function\":\"b\","
	    "\"error\":\"not registered\"}],\"environment\":{\"thp_enabled\":"
	    "\"[always] madvise never\",\"accel\":\"tcg\"}}"), "",
	    "upload: probe hits and environment accepted");
	is_str(check(proto_check_upload, UP_PRE "\"probe_hits\":[{\"function\":"
	    "\"a b\",\"hits\":1}]}"),
	    "probe_hits[0].function: expected a C identifier",
	    "upload: a probe name that is no identifier");
	is_str(check(proto_check_upload, UP_PRE "\"probe_hits\":[{\"function\":"
	    "\"a\"}]}"), "probe_hits[0]: expected either hits or error",
	    "upload: a probe with neither hits nor error");
	is_str(check(proto_check_upload, UP_PRE "\"probe_hits\":[{\"function\":"
	    "\"a\",\"hits\":-1}]}"),
	    "probe_hits[0].hits: expected a non-negative integer",
	    "upload: negative hits");
	is_str(check(proto_check_upload, UP_PRE "\"environment\":{\"rm\":\"x\"}}"),
	    "environment.rm: unknown field", "upload: unknown environment key");
	ok(proto_valid_symbol("__x64_sys_mincore"), "symbol: ordinary");
	ok(!proto_valid_symbol("9a"), "symbol: leading digit");
	ok(!proto_valid_symbol("a.constprop.0"), "symbol: dot");

	buf_release(&err);
	return tap_done();
}
