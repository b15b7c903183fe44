/*
 * agent: the daemon's side of the agent pool (see agent.h): tokens,
 * hardware classes, kernel artifacts on disk and the job functions the
 * scheduler uses.  The SQL is in db_agent.c, the routes in api_agent.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/agent.h"
#include "daemon/app.h"
#include "daemon/auth_client.h"
#include "daemon/config.h"
#include "daemon/db_agent.h"
#include "daemon/http.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"

/*
 * Failed authentications per client address, in fixed windows of
 * AGENT_AUTH_WINDOW seconds: past AGENT_AUTH_FAILS failures a client gets
 * 429 (even with the right token: a guesser must not learn it has found
 * one) until its window ends.  At most AGENT_AUTH_PEERS addresses are
 * remembered; when full, the entry whose window started first is reused.
 * An in-process call (no peer) is not counted.
 */
static struct agent_fail {
	char	 peer[64];
	time_t	 start;
	int	 fails;
} agent_fails[AGENT_AUTH_PEERS];
static pthread_mutex_t agent_fails_lock = PTHREAD_MUTEX_INITIALIZER;

/* The entry of peer (created when add); the lock is held. */
static struct agent_fail *
agent_fail_find(const char *peer, time_t now, int add)
{
	struct agent_fail *oldest = &agent_fails[0];

	for (size_t i = 0; i < AGENT_AUTH_PEERS; i++) {
		struct agent_fail *f = &agent_fails[i];

		if (f->peer[0] && !strcmp(f->peer, peer)) {
			if (now - f->start >= AGENT_AUTH_WINDOW) {
				f->start = now;
				f->fails = 0;
			}
			return f;
		}
		if (!f->peer[0] || f->start < oldest->start)
			oldest = f;
		if (!f->peer[0])
			break;
	}
	if (!add)
		return NULL;
	snprintf(oldest->peer, sizeof(oldest->peer), "%s", peer);
	oldest->start = now;
	oldest->fails = 0;
	return oldest;
}

/* Seconds peer must wait before trying again, 0 when it may try now. */
long
agent_auth_blocked(const char *peer)
{
	time_t now = time(NULL);
	struct agent_fail *f;
	long wait = 0;

	if (!peer)
		return 0;
	pthread_mutex_lock(&agent_fails_lock);
	if ((f = agent_fail_find(peer, now, 0)) && f->fails >= AGENT_AUTH_FAILS)
		wait = (long)(f->start + AGENT_AUTH_WINDOW - now);
	pthread_mutex_unlock(&agent_fails_lock);
	return wait > 0 ? wait : 0;
}

void
agent_auth_failed(const char *peer)
{
	struct agent_fail *f;

	if (!peer)
		return;
	pthread_mutex_lock(&agent_fails_lock);
	if ((f = agent_fail_find(peer, time(NULL), 1)) && ++f->fails ==
	    AGENT_AUTH_FAILS)
		log_warnx("agent: %d failed authentications from %s in %d s: "
		    "refused for the rest of the window", f->fails, peer,
		    AGENT_AUTH_WINDOW);
	pthread_mutex_unlock(&agent_fails_lock);
}

/*
 * Failed authentications per configured agent name, in the same windows:
 * a wrong token for a known name counts against the name as well as the
 * address, so guessers spread over many addresses (or one proxy) still
 * meet a limit.  The address that last authenticated as the agent is not
 * held back by its name's window (only by its own address's): a stranger
 * who knows the name must not lock the agent itself out.  Only names of
 * [agent] sections get an entry, so the table is not flooded by made-up
 * names; when full, the entry whose window started first is reused.
 */
static struct agent_name_fail {
	char	 name[72];
	char	 good[64];		/* last address that got it right */
	time_t	 start;
	int	 fails;
} agent_name_fails[AGENT_AUTH_NAMES];

/* The entry of name (created when add); the lock is held. */
static struct agent_name_fail *
agent_name_find(const char *name, time_t now, int add)
{
	struct agent_name_fail *oldest = &agent_name_fails[0];

	for (size_t i = 0; i < AGENT_AUTH_NAMES; i++) {
		struct agent_name_fail *f = &agent_name_fails[i];

		if (f->name[0] && !strcmp(f->name, name)) {
			if (now - f->start >= AGENT_AUTH_WINDOW) {
				f->start = now;
				f->fails = 0;
			}
			return f;
		}
		if (!f->name[0] || f->start < oldest->start)
			oldest = f;
		if (!f->name[0])
			break;
	}
	if (!add)
		return NULL;
	memset(oldest, 0, sizeof(*oldest));
	snprintf(oldest->name, sizeof(oldest->name), "%s", name);
	oldest->start = now;
	return oldest;
}

