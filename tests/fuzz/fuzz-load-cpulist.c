/*
 * fuzz-load-cpulist: the sysfs CPU list parser (agents/load/topo.c) and
 * JSON string escaping (sample.c) on arbitrary bytes: lists come back
 * sorted and unique, escaped strings contain no raw control characters.
 */
#include <string.h>

#include "agents/load/util.c"
#include "agents/load/sample.c"
#include "agents/load/topo.c"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char buf[512];
	struct sample_json j;
	int *v, n, i;
	size_t k;

	load_set_quiet(1);
	if (size >= sizeof(buf))
		size = sizeof(buf) - 1;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (topo_parse_cpulist(buf, &v, &n) == 0) {
		for (i = 1; i < n; i++)
			if (v[i] <= v[i - 1])
				__builtin_trap();
		free(v);
	}
	sample_json_init(&j);
	sample_json_str(&j, buf);
	for (k = 0; k < j.len; k++)
		if ((unsigned char)j.data[k] < 0x20)
			__builtin_trap();
	sample_json_release(&j);
	return 0;
}
