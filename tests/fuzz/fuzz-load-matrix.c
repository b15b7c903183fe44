/*
 * fuzz-load-matrix: the workloads.conf parser (agents/load/matrix.c) on
 * arbitrary bytes, and every value it yields through the machine-relative
 * count and size syntax (agents/load/rel.c: cpus/2, 5%mem, mem/256) on a
 * 2-node topology; then the daemon's check of a submitted matrix
 * (core/matrix_check.c: the same parser, then every run through the
 * workload table without a topology), which must accept nothing the parser
 * refused.  The load sources the parser needs are compiled in here; the
 * workload table comes from libload.a.
 */
#include "agents/load/util.c"
#include "agents/load/matrix.c"
#include "agents/load/rel.c"
#include "core/matrix_check.h"

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
	struct buf err = BUF_INIT(1 << 16);
	struct matrix m;
	int i, k, parsed, checked;

	load_set_quiet(1);
	checked = matrix_check("fuzz.conf", (const char *)data, size, &err);
	if ((checked < 0) != (err.len > 0))
		__builtin_trap();
	buf_release(&err);
	parsed = matrix_parse(&m, (const char *)data, size, "fuzz.conf");
	if (checked == 0 && (parsed < 0 || m.n == 0))
		__builtin_trap();
	if (parsed == 0) {
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