/* Seconds a client other than the name's own must wait; 0: it may try. */
static long
agent_name_blocked(const char *name, const char *client)
{
	time_t now = time(NULL);
	struct agent_name_fail *f;
	long wait = 0;

	pthread_mutex_lock(&agent_fails_lock);
	if ((f = agent_name_find(name, now, 0)) &&
	    f->fails >= AGENT_AUTH_FAILS &&
	    (!client || strcmp(f->good, client)))
		wait = (long)(f->start + AGENT_AUTH_WINDOW - now);
	pthread_mutex_unlock(&agent_fails_lock);
	return wait > 0 ? wait : 0;
}

/* One more failure of name (ok 0), or the address it succeeded from. */
static void
agent_name_seen(const char *name, const char *client, int ok)
{
	struct agent_name_fail *f;

	pthread_mutex_lock(&agent_fails_lock);
	f = agent_name_find(name, time(NULL), 1);
	if (ok)
		snprintf(f->good, sizeof(f->good), "%s", client);
	else if (++f->fails == AGENT_AUTH_FAILS)
		log_warnx("agent: %d failed authentications as \"%s\" in "
		    "%d s: refused but from %s for the rest of the window",
		    f->fails, name, AGENT_AUTH_WINDOW, f->good[0] ? f->good :
		    "nowhere");
	pthread_mutex_unlock(&agent_fails_lock);
}

void
agent_auth_reset(void)
{
	pthread_mutex_lock(&agent_fails_lock);
	memset(agent_fails, 0, sizeof(agent_fails));
	memset(agent_name_fails, 0, sizeof(agent_name_fails));
	pthread_mutex_unlock(&agent_fails_lock);
}

char *
agent_class(const json_t *t)
{
	const char *model = json_string_value(json_object_get(t,
	    PROTO_CPU_MODEL));
	char h[65];

	sha256_hex(model ? model : "", model ? strlen(model) : 0, h);
	return xasprintf("%llds-%lldn-%lldc-%.8s",
	    (long long)json_integer_value(json_object_get(t, PROTO_SOCKETS)),
	    (long long)json_integer_value(json_object_get(t, PROTO_NODES)),
	    (long long)json_integer_value(json_object_get(t, PROTO_CPUS)), h);
}

