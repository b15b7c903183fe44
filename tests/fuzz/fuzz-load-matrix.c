/*
 * fuzz-load-matrix: the workloads.conf parser (agents/load/matrix.c) on
 * arbitrary bytes.  The fuzz build links no libload.a, so the load sources
 * it needs are compiled in here.
 */
#include "agents/load/util.c"
#include "agents/load/matrix.c"

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
		matrix_release(&m);
	}
	return 0;
}
