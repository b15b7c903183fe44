/*
 * agent_state: the agent's job state machine as one table, the job file in
 * the state directory, the kexec command lines and the parsing of what
 * kperfci-load printed.  No network, no subprocesses: all of it is
 * unit-tested (tests/unit/t-agent-state.c), a kexec reboot included.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

volatile int agent_stopping;

#define ANY	-1
#define Q	AGENT_QEMU
#define K	AGENT_KEXEC
#define L	AGENT_LAVA

/*
 * Rows are tried in order; the first match wins, so a specific row
 * (backend, where) must come before a general one.
 */
static const struct agent_transition table[] = {
	/* Start with nothing to do, or back in the home kernel after a
	   job was uploaded: lease.  A start inside a kernel with someone
	   else's marker means a stale boot: go home first. */
	{ AGENT_PH_IDLE,    AGENT_EV_START, K, AGENT_IN_STALE,
	  AGENT_PH_IDLE,    AGENT_ACT_RETURN_HOME },
	{ AGENT_PH_IDLE,    AGENT_EV_START, ANY, AGENT_IN_ANY,
	  AGENT_PH_IDLE,    AGENT_ACT_LEASE },
	/* A job leased or downloaded before a restart: fetch (again). */
	{ AGENT_PH_LEASED,  AGENT_EV_START, ANY, AGENT_IN_ANY,
	  AGENT_PH_LEASED,  AGENT_ACT_DOWNLOAD },
	{ AGENT_PH_READY,   AGENT_EV_START, ANY, AGENT_IN_ANY,
	  AGENT_PH_LEASED,  AGENT_ACT_DOWNLOAD },
	/* kexec: the reboot happened.  In the job kernel: run.  Back in
	   the home kernel: the job kernel did not come up (panic, hang and
	   a watchdog or firmware reboot): a result about that kernel.
	   Another release under our marker: also the kernel's fault. */
	{ AGENT_PH_BOOTING, AGENT_EV_START, K, AGENT_IN_JOB,
	  AGENT_PH_RUNNING, AGENT_ACT_RUN },
	{ AGENT_PH_BOOTING, AGENT_EV_START, K, AGENT_IN_ANY,
	  AGENT_PH_RESULTS, AGENT_ACT_FAIL_BOOT },
	/* Restarted while the workloads ran: the machine went down under
	   them.  Record it rather than loop. */
	{ AGENT_PH_RUNNING, AGENT_EV_START, K, AGENT_IN_ANY,
	  AGENT_PH_RESULTS, AGENT_ACT_FAIL_RUN },
	{ AGENT_PH_RESULTS, AGENT_EV_START, ANY, AGENT_IN_ANY,
	  AGENT_PH_RESULTS, AGENT_ACT_UPLOAD },
	{ AGENT_PH_UPLOADED, AGENT_EV_START, K, AGENT_IN_JOB,
	  AGENT_PH_UPLOADED, AGENT_ACT_RETURN_HOME },
	{ AGENT_PH_UPLOADED, AGENT_EV_START, K, AGENT_IN_WRONG,
	  AGENT_PH_UPLOADED, AGENT_ACT_RETURN_HOME },
	{ AGENT_PH_UPLOADED, AGENT_EV_START, ANY, AGENT_IN_ANY,
	  AGENT_PH_IDLE,    AGENT_ACT_LEASE },

	{ AGENT_PH_IDLE,    AGENT_EV_NO_JOB, ANY, AGENT_IN_ANY,
	  AGENT_PH_IDLE,    AGENT_ACT_LEASE },
	{ AGENT_PH_IDLE,    AGENT_EV_LEASED, ANY, AGENT_IN_ANY,
	  AGENT_PH_LEASED,  AGENT_ACT_DOWNLOAD },
	{ AGENT_PH_LEASED,  AGENT_EV_DOWNLOADED, ANY, AGENT_IN_ANY,
	  AGENT_PH_READY,   AGENT_ACT_BOOT },
	/* A corrupt download is the transport's fault, not the kernel's:
	   drop the lease so it expires and the job is offered again. */
	{ AGENT_PH_LEASED,  AGENT_EV_DOWNLOAD_BAD, ANY, AGENT_IN_ANY,
	  AGENT_PH_IDLE,    AGENT_ACT_DROP },
	{ AGENT_PH_READY,   AGENT_EV_BOOTED, Q, AGENT_IN_ANY,
	  AGENT_PH_RESULTS, AGENT_ACT_UPLOAD },
	{ AGENT_PH_READY,   AGENT_EV_BOOTED, L, AGENT_IN_ANY,
	  AGENT_PH_RESULTS, AGENT_ACT_UPLOAD },
	{ AGENT_PH_RUNNING, AGENT_EV_RAN, K, AGENT_IN_ANY,
	  AGENT_PH_RESULTS, AGENT_ACT_UPLOAD },
	/* After the upload a kexec agent is still in the job kernel. */
	{ AGENT_PH_RESULTS, AGENT_EV_UPLOADED, K, AGENT_IN_JOB,
	  AGENT_PH_UPLOADED, AGENT_ACT_RETURN_HOME },
	{ AGENT_PH_RESULTS, AGENT_EV_UPLOADED, K, AGENT_IN_WRONG,
	  AGENT_PH_UPLOADED, AGENT_ACT_RETURN_HOME },
	{ AGENT_PH_RESULTS, AGENT_EV_UPLOADED, ANY, AGENT_IN_ANY,
	  AGENT_PH_IDLE,    AGENT_ACT_LEASE },
	/* Someone else has the job now; kexec still has to go home. */
	{ AGENT_PH_RUNNING, AGENT_EV_LEASE_LOST, K, AGENT_IN_ANY,
	  AGENT_PH_UPLOADED, AGENT_ACT_RETURN_HOME },
	{ AGENT_PH_RESULTS, AGENT_EV_LEASE_LOST, K, AGENT_IN_JOB,
	  AGENT_PH_UPLOADED, AGENT_ACT_RETURN_HOME },
	{ AGENT_PH_LEASED,  AGENT_EV_LEASE_LOST, ANY, AGENT_IN_ANY,
	  AGENT_PH_IDLE,    AGENT_ACT_DROP },
	{ AGENT_PH_READY,   AGENT_EV_LEASE_LOST, ANY, AGENT_IN_ANY,
	  AGENT_PH_IDLE,    AGENT_ACT_DROP },
	{ AGENT_PH_RESULTS, AGENT_EV_LEASE_LOST, ANY, AGENT_IN_ANY,
	  AGENT_PH_IDLE,    AGENT_ACT_DROP },
};

