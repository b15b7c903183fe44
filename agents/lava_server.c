/*
 * lava_server: the LAVA backend's server mode ([lava] url): a lab's own
 * LAVA instance runs the job on one of its devices of [lava] device-type,
 * with its scheduler, its workers and its power control.  The agent is
 * the bridge: it leases the job from kperfcid as any agent does, and for
 * each job
 *
 *   1. builds the qemu backend's initramfs (busybox, kperfci-load, the
 *      matrix, /init) and writes the job definition (lava_definition,
 *      the same as lava_run.c's), with the kernel and initramfs as
 *      file:// URLs (a worker on this host) or, with [lava] files-dir and
 *      files-url, copied where the lab's web server serves them;
 *   2. submits it (POST api/v0.2/jobs/, "Authorization: Token ...");
 *   3. polls its state (GET api/v0.2/jobs/ID/) every poll-seconds,
 *      sending kperfcid heartbeats meanwhile;
 *   4. reads its log (GET api/v0.2/jobs/ID/logs/: the YAML lines
 *      lava_log_parse reads) into the job directory's lava.log and turns
 *      it into the upload exactly as lava_run.c does (lava_job_outcome).
 *
 * A server that is down, answers 5xx or garbage is asked again after a
 * wait that doubles up to [agent] backoff-max; the lease is kept alive
 * meanwhile.  A lost lease (the series was cancelled, or the daemon gave
 * the job to another agent) or the agent stopping cancels the LAVA job
 * (GET api/v0.2/jobs/ID/cancel/).  A job that waits in LAVA's queue past
 * [lava] queue-timeout, or runs past LAVA's own job timeout and a
 * margin, is cancelled and given back; so is one LAVA refused (400: the
 * definition or the device type; 401/403: the token), with LAVA's
 * message as the reason.
 *
 * Files, in state-dir/job-ID-ATTEMPT: initramfs.cpio, job.yaml,
 * lava-job (the LAVA job's URL on the server: an agent restarted while
 * the job ran resumes the same attempt, finds it there and follows that
 * LAVA job instead of submitting a second) and lava.log.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/lava.h"
#include "lib/http_client.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

#define LAVA_API	"/api/v0.2/"
#define LAVA_MAX_ANSWER	(4u << 20)	/* a job's detail, a submission's
					   answer */
/* A buf's text, "" when it has none. */
#define W(b)		((b).data ? (b).data : "")
#define LAVA_RUN_MARGIN	(10 * 60)	/* past LAVA's own job timeout */

struct lsrv {
	const struct agent_conf *c;
	struct guest_run *g;
	struct httpc h;
	agent_progress_fn progress;
	void	*arg;
	double	 last_hb;
	int	 wait;		/* seconds before the next try after a
				   failure; doubles to backoff-max */
	long long lava_id;
};

/* One REST call: 0 with *status when an answer came, -1 with err when
   none did. */
static int
lsrv_call(struct lsrv *s, const char *path, const char *body,
    struct buf *out, long *status, struct buf *err)
{
	char *url = xasprintf("%s%s%s", s->c->lava_url, LAVA_API, path);
	struct httpc_req req = {
		.url = url, .user_agent = "kperfci-agent",
		.token = s->c->lava_token, .auth_scheme = "Token",
		.content_type = body ? "application/json" : NULL,
		.body = body, .len = body ? strlen(body) : 0,
		.timeout = 120, .out = out, .max_bytes = out ? out->max : 0,
	};
	struct httpc_resp resp;
	int rc;

	if (out)
		buf_reset(out);
	rc = httpc_request(&s->h, &req, &resp, err);
	*status = resp.status;
	httpc_resp_release(&resp);
	free(url);
	return rc;
}

/* A heartbeat when one is due; -1 when the lease is gone or the agent
   is stopping. */
static int
lsrv_alive(struct lsrv *s, const char *what)
{
	if (agent_stopping)
		return -1;
	if (s->progress && guest_now() - s->last_hb >=
	    s->c->heartbeat_seconds) {
		s->last_hb = guest_now();
		if (s->progress(s->arg, what) == -1)
			return -1;
	}
	return 0;
}

