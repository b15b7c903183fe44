/*
 * fuzz-changed: the parsers of a series' content (core/changed.c): the
 * unified diff, the enclosing-function finder over a patched source file
 * (untrusted: it comes from the patch), and System.map look-ups.  The
 * input is split at the first NUL: diff, then source.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/changed.h"
#include "lib/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul = memchr(text, 0, size);
	size_t dlen = nul ? (size_t)(nul - text) : size;
	const char *src = nul ? nul + 1 : text;
	size_t slen = nul ? size - dlen - 1 : size;
	struct buf err = BUF_INIT(4096);
	struct changed_diff d;
	struct changed_span *sp;
	struct changed_fn fn[16];
	size_t n;
	int v;

	if (changed_diff_parse(&d, text, dlen, &err) == 0)
		for (size_t i = 0; i < d.n; i++) {
			n = changed_functions(&d.files[i], src, slen, fn, 16);
			if (n > 16)
				abort();
			for (size_t k = 0; k < n; k++)
				if (strlen(fn[k].name) >= CHANGED_MAX_NAME)
					abort();
			for (size_t h = 0; h < d.files[i].nhunks; h++)
				if (d.files[i].hunks[h].start < 0 ||
				    d.files[i].hunks[h].count < 0)
					abort();
		}
	changed_diff_release(&d);
	buf_release(&err);
	n = changed_spans(src, slen, &sp);
	for (size_t i = 0; i < n; i++)
		if (sp[i].start > sp[i].end || sp[i].start < 1 ||
		    strlen(sp[i].name) >= CHANGED_MAX_NAME)
			abort();
	free(sp);
	changed_sysmap_count(src, slen, "folio_batch_move_lru", &v);
	return 0;
}
