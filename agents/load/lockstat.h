/*
 * lockstat: lock contention as the kernel reports it, from the
 * lock:contention_begin / lock:contention_end tracepoints (what
 * `perf lock contention` reads when it does not use BPF).  Owns the
 * parsing of the tracepoints' tracefs format files, of the perf ring
 * buffer's sample records (PERF_SAMPLE_TID | TIME | CPU | [CALLCHAIN] |
 * RAW), the pairing of a task's begin with its end into a wait time, the
 * naming of a lock, and the per-lock totals; the perf_event_open(2) side
 * lives in wl_lock_profile.c so everything here is unit-tested and fuzzed
 * without a kernel.
 *
 * Naming a lock (its row): a static lock (swap_lock, cgroup_rstat_lock,
 * shrinker_mutex...) by the kallsyms data symbol at its address (needs
 * CONFIG_KALLSYMS_ALL; "sym+0x40" when the lock sits inside a static
 * struct); any other lock (in an lruvec, a zone, a split queue, a list_lru
 * node: every instance of the same kind) by where it is taken.  When a
 * frame names its class for certain (prof_lock_class: a lock helper such
 * as folio_lruvec_lock_irqsave, or a first caller whose only spinlock it
 * is, folio_batch_move_lru, list_lru_add, deferred_split_folio), the row
 * is the class, "lru_lock", "list_lru_node.lock", "split_queue_lock",
 * every caller and instance summed as perf lock contention -l and
 * lock_stat do; an address once seen under a class keeps it for waits
 * from callers that cannot tell (split_huge_page_to_list_to_order).
 * Else the row is the caller chain: the first `depth` frames of the
 * begin event's callchain that are not lock functions, lock wrappers or
 * tracing, joined by ';' (callee first), after a guessed name,
 * "zone lock?@rmqueue_bulk".  With depth > 1 a class is followed by
 * depth - 1 callers, "lru_lock@folio_batch_move_lru".  Names never
 * contain ',' or '=' (they go into a params string).
 *
 * Pairing: a begin opens a wait keyed by (tid, lock address; and CPU for
 * the idle task, tid 0, which runs on every CPU); the end with the same
 * key closes it, and a begin while it is open continues it (a mutex
 * traces a begin for its optimistic spin, another before it sleeps).  Keying by address too keeps a wait in an interrupt on
 * another lock apart from the task's own.  An end without its begin (lost
 * records, a begin before tracing started) and a begin whose end never
 * comes are counted as unpaired, never guessed.  Records must be fed in
 * time order (lockstat_sort_recs).
 *
 * Share: a lock's wait total over (tasks x wall), the part of the run's
 * task time spent waiting for it (can exceed 100% only if tasks is wrong).
 */
#ifndef KPERFCI_LOAD_LOCKSTAT_H
#define KPERFCI_LOAD_LOCKSTAT_H

#include <stddef.h>

#include "agents/load/prof.h"

#define LOCKSTAT_MAX_STACK	32
#define LOCKSTAT_MAX_NAME	120
#define LOCKSTAT_MAX_WAITS	4096	/* open waits kept at once */
#define LOCKSTAT_MAX_ADDRS	1024	/* lock addresses whose class is known */

/* lock flags of contention_begin (include/trace/events/lock.h) */
#define LOCKSTAT_F_SPIN		0x01
#define LOCKSTAT_F_READ		0x02
#define LOCKSTAT_F_WRITE	0x04
#define LOCKSTAT_F_RT		0x08
#define LOCKSTAT_F_PERCPU	0x10
#define LOCKSTAT_F_MUTEX	0x20

struct lockstat_field {
	int	 offset, size;		/* size 0: absent */
};

/* A tracepoint's format (tracefs events/lock/NAME/format). */
struct lockstat_fmt {
	long	 id;			/* "ID:", also the record's common_type */
	struct lockstat_field type;	/* common_type */
	struct lockstat_field pid;	/* common_pid */
	struct lockstat_field addr;	/* lock_addr */
	struct lockstat_field arg;	/* flags (begin) or ret (end) */
};

/* Parses a format file; arg names the event's own int field ("flags",
   "ret").  0, or -1 with a message naming what is missing. */
int	 lockstat_fmt_parse(struct lockstat_fmt *, const char *text,
	    size_t len, const char *arg);

/* One parsed sample record. */
struct lockstat_rec {
	int	 end;			/* 0 contention_begin, 1 _end */
	unsigned pid, tid, cpu;
	unsigned long long time, addr;	/* ns (perf clock), lock address */
	long	 arg;			/* flags or ret */
	int	 nips;
	unsigned long long ips[LOCKSTAT_MAX_STACK];	/* kernel frames, callee
						   first, context markers out */
};

/*
 * Parses a PERF_RECORD_SAMPLE body (what follows the 8-byte header) of
 * sample_type TID | TIME | CPU | RAW, with CALLCHAIN too when callchain is
 * set.  The raw data's common_type says which event it is.  0, or -1 for
 * a record that does not fit its own sizes or is of neither event.
 */
int	 lockstat_rec_parse(struct lockstat_rec *, const unsigned char *body,
	    size_t len, int callchain, const struct lockstat_fmt *begin,
	    const struct lockstat_fmt *end);

/* Sorts records by time (a begin before an end at the same time). */
void	 lockstat_sort_recs(struct lockstat_rec *, size_t n);

struct lockstat_lock {
	char	*name;
	unsigned flags;			/* of its first begin */
	unsigned long long count, total_ns, max_ns;
};

struct lockstat_wait {
	unsigned tid, cpu;
	unsigned long long addr, t0;
	int	 lock;			/* index in locks */
};

struct lockstat_addr {
	unsigned long long addr;
	const char *cls;		/* static (prof_lock_class) */
};

struct lockstat {
	const struct prof_syms *text, *data;	/* borrowed; data may be
						   empty */
	int	 depth;			/* callers in a chain name, 1..3 */
	unsigned long long lock_text[2], sched_text[2];	/* [start, end) */
	struct lockstat_lock *locks;
	int	 nlocks;
	struct lockstat_wait *waits;
	int	 nwaits;
	struct lockstat_addr *addrs;	/* classes learnt, by address */
	int	 naddrs;
	long long begins, ends, unpaired;
};

void	 lockstat_init(struct lockstat *, const struct prof_syms *text,
	    const struct prof_syms *data, int depth);
void	 lockstat_release(struct lockstat *);

/* The row name of a lock (see the top of this file) into out. */
void	 lockstat_name(const struct lockstat *, unsigned long long addr,
	    const unsigned long long *ips, int n, char *out, size_t sz);

/* Feeds one record (in time order). */
void	 lockstat_add(struct lockstat *, const struct lockstat_rec *);
/* Ends tracing: open waits become unpaired. */
void	 lockstat_finish(struct lockstat *);
/* Sorts the locks by wait total, largest first. */
void	 lockstat_sort(struct lockstat *);
/* "spinlock", "rwlock", "mutex", "rwsem", "percpu-rwsem", "rt-mutex". */
const char *lockstat_kind(unsigned flags);

/* params (canonical "k=v,...") with lock=name in its sorted place, cut to
   fit a 256-byte params field; malloc'd. */
char	*lockstat_params(const char *params, const char *name);

/*
 * Writes the samples of the top locks, and of "(all)" (every lock), as
 * workload's sample lines: wait_share (%), wait_total (ms), wait_count,
 * wait_max (us).  task_ns = tasks x wall.  Returns the number of locks
 * written; nothing at all when nothing waited.
 */
int	 lockstat_emit(struct lockstat *, const char *workload,
	    const char *params, int top, double task_ns);

#endif
