/*
 * prof: turns kernel sample callchains into a lock-contention profile:
 * /proc/kallsyms symbol lookup, and the attribution of samples that land in
 * spinlock/mutex/rwsem slow paths to their callers (the first frame that is
 * not a lock function or a lock wrapper such as folio_lruvec_lock_irqsave),
 * with the lock's name from the caller: certain for the callers that take
 * one kind of spinlock only ("lru_lock" for folio_batch_move_lru), else a
 * guess ("zone lock?" for rmqueue_bulk).  A lock row is (spin function, lock name), so
 * lru_lock, the zone lock and the split-queue lock, which all spin in
 * native_queued_spin_lock_slowpath, are separate rows.  Kept apart from the perf_event_open(2) sampler
 * (wl_lock_profile.c) so the parsing and attribution are unit-tested and
 * fuzzed without a kernel.
 *
 * A software cpu-clock sample cannot land while interrupts are off: time
 * spinning in an irqsave lock shows up where interrupts come back on, at
 * _raw_spin_unlock_irqrestore (counted as a lock function here) or, when
 * the unlock is inlined, in the caller itself (folio_batch_move_lru in
 * "top").  Hardware cycles sampling (NMI) has no such blind spot.
 */
#ifndef KPERFCI_LOAD_PROF_H
#define KPERFCI_LOAD_PROF_H

#include "agents/load/sample.h"

struct prof_syms {
	unsigned long long *addr;	/* ascending */
	char		**name;
	int		 n;
};

/* Parses kallsyms text ("ffffffff81000000 T _stext"), keeping text
   symbols; -1 with a message when nothing usable is there (all addresses
   zero: kptr_restrict). */
int	 prof_syms_parse(struct prof_syms *, const char *text, size_t len);
/* The same for data symbols (d D b B r R v V: needs CONFIG_KALLSYMS_ALL),
   which name static locks by address. */
int	 prof_syms_parse_data(struct prof_syms *, const char *text, size_t len);
/* Text symbols into s and, when data is not NULL, data symbols into data
   (left empty, not an error, when the kernel lists none). */
int	 prof_syms_load(struct prof_syms *s, struct prof_syms *data,
	    const char *path);
void	 prof_syms_release(struct prof_syms *);
/* Name of the function containing addr, or NULL. */
const char *prof_syms_lookup(const struct prof_syms *, unsigned long long addr);
/* The symbol at or below addr when addr is at most max_off past it
   (*off set), else NULL. */
const char *prof_syms_lookup_off(const struct prof_syms *,
	    unsigned long long addr, unsigned long long max_off,
	    unsigned long long *off);
/* Address of a symbol by name, 0 when absent (a linear scan). */
unsigned long long prof_syms_addr(const struct prof_syms *, const char *name);

int	 prof_is_lock(const char *sym);
/* The lock a frame can only be waiting for, by its class ("lru_lock",
   "list_lru_node.lock", "split_queue_lock"), or NULL. */
const char *prof_lock_class(const char *sym);
/* The lock a caller waits for: its class when prof_lock_class knows it,
   else a guess like "zone lock?", or "?" if unknown. */
const char *prof_guess_lock(const char *caller);
/* The first frame after ips[from] that is neither a lock function nor a
   lock wrapper (folio_lruvec_lock_irqsave...), or NULL. */
const char *prof_first_caller(const struct prof_syms *,
	    const unsigned long long *ips, int n, int from);
/* 1 for lock wrappers (folio_lruvec_lock*, spin_lock*, mutex_lock*...). */
int	 prof_is_wrapper(const char *sym);

struct prof_count {
	const char	*sym;		/* borrowed from prof_syms or static */
	const char	*lock;		/* for locks: the lock's name (a guess
					   from the caller, else the caller);
					   for callers: their lock function */
	long		 n;
};

struct prof {
	long		 total;
	long		 lost;
	const char	*event;		/* "cycles", "cpu-clock" or NULL */
	struct prof_count *self, *locks, *callers;
	int		 nself, nlocks, ncallers;
};

/* ips[0] is the sampled address, then its callers. */
void	 prof_add(struct prof *, const struct prof_syms *,
	    const unsigned long long *ips, int n);
void	 prof_release(struct prof *);
/* The lock-profile JSON object (one line, no newline). */
void	 prof_json(struct prof *, const char *params, int top,
	    struct sample_json *);

#endif
