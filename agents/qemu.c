/*
 * qemu: the boot backend for development, CI and demos.  A job's kernel
 * boots in qemu-system-x86_64 on an emulated 2-socket NUMA machine with an
 * initramfs we write ourselves (busybox-static, kperfci-load, the job's
 * matrix and a small /init).  The guest prints marker lines and samples on
 * its second serial port (ttyS1 -> results.log); ttyS0 is the console log.
 *
 * DESIGN.  qemu runs under guest_run (guest.c): a thread runs it (own
 * process group, job timeout) while the agent's thread watches
 * results.log for the READY marker (boot timeout), sends heartbeats and
 * cancels qemu when the lease is lost; guest_upload turns the guest's
 * output into the result, as for the LAVA backend.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/run.h"
#include "lib/xalloc.h"

static const char init_script[] =
	"#!/bin/busybox sh\n"
	"# kperfci guest init: mount, report topology, run the matrix, power off\n"
	"/bin/busybox --install -s /bin\n"
	"export PATH=/bin\n"
	"mount -t proc proc /proc\n"
	"mount -t sysfs sysfs /sys\n"
	"mount -t devtmpfs devtmpfs /dev 2>/dev/null\n"
	"mkdir -p /tmp /run\n"
	"mount -t tmpfs tmpfs /tmp\n"
	"mount -t cgroup2 cgroup2 /sys/fs/cgroup || echo 'kperfci: no cgroup2'\n"
	"stty -F /dev/ttyS1 raw -echo 2>/dev/null\n"
	"exec 3>/dev/ttyS1\n"
	"echo 'KPERFCI READY' >&3\n"
	"nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)\n"
	"[ \"$nodes\" -gt 0 ] || nodes=1\n"
	"cpus=$(grep -c ^processor /proc/cpuinfo)\n"
	"sockets=$(cat /sys/devices/system/cpu/cpu[0-9]*/topology/physical_package_id | sort -u | wc -l)\n"
	"cores=$(for c in /sys/devices/system/cpu/cpu[0-9]*/topology; do echo $(cat $c/physical_package_id).$(cat $c/core_id); done | sort -u | wc -l)\n"
	"mem=$(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo)\n"
	"echo \"KPERFCI TOPO sockets=$sockets nodes=$nodes cpus=$cpus cores=$cores memory_mb=$mem\" >&3\n"
	"echo \"KPERFCI MODEL $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')\" >&3\n"
	"for n in /sys/devices/system/node/node[0-9]*; do\n"
	"\t[ -e $n/cpulist ] && echo \"KPERFCI NODE ${n##*node} $(cat $n/cpulist)\" >&3\n"
	"done\n"
	"/bin/kperfci-load --matrix /etc/kperfci/matrix.conf >&3\n"
	"echo \"KPERFCI DONE rc=$?\" >&3\n"
	"# what this boot ran with (the report's environment)\n"
	"T=/sys/kernel/mm/transparent_hugepage\n"
	"echo \"KPERFCI ENV thp_enabled $(cat $T/enabled 2>/dev/null)\" >&3\n"
	"echo \"KPERFCI ENV thp_defrag $(cat $T/defrag 2>/dev/null)\" >&3\n"
	"m=\n"
	"for d in $T/hugepages-*kB; do\n"
	"\t[ -e $d/enabled ] && m=\"$m ${d##*hugepages-}:$(sed 's/.*\\[\\(.*\\)\\].*/\\1/' $d/enabled)\"\n"
	"done\n"
	"echo \"KPERFCI ENV mthp ${m:- none}\" >&3\n"
	"echo \"KPERFCI ENV cmdline $(cat /proc/cmdline)\" >&3\n"
	"echo \"KPERFCI ENV kernel_release $(uname -r)\" >&3\n"
	"# the changed-functions pass (agents/probe.c), after the measured\n"
	"# passes so that they are not perturbed\n"
	"if [ -s /etc/kperfci/probes ]; then\n"
	"\tK=/sys/kernel/tracing\n"
	"\t[ -e $K/kprobe_events ] || mount -t tracefs tracefs $K 2>/dev/null\n"
	"\ti=0\n"
	"\twhile read f; do\n"
	"\t\t[ \"$f\" != - ] && echo \"p:kperfci/f$i $f\" >> $K/kprobe_events 2>/dev/null ||\n"
	"\t\t    echo \"KPERFCI PROBE-ERR $i\" >&3\n"
	"\t\ti=$((i + 1))\n"
	"\tdone < /etc/kperfci/probes\n"
	"\techo 1 > $K/events/kperfci/enable 2>/dev/null\n"
	"\t/bin/kperfci-load --matrix /etc/kperfci/probe-matrix.conf >/dev/null 2>&1\n"
	"\techo 0 > $K/events/kperfci/enable 2>/dev/null\n"
	"\twhile read ev hits missed; do\n"
	"\t\techo \"KPERFCI PROBE $ev $hits\" >&3\n"
	"\tdone < $K/kprobe_profile\n"
	"\techo 'KPERFCI PROBES-DONE' >&3\n"
	"fi\n"
	"# the end of the output: a LAVA device's boot action waits for it\n"
	"echo 'KPERFCI END' >&3\n"
	"sync\n"
	"poweroff -f\n"
	"reboot -f\n";

