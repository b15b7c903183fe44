/*
 * lava_run: the LAVA backend, run with the real dispatcher (`lava-run`)
 * on a device dictionary ([lava] device): a machine a lab describes the
 * LAVA way, driven by LAVA's own deploy, boot and console code, without a
 * LAVA server.  For each leased job: the qemu backend's initramfs
 * (qemu_initramfs: busybox, kperfci-load, the matrix, /init), a LAVA job
 * definition that deploys the job's bzImage and that initramfs and boots
 * them until the guest's "KPERFCI END" (lava_job_yaml), lava-run as an
 * argv, and its job log read back (lava_log_parse): the device's console
 * carries the guest's marker lines and samples (the device muxes the
 * results port onto it), so guest_upload reads them exactly as it reads
 * the qemu backend's results port.
 *
 * How LAVA's end maps onto kperfci's (lava_log_outcome): the guest ran
 * (READY seen) -> its results, done or failed; a kernel panic, or the job
 * ending without the guest -> boot-failed with the console; an
 * Infrastructure, Configuration or Canceled error before the guest's END
 * -> no result: the lease is let go and the daemon offers the job again.
 *
 * Files, in state-dir/job-ID-ATTEMPT: initramfs.cpio, job.yaml, lava.log
 * (lava-run's stdout and stderr: the job log) and lava/ (its output
 * directory).  lava-run itself downloads into
 * /var/lib/lava/dispatcher/tmp/JOB-ID and must run as root.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/lava.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

json_t *
lava_run_topology(const struct agent_conf *c)
{
	char model[256];

	if (c->lava_cpu_model[0])
		snprintf(model, sizeof(model), "%.200s", c->lava_cpu_model);
	else
		snprintf(model, sizeof(model), "LAVA device type %.100s",
		    c->lava_device_type);
	return guest_topology(c->sockets, c->cores_per_socket,
	    c->mem_per_node_mb, model);
}

/* The minutes LAVA gives the boot action (the whole run: the guest's
   END ends it): job-timeout rounded up. */
static int
lava_run_minutes(const struct agent_conf *c)
{
	return (c->job_timeout + 59) / 60;
}

int
lava_files_make(const struct agent_conf *c, const json_t *job,
    struct lava_files *f, struct buf *err)
{
	f->dir = xasprintf("%s/job-%lld-%lld", c->state_dir,
	    json_integer_value(json_object_get(job, PROTO_ID)),
	    json_integer_value(json_object_get(job, PROTO_ATTEMPT)));
	f->initrd = xasprintf("%s/initramfs.cpio", f->dir);
	f->definition = xasprintf("%s/job.yaml", f->dir);
	f->log = xasprintf("%s/lava.log", f->dir);
	if (mkdir(f->dir, 0755) == -1 && errno != EEXIST) {
		buf_addf(err, "%s: %s", f->dir, strerror(errno));
		return -1;
	}
	unlink(f->log);
	return qemu_initramfs(c, json_string_value(json_object_get(job,
	    PROTO_MATRIX)), json_object_get(job, PROTO_PROBES), f->initrd,
	    err);
}

void
lava_files_release(struct lava_files *f)
{
	free(f->dir);
	free(f->initrd);
	free(f->definition);
	free(f->log);
	memset(f, 0, sizeof(*f));
}

int
lava_local_urls(const char *bzimage, const char *initrd, struct buf *kurl,
    struct buf *iurl, struct buf *err)
{
	char kreal[PATH_MAX], ireal[PATH_MAX];

	if (realpath(bzimage, kreal) == NULL || realpath(initrd, ireal) ==
	    NULL) {
		buf_addf(err, "%s: %s", bzimage, strerror(errno));
		return -1;
	}
	if (lava_file_url(kurl, kreal) == -1 ||
	    lava_file_url(iurl, ireal) == -1) {
		buf_addf(err, "%s or %s: not a path LAVA takes as a file:// "
		    "URL ([A-Za-z0-9/._+-] only)", kreal, ireal);
		return -1;
	}
	return 0;
}

int
lava_definition(const struct agent_conf *c, const json_t *job,
    const char *kernel_url, const char *initrd_url, const char *path,
    struct buf *err)
{
	struct buf y = BUF_INIT(1 << 20);
	char *append = guest_cmdline(job);
	char name[64];
	int rc = -1;

