/*
 * rel: parameter values written relative to the machine, so one suite
 * fits a 4-vCPU guest and a 2-socket, 80-CPU host and resolves on each to
 * what the seed authors ran there.
 *
 * Counts (groups = ..., and the task counts of place.h):
 *   N            a number
 *   UNIT         cpus (online CPUs), node (CPUs of the first node),
 *                socket (CPUs of the first socket), cores (physical cores)
 *   UNIT/D       UNIT divided by D, rounded down, at least 1
 *   UNIT*K       UNIT times K
 * Sizes (size = ..., limit = ...):
 *   4096, 64K, 128M, 1G   a plain size
 *   P%mem, P%node         P percent (may have decimals) of the machine's
 *                         memory, or of the first NUMA node's
 *   mem/D, node/D         the machine's (node's) memory divided by D
 * A relative size is rounded down to a multiple of 4 KiB (at least 4 KiB).
 */
#ifndef KPERFCI_LOAD_REL_H
#define KPERFCI_LOAD_REL_H

#include "agents/load/topo.h"

/* 1 when s is written relative to the machine (needs a topology). */
int	 rel_is_relative(const char *s);
/* Syntax only: 0 or -1 with a message naming what is wrong. */
int	 rel_count_check(const char *s);
int	 rel_size_check(const char *s);
/* Resolves against t (NULL: plain values only).  0 or -1 with a message. */
int	 rel_count(const struct load_topo *t, const char *s, long *out);
int	 rel_size(const struct load_topo *t, const char *s,
	    unsigned long long *out);
/* Writes bytes as the largest exact binary unit: "1G", "96M", "4100K",
   "4097". */
void	 rel_size_format(unsigned long long bytes, char *buf, size_t cap);

#endif
