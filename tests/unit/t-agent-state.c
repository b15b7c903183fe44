/*
 * t-agent-state: the agent's state machine (qemu and kexec, a kexec reboot
 * simulated by saving the job, dropping every in-memory state and loading
 * it again under another /proc/cmdline and uname -r), the exact kexec
 * command lines, the bzImage release, result parsing, agent.conf and the
 * host topology reader on a sample /sys tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/proto.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static char tmp[] = "/tmp/t-agent-state.XXXXXX";

static json_t *
job(long long id, int attempt)
{
	return json_pack("{s:I,s:i,s:{s:i,s:s,s:i,s:s},s:s,s:s,s:i}",
	    "id", id, "attempt", attempt, "kernel", "id", 1, "sha256",
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	    "size", 100, "url", "/api/v1/kernels/1/bzImage", "matrix",
	    "[run \"a\"]\nworkload = null\n", "cmdline", "mitigations=off",
	    "lease_seconds", 60);
}

/* Steps and checks next phase and action. */
static enum agent_phase
step(enum agent_phase ph, enum agent_event ev, enum agent_backend be,
    enum agent_where w, enum agent_phase want, enum agent_action act,
    const char *name)
{
	const struct agent_transition *t = agent_state_next(ph, ev, be, w);

	ok(t && t->next == want && t->action == act, "%s: %s -> %s, %s", name,
	    agent_phase_name(ph), agent_phase_name(want),
	    agent_action_name(act));
	if (t && (t->next != want || t->action != act))
		printf("#   got %s, %s\n", agent_phase_name(t->next),
		    agent_action_name(t->action));
	return t ? t->next : ph;
}

static void
write_file(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel), *d = xstrdup(p), *s;

	mkdir(dir, 0755);
	for (s = d + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(d, 0755);
		*s = '/';
	}
	buf_write_file(p, text, strlen(text));
	free(p);
	free(d);
}

static void
test_qemu_path(void)
{
	enum agent_phase ph = AGENT_PH_IDLE;
	const enum agent_backend Q = AGENT_QEMU;

	ph = step(ph, AGENT_EV_START, Q, AGENT_IN_HOME, AGENT_PH_IDLE,
	    AGENT_ACT_LEASE, "qemu start");
	ph = step(ph, AGENT_EV_NO_JOB, Q, AGENT_IN_HOME, AGENT_PH_IDLE,
	    AGENT_ACT_LEASE, "qemu no job");
	ph = step(ph, AGENT_EV_LEASED, Q, AGENT_IN_HOME, AGENT_PH_LEASED,
	    AGENT_ACT_DOWNLOAD, "qemu leased");
	ph = step(ph, AGENT_EV_DOWNLOADED, Q, AGENT_IN_HOME, AGENT_PH_READY,
	    AGENT_ACT_BOOT, "qemu downloaded");
	ph = step(ph, AGENT_EV_BOOTED, Q, AGENT_IN_HOME, AGENT_PH_RESULTS,
	    AGENT_ACT_UPLOAD, "qemu guest ended (done or boot-failed alike)");
	ph = step(ph, AGENT_EV_UPLOADED, Q, AGENT_IN_HOME, AGENT_PH_IDLE,
	    AGENT_ACT_LEASE, "qemu uploaded");
	step(AGENT_PH_LEASED, AGENT_EV_DOWNLOAD_BAD, Q, AGENT_IN_HOME,
	    AGENT_PH_IDLE, AGENT_ACT_DROP, "corrupt kernel: drop the lease");
	step(AGENT_PH_READY, AGENT_EV_LEASE_LOST, Q, AGENT_IN_HOME,
	    AGENT_PH_IDLE, AGENT_ACT_DROP, "lease lost while booting: drop");
	step(AGENT_PH_RESULTS, AGENT_EV_START, Q, AGENT_IN_HOME,
	    AGENT_PH_RESULTS, AGENT_ACT_UPLOAD,
	    "restart with results on disk: upload them");
	step(AGENT_PH_LEASED, AGENT_EV_START, Q, AGENT_IN_HOME,
	    AGENT_PH_LEASED, AGENT_ACT_DOWNLOAD,
	    "restart while downloading: download again");
	ok(agent_state_next(AGENT_PH_IDLE, AGENT_EV_BOOTED, Q, AGENT_IN_HOME)
	    == NULL, "impossible combination has no row");
	ok(agent_state_next(AGENT_PH_BOOTING, AGENT_EV_START, Q, AGENT_IN_HOME)
	    == NULL, "qemu never persists booting");
}

