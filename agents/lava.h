/*
 * lava: the pieces of the LAVA backend that read and write LAVA's
 * formats (agents/lava.c): a kperfci job as a LAVA job definition, and
 * LAVA's answers -- the job log (one JSON object a line, as lava-run
 * prints it and the server's api/v0.2/jobs/ID/logs/ serves it) and the
 * job's state (api/v0.2/jobs/ID/) -- mapped onto kperfci's outcomes.
 * Everything read here is outside input: size-checked, never trusted.
 */
#ifndef KPERFCI_LAVA_H
#define KPERFCI_LAVA_H

#include <stddef.h>

#include "lib/buf.h"

/* Longest job log read (the rest is ignored and counted). */
#define LAVA_MAX_LOG	(64u << 20)

/* What a finished LAVA job means for kperfci. */
enum lava_outcome {
	LAVA_RAN,		/* the guest ran: results are in the console */
	LAVA_BOOT_FAILED,	/* a kernel panic, or the guest never got ready:
				   a result about the kernel (console kept) */
	LAVA_RETRY,		/* Infrastructure / Configuration error, or the
				   job was cancelled by the lab: try again */
	LAVA_UNKNOWN,		/* nothing usable in the log */
};

struct lava_log {
	struct buf console;	/* the "target" lines, one a line, with LAVA's
				   \" escapes undone */
	char	*error_type;	/* the "job" result's error_type, or NULL */
	char	*error_msg;	/* its error_msg, or NULL */
	int	 job_result;	/* 1 pass, 0 fail, -1 no job result */
	int	 panic;		/* a "Kernel panic" target line */
	int	 ready;		/* the guest printed KPERFCI READY */
	size_t	 lines, junk;	/* lines read; lines that were not a log
				   entry */
};

void	lava_log_init(struct lava_log *);
void	lava_log_release(struct lava_log *);
/* Parses len bytes of a job log.  Never fails: what is not a log entry
   is counted in junk. */
void	lava_log_parse(struct lava_log *, const char *text, size_t len);
/* What the parsed log means (see enum lava_outcome). */
enum lava_outcome lava_log_outcome(const struct lava_log *);

/* A server's job state (GET api/v0.2/jobs/ID/). */
enum lava_state {
	LAVA_ST_QUEUED,		/* Submitted, Scheduling, Scheduled */
	LAVA_ST_RUNNING,	/* Running, Canceling */
	LAVA_ST_FINISHED,
	LAVA_ST_BAD,		/* not a job object we understand */
};
struct lava_job_state {
	enum lava_state state;
	char	 health[16];	/* Unknown Complete Incomplete Canceled */
	char	*failure;	/* failure_comment, or NULL */
};
/* Parses a job detail answer (JSON text, len bytes). */
void	lava_state_parse(struct lava_job_state *, const char *text,
	    size_t len);
void	lava_state_release(struct lava_job_state *);

/* A submission's answer (POST api/v0.2/jobs/: {"job_ids": [N]}): N, or
   -1 when it is not one. */
long long lava_submit_parse(const char *text, size_t len);
/* The "message" of an error answer ({"message": "..."}, as LAVA's REST
   API says why it refused), printable ASCII, at most n - 1 bytes, into
   out; "" when there is none. */
void	lava_message_parse(const char *text, size_t len, char *out, size_t n);

/*
 * The LAVA job definition (YAML) of a kperfci job: deploy kernel_url and
 * initrd_url to tmpfs, boot with qemu's method or the device's own
 * (method), kernel command line append, wait for the guest's end marker
 * ("KPERFCI END") within timeout minutes.  Strings are quoted for YAML
 * here; device_type and name must be [A-Za-z0-9_.-] (-1 otherwise).
 */
int	lava_job_yaml(struct buf *out, const char *name,
	    const char *device_type, const char *kernel_url,
	    const char *initrd_url, const char *append, int timeout_min);
/*
 * Appends the file:// URL of path to out: an absolute path of
 * [A-Za-z0-9/._+-] only, no "." or ".." component (LAVA takes the URL's
 * path as it stands, without percent-decoding: -1 for anything else).
 */
int	lava_file_url(struct buf *out, const char *path);
/* The job name of a kperfci job attempt ("kperfci-ID.ATTEMPT") into out. */
void	lava_job_name(long long id, int attempt, char *out, size_t n);

#endif
