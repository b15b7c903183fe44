/*
 * kperfci-agent: one test machine.  Registers its topology, then loops:
 * lease a job, download and verify its kernel, boot it (qemu, kexec, or a
 * LAVA device through lava-run), run the workloads, upload the results,
 * lease the next.
 *
 *	kperfci-agent -c agent.conf [-d] [-n] [--once]
 *	  -d  debug logging   -n  check the configuration and exit
 *	  --once  exit after one job has been handled
 *
 * The loop is driven by agent_state_next() (agents/agent_state.c): each
 * step's outcome is an event, the table says what comes next, and the
 * phase is saved in the state directory before every step so a restart
 * (or a kexec reboot) resumes where the agent stood.  When the daemon is
 * down or answers garbage the agent waits with exponential backoff and
 * tries again; it never gives a job up because of the daemon.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"

struct agent {
	struct agent_conf conf;
	struct client	 client;
	struct agent_job job;
	int		 backoff;	/* seconds of the next wait */
	int		 once;
	int		 handled;
	char		 release[256];
};

static void
on_signal(int sig)
{
	agent_stopping = 1;
}

/* Sleeps up to sec seconds, waking early when asked to stop. */
static void
nap(double sec)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	for (double t = 0; t < sec && !agent_stopping; t += 0.1)
		nanosleep(&ts, NULL);
}

static void
backoff(struct agent *a, const char *why)
{
	/* Jitter keeps a pool of agents from hammering a daemon that just
	   came back, all in the same second. */
	double wait = a->backoff * (0.75 + (rand() % 500) / 1000.0);

	log_warnx("%s; retrying in %.1f s", why, wait);
	nap(wait);
	a->backoff = a->backoff * 2 > a->conf.backoff_max ?
	    a->conf.backoff_max : a->backoff * 2;
}

static void
backoff_reset(struct agent *a)
{
	a->backoff = 1;
}

static json_t *
topology(struct agent *a)
{
	struct buf err = BUF_INIT(512);
	json_t *t;

	if (a->conf.backend == AGENT_QEMU)
		return qemu_topology(&a->conf);
	if (a->conf.backend == AGENT_LAVA)
		return lava_run_topology(&a->conf);
	if ((t = hosttopo_read("", &err)) == NULL)
		fatalx("topology: %s", err.data);
	buf_release(&err);
	return t;
}

static void
agent_register(struct agent *a)
{
	while (!agent_stopping) {
		struct buf err = BUF_INIT(1024);
		json_t *req = json_object(), *resp = NULL;
		long st;

		json_object_set_new(req, PROTO_AGENT,
		    json_string(a->conf.name));
		json_object_set_new(req, PROTO_BACKEND, json_string(
		    agent_backend_name(a->conf.backend)));
		json_object_set_new(req, PROTO_KERNEL_RELEASE,
		    json_string(a->release));
		json_object_set_new(req, PROTO_TOPOLOGY, topology(a));
		st = client_post(&a->client, PROTO_PATH_REGISTER, req, &resp,
		    &err);
		json_decref(req);
		if (st == 200 && resp &&
		    proto_check(resp, proto_register_resp, NULL, &err) == 0) {
			log_info("registered as %s, class %s", a->conf.name,
			    json_string_value(json_object_get(resp,
			    PROTO_CLASS)));
			json_decref(resp);
			buf_release(&err);
			backoff_reset(a);
			return;
		}
		if (err.len == 0)
			buf_addf(&err, "register: HTTP %ld%s%s", st,
			    resp ? ": " : "", resp ? json_string_value(
			    json_object_get(resp, PROTO_ERROR)) ?: "" : "");
		json_decref(resp);
		backoff(a, err.data);
		buf_release(&err);
	}
}

/* POST /api/v1/jobs/ID<suffix> {agent, attempt, key: value} for the job
   held: the status (0 when no answer came), err saying why not 200. */