/* Compares without an early exit, so timing says nothing about where. */
static int
same_hex(const char *a, const char *b)
{
	unsigned char d = 0;
	size_t i;

	if (strlen(a) != 64 || strlen(b) != 64)
		return 0;
	for (i = 0; i < 64; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

static int
agent_token_check(const struct http_req *req, const char *name,
    struct http_resp *resp)
{
	const char *h = http_header(req, "Authorization"), *want;
	char got[65];
	size_t i;

	if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0 || h[7] == '\0') {
		http_reply_error(resp, 401, "Authorization: a bearer token is "
		    "required");
		return -1;
	}
	if (!strcmp(h + 7, AGENT_EXAMPLE_TOKEN)) {
		log_warnx("agent: %s%s%s from %s presented the example token "
		    "\"%s\": refused", name ? "\"" : "", name ? name :
		    "an agent", name ? "\"" : "", req->peer ? req->peer :
		    "(in-process)", AGENT_EXAMPLE_TOKEN);
		http_reply_error(resp, 403, "Authorization: \"%s\" is the "
		    "example token from etc/agent.conf and is never accepted; "
		    "give the agent a secret token", AGENT_EXAMPLE_TOKEN);
		return -1;
	}
	sha256_hex(h + 7, strlen(h + 7), got);
	if (name) {
		want = settings_agent_token(&app.settings, name);
		if (want == NULL) {
			http_reply_error(resp, 403, "agent: \"%s\" is not a "
			    "configured agent", name);
			return -1;
		}
		if (!same_hex(got, want)) {
			http_reply_error(resp, 403, "Authorization: wrong "
			    "token for agent \"%s\"", name);
			return -1;
		}
		return 0;
	}
	for (i = 0; i < app.settings.agents.n; i++) {
		want = app.settings.agents.list[i].token_sha256;
		if (want && same_hex(got, want))
			return 0;
	}
	http_reply_error(resp, 403, "Authorization: token of no configured "
	    "agent");
	return -1;
}

int
agent_authorize(const struct http_req *req, const char *name,
    struct http_resp *resp)
{
	char client[64];
	const char *cl = *auth_client_key(req, client, sizeof(client)) ?
	    client : NULL;
	/* a name counts only when it is an [agent]'s and a client is known */
	int known = cl && name && settings_agent_token(&app.settings, name);
	long wait = agent_auth_blocked(cl);
	int by_name = 0;

	if (!wait && known && (wait = agent_name_blocked(name, cl)) > 0)
		by_name = 1;
	if (wait > 0) {
		char s[24];

		snprintf(s, sizeof(s), "%ld", wait);
		http_resp_header(resp, "Retry-After", s);
		http_reply_error(resp, 429, "Authorization: too many failed "
		    "attempts %s%s%s (%d in %d s); retry in %ld s", by_name ?
		    "as agent \"" : "from ", by_name ? name : cl,
		    by_name ? "\"" : "", AGENT_AUTH_FAILS, AGENT_AUTH_WINDOW,
		    wait);
		return -1;
	}
	if (agent_token_check(req, name, resp) == 0) {
		if (known)
			agent_name_seen(name, cl, 1);
		return 0;
	}
	agent_auth_failed(cl);
	if (known)
		agent_name_seen(name, cl, 0);
	return -1;
}

int
agent_kernel_add(struct db *db, const void *data, size_t len,
    const char *note, long long *id, struct buf *err)
{
	char sha[65], *dir, *rel, *path;
	struct stat st;
	int rc = -1;

	/* A bzImage starts its setup header with "HdrS" at 0x202. */
	if (len < 0x210 || memcmp((const char *)data + 0x202, "HdrS", 4) != 0) {
		buf_addstr(err, "kernel: not a bzImage (no \"HdrS\" setup "
		    "header at offset 0x202)");
		return -1;
	}
	sha256_hex(data, len, sha);
	dir = xasprintf("%s/kernels", app.data_dir);
	rel = xasprintf("kernels/%s.bzImage", sha);
	path = xasprintf("%s/%s", app.data_dir, rel);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		buf_addf(err, "%s: %s", dir, strerror(errno));
		goto out;
	}
	if ((stat(path, &st) == -1 || (size_t)st.st_size != len) &&
	    buf_write_file(path, data, len) == -1) {
		buf_addf(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (db_kernel_insert(db, sha, (long long)len, rel, NULL, note,
	    id) == -1) {
		buf_addstr(err, "kernel: could not be recorded");
		goto out;
	}
	rc = 0;
out:
	free(dir);
	free(rel);
	free(path);
	return rc;
}

int
agent_kernel_add_file(struct db *db, const char *path, const char *note,
    long long *id, struct buf *err)
{
	struct buf b = BUF_INIT(PROTO_MAX_KERNEL);
	int rc;

	if (buf_read_file(&b, path) == -1) {
		buf_addf(err, "%s: %s", path, b.overflow ? "larger than the "
		    "kernel size limit" : strerror(errno));
		buf_release(&b);
		return -1;
	}
	rc = agent_kernel_add(db, b.data, b.len, note, id, err);
	buf_release(&b);
	return rc;
}

/* Hashes fd[0..len) and, when out >= 0, copies it there; 0 or -1. */
static int
agent_kernel_pass(int fd, size_t len, int out, char sha[65])
{
	struct sha256 ctx;
	unsigned char md[32];
	char *chunk = xmalloc(1u << 20);
	size_t off = 0, i;
	ssize_t n;
	int rc = -1;

	sha256_init(&ctx);
	while (off < len) {
		n = pread(fd, chunk, len - off < (1u << 20) ? len - off :
		    (1u << 20), off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto out;
		sha256_update(&ctx, chunk, n);
		if (out >= 0 && write(out, chunk, n) != n)
			goto out;
		off += n;
	}
	sha256_final(&ctx, md);
	for (i = 0; i < 32; i++)
		snprintf(sha + 2 * i, 3, "%02x", md[i]);
	rc = 0;
out:
	free(chunk);
	return rc;
}

int
agent_kernel_add_fd(struct db *db, int fd, size_t len, const char *note,
    long long *id, struct buf *err)
{
	char sha[65], hdr[4], *dir = NULL, *rel = NULL, *path = NULL,
	    *tmp = NULL;
	struct stat st;
	int out = -1, rc = -1;

	if (len < 0x210 || pread(fd, hdr, 4, 0x202) != 4 ||
	    memcmp(hdr, "HdrS", 4) != 0) {
		buf_addstr(err, "kernel: not a bzImage (no \"HdrS\" setup "
		    "header at offset 0x202)");
		return -1;
	}
	if (agent_kernel_pass(fd, len, -1, sha) < 0) {
		buf_addf(err, "kernel: reading the upload: %s",
		    strerror(errno));
		return -1;
	}
	dir = xasprintf("%s/kernels", app.data_dir);
	rel = xasprintf("kernels/%s.bzImage", sha);
	path = xasprintf("%s/%s", app.data_dir, rel);
	tmp = xasprintf("%s.XXXXXX", path);
	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		buf_addf(err, "%s: %s", dir, strerror(errno));
		goto out;
	}
	/* a unique temporary name: parallel uploads of one image race */
	if (stat(path, &st) == -1 || (size_t)st.st_size != len) {
		if ((out = mkostemp(tmp, O_CLOEXEC)) < 0 ||
		    agent_kernel_pass(fd, len, out, sha) < 0 ||
		    fsync(out) < 0 || rename(tmp, path) < 0) {
			buf_addf(err, "%s: %s", path, strerror(errno));
			unlink(tmp);
			goto out;
		}
	}
	if (db_kernel_insert(db, sha, (long long)len, rel, NULL, note,
	    id) == -1) {
		buf_addstr(err, "kernel: could not be recorded");
		goto out;
	}
	rc = 0;
out:
	if (out >= 0)
		close(out);
	free(dir);
	free(rel);
	free(path);
	free(tmp);
	return rc;
}

int
agent_enqueue(struct db *db, const struct agent_job_spec *s, long long *id,
    struct buf *err)
{
	struct db_job_new j = { 0 };
	int rc;

	if (s->matrix == NULL || *s->matrix == '\0' ||
	    strlen(s->matrix) > PROTO_MAX_MATRIX) {
		buf_addf(err, "matrix: must be 1..%d bytes of workloads.conf "
		    "text", PROTO_MAX_MATRIX);
		return -1;
	}
	if (s->cmdline && (strlen(s->cmdline) > 1024 ||
	    !proto_valid_cmdline(s->cmdline))) {
		buf_addstr(err, "cmdline: only printable ASCII without quotes "
		    "or backslashes, at most 1024 bytes");
		return -1;
	}
	j.kernel_id = s->kernel_id;
	j.matrix = s->matrix;
	j.cmdline = s->cmdline;
	j.priority = s->priority;
	j.comparison_id = s->comparison_id;
	j.side = s->side;
	j.boot = s->boot;
	j.class = s->class;
	j.max_attempts = s->max_attempts ? s->max_attempts :
	    app.settings.agents.max_attempts;
	rc = db_job_insert(db, &j, (long long)time(NULL), id);
	if (rc == 1)
		buf_addf(err, "kernel: no kernel with id %lld", s->kernel_id);
	else if (rc == -1)
		buf_addstr(err, "job: could not be stored");
	return rc == 0 ? 0 : -1;
}

int
agent_job_state(struct db *db, long long id, char **state, char **reason)
{
	json_t *j;
	int rc;

	/* expiry is the lease timer's (daemon/lease.c), not a reader's */
	if ((rc = db_job_get(db, id, &j)) != 0)
		return rc;
	*state = xstrdup(json_string_value(json_object_get(j, "state")));
	if (reason)
		*reason = json_is_string(json_object_get(j, "reason")) ?
		    xstrdup(json_string_value(json_object_get(j, "reason"))) :
		    NULL;
	json_decref(j);
	return 0;
}

int
agent_fetch_results(struct db *db, long long id, json_t **samples,
    json_t **profiles)
{
	return db_job_results(db, id, samples, profiles);
}
