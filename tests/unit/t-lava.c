/*
 * t-lava: agents/lava.c on what the real dispatcher wrote: two logs of
 * lava-run 2023.01 (Debian bookworm) booting the reference kernel under
 * TCG on the qemu device of tests/fixtures/lava/ (one passed; one where
 * the guest powered off before LAVA saw its kernel start: Infrastructure),
 * a server's job state, and the job definition's quoting.  Then the
 * LAVA backend's own pieces (lava_run.c, guest.c): the file:// URLs and
 * job names it writes, agent.conf's [lava], the device's registered
 * topology, the job's command line, and the shared upload path on what
 * lava-run's log carried (as the qemu backend's results port); the
 * server mode's [lava] keys and what its REST API answers a submission.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/lava.h"
#include "lib/buf.h"
#include "lib/proto.h"
#include "lib/sha256.h"
#include "tests/unit/tap.h"

#define FIX KPERFCI_SRCDIR "/tests/fixtures/lava/"

static void
test_urls(void)
{
	struct buf u = BUF_INIT(0);
	char name[64];

	ok(lava_file_url(&u, "/var/lib/kperfci-agent/job-3-1/initramfs.cpio")
	    == 0 && !strcmp(u.data,
	    "file:///var/lib/kperfci-agent/job-3-1/initramfs.cpio"),
	    "file:// URL of an absolute path");
	buf_reset(&u);
	ok(lava_file_url(&u, "state/k.bzImage") == -1, "a relative path is "
	    "refused");
	ok(lava_file_url(&u, "/tmp/a b/k") == -1 &&
	    lava_file_url(&u, "/tmp/%41/k") == -1 &&
	    lava_file_url(&u, "/tmp/k'") == -1,
	    "a blank, a %% and a quote are refused (LAVA does not decode)");
	ok(lava_file_url(&u, "/tmp/../etc/k") == -1 &&
	    lava_file_url(&u, "/tmp/./k") == -1 &&
	    lava_file_url(&u, "/tmp/..k/.k") == 0,
	    "'.' and '..' components refused, names starting with a dot not");
	buf_release(&u);
	lava_job_name(12, 3, name, sizeof(name));
	is_str(name, "kperfci-12.3", "job name");
}

static void
test_conf(void)
{
	struct agent_conf c;
	struct buf err = BUF_INIT(4096);
	json_t *t;

	agent_conf_defaults(&c);
	ok(agent_conf_parse(&c, "a.conf", "[agent]\nbackend = lava\n[lava]\n"
	    "lava-run = sudo -n /usr/bin/lava-run\ndevice = /etc/d.yaml\n"
	    "sockets = 2\ncores-per-socket = 4\nmemory-per-node = 512\n"
	    "job-timeout = 600\nboot-timeout = 90\n", &err) == 0,
	    "[lava] parses: %s", err.data ? err.data : "");
	ok(c.backend == AGENT_LAVA && !strcmp(agent_backend_name(c.backend),
	    "lava"), "backend lava");
	ok(!strcmp(c.lava_run, "sudo -n /usr/bin/lava-run") &&
	    !strcmp(c.lava_device, "/etc/d.yaml") &&
	    !strcmp(c.lava_device_type, "qemu"),
	    "lava-run, device, device-type (default qemu)");
	ok(c.job_timeout == 600 && c.boot_timeout == 90 && c.sockets == 2 &&
	    c.cores_per_socket == 4, "the machine and timeouts from [lava]");
	t = lava_run_topology(&c);
	ok(json_integer_value(json_object_get(t, PROTO_NODES)) == 2 &&
	    json_integer_value(json_object_get(t, PROTO_CPUS)) == 8 &&
	    json_integer_value(json_object_get(t, PROTO_MEMORY_MB)) == 1024 &&
	    !strcmp(json_string_value(json_object_get(t, PROTO_CPU_MODEL)),
	    "LAVA device type qemu") &&
	    !strcmp(json_string_value(json_array_get(json_object_get(t,
	    PROTO_NODE_CPUS), 1)), "4-7"),
	    "registered topology: 2 nodes of 4 CPUs, class named by the "
	    "device type");
	ok(proto_check(t, proto_topology, "", &err) == 0,
	    "it checks as a topology");
	json_decref(t);
	agent_conf_release(&c);

	buf_reset(&err);
	agent_conf_defaults(&c);
	ok(agent_conf_parse(&c, "a.conf", "[agent]\nbackend = lava\n", &err)
	    == -1 && strstr(err.data, "[lava] device: backend = lava needs"),
	    "backend = lava without a device is refused");
	agent_conf_release(&c);
	buf_reset(&err);
	agent_conf_defaults(&c);
	ok(agent_conf_parse(&c, "a.conf", "[lava]\ndevice-type = qemu x\n",
	    &err) == -1 && strstr(err.data, "device-type: expected"),
	    "a device type LAVA would not take is refused");
	agent_conf_release(&c);
	buf_reset(&err);
	agent_conf_defaults(&c);
	ok(agent_conf_parse(&c, "a.conf", "[lava]\njob-timeout = 30\n", &err)
	    == -1 && strstr(err.data, "a.conf:2: job-timeout"),
	    "job-timeout: LAVA counts in minutes, at least 60 s");
	agent_conf_release(&c);
	ok(agent_state_next(AGENT_PH_READY, AGENT_EV_BOOTED, AGENT_LAVA,
	    AGENT_IN_HOME) && agent_state_next(AGENT_PH_READY,
	    AGENT_EV_BOOTED, AGENT_LAVA, AGENT_IN_HOME)->action ==
	    AGENT_ACT_UPLOAD, "state table: a LAVA run that booted uploads");
	buf_release(&err);
}

/* [lava]'s server mode: url, the token checked against its sha256,
   files-dir with files-url. */