const struct agent_transition *
agent_state_next(enum agent_phase ph, enum agent_event ev,
    enum agent_backend be, enum agent_where where)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct agent_transition *t = &table[i];

		if (t->phase == ph && t->event == ev &&
		    (t->backend == ANY || t->backend == (int)be) &&
		    (t->where == AGENT_IN_ANY || t->where == where))
			return t;
	}
	return NULL;
}

static const char *const phase_names[] = {
	"idle", "leased", "ready", "booting", "running", "results", "uploaded",
};

const char *
agent_phase_name(enum agent_phase p)
{
	return p < AGENT_PH_NPHASES ? phase_names[p] : "?";
}

int
agent_phase_parse(const char *s)
{
	for (int i = 0; i < AGENT_PH_NPHASES; i++)
		if (s && strcmp(s, phase_names[i]) == 0)
			return i;
	return -1;
}

const char *
agent_event_name(enum agent_event e)
{
	static const char *const n[] = { "start", "leased", "no-job",
	    "downloaded", "download-bad", "booted", "ran", "uploaded",
	    "lease-lost" };

	return (size_t)e < sizeof(n) / sizeof(n[0]) ? n[e] : "?";
}

const char *
agent_action_name(enum agent_action a)
{
	static const char *const n[] = { "lease", "download", "boot", "run",
	    "upload", "return-home", "drop", "fail-boot", "fail-run" };

	return (size_t)a < sizeof(n) / sizeof(n[0]) ? n[a] : "?";
}

void
agent_state_marker(long long job, int attempt, char *out, size_t n)
{
	snprintf(out, n, "kperfci.job=%lld.%d", job, attempt);
}

/* Finds "kperfci.job=" as a whole word of cmdline; returns its value's
   length and start, or NULL. */
static const char *
find_marker(const char *cmdline, size_t *len)
{
	const char *p = cmdline;

	while ((p = strstr(p, "kperfci.job="))) {
		if (p == cmdline || p[-1] == ' ') {
			p += strlen("kperfci.job=");
			*len = strcspn(p, " \n");
			return p;
		}
		p++;
	}
	return NULL;
}