static void
test_where(void)
{
	is_int(agent_state_where(7, 2, "6.12.0", "6.1.0-home",
	    "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro"), AGENT_IN_HOME,
	    "no marker: home kernel");
	is_int(agent_state_where(7, 2, "6.12.0", "6.12.0",
	    "root=/dev/sda1 kperfci.job=7.2"), AGENT_IN_JOB,
	    "marker and release match: job kernel");
	is_int(agent_state_where(7, 2, "6.12.0", "6.1.0",
	    "root=/dev/sda1 kperfci.job=7.2"), AGENT_IN_WRONG,
	    "marker but another release: wrong kernel");
	is_int(agent_state_where(7, 2, "6.12.0", "6.12.0",
	    "root=/dev/sda1 kperfci.job=7.1"), AGENT_IN_STALE,
	    "marker of another attempt: stale");
	is_int(agent_state_where(7, 2, "6.12.0", "6.12.0",
	    "root=/dev/sda1 kperfci.job=7.22"), AGENT_IN_STALE,
	    "marker prefix is not enough");
	is_int(agent_state_where(7, 2, "6.12.0", "6.12.0",
	    "xkperfci.job=7.2"), AGENT_IN_HOME,
	    "marker must be a whole word");
}

static void
test_kexec_lines(void)
{
	struct agent_conf c;
	struct strvec a = STRVEC_INIT;
	struct buf cmd = BUF_INIT(0);

	agent_kexec_cmdline("BOOT_IMAGE=/boot/vmlinuz-6.1.0 root=UUID=abc ro "
	    "quiet kperfci.job=3.1\n", "mitigations=off", 7, 2, &cmd);
	is_str(cmd.data, "root=UUID=abc ro quiet mitigations=off "
	    "kperfci.job=7.2", "kexec cmdline: BOOT_IMAGE and old marker "
	    "dropped, extra and marker appended");
	agent_conf_defaults(&c);
	agent_kexec_load_argv(&c, "/var/lib/kperfci-agent/kernels/k.bzImage",
	    cmd.data, &a);
	is_int(a.n, 4, "kexec -l argv without initrd: 4 words");
	is_str(a.v[0], "kexec", "argv[0]");
	is_str(a.v[1], "-l", "argv[1]");
	is_str(a.v[2], "/var/lib/kperfci-agent/kernels/k.bzImage", "argv[2]");
	is_str(a.v[3], "--command-line=root=UUID=abc ro quiet mitigations=off "
	    "kperfci.job=7.2", "argv[3]: the whole cmdline as one word");
	ok(a.v[4] == NULL, "argv NULL-terminated");
	strvec_clear(&a);
	free(c.kexec_initrd);
	c.kexec_initrd = xstrdup("/boot/initrd.img-job");
	agent_kexec_load_argv(&c, "/k", "root=/dev/sda1 kperfci.job=1.1", &a);
	is_int(a.n, 5, "with initrd: 5 words");
	is_str(a.v[3], "--initrd=/boot/initrd.img-job", "argv[3] initrd");
	is_str(a.v[4], "--command-line=root=/dev/sda1 kperfci.job=1.1",
	    "argv[4] cmdline");
	strvec_clear(&a);
	agent_argv_split(c.kexec_exec, &a);
	is_int(a.n, 2, "exec: systemctl kexec");
	is_str(a.v[0], "systemctl", "exec argv[0]");
	is_str(a.v[1], "kexec", "exec argv[1]");
	strvec_clear(&a);
	agent_argv_split(c.reboot_cmd, &a);
	is_str(a.v[1], "reboot", "home: systemctl reboot");
	strvec_clear(&a);
	{
		struct buf many = BUF_INIT(0);

		for (int i = 0; i < 100; i++)
			buf_addf(&many, "%sw%d", i ? " " : "", i);
		agent_argv_split(many.data, &a);
		is_int(a.n, 100, "a 100-word command keeps every word (a "
		    "fixed array of 64 dropped the rest)");
		is_str(a.v[99], "w99", "the last one included");
		ok(a.v[100] == NULL, "NULL-terminated");
		strvec_clear(&a);
		buf_release(&many);
	}
	agent_conf_release(&c);
	buf_release(&cmd);
}