/* The KVM probe: reaching READY is all we ask. */
static const char probe_script[] =
	"#!/bin/busybox sh\n"
	"/bin/busybox mount -t devtmpfs devtmpfs /dev\n"
	"echo 'KPERFCI READY' > /dev/ttyS1\n"
	"/bin/busybox poweroff -f\n";

json_t *
qemu_topology(const struct agent_conf *c)
{
	char model[256] = "unknown", line[512];
	FILE *f;

	if ((f = fopen("/proc/cpuinfo", "r"))) {
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "model name", 10) == 0 &&
			    strchr(line, ':')) {
				char *m = strchr(line, ':') + 1;

				m += strspn(m, " \t");
				m[strcspn(m, "\n")] = '\0';
				snprintf(model, sizeof(model), "%.200s", m);
				break;
			}
		fclose(f);
	}
	/* The class names what the workloads see: an emulated machine. */
	snprintf(line, sizeof(line), "QEMU (host %.200s)", model);
	return guest_topology(c->sockets, c->cores_per_socket,
	    c->mem_per_node_mb, line);
}

/*
 * Multi-threaded TCG or icount?  Under -icount qemu runs every vCPU on one
 * host thread, round robin, and TCG's PAUSE ends the running vCPU's turn
 * (target/i386 do_pause: "let another CPU run").  Guest time is the count
 * of instructions of all vCPUs together.  So a lock waiter spinning with
 * cpu_relax() and a udelay() loop (delay_tsc, rep_nop) give their turn
 * away at once, and the other vCPUs' useful work fills the wait: a delay
 * under a lock costs far less than on hardware, and the changed interleave
 * can even make a workload faster (a 2 us lru_lock delay: page_fault1
 * +9.6 % at tasks=node).  Neither the round-robin slice (qemu's kick
 * period is fixed at build time) nor udelay's calibration (the TSC follows
 * the same instruction clock, so 20 us is 20 us of guest time) can be
 * changed from here; what can is not to use icount where the host has a
 * thread per vCPU: multi-threaded TCG runs the vCPUs at once, so spinning
 * and holding overlap as on hardware, at the price of guest time following
 * the host's load.
 */
static int
qemu_use_mttcg(const struct agent_conf *c)
{
	long host = sysconf(_SC_NPROCESSORS_ONLN);
	int vcpus = c->sockets * c->cores_per_socket;

	if (strcmp(c->mttcg, "on") == 0)
		return 1;
	if (strcmp(c->mttcg, "off") == 0)
		return 0;
	/* auto: a configured icount is a choice (reproducible figures on a
	   shared host) and stands; else one host CPU per vCPU and a spare */
	return c->icount[0] == '\0' && host >= vcpus + 1;
}

