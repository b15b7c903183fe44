/*
 * agent.h: the pieces of kperfci-agent, one file each.
 *
 *   agent_conf.c   agent.conf (one [agent] section, [qemu], [kexec], [lava])
 *   agent_state.c  the job state machine (a pure table), the persisted job,
 *                  the kexec command lines, result parsing
 *   client.c       HTTP to the daemon (lib/http_client.c): JSON calls,
 *                  kernel download
 *   initramfs.c    a cpio "newc" writer
 *   hosttopo.c     this machine's topology from /sys and /proc
 *   guest.c        what the qemu and LAVA backends share: a boot command
 *                  run and watched, the job's kernel command line, and
 *                  what the guest reported turned into an upload
 *   qemu.c         boot backend: emulated 2-socket NUMA guest
 *   lava.c         LAVA's formats: job definition, job log, job state,
 *                  a submission's answer
 *   lava_run.c     boot backend: a LAVA device through lava-run, and what
 *                  both LAVA modes share (job directory, definition,
 *                  outcome)
 *   lava_server.c  boot backend: a lab's LAVA server (the bridge)
 *   kexec.c        boot backend: bare metal, across a reboot
 *   kperfci-agent.c  main and the protocol loop
 *
 * Ownership: strings in these structs are owned by the struct and freed by
 * its _release function.
 */
#ifndef KPERFCI_AGENT_H
#define KPERFCI_AGENT_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/http_client.h"
#include "lib/run.h"
#include "lib/strvec.h"

/* ---- configuration ------------------------------------------------------ */

enum agent_backend { AGENT_QEMU, AGENT_KEXEC, AGENT_LAVA };

/* "qemu", "kexec", "lava": what agent.conf says and the agent registers. */
const char *agent_backend_name(enum agent_backend);

struct agent_conf {
	char	*name;
	char	*server;		/* http://host:port, no trailing / */
	char	*token;
	char	*state_dir;
	enum agent_backend backend;
	char	*load_bin;		/* kperfci-load */
	int	 poll_seconds;		/* idle wait between leases */
	int	 backoff_max;		/* seconds, daemon down / garbage */
	int	 heartbeat_seconds;
	int	 keep;			/* kernels and job dirs kept in state */

	/* qemu */
	char	*qemu_bin;
	char	*busybox;
	int	 sockets, cores_per_socket;
	int	 mem_per_node_mb;
	char	*accel;			/* auto | tcg | kvm */
	int	 boot_timeout;		/* seconds to the ready marker */
	int	 job_timeout;		/* whole run */
	int	 kvm_probe_timeout;
	char	*icount;		/* TCG only: qemu -icount value, e.g.
					   "shift=3,sleep=off", or "" */
	char	*mttcg;			/* auto | on | off: one host thread
					   per vCPU, no icount (qemu.c) */

	/* lava (lava_run.c; sockets, cores_per_socket, mem_per_node_mb,
	   boot_timeout and job_timeout describe the device and its runs) */
	char	*lava_run;		/* argv split on blanks, no shell */
	char	*lava_device;		/* the device dictionary */
	char	*lava_device_type;
	char	*lava_cpu_model;	/* the class's CPU model, or "" */
	/* the server mode (lava_server.c), when url is set */
	char	*lava_url;		/* LAVA server, no trailing / */
	char	*lava_token_file;	/* the REST token, one line */
	char	*lava_token_sha256;	/* its sha256, hex: checked at start */
	char	*lava_token;		/* read from token_file (not a key) */
	char	*lava_files_dir;	/* where the job's kernel and
					   initramfs are put for the lab */
	char	*lava_files_url;	/* the URL the lab reads files_dir at */
	int	 lava_queue_timeout;	/* seconds a job may wait in LAVA's
					   queue before it is given back */

	/* kexec */
	char	*kexec_bin;
	char	*kexec_exec;		/* "systemctl kexec" or "kexec -e" */
	char	*reboot_cmd;		/* back to the home kernel */
	char	*kexec_initrd;		/* optional */
	char	*kexec_append;		/* NULL: the home kernel's cmdline */
	char	*console_log;		/* the console server's log, or NULL */
	char	*pstore_dir;		/* "" or NULL: not read */
};

/* Defaults, then path (key = value lines).  -1 with "file:line: ..." in err. */
int	agent_conf_load(struct agent_conf *, const char *path, struct buf *err);
int	agent_conf_parse(struct agent_conf *, const char *name,
	    const char *text, struct buf *err);
void	agent_conf_defaults(struct agent_conf *);
void	agent_conf_release(struct agent_conf *);

