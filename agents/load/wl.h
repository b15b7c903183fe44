/*
 * wl: the workload table and what every workload shares: parameters with
 * defaults and checks, the canonical params string, run options (seconds,
 * iterations, warm-up), pinned task groups (threads or processes), and
 * sample emission.
 *
 * A workload is one file wl_<name>.c defining a struct wl_def; wl.c lists
 * them in wl_table.  Its run() does warmup + iterations iterations, calling
 * wl_emit(run, i, ...) with i counting from 0; wl_emit drops the first
 * `warmup` iterations (warm-up is never emitted) and numbers the rest 1..N.
 *
 * Lifecycle: wl_configure() validates every key/value (unknown key, bad
 * value, impossible task count: a clear error naming it) and resolves
 * WL_SIZE and WL_COUNT values written relative to the machine against the
 * topology (params then carry the resolved value), wl_execute()
 * sets up cgroups when the workload needs them and runs it, wl_run_release()
 * frees.
 */
#ifndef KPERFCI_LOAD_WL_H
#define KPERFCI_LOAD_WL_H

#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>

#include "agents/load/topo.h"

#define WL_MAX_PARAMS	16

enum wl_ptype {
	WL_INT,		/* integer in [min, max] */
	WL_SIZE,	/* bytes: 4096, 64K, 128M, 1G, or relative to the
			   machine (5%mem, node/8: rel.h); in [min, max] */
	WL_COUNT,	/* an integer or a count relative to the machine
			   (cpus, cpus/2, node, socket: rel.h); in [min, max] */
	WL_ENUM,	/* one of choices "a|b|c" */
	WL_TASKS,	/* a place.h spec, resolved against the topology */
	WL_STR,		/* free text (paths, workload names) */
};

struct wl_param {
	const char	*name;
	enum wl_ptype	 type;
	const char	*def;
	const char	*help;
	long long	 min, max;	/* WL_INT, WL_SIZE */
	const char	*choices;	/* WL_ENUM */
};

struct wl_run;

struct wl_def {
	const char	*name;
	const char	*desc;
	const struct wl_param *params;	/* ends with a NULL name */
	int		 needs_cgroup;
	int		(*run)(struct wl_run *);
};

struct wl_run {
	const struct wl_def *def;
	const struct load_topo *topo;
	int		 nparams;
	const char	*keys[WL_MAX_PARAMS];	/* borrowed from the tables */
	char		*vals[WL_MAX_PARAMS];
	char		*params;		/* canonical "k=v,..." */
	char		*shown[WL_MAX_PARAMS];	/* what params says, if not vals */
	double		 seconds;
	int		 iterations;
	int		 warmup;
	int		 quiet;			/* emit nothing (lock-profile's target) */
};

extern const struct wl_def *const wl_table[];

const struct wl_def *wl_find(const char *name);
/* Prints the workloads, their parameters and defaults. */
void	 wl_list(FILE *);

/* keys/vals: parameters and run options (seconds, iterations, warmup). */
int	 wl_configure(struct wl_run *, const struct wl_def *,
	    const struct load_topo *, int n, const char *const *keys,
	    const char *const *vals);
void	 wl_run_release(struct wl_run *);
int	 wl_execute(struct wl_run *);

const char *wl_get(const struct wl_run *, const char *key);
long long wl_get_int(const struct wl_run *, const char *key);
unsigned long long wl_get_size(const struct wl_run *, const char *key);
/* CPUs for a WL_TASKS parameter (malloc'd, pinning order). */
int	 wl_get_tasks(const struct wl_run *, const char *key, int **cpus, int *n);

void	 wl_emit(const struct wl_run *, int iter, const char *metric,
	    double value, const char *unit, int higher);

/*
 * Pinned task groups.  fn runs in each task (a thread, or a forked process
 * when procs is set) after pinning; it must return when *t->stop becomes
 * non-zero, adding its work to *t->count as it goes.  On a setup failure it
 * calls wl_task_fail() and returns.  Counters live in shared memory so
 * process tasks report to the parent.
 */
struct wl_task {
	int		 idx;
	int		 cpu;
	volatile unsigned long long *count;
	volatile int	*stop;
	void		*arg;
	struct wl_tasks	*group;
};

struct wl_tasks {
	int		 n;
	int		 procs;
	struct wl_shared *sh;		/* shared memory: counters, flags */
	struct wl_task	*tasks;
	pthread_t	*threads;
	pid_t		*pids;
	void		(*fn)(struct wl_task *);
};

/* Adds n to the task's counter.  One writer per counter: a plain store,
   not a locked add, so the per-op cost matches will-it-scale's
   (*iterations)++. */
static inline void
wl_count(struct wl_task *t, unsigned long long n)
{
	__atomic_store_n(t->count, *t->count + n, __ATOMIC_RELAXED);
}

int	 wl_tasks_start(struct wl_tasks *, const int *cpus, int n, int procs,
	    void (*fn)(struct wl_task *), void *arg);
unsigned long long wl_tasks_sum(struct wl_tasks *);
unsigned long long wl_tasks_count(struct wl_tasks *, int idx);
/* Stops, joins or reaps every task; -1 if any task failed (its message
   is reported). */
int	 wl_tasks_stop(struct wl_tasks *);
void	 wl_task_fail(struct wl_task *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* 1 when a task has failed so far (the caller should stop). */
int	 wl_tasks_failed(struct wl_tasks *);

/* Sleeps s seconds (fractional), resuming after signals. */
void	 wl_sleep(double s);
/* Forks a child that runs fn(arg) and _exits with its return (0/-1 -> 0/1). */
pid_t	 wl_fork(int (*fn)(void *), void *arg);
/* Waits for pid; 0 when it exited with 0, else -1 with a message. */
int	 wl_wait(pid_t pid, const char *what);

/*
 * A gate: one child process per group, each in a fresh cgroup of its own
 * and pinned to cpus[i % ncpus], all held until wl_gate_open so that they
 * start together and getrusage(RUSAGE_CHILDREN) between open and wait
 * covers exactly their work.  Child i runs child(i, arg) once the gate
 * opens; its return (0 / -1) is its exit status.
 */
struct cg;
struct wl_gate {
	int	 n;
	struct cg *cgs;
	pid_t	*pids;
	int	*wfd;
};

/* name: cgroup name prefix ("reader" -> reader0, reader1, ...);
   memory_max: each group's memory.max, or NULL.  0 or -1 (a message). */
int	 wl_gate_start(struct wl_gate *, int n, const char *name,
	    const char *memory_max, const int *cpus, int ncpus,
	    int (*child)(int i, void *arg), void *arg);
/* Lets every child go.  0 or -1. */
int	 wl_gate_open(struct wl_gate *);
/* Waits for every child; errors name "<what> <i><hint>".  0 or -1. */
int	 wl_gate_wait(struct wl_gate *, const char *what, const char *hint);
/* Closes the gate, reaps what is left, removes the cgroups; -1 when a
   cgroup could not be removed.  Safe after a failed start. */
int	 wl_gate_release(struct wl_gate *);

extern const struct wl_def wl_fault_free;
extern const struct wl_def wl_page_fault;
extern const struct wl_def wl_swap_memhog;
extern const struct wl_def wl_file_read;
extern const struct wl_def wl_memcg_flush;
extern const struct wl_def wl_root_refault;
extern const struct wl_def wl_lock_profile;
extern const struct wl_def wl_null;

#endif
