/*
 * fuzz-load-matrix: the workloads.conf parser (agents/load/matrix.c) on
 * arbitrary bytes, and every value it yields through the machine-relative
 * count and size syntax (agents/load/rel.c: cpus/2, 5%mem, mem/256) on a
 * 2-node topology.  The fuzz build links no libload.a, so the load sources
 * it needs are compiled in here.
 */
#include "agents/load/util.c"
#include "agents/load/matrix.c"
#include "agents/load/rel.c"

static struct load_cpu fz_cpus[4] = {
	{ 0, 0, 0, 0, 0 }, { 1, 0, 0, 1, 0 }, { 2, 1, 1, 0, 0 }, { 3, 1, 1, 1, 0 },
};
static int fz_n0[] = { 0, 1 }, fz_n1[] = { 2, 3 };
static struct load_node fz_nodes[2] = { { 0, fz_n0, 2, 1 << 20 }, { 1, fz_n1, 2, 1 << 20 } };
static struct load_topo fz_topo = { fz_cpus, 4, fz_nodes, 2, 2, 4, "", "", 2 << 20 };

static void
fz_rel(const char *v)
{
	unsigned long long sz;
	long c;

	if (rel_count(&fz_topo, v, &c) == 0 && rel_is_relative(v) && c < 1)
		__builtin_trap();
	if (rel_size(&fz_topo, v, &sz) == 0 && rel_is_relative(v) &&
	    (sz < 4096 || sz % 4096))
		__builtin_trap();
	rel_count_check(v);
	rel_size_check(v);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct matrix m;
	int i, k;

	load_set_quiet(1);
	if (matrix_parse(&m, (const char *)data, size, "fuzz.conf") == 0) {
		for (i = 0; i < m.n; i++)
			for (k = 0; k < m.e[i].n; k++)
				if (!m.e[i].keys[k][0] || !m.e[i].vals[k][0])
					__builtin_trap();
				else
					fz_rel(m.e[i].vals[k]);
		matrix_release(&m);
	}
	return 0;
}