static void
test_conf_server(void)
{
	struct agent_conf c;
	struct buf err = BUF_INIT(4096), text = BUF_INIT(0);
	char path[] = "/tmp/t-lava-token.XXXXXX", sha[65];
	int fd = mkstemp(path);

	ok(fd >= 0 && write(fd, "s3cr3tT0ken\n", 12) == 12 && close(fd) == 0 &&
	    sha256_file(path, sha) == 0, "a token file");
#define SERVER(extra) do { \
	buf_reset(&text); \
	buf_reset(&err); \
	buf_addf(&text, "[agent]\nbackend = lava\n[lava]\n" \
	    "url = http://lava.example.org//\ntoken-file = %s\n%s", path, \
	    extra); \
	agent_conf_defaults(&c); \
} while (0)
	SERVER("");
	buf_addf(&text, "token-sha256 = %s\n", sha);
	ok(agent_conf_parse(&c, "a.conf", text.data, &err) == 0,
	    "server mode parses without a device: %s", err.data ? err.data :
	    "");
	is_str(c.lava_url, "http://lava.example.org", "url, no trailing /");
	is_str(c.lava_token, "s3cr3tT0ken", "the token read from its file");
	is_int(c.lava_queue_timeout, 3600, "queue-timeout default 1 h");
	agent_conf_release(&c);

	SERVER("token-sha256 = 0123\n");
	ok(agent_conf_parse(&c, "a.conf", text.data, &err) == -1 &&
	    strstr(err.data, "does not match token-sha256") &&
	    !strstr(err.data, "s3cr3t"),
	    "a token that is not token-sha256's is refused, not printed");
	agent_conf_release(&c);
	SERVER("");
	ok(agent_conf_parse(&c, "a.conf", text.data, &err) == -1 &&
	    strstr(err.data, "url needs token-file"),
	    "url without token-sha256 is refused");
	agent_conf_release(&c);
	SERVER("");
	buf_addf(&text, "token-sha256 = %s\nfiles-dir = /srv/lava\n", sha);
	ok(agent_conf_parse(&c, "a.conf", text.data, &err) == -1 &&
	    strstr(err.data, "files-dir and files-url go together"),
	    "files-dir without files-url is refused");
	agent_conf_release(&c);
	SERVER("");
	buf_addf(&text, "token-sha256 = %s\nfiles-dir = /srv/lava\n"
	    "files-url = ftp://x/\n", sha);
	ok(agent_conf_parse(&c, "a.conf", text.data, &err) == -1 &&
	    strstr(err.data, "files-url: expected an http"),
	    "files-url must be http(s)");
	agent_conf_release(&c);
	buf_reset(&text);
	buf_reset(&err);
	agent_conf_defaults(&c);
	ok(agent_conf_parse(&c, "a.conf", "[agent]\nbackend = lava\n[lava]\n"
	    "url = file:///etc\n", &err) == -1 && strstr(err.data,
	    "[lava] url: expected the LAVA server's http"),
	    "a url that is not http(s) is refused");
	agent_conf_release(&c);
	unlink(path);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	ok(fd >= 0 && write(fd, "two words\n", 10) == 10 && close(fd) == 0 &&
	    sha256_file(path, sha) == 0, "a token file with a blank");
	SERVER("");
	buf_addf(&text, "token-sha256 = %s\n", sha);
	ok(agent_conf_parse(&c, "a.conf", text.data, &err) == -1 &&
	    strstr(err.data, "expected one line, a LAVA token"),
	    "a token that could not be one header word is refused");
	agent_conf_release(&c);
