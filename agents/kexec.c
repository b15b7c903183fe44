/*
 * kexec: the boot backend for bare-metal machines.  The agent persists the
 * job (phase "booting") before `kexec -l` and `systemctl kexec`; its
 * systemd unit starts it again in the job kernel, where agent_state_where()
 * checks the kperfci.job= marker on /proc/cmdline and `uname -r`, the
 * matrix runs natively, the results are uploaded and the machine reboots
 * into its home kernel.  The decisions live in agent_state.c's table; this
 * file only runs the commands.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/run.h"
#include "lib/xalloc.h"

/*
 * The commands' output goes to a file in the state directory, not to
 * /dev/stderr: under systemd the agent's stderr is the journal's socket,
 * which cannot be opened by name (ENXIO), and every command would exit
 * 126 before it ran.
 */
/*
 * After systemctl kexec or reboot: true once the agent has been told to
 * stop (SIGTERM: the shutdown is under way), waiting up to 300 s for it.
 */
static int
kexec_going_down(void)
{
	for (int i = 0; i < 3000 && !agent_stopping; i++)
		usleep(100000);
	return agent_stopping;
}

static char *
kexec_log(const struct agent_conf *c, const char *name)
{
	return xasprintf("%s/%s", c->state_dir, name);
}

static int
run_argv(const struct agent_conf *c, struct strvec *a, int timeout)
{
	struct run r = { 0 };
	char *log = kexec_log(c, "commands.log");
	int rc;

	r.argv = strvec_argv(a);
	r.timeout_sec = timeout;
	r.log_path = log;
	rc = run_cmd(&r);
	if (rc == -1)
		log_warnx("%s: %s (its output: %s)", a->v[0], run_status(&r),
		    log);
	free(log);
	return rc;
}

int
kexec_boot(const struct agent_conf *c, struct agent_job *j,
    const char *bzimage)
{
	struct buf home = BUF_INIT(8192), cmd = BUF_INIT(16384);
	struct strvec load = STRVEC_INIT, exec = STRVEC_INIT;
	const char *extra = json_string_value(json_object_get(j->job,
	    PROTO_CMDLINE));
	int rc = -1;

	if (c->kexec_append)
		buf_addstr(&home, c->kexec_append);
	else if (buf_read_file(&home, "/proc/cmdline") == -1) {
		error("/proc/cmdline: %s", strerror(errno));
		goto out;
	}
	agent_kexec_cmdline(home.data, extra, agent_job_id(j),
	    agent_job_attempt(j), &cmd);
	agent_kexec_load_argv(c, bzimage, cmd.data, &load);
	log_info("job %lld: %s -l %s --command-line=%s", agent_job_id(j),
	    load.v[0], bzimage, cmd.data);
	if (run_argv(c, &load, 120) == -1) {
		error("job %lld: kexec -l failed", agent_job_id(j));
		goto out;
	}
	/* Persist before the point of no return, with where the console
	   log stands: what follows is the job kernel's. */
	j->console_mark = console_mark(c);
	j->phase = AGENT_PH_BOOTING;
	if (agent_job_save(j, c->state_dir) == -1)
		goto out;
	agent_argv_split(c->kexec_exec, &exec);
	if (run_argv(c, &exec, 300) == -1 && !kexec_going_down()) {
		error("job %lld: '%s' failed; not rebooting", agent_job_id(j),
		    c->kexec_exec);
		goto out;
	}
	/* systemctl kexec returns once the shutdown is under way, or is
	   stopped with us (systemd stops the unit's whole cgroup); we are
	   about to be stopped.  Still being here later means nothing
	   happened. */
	if (!kexec_going_down())
		error("job %lld: still running 300 s after '%s'",
		    agent_job_id(j), c->kexec_exec);
	else
		log_info("job %lld: the machine is going down for the kexec",
		    agent_job_id(j));
out:
	strvec_clear(&load);
	strvec_clear(&exec);
	buf_release(&home);
	buf_release(&cmd);
	return rc;
}

struct native {
	struct run	 run;
	struct buf	 out;
	volatile int	 cancel;
	volatile int	 finished;
};