/* Sleeps sec seconds in steps, keeping the lease; -1 as lsrv_alive. */
static int
lsrv_sleep(struct lsrv *s, int sec, const char *what)
{
	double until = guest_now() + sec;

	while (guest_now() < until) {
		if (lsrv_alive(s, what) == -1)
			return -1;
		usleep(250000);
	}
	return lsrv_alive(s, what);
}

/* After a failed call: the next wait, doubled up to backoff-max. */
static int
lsrv_backoff(struct lsrv *s, const char *what)
{
	int w = s->wait;

	s->wait = s->wait * 2 > s->c->backoff_max ? s->c->backoff_max :
	    s->wait * 2;
	return lsrv_sleep(s, w, what);
}

/* Puts path's bytes at dir/name (the lab reads them there). */
static int
lsrv_copy(const char *from, const char *dir, const char *name,
    struct buf *err)
{
	struct buf b = BUF_INIT(1u << 30);
	char *to = xasprintf("%s/%s", dir, name);
	int rc = -1;

	if (buf_read_file(&b, from) == -1)
		buf_addf(err, "%s: %s", from, strerror(errno));
	else if (buf_write_file(to, b.data, b.len) == -1)
		buf_addf(err, "%s: %s", to, strerror(errno));
	else
		rc = 0;
	buf_release(&b);
	free(to);
	return rc;
}

/* The kernel's and the initramfs's URLs: file:// here, or copies in
   files-dir/kperfci-ID.ATTEMPT/ at files-url.  *pub is that directory
   (removed when the job ends), or NULL. */
static int
lsrv_urls(struct lsrv *s, const char *bzimage, const char *initrd,
    struct buf *kurl, struct buf *iurl, char **pub, struct buf *err)
{
	const struct agent_conf *c = s->c;
	char name[64];

	*pub = NULL;
	if (!c->lava_files_dir[0])
		return lava_local_urls(bzimage, initrd, kurl, iurl, err);
	lava_job_name(s->g->id, s->g->attempt, name, sizeof(name));
	*pub = xasprintf("%s/%s", c->lava_files_dir, name);
	if (mkdir(*pub, 0755) == -1 && errno != EEXIST) {
		buf_addf(err, "%s: %s", *pub, strerror(errno));
		return -1;
	}
	if (lsrv_copy(bzimage, *pub, "bzImage", err) == -1 ||
	    lsrv_copy(initrd, *pub, "initramfs.cpio", err) == -1)
		return -1;
	buf_addf(kurl, "%s/%s/bzImage", c->lava_files_url, name);
	buf_addf(iurl, "%s/%s/initramfs.cpio", c->lava_files_url, name);
	return 0;
}

static void
lsrv_unpublish(char *pub)
{
	char *p;

	if (pub == NULL)
		return;
	p = xasprintf("%s/bzImage", pub);
	unlink(p);
	free(p);
	p = xasprintf("%s/initramfs.cpio", pub);
	unlink(p);
	free(p);
	rmdir(pub);
	free(pub);
}

/*
 * Submits the definition at path.  0 with s->lava_id; 1 when the lease
 * went meanwhile; -1 with err when LAVA refused it or never answered
 * before the queue timeout.
 */