enum agent_where
agent_state_where(long long job, int attempt, const char *want_release,
    const char *release, const char *cmdline)
{
	char want[64];
	const char *v;
	size_t n;

	if ((v = find_marker(cmdline, &n)) == NULL)
		return AGENT_IN_HOME;
	agent_state_marker(job, attempt, want, sizeof(want));
	if (n != strlen(want) - strlen("kperfci.job=") ||
	    memcmp(v, want + strlen("kperfci.job="), n) != 0)
		return AGENT_IN_STALE;
	if (want_release && strcmp(want_release, release) != 0)
		return AGENT_IN_WRONG;
	return AGENT_IN_JOB;
}

/* ---- the job file ----------------------------------------------------- */

long long
agent_job_id(const struct agent_job *j)
{
	return json_integer_value(json_object_get(j->job, PROTO_ID));
}

int
agent_job_attempt(const struct agent_job *j)
{
	return (int)json_integer_value(json_object_get(j->job, PROTO_ATTEMPT));
}

int
agent_job_save(const struct agent_job *j, const char *state_dir)
{
	json_t *o = json_object();
	char *text = NULL, *path = xasprintf("%s/job.json", state_dir);
	int rc = -1;

	json_object_set_new(o, "phase",
	    json_string(agent_phase_name(j->phase)));
	if (j->job)
		json_object_set(o, "job", j->job);
	if (j->upload)
		json_object_set(o, "upload", j->upload);
	if (j->release)
		json_object_set_new(o, "release", json_string(j->release));
	if (j->console_mark >= 0)
		json_object_set_new(o, "console_mark",
		    json_integer(j->console_mark));
	text = json_dumps(o, JSON_COMPACT);
	if (text == NULL || buf_write_file(path, text, strlen(text)) == -1) {
		log_warn("%s", path);
		goto out;
	}
	rc = 0;
out:
	free(text);
	free(path);
	json_decref(o);
	return rc;
}

int
agent_job_load(struct agent_job *j, const char *state_dir)
{
	char *path = xasprintf("%s/job.json", state_dir);
	struct buf b = BUF_INIT(PROTO_MAX_BODY + PROTO_MAX_MATRIX);
	struct buf err = BUF_INIT(1024);
	json_error_t je;
	json_t *o = NULL;
	int rc = -1, ph;

	memset(j, 0, sizeof(*j));
	j->phase = AGENT_PH_IDLE;
	j->console_mark = -1;
	if (buf_read_file(&b, path) == -1) {
		if (errno == ENOENT)
			rc = 0;
		else
			log_warn("%s", path);
		goto out;
	}
	if ((o = json_loadb(b.data, b.len, 0, &je)) == NULL) {
		error("%s: corrupt job file: %s", path, je.text);
		goto out;
	}
	ph = agent_phase_parse(json_string_value(json_object_get(o, "phase")));
	if (ph == -1) {
		error("%s: corrupt job file: bad phase", path);
		goto out;
	}
	j->phase = ph;
	if (ph != AGENT_PH_IDLE) {
		j->job = json_incref(json_object_get(o, "job"));
		if (j->job == NULL || proto_check_job(j->job, &err) == -1) {
			error("%s: corrupt job file: %s", path,
			    err.data ? err.data : "no job");
			j->phase = AGENT_PH_IDLE;
			goto out;
		}
	}
	j->upload = json_incref(json_object_get(o, "upload"));
	if (json_is_string(json_object_get(o, "release")))
		j->release = xstrdup(json_string_value(json_object_get(o,
		    "release")));
	if (json_is_integer(json_object_get(o, "console_mark")))
		j->console_mark = json_integer_value(json_object_get(o,
		    "console_mark"));
	rc = 0;
out:
	json_decref(o);
	buf_release(&b);
	buf_release(&err);
	free(path);
	return rc;
}

void
agent_job_release(struct agent_job *j)
{
	json_decref(j->job);
	json_decref(j->upload);
	free(j->release);
	memset(j, 0, sizeof(*j));
	j->console_mark = -1;
}

/* ---- kexec command lines -------------------------------------------- */

