/*
 * prof: turns kernel sample callchains into a lock-contention profile:
 * /proc/kallsyms symbol lookup, and the attribution of samples that land in
 * spinlock/mutex/rwsem slow paths to their callers (the first frame that is
 * not a lock function or a lock wrapper such as folio_lruvec_lock_irqsave),
 * with a guessed lock name from the caller ("lru_lock?" for
 * folio_batch_move_lru).  Kept apart from the perf_event_open(2) sampler
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
int	 prof_syms_load(struct prof_syms *, const char *path);
void	 prof_syms_release(struct prof_syms *);
/* Name of the function containing addr, or NULL. */
const char *prof_syms_lookup(const struct prof_syms *, unsigned long long addr);

int	 prof_is_lock(const char *sym);
/* A guessed lock name for a caller, like "lru_lock?", or "?" if unknown. */
const char *prof_guess_lock(const char *caller);

struct prof_count {
	const char	*sym;		/* borrowed from prof_syms or static */
	const char	*lock;		/* for callers: their lock function */
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
