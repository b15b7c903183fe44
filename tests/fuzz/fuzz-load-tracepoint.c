/*
 * fuzz-load-tracepoint: the contention pass's parsers (agents/load/
 * lockstat.c): the input is split at the first NUL into a tracefs format
 * file (parsed as contention_begin's and as contention_end's) and sample
 * record bodies, each a 2-byte length then that many bytes; every record
 * that parses is paired and named, and the samples written must be whole
 * JSON lines.
 */
#include <stdio.h>
#include <string.h>

#include "agents/load/util.c"
#include "agents/load/sample.c"
#include "agents/load/prof.c"
#include "agents/load/lockstat.c"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const char fuzz_syms[] =
    "ffffffff81001000 T folio_batch_move_lru\n"
    "ffffffff81003000 T native_queued_spin_lock_slowpath\n"
    "ffffffff81004000 T __lock_text_start\n"
    "ffffffff81004200 T __lock_text_end\n"
    "ffffffff82000000 D swap_lock\n";

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *nul = memchr(data, 0, size), *p, *end = data + size;
	size_t flen = nul ? (size_t)(nul - data) : size;
	static struct prof_syms text, dsyms;
	static int init;
	struct lockstat_fmt fb, fe;
	struct lockstat_rec r;
	struct lockstat ls;
	FILE *out;

	load_set_quiet(1);
	if (!init) {
		prof_syms_parse(&text, fuzz_syms, strlen(fuzz_syms));
		prof_syms_parse_data(&dsyms, fuzz_syms, strlen(fuzz_syms));
		init = 1;
	}
	if (lockstat_fmt_parse(&fb, (const char *)data, flen, "flags") < 0)
		memset(&fb, 0, sizeof(fb));
	if (lockstat_fmt_parse(&fe, (const char *)data, flen, "ret") < 0)
		memset(&fe, 0, sizeof(fe));
	lockstat_init(&ls, &text, &dsyms, 2);
	for (p = nul ? nul + 1 : end; p + 2 <= end;) {
		size_t n = p[0] | (size_t)p[1] << 8;

		p += 2;
		if (n > (size_t)(end - p))
			n = end - p;
		if (lockstat_rec_parse(&r, p, n, n & 1, fb.type.size ? &fb : NULL,
		    fe.type.size ? &fe : NULL) == 0) {
			if (r.nips > LOCKSTAT_MAX_STACK)
				__builtin_trap();
			lockstat_add(&ls, &r);
		}
		p += n;
	}
	out = fopen("/dev/null", "w");
	if (out) {
		sample_set_output(out);
		lockstat_emit(&ls, "lock-profile", "mode=shmem", 5, 1e9);
		fclose(out);
	}
	lockstat_release(&ls);
	return 0;
}