/* ---- the state machine ---------------------------------------------------
 *
 * DESIGN.  The agent is a loop over one persisted job.  Each step asks
 * agent_state_next(phase, event, backend, where) what to do; the answer is a
 * row of one table, so the whole behaviour -- including what happens when
 * a kexec'd kernel comes up, or does not and the machine is back in its
 * home kernel -- is unit-tested without a machine.  The phase is written
 * to the state directory before every action that may not return (a kexec
 * reboot, a crash), so the next start resumes from it.
 */
enum agent_phase {
	AGENT_PH_IDLE,		/* no job */
	AGENT_PH_LEASED,	/* job held, kernel not yet verified */
	AGENT_PH_READY,		/* kernel downloaded, sha256 verified */
	AGENT_PH_BOOTING,	/* kexec: reboot into the job kernel issued */
	AGENT_PH_RUNNING,	/* kexec: workloads running natively */
	AGENT_PH_RESULTS,	/* results on disk, not yet accepted */
	AGENT_PH_UPLOADED,	/* accepted; kexec: still in the job kernel */
	AGENT_PH_NPHASES
};

enum agent_event {
	AGENT_EV_START,		/* process start (perhaps after a reboot) */
	AGENT_EV_LEASED,
	AGENT_EV_NO_JOB,
	AGENT_EV_DOWNLOADED,
	AGENT_EV_DOWNLOAD_BAD,	/* truncated, corrupt, sha256 mismatch */
	AGENT_EV_BOOTED,	/* qemu: guest ran and ended (any outcome) */
	AGENT_EV_RAN,		/* kexec: native workloads ended */
	AGENT_EV_UPLOADED,
	AGENT_EV_LEASE_LOST,	/* daemon said 409/404 to a heartbeat */
	AGENT_EV_NEVENTS
};

/* Where the agent finds itself on start (only meaningful for kexec). */
enum agent_where {
	AGENT_IN_ANY = 0,	/* table rows: don't care */
	AGENT_IN_HOME,		/* no job marker on /proc/cmdline */
	AGENT_IN_JOB,		/* marker and uname -r match the job */
	AGENT_IN_WRONG,		/* marker of this job, another kernel release */
	AGENT_IN_STALE,		/* marker of some other job */
};

enum agent_action {
	AGENT_ACT_LEASE,	/* ask for a job (after a pause if idle) */
	AGENT_ACT_DOWNLOAD,
	AGENT_ACT_BOOT,		/* qemu: boot+run; kexec: load+reboot */
	AGENT_ACT_RUN,		/* kexec: run the matrix natively */
	AGENT_ACT_UPLOAD,
	AGENT_ACT_RETURN_HOME,	/* kexec: reboot into the home kernel */
	AGENT_ACT_DROP,		/* forget the job (lease lost / bad kernel) */
	AGENT_ACT_FAIL_BOOT,	/* record boot-failed, then upload */
	AGENT_ACT_FAIL_RUN,	/* record failed (rebooted mid-run), upload */
};

struct agent_transition {
	enum agent_phase  phase;
	enum agent_event  event;
	int		  backend;	/* -1 any, else enum agent_backend */
	enum agent_where  where;
	enum agent_phase  next;
	enum agent_action action;
};

/* Returns the matching row, or NULL for an impossible combination (the
   caller then drops the job: better than guessing). */
const struct agent_transition *agent_state_next(enum agent_phase,
	    enum agent_event, enum agent_backend, enum agent_where);
const char *agent_phase_name(enum agent_phase);
const char *agent_action_name(enum agent_action);
const char *agent_event_name(enum agent_event);
int	agent_phase_parse(const char *);

/*
 * Where are we?  marker is "kperfci.job=ID.ATTEMPT"; cmdline is the text of
 * /proc/cmdline; release is `uname -r`; want_release the release string of
 * the job's bzImage (NULL: not checked).
 */
enum agent_where agent_state_where(long long job, int attempt,
	    const char *want_release, const char *release, const char *cmdline);
/* Writes "kperfci.job=ID.ATTEMPT" into out. */
void	agent_state_marker(long long job, int attempt, char *out, size_t n);

/*
 * The persisted job: state_dir/job.json holds the phase, the job as the
 * daemon sent it, the kernel's release and, from RESULTS on, the upload.
 */
struct agent_job {
	enum agent_phase phase;
	json_t	*job;			/* proto_job, owned */
	json_t	*upload;		/* proto_upload_req, owned, or NULL */
	char	*release;		/* of the bzImage, or NULL */
	long long console_mark;		/* kexec: console-log size before the
					   reboot, -1 when unknown */
};