void
agent_kexec_cmdline(const char *home, const char *extra, long long job,
    int attempt, struct buf *out)
{
	char *copy = xstrdup(home ? home : ""), *save = NULL, *w;
	char marker[64];

	for (w = strtok_r(copy, " \t\n", &save); w;
	    w = strtok_r(NULL, " \t\n", &save)) {
		/* BOOT_IMAGE is the boot loader's note about the home kernel;
		   an old marker would make the job kernel look stale. */
		if (strncmp(w, "BOOT_IMAGE=", 11) == 0 ||
		    strncmp(w, "kperfci.job=", 12) == 0)
			continue;
		if (out->len)
			buf_addch(out, ' ');
		buf_addstr(out, w);
	}
	if (extra && *extra) {
		if (out->len)
			buf_addch(out, ' ');
		buf_addstr(out, extra);
	}
	agent_state_marker(job, attempt, marker, sizeof(marker));
	if (out->len)
		buf_addch(out, ' ');
	buf_addstr(out, marker);
	free(copy);
}

void
agent_argv_split(const char *cmd, struct strvec *out)
{
	char *copy = xstrdup(cmd), *save = NULL, *w;

	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t",
	    &save))
		strvec_pushf(out, "%s", w);
	free(copy);
}

void
agent_kexec_load_argv(const struct agent_conf *c, const char *bzimage,
    const char *cmdline, struct strvec *out)
{
	strvec_pushf(out, "%s", c->kexec_bin);
	strvec_push(out, "-l");
	strvec_pushf(out, "%s", bzimage);
	if (c->kexec_initrd && *c->kexec_initrd)
		strvec_pushf(out, "--initrd=%s", c->kexec_initrd);
	strvec_pushf(out, "--command-line=%s", cmdline);
}

int
agent_bzimage_release(const char *path, char *out, size_t n)
{
	unsigned char hdr[0x220];
	char ver[256];
	unsigned off;
	ssize_t r;
	int fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	/* Boot protocol: "HdrS" at 0x202; kernel_version at 0x20e is an
	   offset from 0x200 to a NUL-terminated "6.12.0 (user@host) #1 ...". */
	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr + 0x202, "HdrS", 4) != 0)
		goto out;
	off = (unsigned)(hdr[0x20e] | hdr[0x20f] << 8);
	if (off == 0)
		goto out;
	r = pread(fd, ver, sizeof(ver) - 1, off + 0x200);
	if (r <= 0)
		goto out;
	ver[r] = '\0';
	ver[strcspn(ver, " ")] = '\0';
	if (ver[0] == '\0')
		goto out;
	snprintf(out, n, "%s", ver);
	rc = 0;
out:
	close(fd);
	return rc;
}

/* ---- results ----------------------------------------------------------- */

void
agent_results_init(struct agent_results *r)
{
	memset(r, 0, sizeof(*r));
	r->samples = json_array();
	r->profiles = json_array();
	r->errors = json_array();
	r->environment = json_object();
	r->probe_hits = json_object();
	r->probe_errs = json_object();
	r->done_rc = -1;
}

void
agent_results_release(struct agent_results *r)
{
	json_decref(r->samples);
	json_decref(r->profiles);
	json_decref(r->topology);
	json_decref(r->errors);
	json_decref(r->environment);
	json_decref(r->probe_hits);
	json_decref(r->probe_errs);
	memset(r, 0, sizeof(*r));
}

static void
topo_set(struct agent_results *r, const char *key, json_t *v)
{
	if (r->topology == NULL)
		r->topology = json_object();
	json_object_set_new(r->topology, key, v);
}

/*
 * "KPERFCI TOPO sockets=2 nodes=2 cpus=4 memory_mb=1000 cores=4"
 * "KPERFCI MODEL <text>"
 * "KPERFCI NODE 0 0-1"
 * "KPERFCI ENV thp_enabled always [madvise] never"	(proto_environment)
 * "KPERFCI PROBE f3 1234"	kprobe_profile: event f3 (probe 3), hits
 * "KPERFCI PROBE-ERR 3"	probe 3 could not be registered
 * "KPERFCI PROBES-DONE"
 * "KPERFCI END"	the guest's last line (a LAVA boot action waits for it)
 */
static void
parse_probe_marker(struct agent_results *r, char *s)
{
	char key[16], *end;
	long long v;
	long idx;

	if (strcmp(s, "PROBES-DONE") == 0) {
		r->probes_done = 1;
		return;
	}
	if (strncmp(s, "PROBE-ERR ", 10) == 0) {
		idx = strtol(s + 10, &end, 10);
		if (end == s + 10 || *end || idx < 0 || idx >= PROTO_MAX_PROBES)
			goto junk;
		snprintf(key, sizeof(key), "%ld", idx);
		json_object_set_new(r->probe_errs, key, json_true());
		return;
	}
	/* "PROBE f3 1234" */
	if (strncmp(s, "PROBE f", 7) != 0)
		goto junk;
	idx = strtol(s + 7, &end, 10);
	if (end == s + 7 || *end != ' ' || idx < 0 || idx >= PROTO_MAX_PROBES)
		goto junk;
	s = end + 1;
	v = strtoll(s, &end, 10);
	if (end == s || *end || v < 0)
		goto junk;
	snprintf(key, sizeof(key), "%ld", idx);
	json_object_set_new(r->probe_hits, key, json_integer(v));
	return;
junk:
	r->junk++;
}