static long
job_post(struct agent *a, const char *suffix, const char *key,
    const char *value, struct buf *err)
{
	json_t *req = json_object(), *resp = NULL;
	char *path = xasprintf(PROTO_PATH_JOBS "%lld%s",
	    agent_job_id(&a->job), suffix);
	long st;

	json_object_set_new(req, PROTO_AGENT, json_string(a->conf.name));
	json_object_set_new(req, PROTO_ATTEMPT,
	    json_integer(agent_job_attempt(&a->job)));
	json_object_set_new(req, key, json_string(value));
	st = client_post(&a->client, path, req, &resp, err);
	json_decref(req);
	json_decref(resp);
	free(path);
	return st;
}

/* Heartbeat; -1 when the lease is gone (or we are stopping). */
static int
heartbeat(void *arg, const char *progress)
{
	struct agent *a = arg;
	struct buf err = BUF_INIT(1024);
	long st;

	if (agent_stopping)
		return -1;
	st = job_post(a, PROTO_SUFFIX_HEARTBEAT, PROTO_PROGRESS, progress,
	    &err);
	if (st == 0 || st >= 500)
		log_warnx("heartbeat: %s", err.len ? err.data : "server error");
	buf_release(&err);
	/* Only the daemon saying so ends a job: a daemon that is down for
	   a while must not cost a run. */
	return (st == 404 || st == 409 || st == 410) ? -1 : 0;
}

/* Gives the job back unrun (the agent's or the lab's failure, said in
   why): the daemon offers it again now instead of when the lease would
   have run out.  Best effort: if the daemon does not hear it, the lease
   still expires. */
static void
give_back(struct agent *a, const char *why)
{
	struct buf err = BUF_INIT(1024);
	char text[512];
	long st;
	size_t i;

	/* printable ASCII, as the daemon takes it */
	snprintf(text, sizeof(text), "%s", why && *why ? why :
	    "the agent could not run it");
	for (i = 0; text[i]; i++)
		if ((unsigned char)text[i] < 0x20 ||
		    (unsigned char)text[i] > 0x7e)
			text[i] = '?';
	st = job_post(a, PROTO_SUFFIX_RELEASE, PROTO_REASON, text, &err);
	if (st == 200)
		log_info("job %lld.%d given back: %s", agent_job_id(&a->job),
		    agent_job_attempt(&a->job), text);
	else
		log_warnx("giving job %lld back: %s", agent_job_id(&a->job),
		    err.len ? err.data : "no answer");
	buf_release(&err);
}

static enum agent_event
do_lease(struct agent *a, enum agent_event last)
{
	struct buf err = BUF_INIT(1024);
	json_t *req, *resp = NULL;
	long st;

	if (a->once && a->handled > 0) {
		agent_stopping = 1;
		return AGENT_EV_NO_JOB;
	}
	if (last == AGENT_EV_NO_JOB)
		nap(a->conf.poll_seconds);
	if (agent_stopping)
		return AGENT_EV_NO_JOB;
	req = json_object();
	json_object_set_new(req, PROTO_AGENT, json_string(a->conf.name));
	st = client_post(&a->client, PROTO_PATH_LEASE, req, &resp, &err);
	json_decref(req);
	if (st == 204) {
		backoff_reset(a);
		goto none;
	}
	if (st == 401 || st == 403 || (st == 404 && resp)) {
		/* The daemon forgot us (a fresh database): register again. */
		log_warnx("lease: HTTP %ld; registering again", st);
		agent_register(a);
		goto none;
	}
	if (st != 200 || resp == NULL) {
		if (err.len == 0)
			buf_addf(&err, "lease: HTTP %ld", st);
		backoff(a, err.data);
		goto none;
	}
	if (proto_check_job(json_object_get(resp, PROTO_JOB), &err) == -1) {
		/* Garbage from the daemon: say what, wait, ask again. */
		buf_addstr(&err, " (in a lease answer)");
		backoff(a, err.data);
		goto none;
	}
	backoff_reset(a);
	a->job.job = json_incref(json_object_get(resp, PROTO_JOB));
	json_decref(a->job.upload);
	a->job.upload = NULL;
	log_info("leased job %lld attempt %d", agent_job_id(&a->job),
	    agent_job_attempt(&a->job));
	json_decref(resp);
	buf_release(&err);
	return AGENT_EV_LEASED;
none:
	json_decref(resp);
	buf_release(&err);
	return AGENT_EV_NO_JOB;
}

