/*
 * topo: the machine's topology as Linux shows it under /sys and /proc:
 * online CPUs with their NUMA node, socket (physical_package_id), core and
 * SMT thread index, the nodes with their CPUs and memory, the CPU model and
 * total memory.  The root prefix is a parameter so unit tests parse fake
 * trees; "" (or NULL) is the running machine.  The agent links this file for
 * its registration, so it assumes nothing about being static or in a guest.
 *
 * A kernel without NUMA (no /sys/devices/system/node) is one node 0 holding
 * every online CPU.  Offline CPUs are left out everywhere.
 */
#ifndef KPERFCI_LOAD_TOPO_H
#define KPERFCI_LOAD_TOPO_H

#include <stdio.h>

struct load_cpu {
	int	 id;
	int	 node;
	int	 socket;
	int	 core;		/* core_id as the kernel reports it */
	int	 thread;	/* index among its core's SMT siblings */
};

struct load_node {
	int	 id;
	int	*cpus;		/* online CPU ids, ascending */
	int	 ncpus;
	long long mem_kb;	/* MemTotal of the node, 0 if unknown */
};

struct load_topo {
	struct load_cpu *cpus;	/* online CPUs, ascending id */
	int	 ncpus;
	struct load_node *nodes; /* ascending id */
	int	 nnodes;
	int	 nsockets;
	int	 ncores;
	char	 model[128];
	char	 kernel[128];	/* osrelease, "" if unknown */
	long long mem_kb;
};

/* Parses "0-3,8,10-11" into a malloc'd ascending array (duplicates
   dropped).  Returns 0, or -1 with a message naming the bad list. */
int	 topo_parse_cpulist(const char *s, int **out, int *n);
/* Reads the topology under root ("" for the live machine). */
int	 topo_load(struct load_topo *, const char *root);
void	 topo_release(struct load_topo *);
const struct load_node *topo_node(const struct load_topo *, int id);
const struct load_cpu *topo_cpu(const struct load_topo *, int id);
/* One JSON object (no newline) describing the topology. */
void	 topo_print_json(const struct load_topo *, FILE *);
/* Reads what topo_print_json printed (topo_json.c); fname names the
   input in errors.  0, or -1 with a message naming the bad field. */
int	 topo_load_json(struct load_topo *, const char *text, size_t len,
	    const char *fname);
int	 topo_load_json_file(struct load_topo *, const char *path);

#endif