#undef SERVER
	unlink(path);
	buf_release(&err);
	buf_release(&text);
}

/* What LAVA's REST API answers a submission (lava-server 2023.01's
   words). */
static void
test_submit(void)
{
	static const char okay[] = "{\"message\":\"job(s) successfully "
	    "submitted\",\"job_ids\":[17]}";
	static const char refused[] = "{\"message\":\"Problem with submitted "
	    "job data: Invalid device type\\u0007 'x'\"}";
	char msg[64];

	is_int((int)lava_submit_parse(okay, strlen(okay)), 17,
	    "submission: the job id");
	ok(lava_submit_parse("{\"job_ids\":[]}", 14) == -1 &&
	    lava_submit_parse("{\"job_ids\":[1,2]}", 17) == -1 &&
	    lava_submit_parse("{\"job_ids\":[\"3\"]}", 17) == -1 &&
	    lava_submit_parse("{\"job_ids\":[-4]}", 16) == -1 &&
	    lava_submit_parse("<html>", 6) == -1,
	    "no id, two (multinode), a string, a negative one, HTML: none");
	lava_message_parse(refused, strlen(refused), msg, sizeof(msg));
	is_str(msg, "Problem with submitted job data: Invalid device type? 'x'",
	    "the refusal's message, control bytes replaced");
	lava_message_parse(refused, strlen(refused), msg, 8);
	is_str(msg, "Problem", "cut to the buffer");
	lava_message_parse("garbage", 7, msg, sizeof(msg));
	is_str(msg, "", "no message in garbage");
}

/* The upload the LAVA backend builds from a job log: the qemu backend's
   path (guest_upload) on the console LAVA kept. */
static void
test_upload(const struct buf *passlog)
{
	struct agent_conf c;
	struct guest_run g;
	struct agent_results ar;
	struct lava_log l;
	json_t *job = json_pack("{s:I,s:I,s:s}", PROTO_ID, (json_int_t)5,
	    PROTO_ATTEMPT, (json_int_t)2, PROTO_CMDLINE, "mitigations=off"),
	    *up = json_object();
	const char *pan = "{\"lvl\": \"target\", \"msg\": \"Linux version 6\"}\n"
	    "{\"lvl\": \"target\", \"msg\": \"Kernel panic - not syncing: "
	    "VFS\"}\n";
	char *cmd = guest_cmdline(job);

	is_str(cmd, "console=ttyS0 panic=-1 kperfci.job=5.2 mitigations=off",
	    "the job's kernel command line: console, marker, extra");
	free(cmd);
	agent_conf_defaults(&c);
	guest_init(&g, &c, job, "lava-run", NULL);
	ok(g.id == 5 && g.attempt == 2, "guest_init: id and attempt");

	lava_log_init(&l);
	lava_log_parse(&l, passlog->data, passlog->len);
	agent_results_init(&ar);
	agent_results_parse(&ar, l.console.data, l.console.len);
	ok(ar.ended, "the guest's KPERFCI END is a marker, not junk");
	guest_upload(&g, job, "LAVA device type qemu", &ar, &l.console, up);
	is_str(json_string_value(json_object_get(up, PROTO_STATUS)), "done",
	    "upload: done");
	ok(json_array_size(json_object_get(up, PROTO_SAMPLES)) == 1 &&
	    json_integer_value(json_object_get(json_object_get(up,
	    PROTO_TOPOLOGY), PROTO_NODES)) == 2,
	    "upload: the sample and the guest's topology");
	ok(strstr(json_string_value(json_object_get(up, PROTO_CONSOLE)),
	    "Linux version 6.12") != NULL, "upload: the console");
	is_str(json_string_value(json_object_get(json_object_get(up,
	    PROTO_ENVIRONMENT), "accel")), "LAVA device type qemu",
	    "upload: what it ran under");
	agent_results_release(&ar);
	lava_log_release(&l);
	json_decref(up);

	up = json_object();
	lava_log_init(&l);
	lava_log_parse(&l, pan, strlen(pan));
	agent_results_init(&ar);
	agent_results_parse(&ar, l.console.data, l.console.len);
	guest_upload(&g, job, "x", &ar, &l.console, up);
	ok(!strcmp(json_string_value(json_object_get(up, PROTO_STATUS)),
	    "boot-failed") && !strcmp(json_string_value(json_object_get(up,
	    PROTO_REASON)), "Kernel panic - not syncing: VFS"),
	    "a panic before READY: boot-failed, the panic line its reason");
	agent_results_release(&ar);
	lava_log_release(&l);
	json_decref(up);

	up = json_object();
	agent_results_init(&ar);
	snprintf(g.ended, sizeof(g.ended), "lava-run: LAVATimeout error: "
	    "auto-login-action timed out");
	guest_upload(&g, job, "x", &ar, &l.console, up);
	is_str(json_string_value(json_object_get(up, PROTO_REASON)),
	    "the guest ended before the ready marker (lava-run: LAVATimeout "
	    "error: auto-login-action timed out)",
	    "no guest, no panic: the reason says how LAVA ended");
	agent_results_release(&ar);
	json_decref(up);
	json_decref(job);
	agent_conf_release(&c);
}