/* "tcg, icount shift=3,sleep=off ..." / "tcg, multi-threaded" / "kvm". */
static void
qemu_accel_words(const struct agent_conf *c, const char *accel, char *out,
    size_t sz)
{
	if (strcmp(accel, "kvm") == 0)
		snprintf(out, sz, "kvm");
	else if (qemu_use_mttcg(c))
		snprintf(out, sz, "tcg, multi-threaded (%d vCPUs on %ld host "
		    "CPUs: instructions emulated, timing follows the host)",
		    c->sockets * c->cores_per_socket,
		    sysconf(_SC_NPROCESSORS_ONLN));
	else if (c->icount[0] != '\0')
		snprintf(out, sz, "tcg, icount %.100s (one vCPU at a time: "
		    "contention is emulated)", c->icount);
	else
		snprintf(out, sz, "tcg, one vCPU at a time");
}

static void
qemu_build_argv(const struct agent_conf *c, const char *accel,
    const char *bzimage, const char *initrd, const char *append,
    const char *console_log, const char *results_log, struct strvec *a)
{
	int cpus = c->sockets * c->cores_per_socket;

	strvec_pushf(a, "%s", c->qemu_bin);
	strvec_push(a, "-nodefaults");
	strvec_push(a, "-display");
	strvec_push(a, "none");
	strvec_push(a, "-no-reboot");	/* panic=-1 reboots: qemu exits */
	strvec_push(a, "-accel");
	if (strcmp(accel, "tcg") == 0 && qemu_use_mttcg(c))
		strvec_push(a, "tcg,thread=multi");
	else
		strvec_pushf(a, "%s", accel);
	if (strcmp(accel, "kvm") == 0) {
		strvec_push(a, "-cpu");
		strvec_push(a, "host");
	} else if (qemu_use_mttcg(c)) {
		/* one host thread per vCPU: no icount (qemu refuses both) */
	} else if (c->icount[0] != '\0') {
		/* Guest time counted in executed instructions: on a shared,
		   loaded host the guest clock otherwise follows the host's
		   load and per-boot means spread by 40-50%. */
		strvec_push(a, "-icount");
		strvec_pushf(a, "%s", c->icount);
	}
	strvec_push(a, "-m");
	strvec_pushf(a, "%dM", c->sockets * c->mem_per_node_mb);
	strvec_push(a, "-smp");
	strvec_pushf(a, "%d,sockets=%d,cores=%d,threads=1", cpus, c->sockets,
	    c->cores_per_socket);
	for (int s = 0; s < c->sockets; s++) {
		strvec_push(a, "-object");
		strvec_pushf(a, "memory-backend-ram,id=m%d,size=%dM", s,
		    c->mem_per_node_mb);
		strvec_push(a, "-numa");
		strvec_pushf(a, "node,nodeid=%d,cpus=%d-%d,memdev=m%d", s,
		    s * c->cores_per_socket, (s + 1) * c->cores_per_socket - 1,
		    s);
	}
	/* Entropy for the guest: without it getrandom() stalls under TCG and
	   file-read spends its time waiting for the RNG (qemu.config has
	   HW_RANDOM_VIRTIO). */
	strvec_push(a, "-device");
	strvec_push(a, "virtio-rng-pci");
	strvec_push(a, "-kernel");
	strvec_pushf(a, "%s", bzimage);
	strvec_push(a, "-initrd");
	strvec_pushf(a, "%s", initrd);
	strvec_push(a, "-append");
	strvec_pushf(a, "%s", append);
	strvec_push(a, "-serial");
	strvec_pushf(a, "file:%s", console_log);
	strvec_push(a, "-serial");
	strvec_pushf(a, "file:%s", results_log);
}

void
qemu_argv(const struct agent_conf *c, const char *accel, const char *bzimage,
    const char *initrd, const char *append, const char *console_log,
    const char *results_log, struct strvec *out)
{
	qemu_build_argv(c, accel, bzimage, initrd, append, console_log,
	    results_log, out);
}

static int
build_initramfs(const struct agent_conf *c, const char *script,
    const char *matrix, const json_t *probes, int with_load, const char *path,
    struct buf *err)
{
	struct initramfs fs;
	int rc = -1;