static void
parse_env_marker(struct agent_results *r, char *s)
{
	const struct proto_field *f;
	char *v = strchr(s, ' ');
	size_t n;

	if (v)
		*v++ = '\0';
	for (f = proto_environment; f->name; f++)
		if (strcmp(f->name, s) == 0)
			break;
	if (f->name == NULL) {
		r->junk++;
		return;
	}
	v = v ? v : (char *)"";
	v += strspn(v, " ");
	n = strnlen(v, f->max);
	/* printable ASCII only: it is shown on pages */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e)
			v[i] = '?';
	json_object_set_new(r->environment, f->name, json_stringn(v, n));
}

static void
parse_marker(struct agent_results *r, char *s)
{
	if (strcmp(s, "READY") == 0)
		r->ready = 1;
	else if (strcmp(s, "END") == 0)
		r->ended = 1;
	else if (strncmp(s, "DONE rc=", 8) == 0) {
		r->done = 1;
		r->done_rc = atoi(s + 8);
	} else if (strncmp(s, "TOPO ", 5) == 0) {
		char *save = NULL, *w;

		for (w = strtok_r(s + 5, " ", &save); w;
		    w = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(w, '=');

			if (eq == NULL)
				continue;
			*eq = '\0';
			if (strcmp(w, PROTO_SOCKETS) == 0 ||
			    strcmp(w, PROTO_NODES) == 0 ||
			    strcmp(w, PROTO_CPUS) == 0 ||
			    strcmp(w, PROTO_CORES) == 0 ||
			    strcmp(w, PROTO_MEMORY_MB) == 0)
				topo_set(r, w, json_integer(atoll(eq + 1)));
		}
	} else if (strncmp(s, "ENV ", 4) == 0) {
		parse_env_marker(r, s + 4);
	} else if (strncmp(s, "PROBE", 5) == 0) {
		parse_probe_marker(r, s);
	} else if (strncmp(s, "MODEL ", 6) == 0) {
		topo_set(r, PROTO_CPU_MODEL, json_stringn(s + 6,
		    strnlen(s + 6, 200)));
	} else if (strncmp(s, "NODE ", 5) == 0) {
		char *cpus = strchr(s + 5, ' ');
		json_t *a;

		if (cpus == NULL || r->topology == NULL)
			return;
		cpus++;
		if (strspn(cpus, "0123456789,-") != strlen(cpus))
			return;
		if ((a = json_object_get(r->topology, PROTO_NODE_CPUS)) == NULL) {
			a = json_array();
			topo_set(r, PROTO_NODE_CPUS, a);
		}
		json_array_append_new(a, json_string(cpus));
	} else
		r->junk++;
}

void
agent_results_parse(struct agent_results *r, const char *text, size_t len)
{
	char *copy = xstrndup(text, len), *p = copy, *nl;
	struct buf err = BUF_INIT(512);

	for (; p && *p; p = nl) {
		json_t *o;
		size_t n;

		if ((nl = strchr(p, '\n')))
			*nl++ = '\0';
		/* A serial line discipline turns \n into \r\n. */
		n = strlen(p);
		while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
			p[--n] = '\0';
		while (*p == '\r')
			p++;
		if (*p == '\0')
			continue;
		if (strncmp(p, "KPERFCI ", 8) == 0) {
			parse_marker(r, p + 8);
			continue;
		}
		if (*p != '{' || (o = json_loads(p, 0, NULL)) == NULL) {
			r->junk++;
			continue;
		}
		buf_reset(&err);
		if (json_is_string(json_object_get(o, PROTO_ERROR)))
			json_array_append(r->errors, json_object_get(o,
			    PROTO_ERROR));
		else if (proto_check_sample(o, "", &err) == 0) {
			const char *t = json_string_value(json_object_get(o,
			    PROTO_S_TYPE));

			json_array_append(t ? r->profiles : r->samples, o);
		} else
			r->junk++;
		json_decref(o);
	}
	buf_release(&err);
	free(copy);
}