static char *
kernel_path(struct agent *a)
{
	const json_t *k = json_object_get(a->job.job, PROTO_KERNEL);

	return xasprintf("%s/kernels/%s.bzImage", a->conf.state_dir,
	    json_string_value(json_object_get(k, PROTO_SHA256)));
}

static enum agent_event
do_download(struct agent *a, int *retry)
{
	const json_t *k = json_object_get(a->job.job, PROTO_KERNEL);
	const char *sha = json_string_value(json_object_get(k, PROTO_SHA256));
	char *path = kernel_path(a), have[65], rel[256];
	struct buf err = BUF_INIT(1024);
	enum agent_event ev = AGENT_EV_DOWNLOADED;
	long st;

	*retry = 0;
	if (access(path, R_OK) == 0 && sha256_file(path, have) == 0 &&
	    strcmp(have, sha) == 0)
		goto got;
	if (client_download(&a->client, json_string_value(json_object_get(k,
	    PROTO_URL)), path, json_integer_value(json_object_get(k,
	    PROTO_SIZE)), sha, &st, &err) == -1) {
		log_warnx("job %lld: %s", agent_job_id(&a->job), err.data);
		if (st == 0 || st >= 500) {
			/* The daemon, not the kernel: try again. */
			backoff(a, "kernel download");
			*retry = 1;
		} else
			ev = AGENT_EV_DOWNLOAD_BAD;
		goto out;
	}
got:
	backoff_reset(a);
	free(a->job.release);
	a->job.release = NULL;
	if (agent_bzimage_release(path, rel, sizeof(rel)) == 0)
		a->job.release = xstrdup(rel);
	log_info("job %lld: kernel %s (%s) verified", agent_job_id(&a->job),
	    sha, a->job.release ? a->job.release : "release unknown");
out:
	free(path);
	buf_release(&err);
	return ev;
}

static json_t *
new_upload(const char *status, const char *reason)
{
	json_t *u = json_object();

	json_object_set_new(u, PROTO_STATUS, json_string(status));
	json_object_set_new(u, PROTO_REASON, json_string(reason));
	json_object_set_new(u, PROTO_SAMPLES, json_array());
	return u;
}

/* 0 accepted, 1 lease lost / refused, -1 retry later. */
static int
do_upload(struct agent *a)
{
	struct buf err = BUF_INIT(1024);
	json_t *resp = NULL;
	char *path;
	long st;
	int rc;

	json_object_set_new(a->job.upload, PROTO_AGENT,
	    json_string(a->conf.name));
	json_object_set_new(a->job.upload, PROTO_ATTEMPT,
	    json_integer(agent_job_attempt(&a->job)));
	if (proto_check_upload(a->job.upload, &err) == -1) {
		/* Our own bug; the job cannot be reported as it stands. */
		error("job %lld: upload would be refused: %s",
		    agent_job_id(&a->job), err.data);
		rc = 1;
		goto out;
	}
	path = xasprintf(PROTO_PATH_JOBS "%lld" PROTO_SUFFIX_RESULTS,
	    agent_job_id(&a->job));
	st = client_post(&a->client, path, a->job.upload, &resp, &err);
	free(path);
	if (st == 200 || st == 409) {
		/* 409: stored by an earlier try whose answer we lost. */
		log_info("job %lld: results %s", agent_job_id(&a->job),
		    st == 200 ? "uploaded" : "were already stored");
		backoff_reset(a);
		rc = 0;
	} else if (st >= 400 && st < 500) {
		log_warnx("job %lld: upload refused: HTTP %ld %s",
		    agent_job_id(&a->job), st, resp ? json_string_value(
		    json_object_get(resp, PROTO_ERROR)) ?: "" : "");
		rc = 1;
	} else {
		if (err.len == 0)
			buf_addf(&err, "upload: HTTP %ld", st);
		backoff(a, err.data);
		rc = -1;
	}
out:
	json_decref(resp);
	buf_release(&err);
	return rc;
}