	initramfs_init(&fs);
	initramfs_dir(&fs, "bin", 0755);
	initramfs_dir(&fs, "dev", 0755);
	initramfs_chardev(&fs, "dev/console", 0600, 5, 1);
	initramfs_chardev(&fs, "dev/null", 0666, 1, 3);
	initramfs_dir(&fs, "proc", 0755);
	initramfs_dir(&fs, "sys", 0755);
	initramfs_dir(&fs, "tmp", 01777);
	initramfs_dir(&fs, "etc", 0755);
	initramfs_dir(&fs, "etc/kperfci", 0755);
	initramfs_file(&fs, "init", 0755, script, strlen(script));
	if (initramfs_copy(&fs, "bin/busybox", c->busybox, 0755) == -1) {
		buf_addf(err, "initramfs: cannot read busybox %s", c->busybox);
		goto out;
	}
	initramfs_symlink(&fs, "bin/sh", "busybox");
	if (with_load) {
		if (initramfs_copy(&fs, "bin/kperfci-load", c->load_bin,
		    0755) == -1) {
			buf_addf(err, "initramfs: cannot read %s", c->load_bin);
			goto out;
		}
		initramfs_file(&fs, "etc/kperfci/matrix.conf", 0644, matrix,
		    strlen(matrix));
	}
	if (with_load && json_array_size(probes)) {
		char *list = probe_list(probes), *pm = probe_matrix(matrix);

		initramfs_file(&fs, "etc/kperfci/probes", 0644, list,
		    strlen(list));
		initramfs_file(&fs, "etc/kperfci/probe-matrix.conf", 0644, pm,
		    strlen(pm));
		free(list);
		free(pm);
	}
	if (initramfs_finish(&fs) == -1) {
		buf_addstr(err, "initramfs: could not be built");
		goto out;
	}
	if (buf_write_file(path, fs.out.data, fs.out.len) == -1) {
		buf_addf(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	initramfs_release(&fs);
	return rc;
}

int
qemu_initramfs(const struct agent_conf *c, const char *matrix,
    const json_t *probes, const char *path, struct buf *err)
{
	return build_initramfs(c, init_script, matrix, probes, 1, path, err);
}

/*
 * Runs the probe guest, sending heartbeats (progress "probing KVM") while
 * it boots: the probe may take its whole timeout, longer than a lease.
 */
static void
qemu_probe_run(const struct agent_conf *c, struct strvec *a,
    const char *console, agent_progress_fn progress, void *arg)
{
	struct guest_run g;
	double last_hb;

	memset(&g, 0, sizeof(g));
	g.c = c;
	g.runner = "qemu";
	g.run.argv = strvec_argv(a);
	g.run.timeout_sec = c->kvm_probe_timeout;
	g.run.log_path = console;
	g.run.cancel = &g.cancel;
	if (guest_start(&g) == -1) {
		run_cmd(&g.run);
		return;
	}
	last_hb = g.t0;
	while (!g.finished) {
		usleep(250000);
		if (agent_stopping)
			g.cancel = 1;
		if (progress && guest_now() - last_hb >= c->heartbeat_seconds) {
			last_hb = guest_now();
			progress(arg, "probing KVM");
		}
	}
	guest_join(&g);
	log_info("qemu: KVM probe ran %.1f s (%s)", guest_now() - g.t0,
	    run_status(&g.run));
}

const char *
qemu_accel(const struct agent_conf *c, const char *bzimage)
{
	return qemu_accel_progress(c, bzimage, NULL, NULL);
}

const char *
qemu_accel_progress(const struct agent_conf *c, const char *bzimage,
    agent_progress_fn progress, void *arg)
{
	char *path, *dir, *initrd, *console, *results, line[16] = "";
	struct buf err = BUF_INIT(1024);
	const char *ans = "tcg";
	struct strvec a = STRVEC_INIT;
	FILE *f;

	if (strcmp(c->accel, "auto") != 0)
		return c->accel;
	path = xasprintf("%s/accel", c->state_dir);
	if ((f = fopen(path, "r"))) {
		if (fgets(line, sizeof(line), f))
			line[strcspn(line, "\n")] = '\0';
		fclose(f);
		if (strcmp(line, "kvm") == 0 || strcmp(line, "tcg") == 0) {
			free(path);
			return strcmp(line, "kvm") == 0 ? "kvm" : "tcg";
		}
	}
	dir = xasprintf("%s/kvm-probe", c->state_dir);
	mkdir(dir, 0755);
	initrd = xasprintf("%s/probe.cpio", dir);
	console = xasprintf("%s/console.log", dir);
	results = xasprintf("%s/results.log", dir);
	unlink(console);
	unlink(results);
	if (access("/dev/kvm", R_OK | W_OK) == -1) {
		log_info("qemu: /dev/kvm not usable (%s): TCG", strerror(errno));
		goto decided;
	}
	if (build_initramfs(c, probe_script, NULL, NULL, 0, initrd,
	    &err) == -1) {
		log_warnx("qemu: KVM probe: %s", err.data);
		goto decided;
	}
	/* KVM here can hang rather than fail: only a boot that reaches
	   READY within the timeout counts. */
	qemu_build_argv(c, "kvm", bzimage, initrd,
	    "console=ttyS0 panic=-1 quiet", console, results, &a);
	qemu_probe_run(c, &a, console, progress, arg);
	if (guest_file_has(results, "KPERFCI READY"))
		ans = "kvm";
	log_info("qemu: KVM probe %s: using %s", ans[0] == 'k' ?
	    "booted" : "failed", ans);
	strvec_clear(&a);
decided:
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%s\n", ans);
		fclose(f);
	}
	free(path);
	free(dir);
	free(initrd);
	free(console);
	free(results);
	buf_release(&err);
	return ans;
}

int
qemu_run_job(const struct agent_conf *c, const json_t *job,
    const char *bzimage, json_t *upload, agent_progress_fn progress,
    void *arg)
{
	const char *matrix = json_string_value(json_object_get(job,
	    PROTO_MATRIX));
	char *dir, *initrd, *console, *results, *append, how[160];
	struct buf err = BUF_INIT(4096), con = BUF_INIT(64 * 1024 * 1024),
	    res = BUF_INIT(PROTO_MAX_BODY);
	struct agent_results ar;
	struct strvec a = STRVEC_INIT;
	struct guest_run *g = xmalloc(sizeof(*g));
	double t_build;
	const char *accel;
	int rc = -1;

	agent_results_init(&ar);
	dir = xasprintf("%s/job-%lld-%lld", c->state_dir,
	    json_integer_value(json_object_get(job, PROTO_ID)),
	    json_integer_value(json_object_get(job, PROTO_ATTEMPT)));
	initrd = xasprintf("%s/initramfs.cpio", dir);
	console = xasprintf("%s/console.log", dir);
	results = xasprintf("%s/results.log", dir);
	guest_init(g, c, job, "qemu", results);
	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		log_warn("%s", dir);
		goto out;
	}
	unlink(console);
	unlink(results);
	t_build = guest_now();
	if (qemu_initramfs(c, matrix, json_object_get(job, PROTO_PROBES),
	    initrd, &err) == -1) {
		error("job %lld: %s", g->id, err.data);
		goto out;
	}
	t_build = guest_now() - t_build;
	accel = qemu_accel_progress(c, bzimage, progress, arg);
	append = guest_cmdline(job);
	qemu_build_argv(c, accel, bzimage, initrd, append, console, results,
	    &a);
	free(append);
	g->run.argv = strvec_argv(&a);
	g->run.timeout_sec = c->job_timeout;
	g->run.log_path = console;	/* qemu's own complaints too */
	log_info("job %lld.%d: booting %s under %s (initramfs %.2f s)", g->id,
	    g->attempt, bzimage, accel, t_build);
	if (guest_run(g, progress, arg) == -1 || g->lost)
		goto out;
	buf_read_file(&con, console);
	buf_read_file(&res, results);
	if (res.data)
		agent_results_parse(&ar, res.data, res.len);
	qemu_accel_words(c, accel, how, sizeof(how));
	guest_upload(g, job, how, &ar, &con, upload);
	rc = 0;
out:
	if (g->lost)
		rc = 1;
	else if (rc == -1)
		guest_give_back_reason(g, &err, upload);
	strvec_clear(&a);
	agent_results_release(&ar);
	buf_release(&err);
	buf_release(&con);
	buf_release(&res);
	free(g);
	free(dir);
	free(initrd);
	free(console);
	free(results);
	return rc;
}
