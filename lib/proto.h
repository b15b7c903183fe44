/*
 * proto: the agent <-> daemon protocol.  Routes, field names and message
 * shapes live here and nowhere else, and both sides check every message
 * they receive against the same tables, so a renamed field breaks the build
 * or a unit test, never a night of runs.
 *
 * Transport: JSON over HTTP, the agent's token in "Authorization: Bearer T".
 *
 *   POST PROTO_PATH_REGISTER   proto_register_req  -> proto_register_resp
 *   POST PROTO_PATH_LEASE      proto_lease_req     -> 200 proto_job | 204
 *   POST /api/v1/jobs/ID/heartbeat  proto_heartbeat_req -> 200 | 409 (lease lost)
 *   POST /api/v1/jobs/ID/results    proto_upload_req    -> 200 | 409 (duplicate)
 *   POST /api/v1/jobs/ID/release    proto_release_req   -> 200 | 409 (lease lost)
 *        the agent gives the job back unrun (its own or the lab's failure,
 *        not the kernel's): the daemon offers it again now, not when the
 *        lease would have expired
 *   GET  /api/v1/kernels/ID/bzImage  the kernel bytes (sha256 in the job)
 *
 * Errors are {"error": "<field>: <what is wrong>"} with a 4xx status.
 *
 * A sample is one JSON line of kperfci-load (see agents/load):
 *   {"workload":"fault-free","params":"mode=shmem,tasks=4","iteration":3,
 *    "metric":"pages_per_sec","value":123.4,"unit":"pages/s","better":"higher"}
 * A lock profile line has "type":"lock-profile" and is kept as a whole.
 *
 * The changed functions of a series: a job may carry "probes", the kernel
 * functions its series changes (C identifiers, at most PROTO_MAX_PROBES);
 * after the measured passes the agent counts their calls in one more pass
 * of the matrix and uploads "probe_hits", one
 *   {"function":"folio_batch_move_lru","hits":1234}
 * per probe, in the job's order ({"function":..,"error":".."} where the
 * probe could not be registered), and "environment": the THP and mTHP
 * settings, the kernel command line and the accelerator the guest ran
 * under (proto_environment).
 */
#ifndef KPERFCI_PROTO_H
#define KPERFCI_PROTO_H

#include <jansson.h>
#include <stddef.h>

#include "lib/buf.h"

#define PROTO_PATH_REGISTER	"/api/v1/agents/register"
#define PROTO_PATH_LEASE	"/api/v1/agents/lease"
#define PROTO_PATH_JOBS		"/api/v1/jobs/"		/* + ID + suffix */
#define PROTO_SUFFIX_HEARTBEAT	"/heartbeat"
#define PROTO_SUFFIX_RESULTS	"/results"
#define PROTO_SUFFIX_RELEASE	"/release"
#define PROTO_PATH_KERNELS	"/api/v1/kernels/"	/* + ID + "/bzImage" */

/* Field names. */
#define PROTO_AGENT		"agent"
#define PROTO_BACKEND		"backend"
#define PROTO_KERNEL_RELEASE	"kernel_release"	/* uname -r */
#define PROTO_TOPOLOGY		"topology"
#define PROTO_SOCKETS		"sockets"
#define PROTO_NODES		"nodes"
#define PROTO_CPUS		"cpus"
#define PROTO_CORES		"cores"		/* physical cores, all sockets */
#define PROTO_THREADS		"threads_per_core"
#define PROTO_CPU_MODEL		"cpu_model"
#define PROTO_MEMORY_MB		"memory_mb"
#define PROTO_NODE_CPUS		"node_cpus"	/* ["0-1","2-3"] */
#define PROTO_CLASS		"class"
#define PROTO_JOB		"job"
#define PROTO_ID		"id"
#define PROTO_ATTEMPT		"attempt"
#define PROTO_KERNEL		"kernel"
#define PROTO_SHA256		"sha256"
#define PROTO_SIZE		"size"
#define PROTO_URL		"url"
#define PROTO_MATRIX		"matrix"	/* workloads.conf text */
#define PROTO_CMDLINE		"cmdline"	/* extra kernel parameters */
#define PROTO_LEASE_SECONDS	"lease_seconds"
#define PROTO_PROGRESS		"progress"
#define PROTO_STATUS		"status"
#define PROTO_REASON		"reason"
#define PROTO_SAMPLES		"samples"
#define PROTO_PROFILES		"profiles"
#define PROTO_CONSOLE		"console"
#define PROTO_BOOT_SECONDS	"boot_seconds"
#define PROTO_PROBES		"probes"	/* job: functions to count */
#define PROTO_PROBE_HITS	"probe_hits"	/* upload: their counts */
#define PROTO_ENVIRONMENT	"environment"	/* upload: what the guest ran
						   with (THP, cmdline...) */