long long agent_job_id(const struct agent_job *);
int	agent_job_attempt(const struct agent_job *);
int	agent_job_save(const struct agent_job *, const char *state_dir);
/* 0 with phase IDLE when there is no job file; -1 if it is corrupt. */
int	agent_job_load(struct agent_job *, const char *state_dir);
void	agent_job_release(struct agent_job *);

/*
 * The kexec command lines (pushed onto out, a lib/strvec.h argv that owns
 * its strings: strvec_clear releases it).  home_cmdline is /proc/cmdline
 * of the home kernel: its BOOT_IMAGE= and any old kperfci.job= are
 * dropped, extra and the marker appended.
 */
void	agent_kexec_cmdline(const char *home_cmdline, const char *extra,
	    long long job, int attempt, struct buf *out);
void	agent_kexec_load_argv(const struct agent_conf *, const char *bzimage,
	    const char *cmdline, struct strvec *out);
/* Splits a configured command ("systemctl kexec") on spaces onto out. */
void	agent_argv_split(const char *cmd, struct strvec *out);

/* The release string a bzImage carries (setup header kernel_version), or
   -1 when the file is not a bzImage. */
int	agent_bzimage_release(const char *path, char *out, size_t n);

/*
 * Result parsing: the text kperfci-load printed (JSON lines, with our
 * "KPERFCI ..." marker lines mixed in when it came over a serial port).
 * Appends samples and profiles to the arrays, sets *ready / *done_rc and
 * builds the guest topology from the TOPO/NODE markers into *topo (NULL
 * when absent).  Lines that are neither are counted in *junk.
 */
struct agent_results {
	json_t	*samples;		/* array, owned */
	json_t	*profiles;		/* array, owned */
	json_t	*topology;		/* object or NULL, owned */
	json_t	*errors;		/* array of strings from {"error":..} */
	json_t	*environment;	/* object: "KPERFCI ENV key value" lines */
	json_t	*probe_hits;	/* object "index" -> hits, from the probe pass */
	json_t	*probe_errs;	/* object "index" -> true: not registered */
	int	 probes_done;	/* the probe pass ended */
	int	 ended;		/* "KPERFCI END": the guest's last line */
	int	 ready;
	int	 done;
	int	 done_rc;
	size_t	 junk;
};
void	agent_results_init(struct agent_results *);
void	agent_results_parse(struct agent_results *, const char *text, size_t len);
void	agent_results_release(struct agent_results *);

/* ---- HTTP client ---------------------------------------------------------- */

struct client {
	const struct agent_conf *conf;
	struct httpc http;	/* one handle: the connection is kept */
};

void	client_init(struct client *, const struct agent_conf *);
void	client_release(struct client *);
/*
 * POSTs body (borrowed) to path.  Returns the HTTP status (0 when the
 * daemon could not be reached); *resp is the parsed JSON body or NULL (a
 * 2xx with a body that is not JSON sets *resp NULL and says so in err).
 */
long	client_post(struct client *, const char *path, json_t *body,
	    json_t **resp, struct buf *err);
/*
 * Downloads path into dest and checks size and sha256; the file is removed
 * on any mismatch.  0 on success, -1 with a reason in err (also for HTTP
 * errors: *status tells which).
 */
int	client_download(struct client *, const char *path, const char *dest,
	    long long size, const char *sha256, long *status, struct buf *err);

/* ---- initramfs -------------------------------------------------------------- */

struct initramfs {
	struct buf out;			/* the archive, max 0 (ours) */
	unsigned ino;
	int	 err;
};
void	initramfs_init(struct initramfs *);
int	initramfs_dir(struct initramfs *, const char *path, unsigned mode);
int	initramfs_file(struct initramfs *, const char *path, unsigned mode,
	    const void *data, size_t len);
/* Copies a host file (mode from the host, or mode when not 0). */
int	initramfs_copy(struct initramfs *, const char *path,
	    const char *host_path, unsigned mode);
int	initramfs_symlink(struct initramfs *, const char *path,
	    const char *target);
int	initramfs_chardev(struct initramfs *, const char *path, unsigned mode,
	    unsigned major, unsigned minor);
/* Appends the TRAILER!!! and pads to 512 bytes. */
int	initramfs_finish(struct initramfs *);
void	initramfs_release(struct initramfs *);

/* ---- host topology ---------------------------------------------------------- */

/* Reads sysfs/procfs under root ("" for the real ones) into a
   proto_topology object. */