/* A kexec job across a simulated reboot, through the job file. */
static void
test_kexec_reboot(void)
{
	const enum agent_backend K = AGENT_KEXEC;
	struct agent_job j = { 0 }, back;
	const struct agent_transition *t;
	char *dir = xasprintf("%s/state", tmp);
	enum agent_where w;

	mkdir(dir, 0755);
	ok(agent_job_load(&back, dir) == 0 && back.phase == AGENT_PH_IDLE,
	    "no job file: idle");
	agent_job_release(&back);

	j.phase = step(AGENT_PH_IDLE, AGENT_EV_LEASED, K, AGENT_IN_HOME,
	    AGENT_PH_LEASED, AGENT_ACT_DOWNLOAD, "kexec leased");
	j.job = job(7, 2);
	j.phase = step(j.phase, AGENT_EV_DOWNLOADED, K, AGENT_IN_HOME,
	    AGENT_PH_READY, AGENT_ACT_BOOT, "kexec downloaded");
	/* kexec_boot saves BOOTING just before `systemctl kexec`. */
	j.phase = AGENT_PH_BOOTING;
	j.release = xstrdup("6.12.0-kperfci");
	ok(agent_job_save(&j, dir) == 0, "job saved before the reboot");
	agent_job_release(&j);

	/* ---- reboot: the job kernel came up ---- */
	ok(agent_job_load(&back, dir) == 0, "job file read after the reboot");
	is_str(agent_phase_name(back.phase), "booting", "phase survived");
	is_int(agent_job_id(&back), 7, "job id survived");
	is_int(agent_job_attempt(&back), 2, "attempt survived");
	is_str(back.release, "6.12.0-kperfci", "expected release survived");
	w = agent_state_where(agent_job_id(&back), agent_job_attempt(&back),
	    back.release, "6.12.0-kperfci", "root=/dev/sda1 ro "
	    "mitigations=off kperfci.job=7.2");
	back.phase = step(back.phase, AGENT_EV_START, K, w, AGENT_PH_RUNNING,
	    AGENT_ACT_RUN, "after reboot in the job kernel: run natively");
	back.phase = step(back.phase, AGENT_EV_RAN, K, w, AGENT_PH_RESULTS,
	    AGENT_ACT_UPLOAD, "ran: upload");
	back.phase = step(back.phase, AGENT_EV_UPLOADED, K, w,
	    AGENT_PH_UPLOADED, AGENT_ACT_RETURN_HOME,
	    "uploaded in the job kernel: return home");
	agent_job_save(&back, dir);
	agent_job_release(&back);

	/* ---- reboot: back in the home kernel ---- */
	agent_job_load(&back, dir);
	w = agent_state_where(agent_job_id(&back), agent_job_attempt(&back),
	    back.release, "6.1.0-home", "BOOT_IMAGE=/vmlinuz root=/dev/sda1");
	is_int(w, AGENT_IN_HOME, "home kernel recognised");
	step(back.phase, AGENT_EV_START, K, w, AGENT_PH_IDLE, AGENT_ACT_LEASE,
	    "home again after the upload: lease the next job");
	agent_job_release(&back);

	/* ---- the job kernel never came up ---- */
	j.job = job(8, 1);
	j.phase = AGENT_PH_BOOTING;
	j.release = xstrdup("6.12.0-panics");
	agent_job_save(&j, dir);
	agent_job_release(&j);
	agent_job_load(&back, dir);
	w = agent_state_where(agent_job_id(&back), agent_job_attempt(&back),
	    back.release, "6.1.0-home", "root=/dev/sda1 ro");
	step(back.phase, AGENT_EV_START, K, w, AGENT_PH_RESULTS,
	    AGENT_ACT_FAIL_BOOT, "back home while booting: boot-failed");
	w = agent_state_where(agent_job_id(&back), agent_job_attempt(&back),
	    back.release, "6.1.0-other", "root=/dev/sda1 kperfci.job=8.1");
	step(back.phase, AGENT_EV_START, K, w, AGENT_PH_RESULTS,
	    AGENT_ACT_FAIL_BOOT, "wrong release under our marker: boot-failed");
	step(AGENT_PH_RUNNING, AGENT_EV_START, K, AGENT_IN_JOB,
	    AGENT_PH_RESULTS, AGENT_ACT_FAIL_RUN,
	    "restarted mid-run: failed, not run again");
	t = agent_state_next(AGENT_PH_RESULTS, AGENT_EV_UPLOADED, K,
	    AGENT_IN_HOME);
	ok(t && t->action == AGENT_ACT_LEASE,
	    "boot-failed uploaded from home: lease next");
	step(AGENT_PH_IDLE, AGENT_EV_START, K, AGENT_IN_STALE, AGENT_PH_IDLE,
	    AGENT_ACT_RETURN_HOME, "idle in a stale job kernel: go home");
	agent_job_release(&back);

	write_file(dir, "job.json", "{\"phase\":\"booting\",\"job\":{}}");
	ok(agent_job_load(&back, dir) == -1 && back.phase == AGENT_PH_IDLE,
	    "corrupt job file: refused, idle");
	agent_job_release(&back);
	free(dir);
}