static void *
native_thread(void *arg)
{
	struct native *n = arg;

	run_capture(&n->run, &n->out);
	n->finished = 1;
	return NULL;
}

int
kexec_run(const struct agent_conf *c, const json_t *job, json_t *upload,
    agent_progress_fn progress, void *arg)
{
	const char *matrix = json_string_value(json_object_get(job,
	    PROTO_MATRIX));
	long long id = json_integer_value(json_object_get(job, PROTO_ID));
	char *path = xasprintf("%s/matrix.conf", c->state_dir), *load_log = NULL;
	const char *argv[] = { c->load_bin, "--matrix", path, NULL };
	struct native *n = xcalloc(1, sizeof(*n));
	struct buf why = BUF_INIT(1024), err = BUF_INIT(256);
	struct agent_results ar;
	time_t last = 0;
	pthread_t th;
	json_t *topo;
	int rc = -1, lost = 0;

	agent_results_init(&ar);
	buf_init(&n->out, PROTO_MAX_BODY);
	if (buf_write_file(path, matrix, strlen(matrix)) == -1) {
		log_warn("%s", path);
		goto out;
	}
	n->run.argv = argv;
	n->run.timeout_sec = c->job_timeout;
	n->run.log_path = load_log = kexec_log(c, "load.log");
	n->run.cancel = &n->cancel;
	/* The workloads run in a thread so that this one keeps the lease
	   alive with heartbeats, however long the matrix takes. */
	if (pthread_create(&th, NULL, native_thread, n) != 0) {
		error("job %lld: cannot start the workload thread", id);
		goto out;
	}
	while (!n->finished) {
		usleep(250000);
		if (agent_stopping && !n->cancel) {
			lost = 1;
			n->cancel = 1;
		}
		if (progress && time(NULL) - last >= c->heartbeat_seconds) {
			last = time(NULL);
			if (progress(arg, "running") == -1 && !n->cancel) {
				log_warnx("job %lld: lease lost; stopping the "
				    "workloads", id);
				lost = 1;
				n->cancel = 1;
			}
		}
	}
	pthread_join(th, NULL);
	if (lost) {
		rc = 1;
		goto out;
	}
	if (n->out.data)
		agent_results_parse(&ar, n->out.data, n->out.len);
	if (n->run.exit_code == 0 && !n->run.timed_out) {
		json_object_set_new(upload, PROTO_STATUS,
		    json_string(PROTO_ST_DONE));
	} else {
		buf_addf(&why, "kperfci-load: %s", run_status(&n->run));
		for (size_t i = 0; i < json_array_size(ar.errors) && i < 5; i++)
			buf_addf(&why, "; %.200s", json_string_value(
			    json_array_get(ar.errors, i)));
		json_object_set_new(upload, PROTO_STATUS,
		    json_string(PROTO_ST_FAILED));
		json_object_set_new(upload, PROTO_REASON, json_string(why.data));
	}
	json_object_set(upload, PROTO_SAMPLES, ar.samples);
	json_object_set(upload, PROTO_PROFILES, ar.profiles);
	if ((topo = hosttopo_read("", &err)))
		json_object_set_new(upload, PROTO_TOPOLOGY, topo);
	probe_native_environment("", upload);
	log_info("job %lld: %s natively, %zu samples", id,
	    run_status(&n->run), json_array_size(ar.samples));
	rc = 0;
out:
	agent_results_release(&ar);
	buf_release(&n->out);
	free(n);
	buf_release(&why);
	buf_release(&err);
	free(path);
	free(load_log);
	return rc;
}

int
kexec_return_home(const struct agent_conf *c)
{
	struct strvec a = STRVEC_INIT;

	log_info("returning to the home kernel: %s", c->reboot_cmd);
	agent_argv_split(c->reboot_cmd, &a);
	if (run_argv(c, &a, 300) == -1 && !kexec_going_down()) {
		strvec_clear(&a);
		return error("'%s' failed", c->reboot_cmd);
	}
	strvec_clear(&a);
	if (kexec_going_down())
		return 0;
	return error("still running 300 s after '%s'", c->reboot_cmd);
}