	lava_job_name(json_integer_value(json_object_get(job, PROTO_ID)),
	    (int)json_integer_value(json_object_get(job, PROTO_ATTEMPT)),
	    name, sizeof(name));
	if (lava_job_yaml(&y, name, c->lava_device_type, kernel_url,
	    initrd_url, append, lava_run_minutes(c)) == -1) {
		buf_addf(err, "the job cannot be a LAVA job definition (its "
		    "kernel command line has '\"' or a control byte: %.200s)",
		    append);
		goto out;
	}
	if (buf_write_file(path, y.data, y.len) == -1) {
		buf_addf(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(append);
	buf_release(&y);
	return rc;
}

/* Writes the job definition of job (kernel bzimage, initramfs initrd,
   as file:// URLs: lava-run reads them here) to path. */
static int
lava_run_definition(const struct agent_conf *c, const json_t *job,
    const char *bzimage, const char *initrd, const char *path,
    struct buf *err)
{
	struct buf kurl = BUF_INIT(PATH_MAX + 8), iurl = BUF_INIT(PATH_MAX + 8);
	int rc = -1;

	if (lava_local_urls(bzimage, initrd, &kurl, &iurl, err) == 0 &&
	    lava_definition(c, job, kurl.data, iurl.data, path, err) == 0)
		rc = 0;
	buf_release(&kurl);
	buf_release(&iurl);
	return rc;
}

/* lava-run's argv: [lava] lava-run (split on blanks: "sudo -n lava-run"
   works), a job id unique on this host, the output directory, the device
   and the definition. */
static void
lava_run_argv(const struct agent_conf *c, const struct guest_run *g,
    const char *outdir, const char *definition, struct strvec *a)
{
	agent_argv_split(c->lava_run, a);
	strvec_push(a, "--job-id");
	strvec_pushf(a, "kperfci-%ld-%lld.%d", (long)getpid(), g->id,
	    g->attempt);
	strvec_push(a, "--output-dir");
	strvec_push(a, outdir);
	strvec_push(a, "--device");
	strvec_push(a, c->lava_device);
	strvec_push(a, definition);
}

/* How the job ended, in LAVA's words when it said some: g->ended. */
static void
lava_run_ended(struct guest_run *g, const struct lava_log *l)
{
	if (l->error_type)
		snprintf(g->ended, sizeof(g->ended), "%s: %s error: %s",
		    g->runner, l->error_type, l->error_msg ? l->error_msg :
		    "(no message)");
	else if (l->job_result == 1)
		snprintf(g->ended, sizeof(g->ended), "%s: job passed",
		    g->runner);
}

int
lava_job_outcome(struct guest_run *g, const json_t *job, const char *log,
    const char *how, json_t *upload)
{
	struct buf text = BUF_INIT(LAVA_MAX_LOG);
	struct agent_results ar;
	struct lava_log l;
	enum lava_outcome o;
	int rc = -1;

	lava_log_init(&l);
	agent_results_init(&ar);
	buf_read_file(&text, log);
	lava_log_parse(&l, text.data ? text.data : "", text.len);
	o = lava_log_outcome(&l);
	lava_run_ended(g, &l);
	log_info("job %lld.%d: %s: %zu log lines, %s (%s)", g->id,
	    g->attempt, g->runner, l.lines, o == LAVA_RAN ? "the guest ran" :
	    o == LAVA_BOOT_FAILED ? "boot failed" : o == LAVA_RETRY ?
	    "LAVA failed" : "no outcome", g->ended);
	/* Our own boot timeout stopped it: the kernel's fault, as on qemu. */
	if (!g->boot_timed_out && (o == LAVA_RETRY || o == LAVA_UNKNOWN)) {
		log_warnx("job %lld.%d: no result from LAVA (%s; log %s): "
		    "giving the job back", g->id, g->attempt, g->ended, log);
		goto out;
	}
	agent_results_parse(&ar, l.console.data ? l.console.data : "",
	    l.console.len);
	guest_upload(g, job, how, &ar, &l.console, upload);
	rc = 0;
out:
	agent_results_release(&ar);
	lava_log_release(&l);
	buf_release(&text);
	return rc;
}

int
lava_run_job(const struct agent_conf *c, const json_t *job,
    const char *bzimage, json_t *upload, agent_progress_fn progress,
    void *arg)
{
	struct guest_run *g = xmalloc(sizeof(*g));
	struct buf err = BUF_INIT(4096);
	struct strvec a = STRVEC_INIT;
	struct lava_files f = { 0 };
	char *outdir = NULL, how[256];
	int rc = -1;

	guest_init(g, c, job, "lava-run", NULL);
	if (lava_files_make(c, job, &f, &err) == -1 ||
	    lava_run_definition(c, job, bzimage, f.initrd, f.definition,
	    &err) == -1) {
		error("job %lld: %s", g->id, err.data);
		goto out;
	}
	g->watch = f.log;
	outdir = xasprintf("%s/lava", f.dir);
	lava_run_argv(c, g, outdir, f.definition, &a);
	g->run.argv = strvec_argv(&a);
	/* LAVA's own job timeout (lava_job_yaml) ends it first. */
	g->run.timeout_sec = (lava_run_minutes(c) + 11) * 60;
	g->run.log_path = f.log;
	log_info("job %lld.%d: lava-run on device type %s (%s): %s", g->id,
	    g->attempt, c->lava_device_type, c->lava_device, f.definition);
	if (guest_run(g, progress, arg) == -1 || g->lost)
		goto out;
	snprintf(how, sizeof(how), "LAVA device type %.60s (lava-run, device "
	    "%.120s)", c->lava_device_type, c->lava_device);
	rc = lava_job_outcome(g, job, f.log, how, upload);
out:
	if (g->lost)
		rc = 1;
	else if (rc == -1)
		guest_give_back_reason(g, &err, upload);
	strvec_clear(&a);
	buf_release(&err);
	lava_files_release(&f);
	free(outdir);
	free(g);
	return rc;
}