static void
test_bzimage(void)
{
	unsigned char img[0x400] = { 0 };
	char *p = xasprintf("%s/bz", tmp), rel[64];

	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00;
	img[0x20f] = 0x01;	/* version at 0x100 + 0x200 */
	strcpy((char *)img + 0x300, "6.12.0-kp (root@h) #1 SMP");
	buf_write_file(p, img, sizeof(img));
	ok(agent_bzimage_release(p, rel, sizeof(rel)) == 0 &&
	    strcmp(rel, "6.12.0-kp") == 0, "bzImage release read: %s", rel);
	img[0x202] = 'X';
	buf_write_file(p, img, sizeof(img));
	ok(agent_bzimage_release(p, rel, sizeof(rel)) == -1,
	    "not a bzImage: -1");
	free(p);
}

static void
test_results(void)
{
	struct agent_results r;
	const char text[] =
	    "KPERFCI READY\r\n"
	    "KPERFCI TOPO sockets=2 nodes=2 cpus=4 cores=4 memory_mb=2003\r\n"
	    "KPERFCI MODEL QEMU Virtual CPU\r\n"
	    "KPERFCI NODE 0 0-1\r\n"
	    "KPERFCI NODE 1 2-3\r\n"
	    "{\"workload\":\"fault-free\",\"params\":\"mode=anon\",\"iteration\":"
	    "1,\"metric\":\"pages_per_sec\",\"value\":5,\"unit\":\"pages/s\","
	    "\"better\":\"higher\"}\r\n"
	    "{\"type\":\"lock-profile\",\"workload\":\"lock-profile\"}\n"
	    "{\"error\":\"swap-memhog: no zram\"}\n"
	    "garbage \xff\n"
	    "{\"workload\":1}\n"
	    "KPERFCI NODE 2 0-1;reboot\n"
	    "KPERFCI DONE rc=0\n";
	struct buf err = BUF_INIT(256);

	agent_results_init(&r);
	agent_results_parse(&r, text, sizeof(text) - 1);
	ok(r.ready, "ready marker");
	ok(r.done && r.done_rc == 0, "done marker with rc");
	is_int(json_array_size(r.samples), 1, "one sample");
	is_int(json_array_size(r.profiles), 1, "one profile");
	is_int(json_array_size(r.errors), 1, "one error line");
	is_int(r.junk, 2, "garbage and a bad sample counted as junk");
	json_object_set_new(r.topology, "cpu_model", json_string("x"));
	ok(proto_check(r.topology, proto_topology, "", &err) == 0,
	    "guest topology is a valid proto topology %s",
	    err.data ? err.data : "");
	is_int(json_array_size(json_object_get(r.topology, "node_cpus")), 2,
	    "two nodes; a node line with junk is ignored");
	is_int(json_integer_value(json_object_get(r.topology, "nodes")), 2,
	    "nodes=2");
	agent_results_release(&r);
	buf_release(&err);
}

