/*
 * fuzz-load-topo: the topology JSON reader (agents/load/topo_json.c, what
 * --check --topology reads) on arbitrary bytes.  A topology it accepts
 * must be consistent (every CPU in a node that lists it, lists sorted) and
 * must resolve relative counts, sizes and task counts without trouble.
 */
#include <string.h>

#include "agents/load/util.c"
#include "agents/load/sample.c"
#include "agents/load/topo.c"
#include "agents/load/topo_json.c"
#include "agents/load/rel.c"
#include "agents/load/place.c"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const char *const counts[] = { "cpus", "socket/2", "node", "cores*3", "all", "0.5", "node:1" };
	struct load_topo t;
	unsigned long long sz;
	long v;
	int i, k, *cpus, n;

	load_set_quiet(1);
	if (topo_load_json(&t, (const char *)data, size, "fuzz.json") < 0)
		return 0;
	if (t.ncpus < 1 || t.nnodes < 1)
		__builtin_trap();
	for (i = 0; i < t.nnodes; i++)
		for (k = 1; k < t.nodes[i].ncpus; k++)
			if (t.nodes[i].cpus[k] < t.nodes[i].cpus[k - 1])
				__builtin_trap();
	for (i = 0; i < t.ncpus; i++)
		if (!topo_node(&t, t.cpus[i].node))
			__builtin_trap();
	for (i = 0; i < (int)(sizeof(counts) / sizeof(counts[0])); i++) {
		if (rel_count(&t, counts[i], &v) == 0 && v < 1)
			__builtin_trap();
		if (place_resolve(&t, counts[i], &cpus, &n) == 0) {
			if (n < 1 || n > t.ncpus)
				__builtin_trap();
			free(cpus);
		}
	}
	if (rel_size(&t, "5%mem", &sz) == 0 && (sz < 4096 || sz % 4096))
		__builtin_trap();
	rel_size(&t, "node/3", &sz);
	topo_release(&t);
	return 0;
}
