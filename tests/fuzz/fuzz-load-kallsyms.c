/*
 * fuzz-load-kallsyms: /proc/kallsyms parsing and lock attribution
 * (agents/load/prof.c): the input is split at the first NUL into kallsyms
 * text and a callchain of 8-byte addresses; the profile JSON must stay
 * valid-looking (balanced) whatever the symbol names contain.
 */
#include <string.h>

#include "agents/load/util.c"
#include "agents/load/sample.c"
#include "agents/load/prof.c"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	unsigned long long ips[64];
	struct prof_syms s;
	struct prof p;
	struct sample_json j;
	int n = 0;

	load_set_quiet(1);
	if (prof_syms_parse(&s, (const char *)data, tlen) < 0)
		return 0;
	if (nul) {
		const unsigned char *c = nul + 1;

		while (c + 8 <= data + size && n < 64) {
			memcpy(&ips[n++], c, 8);
			c += 8;
		}
	}
	memset(&p, 0, sizeof(p));
	prof_add(&p, &s, ips, n);
	prof_add(&p, &s, ips + (n > 1), n - (n > 1));
	sample_json_init(&j);
	prof_json(&p, "fuzz", 5, &j);
	if (j.len == 0 || j.data[0] != '{' || j.data[j.len - 1] != '}' ||
	    strlen(j.data) != j.len)
		__builtin_trap();
	sample_json_release(&j);
	prof_release(&p);
	prof_syms_release(&s);
	return 0;
}