static void
test_conf(void)
{
	struct agent_conf c;
	struct buf err = BUF_INIT(1024);

	agent_conf_defaults(&c);
	ok(agent_conf_parse(&c, "a.conf", "[agent]\nname = q1\nserver = "
	    "http://h:1/\nbackend = kexec\n[qemu]\nsockets = 2\n[kexec]\n"
	    "append = root=/dev/sda1\n", &err) == 0, "conf parses");
	is_str(c.server, "http://h:1", "trailing slash dropped");
	is_int(c.backend, AGENT_KEXEC, "backend kexec");
	is_str(c.kexec_append, "root=/dev/sda1", "append kept whole");
	buf_reset(&err);
	ok(agent_conf_parse(&c, "a.conf", "[agent]\nnmae = x\n", &err) == -1,
	    "unknown key refused");
	is_str(err.data, "a.conf:2: unknown key 'nmae' in [agent]\n",
	    "error names file:line and key");
	buf_reset(&err);
	ok(agent_conf_parse(&c, "a.conf", "[qemu]\nsockets = 99\n", &err) ==
	    -1 && strstr(err.data, "a.conf:2: sockets"), "range checked");
	buf_reset(&err);
	ok(agent_conf_parse(&c, "a.conf", "[agent]\nbackend = vm\n", &err) ==
	    -1 && strstr(err.data, "backend"), "backend checked");
	buf_reset(&err);
	ok(agent_conf_parse(&c, "a.conf", "[qemu]\nicount = 3 -kernel /x\n",
	    &err) == -1 && strstr(err.data, "icount: expected"),
	    "icount is one option string, nothing else");
	agent_conf_release(&c);
	buf_release(&err);
}

static void
test_qemu_argv(void)
{
	struct agent_conf c;
	struct strvec a = STRVEC_INIT;
	struct buf all = BUF_INIT(0), err2 = BUF_INIT(512);
	json_t *t;

	agent_conf_defaults(&c);
	free(c.mttcg);
	c.mttcg = xstrdup("off");	/* auto depends on the host's CPUs */
	qemu_argv(&c, "tcg", "/k/bz", "/j/initramfs.cpio",
	    "console=ttyS0 panic=-1 kperfci.job=1.1", "/j/console.log",
	    "/j/results.log", &a);
	for (size_t i = 0; i < a.n; i++)
		buf_addf(&all, "%s%s", i ? " " : "", a.v[i]);
	is_str(all.data, "qemu-system-x86_64 -nodefaults -display none "
	    "-no-reboot -accel tcg -m 2048M -smp 4,sockets=2,cores=2,threads=1 "
	    "-object memory-backend-ram,id=m0,size=1024M "
	    "-numa node,nodeid=0,cpus=0-1,memdev=m0 "
	    "-object memory-backend-ram,id=m1,size=1024M "
	    "-numa node,nodeid=1,cpus=2-3,memdev=m1 "
	    "-device virtio-rng-pci -kernel /k/bz -initrd /j/initramfs.cpio "
	    "-append console=ttyS0 panic=-1 kperfci.job=1.1 "
	    "-serial file:/j/console.log -serial file:/j/results.log",
	    "qemu argv: 2 sockets x 2 cores, memory per node");
	strvec_clear(&a);

	free(c.icount);
	c.icount = xstrdup("shift=3,sleep=off");
	qemu_argv(&c, "tcg", "/k/bz", "/j/i", "x", "/j/c", "/j/r", &a);
	buf_reset(&all);
	for (size_t i = 0; i < a.n; i++)
		buf_addf(&all, "%s%s", i ? " " : "", a.v[i]);
	ok(strstr(all.data, " -accel tcg -icount shift=3,sleep=off -m ") != NULL,
	    "icount follows -accel tcg: %s", all.data);
	strvec_clear(&a);
	qemu_argv(&c, "kvm", "/k/bz", "/j/i", "x", "/j/c", "/j/r", &a);
	buf_reset(&all);
	for (size_t i = 0; i < a.n; i++)
		buf_addf(&all, "%s%s", i ? " " : "", a.v[i]);
	ok(strstr(all.data, "-icount") == NULL, "no icount under kvm");
	strvec_clear(&a);
	free(c.mttcg);
	c.mttcg = xstrdup("on");
	qemu_argv(&c, "tcg", "/k/bz", "/j/i", "x", "/j/c", "/j/r", &a);
	buf_reset(&all);
	for (size_t i = 0; i < a.n; i++)
		buf_addf(&all, "%s%s", i ? " " : "", a.v[i]);
	ok(strstr(all.data, " -accel tcg,thread=multi -m ") != NULL &&
	    strstr(all.data, "-icount") == NULL, "mttcg = on: one host thread "
	    "per vCPU and no icount: %s", all.data);
	strvec_clear(&a);
	free(c.mttcg);
	c.mttcg = xstrdup("auto");
	qemu_argv(&c, "tcg", "/k/bz", "/j/i", "x", "/j/c", "/j/r", &a);
	buf_reset(&all);
	for (size_t i = 0; i < a.n; i++)
		buf_addf(&all, "%s%s", i ? " " : "", a.v[i]);
	ok(strstr(all.data, "-icount shift=3,sleep=off") != NULL,
	    "mttcg = auto: a configured icount stands");
	strvec_clear(&a);
	ok(agent_conf_parse(&c, "a.conf", "[qemu]\nmttcg = maybe\n", &err2)
	    == -1 && strstr(err2.data, "mttcg: expected auto, on or off"),
	    "mttcg: a bad value is named");
	t = qemu_topology(&c);
	is_int(json_integer_value(json_object_get(t, "nodes")), 2,
	    "registered guest topology: 2 nodes");
	is_str(json_string_value(json_array_get(json_object_get(t,
	    "node_cpus"), 1)), "2-3", "node 1 has CPUs 2-3");
	json_decref(t);
	buf_release(&all);
	buf_release(&err2);
	agent_conf_release(&c);
}