json_t	*hosttopo_read(const char *root, struct buf *err);

/* ---- backends ---------------------------------------------------------------- */

/* Set by SIGTERM/SIGINT: a running guest is stopped, nothing uploaded. */
extern volatile int agent_stopping;

/* Called while a job runs; returns -1 when the job must stop (lease lost). */
typedef int (*agent_progress_fn)(void *arg, const char *progress);

/*
 * guest: the part of a boot that does not depend on how the guest is
 * started (qemu here, a LAVA device through lava-run).  The caller fills
 * run (argv, timeout, log) and watch (the file where the guest's
 * "KPERFCI READY" shows up); guest_run runs it in a thread and watches:
 * the ready marker (boot-timeout), heartbeats, the lease and the agent
 * stopping.  Then guest_upload turns what the guest printed into the
 * upload, the same way for every backend.
 */
struct guest_run {
	const struct agent_conf *c;
	long long id;
	int	 attempt;
	const char *runner;		/* "qemu", "lava-run": in reasons */
	const char *watch;		/* ready marker file, or NULL */
	struct run run;			/* filled by the caller */
	pthread_t th;
	volatile int cancel;
	volatile int finished;
	int	 rc;			/* run_cmd's */
	double	 t0, t_ready;		/* start; ready marker seen (or 0) */
	int	 lost;			/* lease lost or agent stopping */
	int	 boot_timed_out;
	char	 ended[512];		/* how the run ended, for reasons:
					   "qemu exit 0" (the caller may
					   say better) */
};

/* Zeroes g and takes id and attempt from the job. */
void	guest_init(struct guest_run *, const struct agent_conf *,
	    const json_t *job, const char *runner, const char *watch);
/* Runs and watches g->run until it ends; 0, or -1 when no thread could
   be started (nothing ran).  g->lost says the lease went or the agent
   is stopping: then nothing must be uploaded. */
int	guest_run(struct guest_run *, agent_progress_fn, void *arg);
/* Starts g->run in a thread / waits for it (for callers with their own
   watch loop: the KVM probe). */
int	guest_start(struct guest_run *);
void	guest_join(struct guest_run *);
/* The job's kernel command line: console=ttyS0 panic=-1, the job's
   marker (kperfci.job=ID.ATTEMPT) and the job's extra arguments.  New
   string. */
char	*guest_cmdline(const json_t *job);
/*
 * Fills upload from the finished guest: status (boot-failed without the
 * ready marker, done with "KPERFCI DONE rc=0", failed otherwise) and its
 * reason, samples, profiles, the guest's topology, probes and environment
 * (how: what it ran under, e.g. "tcg, multi-threaded ..."), boot seconds
 * and the console's tail.  ar is what agent_results_parse read from the
 * guest's results text, con its console.
 */
void	guest_upload(const struct guest_run *, const json_t *job,
	    const char *how, const struct agent_results *ar,
	    const struct buf *con, json_t *upload);
/*
 * Why a run that returns -1 (the agent's or the lab's failure) gives its
 * job back, into upload's reason: err when it says something, else how
 * the runner ended, else that it could not start.
 */
void	guest_give_back_reason(const struct guest_run *, const struct buf *err,
	    json_t *upload);
/* A proto_topology object: sockets, one node per socket. */
json_t	*guest_topology(int sockets, int cores_per_socket, int mem_per_node_mb,
	    const char *model);
/* Whether path holds needle (read whole, up to 16 MiB). */
int	guest_file_has(const char *path, const char *needle);
double	guest_now(void);

/*
 * qemu: boots bzimage with the job in an emulated NUMA machine and fills
 * upload (status, reason, samples, profiles, topology, console).  Returns
 * 0 when upload holds a result about the kernel (done, failed or
 * boot-failed), 1 when the lease was lost or the agent is stopping, -1
 * when the agent itself could not run the guest.
 */
int	qemu_run_job(const struct agent_conf *, const json_t *job,
	    const char *bzimage, json_t *upload, agent_progress_fn, void *arg);
/* The guest topology this agent emulates (what it registers). */
json_t	*qemu_topology(const struct agent_conf *);
/* "kvm" or "tcg", probed once with bzimage and remembered. */
const char *qemu_accel(const struct agent_conf *, const char *bzimage);
/* The same, sending heartbeats through progress while the probe runs. */
const char *qemu_accel_progress(const struct agent_conf *,
	    const char *bzimage, agent_progress_fn, void *arg);
/* The qemu argv (for tests and the bench). */
void	qemu_argv(const struct agent_conf *, const char *accel,
	    const char *bzimage, const char *initrd, const char *append,
	    const char *console_log, const char *results_log,
	    struct strvec *out);