static int
lsrv_submit(struct lsrv *s, const char *path, struct buf *err)
{
	struct buf def = BUF_INIT(1 << 20), out = BUF_INIT(LAVA_MAX_ANSWER),
	    why = BUF_INIT(1024);
	double until = guest_now() + s->c->lava_queue_timeout;
	json_t *body;
	char *text, msg[512];
	long st;
	int rc = -1;

	if (buf_read_file(&def, path) == -1) {
		buf_addf(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	body = json_pack("{s:s%}", "definition", def.data ? def.data : "",
	    def.len);
	text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	json_decref(body);
	if (text == NULL) {
		buf_addf(err, "%s: the job definition is not UTF-8 text", path);
		goto out;
	}
	for (;;) {
		buf_reset(&why);
		if (lsrv_call(s, "jobs/", text, &out, &st, &why) == 0 &&
		    st == 201) {
			s->lava_id = lava_submit_parse(out.data ? out.data : "",
			    out.len);
			if (s->lava_id > 0) {
				rc = 0;
				break;
			}
			/* Accepted: asking again would make more jobs. */
			buf_addf(err, "LAVA %s accepted the job but did not "
			    "answer one job id (a multinode definition?): ",
			    s->c->lava_url);
			for (size_t i = 0; i < out.len && i < 120; i++) {
				unsigned char ch = (unsigned char)out.data[i];

				buf_addch(err, ch < 0x20 || ch > 0x7e ? '?' :
				    ch);
			}
			break;
		} else if (st == 400 || st == 401 || st == 403) {
			lava_message_parse(out.data ? out.data : "", out.len,
			    msg, sizeof(msg));
			buf_addf(err, "LAVA %s refused the job (HTTP %ld%s%s)",
			    s->c->lava_url, st, msg[0] ? ": " : "", msg);
			break;
		} else if (st)
			buf_addf(&why, "HTTP %ld", st);
		log_warnx("job %lld.%d: submitting to LAVA %s: %s; again in "
		    "%d s", s->g->id, s->g->attempt, s->c->lava_url, W(why),
		    s->wait);
		if (guest_now() + s->wait > until) {
			buf_addf(err, "LAVA %s: no submission within %d s "
			    "(last: %s)", s->c->lava_url,
			    s->c->lava_queue_timeout, W(why));
			break;
		}
		if (lsrv_backoff(s, "submitting to LAVA") == -1) {
			rc = 1;
			break;
		}
	}
	free(text);
out:
	buf_release(&def);
	buf_release(&out);
	buf_release(&why);
	return rc;
}

/* Asks LAVA to cancel the job; best effort, once. */
static void
lsrv_cancel(struct lsrv *s, const char *why)
{
	struct buf err = BUF_INIT(1024), out = BUF_INIT(64 << 10);
	char path[64];
	long st;

	snprintf(path, sizeof(path), "jobs/%lld/cancel/", s->lava_id);
	if (lsrv_call(s, path, NULL, &out, &st, &err) == -1 || st != 200)
		log_warnx("job %lld.%d: cancelling LAVA job %lld (%s): %s",
		    s->g->id, s->g->attempt, s->lava_id, why, err.len ?
		    err.data : "HTTP error");
	else
		log_info("job %lld.%d: LAVA job %lld cancelled (%s)", s->g->id,
		    s->g->attempt, s->lava_id, why);
	buf_release(&err);
	buf_release(&out);
}

/*
 * Polls until the LAVA job is finished: 0 with its health in *js; 1 when
 * the lease went (the LAVA job is cancelled); -1 with err when it waited
 * or ran too long (cancelled too).
 */
static int
lsrv_wait(struct lsrv *s, struct lava_job_state *js, struct buf *err)
{
	const struct agent_conf *c = s->c;
	struct buf out = BUF_INIT(LAVA_MAX_ANSWER), why = BUF_INIT(1024);
	double t_queued = guest_now(), t_run = 0;
	enum lava_state last = LAVA_ST_QUEUED;
	char path[64];
	long st;
	int rc = -1;

	snprintf(path, sizeof(path), "jobs/%lld/", s->lava_id);
	for (;;) {
		enum lava_state now = LAVA_ST_BAD;

		buf_reset(&why);
		memset(js, 0, sizeof(*js));
		if (lsrv_call(s, path, NULL, &out, &st, &why) == 0 &&
		    st == 200) {
			lava_state_parse(js, out.data ? out.data : "", out.len);
			now = js->state;
			if (now == LAVA_ST_FINISHED) {
				rc = 0;
				break;
			}
			if (now == LAVA_ST_BAD)
				buf_addf(&why, "not a LAVA job's state");
		} else if (st == 404) {
			/* deleted in the lab: nothing will come of it */
			buf_addf(err, "LAVA job %lld is gone (HTTP 404)",
			    s->lava_id);
			break;
		} else if (st)
			buf_addf(&why, "HTTP %ld", st);
		/* Only an answer moves the job on: while the server is away
		   it stays where it was last seen. */
		if (now == LAVA_ST_RUNNING && last != LAVA_ST_RUNNING) {
			t_run = guest_now();
			log_info("job %lld.%d: LAVA job %lld running after "
			    "%.0f s in the queue", s->g->id, s->g->attempt,
			    s->lava_id, t_run - t_queued);
		}
		if (now == LAVA_ST_QUEUED || now == LAVA_ST_RUNNING) {
			last = now;
			s->wait = 2;
		}
		lava_state_release(js);
		if (last == LAVA_ST_QUEUED && guest_now() - t_queued >
		    c->lava_queue_timeout) {
			buf_addf(err, "LAVA job %lld still queued after %d s "
			    "([lava] queue-timeout)", s->lava_id,
			    c->lava_queue_timeout);
			lsrv_cancel(s, "queue timeout");
			break;
		}
		if (last == LAVA_ST_RUNNING && guest_now() - t_run >
		    c->job_timeout + LAVA_RUN_MARGIN) {
			buf_addf(err, "LAVA job %lld still running %d s past "
			    "its job timeout", s->lava_id, LAVA_RUN_MARGIN);
			lsrv_cancel(s, "job timeout");
			break;
		}
		if (why.len)
			log_warnx("job %lld.%d: LAVA job %lld: %s; asking "
			    "again in %d s", s->g->id, s->g->attempt,
			    s->lava_id, W(why), s->wait);
		if ((why.len ? lsrv_backoff(s, "LAVA unreachable") :
		    lsrv_sleep(s, c->poll_seconds, last == LAVA_ST_RUNNING ?
		    "running" : "queued in LAVA")) == -1) {
			log_warnx("job %lld.%d: lease lost%s; cancelling LAVA "
			    "job %lld", s->g->id, s->g->attempt,
			    agent_stopping ? " (stopping)" : "", s->lava_id);
			lsrv_cancel(s, agent_stopping ? "agent stopping" :
			    "lease lost");
			rc = 1;
			break;
		}
	}
	buf_release(&out);
	buf_release(&why);
	return rc;
}

/* Fetches the finished job's log into path; -1 with err when LAVA has
   none (a job cancelled before it ran) or never gave it. */
static int
lsrv_log(struct lsrv *s, const char *path, struct buf *err)
{
	struct buf out = BUF_INIT(LAVA_MAX_LOG), why = BUF_INIT(1024);
	char url[64];
	long st;
	int tries, rc = -1;

	snprintf(url, sizeof(url), "jobs/%lld/logs/", s->lava_id);
	for (tries = 0; tries < 6; tries++) {
		buf_reset(&why);
		if (lsrv_call(s, url, NULL, &out, &st, &why) == 0 && st ==
		    200) {
			if (buf_write_file(path, out.data ? out.data : "",
			    out.len) == -1)
				buf_addf(err, "%s: %s", path, strerror(errno));
			else
				rc = 0;
			goto out;
		}
		if (st == 404) {
			buf_addf(err, "LAVA job %lld has no log", s->lava_id);
			goto out;
		}
		if (st)
			buf_addf(&why, "HTTP %ld", st);
		log_warnx("job %lld.%d: LAVA job %lld's log: %s", s->g->id,
		    s->g->attempt, s->lava_id, W(why));
		if (lsrv_backoff(s, "reading LAVA's log") == -1)
			break;
	}
	buf_addf(err, "LAVA job %lld's log could not be read (%s)", s->lava_id,
	    why.len ? why.data : "lease lost");
out:
	buf_release(&out);
	buf_release(&why);
	return rc;
}

/* Notes the LAVA job beside the others: which server, which id. */
static void
lsrv_note(struct lsrv *s, const char *dir)
{
	char *p = xasprintf("%s/lava-job", dir);
	char *t = xasprintf("%s/scheduler/job/%lld\n", s->c->lava_url,
	    s->lava_id);

	if (buf_write_file(p, t, strlen(t)) == -1)
		log_warn("%s", p);
	free(p);
	free(t);
}

/* The LAVA job an earlier run of this attempt submitted (the agent was
   restarted while it ran), if lava-job in dir names one on this
   server: its id, else 0. */
static long long
lsrv_noted(struct lsrv *s, const char *dir)
{
	struct buf b = BUF_INIT(4096);
	char *p = xasprintf("%s/lava-job", dir);
	char *prefix = xasprintf("%s/scheduler/job/", s->c->lava_url);
	long long id = 0;
	char *end;

	if (buf_read_file(&b, p) == 0 && b.data && !strncmp(b.data, prefix,
	    strlen(prefix))) {
		id = strtoll(b.data + strlen(prefix), &end, 10);
		if (id <= 0 || (*end != '\n' && *end != '\0'))
			id = 0;
	}
	buf_release(&b);
	free(p);
	free(prefix);
	return id;
}

int
lava_server_job(const struct agent_conf *c, const json_t *job,
    const char *bzimage, json_t *upload, agent_progress_fn progress,
    void *arg)
{
	struct guest_run *g = xmalloc(sizeof(*g));
	struct buf err = BUF_INIT(4096), kurl = BUF_INIT(PATH_MAX + 256),
	    iurl = BUF_INIT(PATH_MAX + 256);
	struct lava_files f = { 0 };
	struct lava_job_state js;
	struct lsrv s;
	char *pub = NULL, how[512];
	int rc = -1, w;

	memset(&s, 0, sizeof(s));
	memset(&js, 0, sizeof(js));
	guest_init(g, c, job, "LAVA server", NULL);
	s.c = c;
	s.g = g;
	s.progress = progress;
	s.arg = arg;
	s.wait = 2;
	s.last_hb = guest_now();
	if (httpc_init(&s.h) == -1) {
		buf_addf(&err, "libcurl: no handle");
		goto out;
	}
	if (lava_files_make(c, job, &f, &err) == -1 || lsrv_urls(&s, bzimage,
	    f.initrd, &kurl, &iurl, &pub, &err) == -1 || lava_definition(c,
	    job, kurl.data, iurl.data, f.definition, &err) == -1) {
		error("job %lld: %s", g->id, err.data);
		goto out;
	}
	g->t0 = guest_now();
	if ((s.lava_id = lsrv_noted(&s, f.dir)) > 0) {
		/* Submitted before the agent restarted: that job, not a
		   second one. */
		log_info("job %lld.%d: following LAVA job %lld again (%s; "
		    "submitted before a restart)", g->id, g->attempt,
		    s.lava_id, c->lava_url);
	} else {
		if (progress)
			progress(arg, "submitting to LAVA");
		if ((w = lsrv_submit(&s, f.definition, &err)) != 0) {
			g->lost = w == 1;
			goto out;
		}
		lsrv_note(&s, f.dir);
		log_info("job %lld.%d: LAVA job %lld on %s (device type %s): "
		    "%s", g->id, g->attempt, s.lava_id, c->lava_url,
		    c->lava_device_type, f.definition);
	}
	if ((w = lsrv_wait(&s, &js, &err)) != 0) {
		g->lost = w == 1;
		goto out;
	}
	log_info("job %lld.%d: LAVA job %lld finished: %s%s%s", g->id,
	    g->attempt, s.lava_id, js.health, js.failure ? ": " : "",
	    js.failure ? js.failure : "");
	if (lsrv_log(&s, f.log, &err) == -1) {
		/* No log: nothing ran that says anything about the kernel. */
		buf_addf(&err, "; LAVA's health: %s%s%s", js.health,
		    js.failure ? ", " : "", js.failure ? js.failure : "");
		goto out;
	}
	snprintf(how, sizeof(how), "LAVA device type %.60s (LAVA job %lld on "
	    "%.200s)", c->lava_device_type, s.lava_id, c->lava_url);
	rc = lava_job_outcome(g, job, f.log, how, upload);
	if (rc == -1)
		buf_addf(&err, "LAVA job %lld ended %s: %s", s.lava_id,
		    js.health, g->ended[0] ? g->ended : "no result in its log");
out:
	if (g->lost)
		rc = 1;
	else if (rc == -1)
		guest_give_back_reason(g, &err, upload);
	lava_state_release(&js);
	lsrv_unpublish(pub);
	httpc_release(&s.h);
	buf_release(&err);
	buf_release(&kurl);
	buf_release(&iurl);
	lava_files_release(&f);
	free(g);
	return rc;
}