static enum agent_where
where_now(struct agent *a)
{
	struct buf cmdline = BUF_INIT(16384);
	enum agent_where w;

	if (a->conf.backend != AGENT_KEXEC || a->job.job == NULL)
		return AGENT_IN_HOME;
	buf_read_file(&cmdline, "/proc/cmdline");
	w = agent_state_where(agent_job_id(&a->job),
	    agent_job_attempt(&a->job), a->job.release, a->release,
	    cmdline.data ? cmdline.data : "");
	buf_release(&cmdline);
	return w;
}

struct aged {
	char	*path;
	time_t	 mtime;
};

static int
aged_newest_first(const void *x, const void *y)
{
	const struct aged *a = x, *b = y;

	return a->mtime < b->mtime ? 1 : a->mtime > b->mtime ? -1 : 0;
}

/* Removes a job directory: the files the qemu and LAVA backends write
   (lava-run's output directory "lava" with them), then it. */
static void
remove_job_dir(const char *dir)
{
	static const char *const files[] = { "initramfs.cpio", "console.log",
	    "results.log", "job.yaml", "lava.log", "lava-job",
	    "lava/description.yaml", "lava/result.yaml", "lava" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);

		if (unlink(p) == -1 && errno == EISDIR)
			rmdir(p);
		free(p);
	}
	if (rmdir(dir) == -1 && errno != ENOENT)
		log_warn("%s", dir);
}

/*
 * Keeps the state directory from growing without bound: the `keep` newest
 * kernels (kernels/SHA.bzImage) and job directories (job-ID-ATTEMPT) stay,
 * older ones go.  The current job's kernel is the newest, so it stays.
 */
static void
prune(const struct agent_conf *c, const char *sub, const char *prefix,
    const char *suffix, int is_dir)
{
	char *dir = xasprintf("%s%s", c->state_dir, sub);
	struct aged *v = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name), sl = strlen(suffix);
		char *p;

		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0 ||
		    l < sl || strcmp(de->d_name + l - sl, suffix) != 0)
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (stat(p, &st) == -1 || (S_ISDIR(st.st_mode) ? 1 : 0) != is_dir) {
			free(p);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n].path = p;
		v[n++].mtime = st.st_mtime;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), aged_newest_first);
	for (i = 0; i < n; i++) {
		if ((int)i >= c->keep) {
			log_debug("pruning %s", v[i].path);
			if (is_dir)
				remove_job_dir(v[i].path);
			else if (unlink(v[i].path) == -1)
				log_warn("%s", v[i].path);
		}
		free(v[i].path);
	}
	free(v);
	free(dir);
}

/* BOOT: kexec into the job's kernel (back here only on failure), or run
   the job under qemu or on the LAVA device. */
static enum agent_event
do_boot(struct agent *a)
{
	char *bz = kernel_path(a);
	enum agent_event ev;
	int rc;

	if (a->conf.backend == AGENT_KEXEC) {
		/* The lease runs from here: the next word is the job
		   kernel's, or, if it hangs, the daemon's power_margin. */
		if (heartbeat(a, "kexec") == -1) {
			free(bz);
			return AGENT_EV_LEASE_LOST;
		}
		kexec_boot(&a->conf, &a->job, bz);
		/* Only back on failure: let the lease go. */
		a->job.phase = AGENT_PH_READY;
		free(bz);
		return AGENT_EV_LEASE_LOST;
	}
	json_decref(a->job.upload);
	a->job.upload = json_object();
	if (a->conf.backend == AGENT_LAVA && a->conf.lava_url[0])
		rc = lava_server_job(&a->conf, a->job.job, bz, a->job.upload,
		    heartbeat, a);
	else if (a->conf.backend == AGENT_LAVA)
		rc = lava_run_job(&a->conf, a->job.job, bz, a->job.upload,
		    heartbeat, a);
	else
		rc = qemu_run_job(&a->conf, a->job.job, bz, a->job.upload,
		    heartbeat, a);
	free(bz);
	if (rc == 0) {
		a->handled++;
		ev = AGENT_EV_BOOTED;
	} else {
		/* Lease lost, stopping, the agent itself could not start
		   qemu, or LAVA's infrastructure failed: not the kernel's
		   fault, so no result.  The job goes back to the daemon
		   (on a stop, its lease expires), which offers it again. */
		ev = AGENT_EV_LEASE_LOST;
		if (rc == -1 && !agent_stopping) {
			give_back(a, json_string_value(json_object_get(
			    a->job.upload, PROTO_REASON)));
			nap(a->conf.poll_seconds);
		}
	}
	return ev;
}

