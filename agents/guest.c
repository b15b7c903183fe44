/*
 * guest: what the boot backends that start a guest share (agent.h), so
 * that a kernel's result does not depend on which of them booted it.  The
 * qemu backend (qemu.c) starts qemu itself; the LAVA backend (lava_run.c)
 * has the real dispatcher start it on a lab's device.  Both boot the same
 * initramfs (qemu_initramfs) with the same command line (guest_cmdline),
 * and the guest prints the same marker lines and samples: on qemu's
 * second serial port, or in LAVA's job log.  From there one path decides:
 * guest_upload reads the status, the reason of a failure, samples,
 * profiles, topology, probes and the console into the upload.
 *
 * DESIGN.  The boot command runs in a thread (run_cmd: own process group,
 * job timeout); guest_run's thread watches the file where the ready
 * marker appears (boot timeout), sends heartbeats and cancels the command
 * when the lease is lost or the agent is stopping.  Whatever happens to
 * the guest ends as an upload: a kernel that panics or never reaches
 * READY is "boot-failed" with its console, not an error of the agent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

double
guest_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
guest_file_has(const char *path, const char *needle)
{
	struct buf b = BUF_INIT(16 * 1024 * 1024);
	int found;

	found = buf_read_file(&b, path) == 0 && b.data &&
	    memmem(b.data, b.len, needle, strlen(needle)) != NULL;
	buf_release(&b);
	return found;
}

json_t *
guest_topology(int sockets, int cores_per_socket, int mem_per_node_mb,
    const char *model)
{
	json_t *t = json_object(), *nodes = json_array();
	int cpus = sockets * cores_per_socket;
	char cpu[32];

	for (int s = 0; s < sockets; s++) {
		snprintf(cpu, sizeof(cpu), "%d-%d", s * cores_per_socket,
		    (s + 1) * cores_per_socket - 1);
		if (cores_per_socket == 1)
			snprintf(cpu, sizeof(cpu), "%d", s);
		json_array_append_new(nodes, json_string(cpu));
	}
	json_object_set_new(t, PROTO_SOCKETS, json_integer(sockets));
	json_object_set_new(t, PROTO_NODES, json_integer(sockets));
	json_object_set_new(t, PROTO_CPUS, json_integer(cpus));
	json_object_set_new(t, PROTO_CORES, json_integer(cpus));
	json_object_set_new(t, PROTO_THREADS, json_integer(1));
	json_object_set_new(t, PROTO_CPU_MODEL, json_stringn(model,
	    strnlen(model, 250)));
	json_object_set_new(t, PROTO_MEMORY_MB,
	    json_integer((long long)sockets * mem_per_node_mb));
	json_object_set_new(t, PROTO_NODE_CPUS, nodes);
	return t;
}

char *
guest_cmdline(const json_t *job)
{
	const char *extra = json_string_value(json_object_get(job,
	    PROTO_CMDLINE));
	char marker[64];

	agent_state_marker(json_integer_value(json_object_get(job, PROTO_ID)),
	    (int)json_integer_value(json_object_get(job, PROTO_ATTEMPT)),
	    marker, sizeof(marker));
	return xasprintf("console=ttyS0 panic=-1 %s%s%s", marker,
	    extra && *extra ? " " : "", extra ? extra : "");
}

void
guest_init(struct guest_run *g, const struct agent_conf *c,
    const json_t *job, const char *runner, const char *watch)
{
	memset(g, 0, sizeof(*g));
	g->c = c;
	g->id = json_integer_value(json_object_get(job, PROTO_ID));
	g->attempt = (int)json_integer_value(json_object_get(job,
	    PROTO_ATTEMPT));
	g->runner = runner;
	g->watch = watch;
	g->run.cancel = &g->cancel;
}

static void *
guest_thread(void *arg)
{
	struct guest_run *g = arg;

	g->rc = run_cmd(&g->run);
	g->finished = 1;
	return NULL;
}

int
guest_start(struct guest_run *g)
{
	g->t0 = guest_now();
	if (pthread_create(&g->th, NULL, guest_thread, g) != 0)
		return error("job %lld: cannot start the %s thread", g->id,
		    g->runner);
	return 0;
}

void
guest_give_back_reason(const struct guest_run *g, const struct buf *err,
    json_t *upload)
{
	char *why;

	if (err->len || g->ended[0]) {
		json_object_set_new(upload, PROTO_REASON, json_string(
		    err->len ? err->data : g->ended));
		return;
	}
	why = xasprintf("%s could not be started", g->runner);
	json_object_set_new(upload, PROTO_REASON, json_string(why));
	free(why);
}

void
guest_join(struct guest_run *g)
{
	pthread_join(g->th, NULL);
	snprintf(g->ended, sizeof(g->ended), "%s %s", g->runner,
	    run_status(&g->run));
}

/* Watches the running guest until the command ends: notes the ready
   marker, stops a guest that never gets ready, sends heartbeats, and
   stops the guest when the lease is lost or the agent is stopping. */