static void
test_hosttopo(void)
{
	char *root = xasprintf("%s/root", tmp);
	struct buf err = BUF_INIT(256);
	const int pkg[] = { 0, 0, 1, 1, 0, 0, 1, 1 };
	const int core[] = { 0, 1, 0, 1, 0, 1, 0, 1 };
	char rel[128], v[16];
	json_t *t;

	/* 2 sockets x 2 cores x 2 threads, 2 nodes. */
	for (int i = 0; i < 8; i++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/"
		    "topology/physical_package_id", i);
		snprintf(v, sizeof(v), "%d\n", pkg[i]);
		write_file(root, rel, v);
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/"
		    "topology/core_id", i);
		snprintf(v, sizeof(v), "%d\n", core[i]);
		write_file(root, rel, v);
	}
	write_file(root, "sys/devices/system/node/node0/cpulist", "0-1,4-5\n");
	write_file(root, "sys/devices/system/node/node1/cpulist", "2-3,6-7\n");
	write_file(root, "proc/meminfo", "MemTotal:       65536000 kB\n");
	write_file(root, "proc/cpuinfo", "processor\t: 0\nmodel name\t: "
	    "Intel(R) Xeon(R) Gold 6140\n");
	t = hosttopo_read(root, &err);
	ok(t != NULL, "host topology read %s", err.data ? err.data : "");
	is_int(json_integer_value(json_object_get(t, "sockets")), 2, "sockets");
	is_int(json_integer_value(json_object_get(t, "nodes")), 2, "nodes");
	is_int(json_integer_value(json_object_get(t, "cpus")), 8, "cpus");
	is_int(json_integer_value(json_object_get(t, "cores")), 4, "cores");
	is_int(json_integer_value(json_object_get(t, "threads_per_core")), 2,
	    "threads per core");
	is_int(json_integer_value(json_object_get(t, "memory_mb")), 64000,
	    "memory");
	is_str(json_string_value(json_object_get(t, "cpu_model")),
	    "Intel(R) Xeon(R) Gold 6140", "model");
	is_str(json_string_value(json_array_get(json_object_get(t,
	    "node_cpus"), 1)), "2-3,6-7", "node 1 cpus");
	json_decref(t);
	ok(hosttopo_read("/nonexistent", &err) == NULL, "missing sysfs: NULL");
	buf_release(&err);
	free(root);
}

int
main(void)
{
	char *cmd;

	if (mkdtemp(tmp) == NULL)
		return 1;
	test_qemu_path();
	test_where();
	test_kexec_lines();
	test_kexec_reboot();
	test_bzimage();
	test_results();
	test_conf();
	test_qemu_argv();
	test_hosttopo();
	cmd = xasprintf("rm -rf %s", tmp);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmp);
	free(cmd);
	return tap_done();
}
