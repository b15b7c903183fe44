/* place: task-count specs to pinned CPU lists (see place.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/place.h"
#include "agents/load/rel.h"
#include "agents/load/util.h"

/* kind: 0 number, 1 all, 2 node (first), 3 node:K, 4 fraction,
   5 a count relative to the machine (rel.h: socket/2, cpus, cores) */
static int
place_parse(const char *spec, int *kind, long *num, double *frac)
{
	const char *k = NULL;

	if (!spec || !*spec)
		return load_err("empty task count (want N, all, node, node:K, socket/2, cpus/2 or a fraction like 0.5)");
	if (strcmp(spec, "all") == 0) {
		*kind = 1;
		return 0;
	}
	if (strcmp(spec, "node") == 0) {
		*kind = 2;
		return 0;
	}
	if (rel_is_relative(spec)) {
		*kind = 5;
		return rel_count_check(spec);
	}
	if (strncmp(spec, "node:", 5) == 0)
		k = spec + 5;
	else if (strncmp(spec, "node", 4) == 0)
		k = spec + 4;
	if (k) {
		if (load_parse_long(k, num) < 0 || *num < 0)
			return load_err("bad node in task count \"%s\"", spec);
		*kind = 3;
		return 0;
	}
	if (strchr(spec, '.')) {
		if (load_parse_double(spec, frac) < 0 || !(*frac > 0) || *frac > 1)
			return load_err("bad fraction \"%s\" (want 0 < F <= 1)", spec);
		*kind = 4;
		return 0;
	}
	if (load_parse_long(spec, num) < 0)
		return load_err("bad task count \"%s\" (want N, all, node, node:K, socket/2, cpus/2 or a fraction like 0.5)", spec);
	if (*num < 1)
		return load_err("task count must be at least 1, not %ld", *num);
	*kind = 0;
	return 0;
}

int
place_check(const char *spec)
{
	long num;
	double frac;
	int kind;

	return place_parse(spec, &kind, &num, &frac);
}

/* qsort has no context argument; placement runs on one thread at a time */
static const struct load_topo *place_topo;

/* inside a node: one CPU per core first, then the SMT siblings */
static int
place_cmp(const void *a, const void *b)
{
	const struct load_cpu *x = topo_cpu(place_topo, *(const int *)a);
	const struct load_cpu *y = topo_cpu(place_topo, *(const int *)b);

	if (x->node != y->node)
		return (x->node > y->node) - (x->node < y->node);
	if (x->thread != y->thread)
		return (x->thread > y->thread) - (x->thread < y->thread);
	return (x->id > y->id) - (x->id < y->id);
}

int
place_resolve(const struct load_topo *t, const char *spec, int **cpus, int *n)
{
	const struct load_node *nd = NULL;
	int kind, i, want = 0, *order;
	long num = 0;
	double frac = 0;

	*cpus = NULL;
	*n = 0;
	if (place_parse(spec, &kind, &num, &frac) < 0)
		return -1;
	if (kind == 2) {
		for (i = 0; i < t->nnodes && !nd; i++)
			if (t->nodes[i].ncpus > 0)
				nd = &t->nodes[i];
		if (!nd)
			return load_err("no NUMA node has an online CPU");
	} else if (kind == 3) {
		nd = topo_node(t, (int)num);
		if (!nd) {
			int last = t->nnodes ? t->nodes[t->nnodes - 1].id : 0;
			return load_err("task count \"%s\": NUMA node %ld does not exist (this machine has nodes 0-%d)",
			    spec, num, last);
		}
		if (nd->ncpus == 0)
			return load_err("task count \"%s\": NUMA node %ld has no online CPU",
			    spec, num);
	}
	if (nd) {
		*cpus = load_xmalloc(nd->ncpus * sizeof(int));
		memcpy(*cpus, nd->cpus, nd->ncpus * sizeof(int));
		*n = nd->ncpus;
		place_topo = t;
		qsort(*cpus, *n, sizeof(int), place_cmp);
		return 0;
	}
	switch (kind) {
	case 0:
		if (num > t->ncpus)
			return load_err("task count %ld is more than the %d online CPUs",
			    num, t->ncpus);
		want = (int)num;
		break;
	case 1:
		want = t->ncpus;
		break;
	case 5:
		if (rel_count(t, spec, &num) < 0)
			return -1;
		if (num > t->ncpus)
			return load_err("task count \"%s\" is %ld, more than the %d online CPUs",
			    spec, num, t->ncpus);
		want = (int)num;
		break;
	case 4:
		want = (int)lround(frac * t->ncpus);
		if (want < 1)
			want = 1;
		break;
	}
	order = load_xmalloc(t->ncpus * sizeof(int));
	for (i = 0; i < t->ncpus; i++)
		order[i] = t->cpus[i].id;
	place_topo = t;
	qsort(order, t->ncpus, sizeof(int), place_cmp);
	*cpus = order;
	*n = want;
	return 0;
}