#define PROTO_P_FUNCTION	"function"
#define PROTO_P_HITS		"hits"		/* absent: not registered */
#define PROTO_P_ERROR		"error"
#define PROTO_ERROR		"error"

/* Sample fields (kperfci-load's JSON lines). */
#define PROTO_S_WORKLOAD	"workload"
#define PROTO_S_PARAMS		"params"
#define PROTO_S_ITERATION	"iteration"
#define PROTO_S_METRIC		"metric"
#define PROTO_S_VALUE		"value"
#define PROTO_S_UNIT		"unit"
#define PROTO_S_BETTER		"better"
#define PROTO_S_TYPE		"type"

/* Upload statuses: what happened to the kernel, not to the agent. */
#define PROTO_ST_DONE		"done"
#define PROTO_ST_BOOT_FAILED	"boot-failed"	/* panicked, hung, no ready */
#define PROTO_ST_FAILED		"failed"	/* booted; workloads broke */

/* Limits both sides enforce. */
#define PROTO_MAX_NAME		64
#define PROTO_MAX_TEXT		4096
#define PROTO_MAX_MATRIX	(64 * 1024)
#define PROTO_MAX_SAMPLES	100000
#define PROTO_MAX_PROFILES	64
#define PROTO_MAX_PROFILE_LOCKS	1000	/* locks in one profile (load's top) */
#define PROTO_MAX_PROFILE_CALLERS 1000	/* callers of one lock */
#define PROTO_MAX_PROFILE_NAMES	65536	/* lock + caller entries, upload */
#define PROTO_MAX_PROFILE_NAME	256	/* a lock or symbol name */
#define PROTO_MAX_ROWS		4096	/* distinct workload/params/metric */
#define PROTO_MAX_CONSOLE	(1024 * 1024)	/* tail kept by the agent */
#define PROTO_MAX_PROBES	64	/* functions counted per job */
#define PROTO_MAX_SYMBOL	127	/* a kernel function name */
#define PROTO_MAX_BODY		(32 * 1024 * 1024)	/* an upload */
#define PROTO_MAX_KERNEL	(256 * 1024 * 1024)	/* a bzImage */

enum proto_type {
	PROTO_T_STR,		/* max: bytes */
	PROTO_T_INT,		/* max: largest value; min 0 */
	PROTO_T_NUM,		/* int or real */
	PROTO_T_BOOL,
	PROTO_T_OBJ,
	PROTO_T_ARR,		/* max: items */
};

struct proto_field {
	const char	*name;
	enum proto_type	 type;
	int		 required;
	size_t		 max;		/* 0: no limit */
};

/* Message tables, terminated by { NULL }. */
extern const struct proto_field proto_register_req[];
extern const struct proto_field proto_topology[];
extern const struct proto_field proto_register_resp[];
extern const struct proto_field proto_lease_req[];
extern const struct proto_field proto_job[];
extern const struct proto_field proto_kernel[];
extern const struct proto_field proto_heartbeat_req[];
extern const struct proto_field proto_upload_req[];
extern const struct proto_field proto_release_req[];
extern const struct proto_field proto_sample[];
extern const struct proto_field proto_probe_hit[];
extern const struct proto_field proto_environment[];

/*
 * Checks obj against fields: every required field present, every present
 * field of the right type and within its limit; unknown keys are refused
 * (a typo must not be silently ignored).  where prefixes the message
 * ("topology.", "samples[3].").  Returns 0, or -1 with one sentence in err
 * that names the field: "topology.sockets: expected an integer".
 */
int	proto_check(const json_t *obj, const struct proto_field *fields,
	    const char *where, struct buf *err);

/* Whole-message checks, nested objects and arrays included. */
int	proto_check_register(const json_t *, struct buf *err);
int	proto_check_job(const json_t *, struct buf *err);
int	proto_check_heartbeat(const json_t *, struct buf *err);
int	proto_check_upload(const json_t *, struct buf *err);
int	proto_check_release(const json_t *, struct buf *err);
/* A sample line or a lock-profile line ("type":"lock-profile"). */
int	proto_check_sample(const json_t *, const char *where, struct buf *err);

/* A C identifier of at most PROTO_MAX_SYMBOL bytes: what a kprobe event
   may name (it goes into tracefs' kprobe_events verbatim). */
int	proto_valid_symbol(const char *);

/* Names: [A-Za-z0-9._-]{1,64}; they end up in paths and pages. */
int	proto_valid_name(const char *);
/* 64 lowercase hex digits. */
int	proto_valid_sha256(const char *);
/* Kernel parameters a job may add: printable ASCII, no quotes or
   backslashes (they go onto a kernel command line verbatim). */
int	proto_valid_cmdline(const char *);

#endif