/* RUN: the workloads in the kexec'd job kernel. */
static enum agent_event
do_run(struct agent *a)
{
	json_decref(a->job.upload);
	a->job.upload = json_object();
	agent_job_save(&a->job, a->conf.state_dir);
	if (kexec_run(&a->conf, a->job.job, a->job.upload, heartbeat,
	    a) == 1) {
		/* Lease gone or stopping; a kexec agent still has to go
		   home (RUNNING+LEASE_LOST). */
		return AGENT_EV_LEASE_LOST;
	}
	/* the job kernel's boot, as the console server logged it */
	free(console_attach(&a->conf, a->job.console_mark, a->job.upload));
	a->handled++;
	return AGENT_EV_RAN;
}

/* FAIL_BOOT, FAIL_RUN: the machine came back where it should not be; the
   result says why. */
static enum agent_event
do_fail(struct agent *a, enum agent_action action, enum agent_where where)
{
	char why[768];
	json_t *up = new_upload(action == AGENT_ACT_FAIL_BOOT ?
	    PROTO_ST_BOOT_FAILED : PROTO_ST_FAILED, "");
	/* What the console server and pstore kept of the job kernel's end:
	   the splat goes with the result, its panic line into the reason. */
	char *panic = console_attach(&a->conf, a->job.console_mark, up);
	size_t n;

	if (action == AGENT_ACT_FAIL_RUN)
		snprintf(why, sizeof(why), "the machine "
		    "rebooted while the workloads ran (now in "
		    "%s)", a->release);
	else if (where == AGENT_IN_WRONG)
		snprintf(why, sizeof(why), "booted release "
		    "%s, expected %s", a->release,
		    a->job.release ? a->job.release : "?");
	else
		snprintf(why, sizeof(why), "the job kernel %s "
		    "did not come up; the machine is back in "
		    "%s", a->job.release ? a->job.release : "?",
		    a->release);
	n = strlen(why);
	if (panic)
		snprintf(why + n, sizeof(why) - n, " (%s)", panic);
	free(panic);
	json_object_set_new(up, PROTO_REASON, json_string(why));
	json_decref(a->job.upload);
	a->job.upload = up;
	agent_job_save(&a->job, a->conf.state_dir);
	a->handled++;
	return AGENT_EV_START;	/* RESULTS+START: upload */
}

/* UPLOAD: the result; on success the old kernels and job directories
   are pruned. */
static enum agent_event
upload_and_prune(struct agent *a)
{
	int rc = do_upload(a);

	if (rc == 0) {
		prune(&a->conf, "/kernels", "", ".bzImage", 0);
		prune(&a->conf, "", "job-", "", 1);
		return AGENT_EV_UPLOADED;
	}
	if (rc == 1)
		return AGENT_EV_LEASE_LOST;
	return AGENT_EV_START;	/* RESULTS: again */
}

/* Drops the current job and goes idle. */
static enum agent_event
drop_job(struct agent *a)
{
	agent_job_release(&a->job);
	a->job.phase = AGENT_PH_IDLE;
	agent_job_save(&a->job, a->conf.state_dir);
	return AGENT_EV_NO_JOB;
}

/* Does transition t's action; the next event. */
static enum agent_event
agent_act(struct agent *a, const struct agent_transition *t,
    enum agent_event ev, enum agent_where where)
{
	int retry;