int
main(void)
{
	struct buf b = BUF_INIT(0), y = BUF_INIT(0);
	struct lava_log l;
	struct lava_job_state s;
	struct agent_results ar;
	static const char st[] = "{\"id\": 4, \"state\": \"Finished\", "
	    "\"health\": \"Incomplete\", \"failure_comment\": \"x\"}";
	static const char infra[] = "{\"lvl\":\"results\",\"msg\":{"
	    "\"case\":\"job\",\"definition\":\"lava\",\"result\":\"fail\","
	    "\"error_type\":\"Infrastructure\"}}\n";
	const char *panic;

	buf_read_file(&b, FIX "lava-run-pass.log");
	lava_log_init(&l);
	lava_log_parse(&l, b.data, b.len);
	is_int(l.job_result, 1, "the passed job's result: pass");
	ok(l.ready && !l.panic, "the guest got ready, no panic");
	is_int(lava_log_outcome(&l), LAVA_RAN, "outcome: ran");
	agent_results_init(&ar);
	agent_results_parse(&ar, l.console.data, l.console.len);
	is_int((int)json_array_size(ar.samples), 1,
	    "the guest's sample read back from the console (\\\" undone)");
	ok(ar.topology != NULL && ar.done && ar.done_rc == 0,
	    "its topology and DONE marker");
	agent_results_release(&ar);
	lava_log_release(&l);
	buf_reset(&b);

	buf_read_file(&b, FIX "lava-run-infrastructure.log");
	lava_log_init(&l);
	lava_log_parse(&l, b.data, b.len);
	is_str(l.error_type, "Infrastructure", "error_type read");
	is_int(lava_log_outcome(&l), LAVA_RAN,
	    "an infrastructure error after the guest's END is still a run");
	lava_log_release(&l);

	lava_log_init(&l);
	lava_log_parse(&l, infra, strlen(infra));
	is_int(lava_log_outcome(&l), LAVA_RETRY,
	    "Infrastructure before the guest: retry");
	lava_log_release(&l);
	lava_log_init(&l);
	panic = "- {\"lvl\": \"target\", \"msg\": "
	    "\"KPERFCI READY\"}"
	    "\n- {\"lvl\": \"target\", \"msg\": \"Kernel panic - not syncing\"}"
	    "\ngarbage\n";
	lava_log_parse(&l, panic, strlen(panic));
	is_int(lava_log_outcome(&l), LAVA_BOOT_FAILED,
	    "a kernel panic (server YAML lines): boot-failed");
	is_int((int)l.junk, 1, "garbage counted");
	lava_log_release(&l);

	lava_state_parse(&s, st, strlen(st));
	ok(s.state == LAVA_ST_FINISHED && !strcmp(s.health, "Incomplete"),
	    "job state: Finished, Incomplete");
	lava_state_release(&s);
	lava_state_parse(&s, "[1]", 3);
	is_int(s.state, LAVA_ST_BAD, "garbage state: bad");
	lava_state_release(&s);

	ok(lava_job_yaml(&y, "kperfci-1.1", "qemu", "file:///k/bzImage",
	    "file:///i/it's.cpio", "console=ttyS0 panic=-1", 10) == 0 &&
	    strstr(y.data, "'file:///i/it''s.cpio'") &&
	    strstr(y.data, "prompts: ['KPERFCI END']"),
	    "job definition: quoted urls, the end prompt");
	buf_reset(&y);
	ok(lava_job_yaml(&y, "x\ny", "qemu", "a", "b", "c", 10) == -1,
	    "a name with a newline is refused");
	buf_release(&y);
	buf_reset(&b);
	buf_read_file(&b, FIX "lava-run-pass.log");
	test_urls();
	test_conf();
	test_conf_server();
	test_submit();
	test_upload(&b);
	buf_release(&b);
	return tap_done();
}