static void
guest_watch(struct guest_run *g, agent_progress_fn progress, void *arg)
{
	const struct agent_conf *c = g->c;
	double last_hb = g->t0;

	while (!g->finished) {
		usleep(250000);
		if (agent_stopping && !g->cancel) {
			g->lost = 1;
			g->cancel = 1;
		}
		if (!g->t_ready && g->watch &&
		    guest_file_has(g->watch, "KPERFCI READY")) {
			g->t_ready = guest_now();
			log_info("job %lld.%d: guest ready after %.1f s", g->id,
			    g->attempt, g->t_ready - g->t0);
		}
		if (!g->t_ready && !g->cancel && guest_now() - g->t0 >
		    c->boot_timeout) {
			log_warnx("job %lld.%d: no ready marker after %d s",
			    g->id, g->attempt, c->boot_timeout);
			g->boot_timed_out = 1;
			g->cancel = 1;
		}
		if (progress && guest_now() - last_hb >= c->heartbeat_seconds) {
			last_hb = guest_now();
			if (progress(arg, g->t_ready ? "running" : "booting") ==
			    -1 && !g->cancel) {
				log_warnx("job %lld.%d: lease lost; stopping "
				    "the guest", g->id, g->attempt);
				g->lost = 1;
				g->cancel = 1;
			}
		}
	}
}

int
guest_run(struct guest_run *g, agent_progress_fn progress, void *arg)
{
	if (guest_start(g) == -1)
		return -1;
	if (progress)
		progress(arg, "booting");
	guest_watch(g, progress, arg);
	guest_join(g);
	return 0;
}

/* JSON strings must be UTF-8: console bytes from a dying kernel may not
   be.  Keep printable ASCII, newlines and tabs; replace the rest. */
static json_t *
text_json(const char *p, size_t n)
{
	char *s = xmalloc(n + 1);
	json_t *j;

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];

		s[i] = (ch == '\n' || ch == '\t' || (ch >= 0x20 && ch < 0x7f)) ?
		    (char)ch : (ch == '\r' ? ' ' : '?');
	}
	s[n] = '\0';
	j = json_stringn(s, n);
	free(s);
	return j;
}

/* The console's panic line, or NULL. */
static char *
panic_line(const struct buf *con)
{
	const char *p;
	size_t n;

	if (con->data == NULL || (p = memmem(con->data, con->len,
	    "Kernel panic", 12)) == NULL)
		return NULL;
	n = strcspn(p, "\r\n");
	return xstrndup(p, n > 300 ? 300 : n);
}

/* The job's status from what the guest reported, with the reason of a
   boot failure or a failed run set in upload. */
static const char *
guest_status(const struct guest_run *g, const struct agent_results *ar,
    const struct buf *con, json_t *upload)
{
	struct buf why = BUF_INIT(PROTO_MAX_TEXT);
	char *pl = panic_line(con);
	const char *status;

	if (!ar->ready) {
		status = PROTO_ST_BOOT_FAILED;
		if (pl)
			buf_addstr(&why, pl);
		else if (g->boot_timed_out)
			buf_addstr(&why, "no ready marker from the guest within "
			    "the boot timeout");
		else
			buf_addf(&why, "the guest ended before the ready marker "
			    "(%s)", g->ended);
	} else if (ar->done && ar->done_rc == 0) {
		status = PROTO_ST_DONE;
	} else {
		status = PROTO_ST_FAILED;
		if (ar->done)
			buf_addf(&why, "kperfci-load exited %d", ar->done_rc);
		else if (pl)
			buf_addf(&why, "%s", pl);
		else
			buf_addf(&why, "workloads did not finish (%s)",
			    g->ended);
		for (size_t i = 0; i < json_array_size(ar->errors) && i < 5; i++)
			buf_addf(&why, "; %s", json_string_value(
			    json_array_get(ar->errors, i)));
	}
	if (why.len)
		json_object_set_new(upload, PROTO_REASON,
		    text_json(why.data, strnlen(why.data, PROTO_MAX_TEXT - 1)));
	buf_release(&why);
	free(pl);
	return status;
}

/* The guest's topology, when it reported one that checks. */
static void
guest_upload_topology(long long id, const struct agent_results *ar,
    json_t *upload)
{
	struct buf terr = BUF_INIT(256);
	json_t *t;

	if (!ar->topology)
		return;
	t = json_deep_copy(ar->topology);
	if (json_object_get(t, PROTO_CPU_MODEL) == NULL)
		json_object_set_new(t, PROTO_CPU_MODEL, json_string("unknown"));
	if (proto_check(t, proto_topology, "topology.", &terr) == 0)
		json_object_set_new(upload, PROTO_TOPOLOGY, t);
	else {
		log_warnx("job %lld: guest topology: %s", id, terr.data);
		json_decref(t);
	}
	buf_release(&terr);
}

void
guest_upload(const struct guest_run *g, const json_t *job, const char *how,
    const struct agent_results *ar, const struct buf *con, json_t *upload)
{
	const char *status = guest_status(g, ar, con, upload);

	json_object_set_new(upload, PROTO_STATUS, json_string(status));
	json_object_set(upload, PROTO_SAMPLES, ar->samples);
	json_object_set(upload, PROTO_PROFILES, ar->profiles);
	guest_upload_topology(g->id, ar, upload);
	probe_upload(json_object_get(job, PROTO_PROBES), ar, how, upload);
	if (g->t_ready)
		json_object_set_new(upload, PROTO_BOOT_SECONDS,
		    json_real(g->t_ready - g->t0));
	if (con->len > PROTO_MAX_CONSOLE)
		json_object_set_new(upload, PROTO_CONSOLE, text_json(con->data +
		    con->len - PROTO_MAX_CONSOLE, PROTO_MAX_CONSOLE));
	else
		json_object_set_new(upload, PROTO_CONSOLE, text_json(con->data ?
		    con->data : "", con->len));
	log_info("job %lld.%d: %s, %zu samples, %zu profiles", g->id,
	    g->attempt, status, json_array_size(ar->samples),
	    json_array_size(ar->profiles));
}
