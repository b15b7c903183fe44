/*
 * agent (daemon side): the agent registry and the job queue agents pull
 * from.  Agents authenticate with a bearer token whose sha256 is in the
 * configuration ([agent "NAME"] token_sha256 = ...); their hardware class
 * is derived from the topology they register; jobs are leased for
 * [agents] lease seconds, extended by heartbeats, re-queued when a lease
 * expires (checked at every lease request and listing, no reaper thread),
 * and failed after [agents] max_attempts expiries so a job that kills its
 * agents is not retried forever.
 *
 * The scheduler creates jobs and reads their results through the
 * functions below; it never needs db_agent.h.
 */
#ifndef KPERFCI_DAEMON_AGENT_H
#define KPERFCI_DAEMON_AGENT_H

#include <jansson.h>
#include <stddef.h>

#include "daemon/config.h"
#include "lib/buf.h"

/* The token etc/agent.conf ships as an example: never accepted, and its
   sha256 is refused as a configured token_sha256. */
#define AGENT_EXAMPLE_TOKEN	CONFIG_AGENT_EXAMPLE_TOKEN
/* Failed agent authentications allowed per client address and window. */
#define AGENT_AUTH_FAILS	10
#define AGENT_AUTH_WINDOW	60
#define AGENT_AUTH_PEERS	1024
/* Agent names whose failures are kept (only [agent] names count). */
#define AGENT_AUTH_NAMES	256

struct db;
struct http_req;
struct http_resp;

/* A job: one boot of one kernel running one workload matrix. */
struct agent_job_spec {
	long long kernel_id;		/* from agent_kernel_add*() */
	const char *matrix;		/* etc/workloads.conf-format text */
	const char *cmdline;		/* extra kernel parameters, or NULL */
	int	 priority;		/* higher first; FIFO within */
	long long comparison_id;	/* the scheduler's, 0: none */
	const char *side;		/* "base" / "patched" / NULL */
	int	 boot;			/* boot number within the side */
	const char *class;		/* hardware class required, NULL: any */
	int	 max_attempts;		/* 0: [agents] max_attempts */
};

/*
 * Creates a queued job.  0 with *id; -1 with a sentence in err (unknown
 * kernel, empty matrix, bad cmdline).
 */
int	agent_enqueue(struct db *, const struct agent_job_spec *,
	    long long *id, struct buf *err);
/*
 * A job's state: "queued", "leased", "done", "failed", "boot-failed"
 * (expired leases are settled first, so a vanished agent's job reads
 * "queued", or "failed" past max_attempts);
 * *reason (may be NULL) says why for the last three.  Both malloc'd.
 * 0, 1 unknown job, -1.
 */
int	agent_job_state(struct db *, long long id, char **state, char **reason);
/*
 * The samples and lock profiles of a finished job (new JSON arrays; each
 * sample as kperfci-load printed it, plus "attempt").  0 or -1.
 */
int	agent_fetch_results(struct db *, long long id, json_t **samples,
	    json_t **profiles);

/*
 * Stores a kernel image under <data>/kernels/<sha256>.bzImage (deduplicated
 * by content) and records it; *id for agent_job_spec.kernel_id.
 * note is free text shown on pages ("build 12"), may be NULL.
 */
int	agent_kernel_add(struct db *, const void *data, size_t len,
	    const char *note, long long *id, struct buf *err);
int	agent_kernel_add_file(struct db *, const char *path, const char *note,
	    long long *id, struct buf *err);
/* The same from the first len bytes of an open file (an upload the HTTP
   server spooled), read in chunks: never the whole image in memory. */
int	agent_kernel_add_fd(struct db *, int fd, size_t len, const char *note,
	    long long *id, struct buf *err);

/* "2s-2n-4c-1a2b3c4d": sockets, nodes, CPUs, hash of the CPU model. */
char	*agent_class(const json_t *topology);

/*
 * Checks the request's bearer token against agent `name` (NULL: any
 * configured agent).  0, or -1 with 401/403 in resp naming the problem
 * (the example token AGENT_EXAMPLE_TOKEN is always refused, and logged),
 * or 429 with Retry-After once the client address (auth_client: the
 * peer, or behind an [auth] proxy the address it forwarded for) has
 * failed AGENT_AUTH_FAILS times in its AGENT_AUTH_WINDOW, or the named
 * agent has, from anywhere but the address that last authenticated as it.
 */
int	agent_authorize(const struct http_req *, const char *name,
	    struct http_resp *);
/* For tests: forgets every failed authentication. */
void	agent_auth_reset(void);
/*
 * The throttle itself, shared with daemon/auth.c (submitter and admin
 * tokens count in the same windows): seconds peer must wait before trying
 * again (0: it may try now), and one more failure of peer.  NULL peers
 * (in-process calls) are not counted.
 */
long	agent_auth_blocked(const char *peer);
void	agent_auth_failed(const char *peer);


#endif
