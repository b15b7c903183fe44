/*
 * place: turns a task count as users write it into the CPUs the tasks are
 * pinned to.  Specs:
 *   N        N tasks (1 <= N <= online CPUs)
 *   all      one task per online CPU
 *   node     every CPU of the first NUMA node that has CPUs
 *   node:K   every CPU of node K (also "nodeK")
 *   0.F      that fraction of the online CPUs (0 < F <= 1, at least 1)
 *   socket, socket/2, cpus/2, cores, node/2, cpus*2 ...
 *            a count relative to the machine (rel.h), filled as N is
 * CPUs are handed out one node at a time (fill node 0 before node 1) and,
 * inside a node, one per core before SMT siblings, so "half the CPUs" on a
 * 2-node machine is one whole node.
 */
#ifndef KPERFCI_LOAD_PLACE_H
#define KPERFCI_LOAD_PLACE_H

#include "agents/load/topo.h"

/* Syntax only (no topology): 0 or -1 with a message. */
int	 place_check(const char *spec);
/* The CPUs for spec, malloc'd in pinning order; -1 with a clear message
   for impossible requests (too many tasks, a node that does not exist). */
int	 place_resolve(const struct load_topo *, const char *spec,
	    int **cpus, int *n);

#endif