	switch (t->action) {
	case AGENT_ACT_LEASE:
		if (a->job.job && t->next == AGENT_PH_IDLE) {
			agent_job_release(&a->job);
			agent_job_save(&a->job, a->conf.state_dir);
		}
		return do_lease(a, ev);
	case AGENT_ACT_DOWNLOAD:
		ev = do_download(a, &retry);
		return retry ? AGENT_EV_START : ev;	/* LEASED+START: again */
	case AGENT_ACT_BOOT:
		return do_boot(a);
	case AGENT_ACT_RUN:
		return do_run(a);
	case AGENT_ACT_FAIL_BOOT:
	case AGENT_ACT_FAIL_RUN:
		return do_fail(a, t->action, where);
	case AGENT_ACT_UPLOAD:
		return upload_and_prune(a);
	case AGENT_ACT_RETURN_HOME:
		agent_job_save(&a->job, a->conf.state_dir);
		kexec_return_home(&a->conf);
		agent_stopping = 1;
		return ev;
	case AGENT_ACT_DROP:
		log_warnx("job %lld: dropped", a->job.job ?
		    agent_job_id(&a->job) : 0);
		return drop_job(a);
	}
	return ev;
}

static void
agent_loop(struct agent *a)
{
	enum agent_event ev = AGENT_EV_START;
	enum agent_where where = where_now(a);

	while (!agent_stopping) {
		const struct agent_transition *t;

		t = agent_state_next(a->job.phase, ev, a->conf.backend, where);
		if (t == NULL) {
			log_warnx("no transition from %s on %s; dropping the "
			    "job", agent_phase_name(a->job.phase),
			    agent_event_name(ev));
			ev = drop_job(a);
			continue;
		}
		/* An idle poll is not news. */
		if (!(t->phase == AGENT_PH_IDLE && ev == AGENT_EV_NO_JOB))
			log_debug("%s --%s--> %s: %s", agent_phase_name(t->phase),
			    agent_event_name(ev), agent_phase_name(t->next),
			    agent_action_name(t->action));
		a->job.phase = t->next;
		if (t->action != AGENT_ACT_BOOT || a->conf.backend != AGENT_KEXEC)
			agent_job_save(&a->job, a->conf.state_dir);
		ev = agent_act(a, t, ev, where);
		where = where_now(a);
	}
}

static void
usage(void)
{
	fprintf(stderr, "usage: kperfci-agent -c agent.conf [-d] [-n] [--once]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct agent a;
	struct buf err = BUF_INIT(8192);
	struct sigaction sa;
	struct utsname u;
	const char *conf = NULL;
	char *dir;
	int ch, verbose = 0, check = 0;

	memset(&a, 0, sizeof(a));
	while ((ch = getopt_long(argc, argv, "c:dnh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c': conf = optarg; break;
		case 'd': verbose = 1; break;
		case 'n': check = 1; break;
		case 'o': a.once = 1; break;
		default: usage();
		}
	}
	if (conf == NULL || optind != argc)
		usage();
	log_init("kperfci-agent", 1);
	log_set_verbose(verbose);
	agent_conf_defaults(&a.conf);
	if (agent_conf_load(&a.conf, conf, &err) == -1) {
		fprintf(stderr, "%s", err.data);
		return 1;
	}
	if (check) {
		printf("%s: ok (agent %s, backend %s, server %s)\n", conf,
		    a.conf.name, agent_backend_name(a.conf.backend),
		    a.conf.server);
		if (a.conf.backend == AGENT_LAVA)
			printf("%s: LAVA device type %s, %s %s\n", conf,
			    a.conf.lava_device_type, a.conf.lava_url[0] ?
			    "through the LAVA server" : "through lava-run on",
			    a.conf.lava_url[0] ? a.conf.lava_url :
			    a.conf.lava_device);
		agent_conf_release(&a.conf);
		return 0;
	}
	if (mkdir(a.conf.state_dir, 0755) == -1 && errno != EEXIST)
		fatal("%s", a.conf.state_dir);
	dir = xasprintf("%s/kernels", a.conf.state_dir);
	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		fatal("%s", dir);
	free(dir);
	uname(&u);
	snprintf(a.release, sizeof(a.release), "%s", u.release);
	srand((unsigned)(time(NULL) ^ getpid()));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	client_init(&a.client, &a.conf);
	backoff_reset(&a);
	if (agent_job_load(&a.job, a.conf.state_dir) == -1) {
		log_warnx("starting without a job");
		agent_job_release(&a.job);
	}
	agent_register(&a);
	agent_loop(&a);
	log_info("stopping");
	agent_job_release(&a.job);
	client_release(&a.client);
	agent_conf_release(&a.conf);
	buf_release(&err);
	return 0;
}