/* The initramfs for a job: busybox, kperfci-load, matrix, /init, and for
   a job with probes (proto.h) their list and the probe pass's matrix. */
int	qemu_initramfs(const struct agent_conf *, const char *matrix,
	    const json_t *probes, const char *path, struct buf *err);

/*
 * lava: runs the job on a LAVA device with the real dispatcher: the
 * qemu backend's initramfs, a job definition (lava.h), `lava-run` with
 * [lava] device, the job log read back.  Returns as qemu_run_job does;
 * -1 also when LAVA answered an infrastructure error (the lease is let
 * go: the daemon offers the job again).
 */
int	lava_run_job(const struct agent_conf *, const json_t *job,
	    const char *bzimage, json_t *upload, agent_progress_fn, void *arg);
/* The device's topology as [lava] describes it (what the agent
   registers). */
json_t	*lava_run_topology(const struct agent_conf *);
/*
 * The same job on a LAVA server ([lava] url, lava_server.c): the job
 * definition submitted to its REST API, its state polled (heartbeats
 * meanwhile; a lost lease cancels the LAVA job), its log read back.  A
 * server that is down or answers garbage is asked again with backoff.
 * Returns as lava_run_job does.
 */
int	lava_server_job(const struct agent_conf *, const json_t *job,
	    const char *bzimage, json_t *upload, agent_progress_fn, void *arg);
/* Shared by both: a LAVA job's directory, state-dir/job-ID-ATTEMPT, and
   its files (lava_files_make: the directory made, an old log removed;
   the job's initramfs built into it). */
struct lava_files {
	char	*dir, *initrd, *definition, *log;
};
int	lava_files_make(const struct agent_conf *, const json_t *job,
	    struct lava_files *, struct buf *err);
void	lava_files_release(struct lava_files *);
/* Shared by both: the file:// URLs of a bzImage and an initramfs
   (absolute, [A-Za-z0-9/._+-] only); -1 with err. */
int	lava_local_urls(const char *bzimage, const char *initrd,
	    struct buf *kurl, struct buf *iurl, struct buf *err);
/* Writes job's LAVA job definition (lava_job_yaml) to path. */
int	lava_definition(const struct agent_conf *, const json_t *job,
	    const char *kernel_url, const char *initrd_url, const char *path,
	    struct buf *err);
/* Reads the job log at log (lava_log_parse) and fills upload the way
   the other backends do (how: what the job ran on); -1 when LAVA's side
   failed (give the job back). */
int	lava_job_outcome(struct guest_run *, const json_t *job,
	    const char *log, const char *how, json_t *upload);

/* ---- the changed-functions pass (probe.c) ------------------------------- */

/*
 * The matrix of the probe pass: every run once (iterations = 1, warmup =
 * 0), everything else as in matrix.  Returns a new string.
 */
char	*probe_matrix(const char *matrix);
/* The probes' names one per line (the guest's /etc/kperfci/probes); only
   valid symbols (proto_valid_symbol) are kept.  New string. */
char	*probe_list(const json_t *probes);
/*
 * Adds to upload what the guest reported: "probe_hits" (one entry per job
 * probe, hits or an error saying why none) and "environment" (with accel,
 * e.g. "tcg, icount shift=3,sleep=off").
 */
void	probe_upload(const json_t *probes, const struct agent_results *,
	    const char *accel, json_t *upload);
/* "environment" of the running kernel (kexec: the job kernel itself),
   read under root ("" for /). */
void	probe_native_environment(const char *root, json_t *upload);

/* ---- the console of a real machine (console.c) ------------------------ */

/* The size of [kexec] console-log now, -1 when there is none. */
long long console_mark(const struct agent_conf *);
/*
 * Sets upload's "console" to what console-log got since mark, plus (and
 * then removes) the pstore records; nothing when there is neither.
 * Returns the first "Kernel panic" line (malloc'd) or NULL.
 */
char	*console_attach(const struct agent_conf *, long long mark,
	    json_t *upload);

/* kexec: loads the job kernel and reboots into it (returns only on error). */
int	kexec_boot(const struct agent_conf *, struct agent_job *,
	    const char *bzimage);
/* Runs the matrix natively (in the job kernel) into upload, with
   heartbeats; returns as qemu_run_job does. */
int	kexec_run(const struct agent_conf *, const json_t *job, json_t *upload,
	    agent_progress_fn, void *arg);
int	kexec_return_home(const struct agent_conf *);

#endif
