/*
 * fuzz-atom: libFuzzer target over the Atom feed reader (core/atom.c)
 * and the diff path lister of daemon/watch.c: any bytes as a feed and as a
 * diff.  Invariants: a parsed entry has a title and a link with no NUL
 * cut short, and at most ATOM_MAX_ENTRIES entries.
 * Seed corpus: tests/fuzz/corpus/fuzz-atom/ (a public-inbox new.atom).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/atom.h"
#include "daemon/watch.h"
#include "lib/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct atom_feed f;
	struct buf err = BUF_INIT(4096);
	char *s = malloc(size + 1), **paths = NULL;
	size_t npaths = 0;

	memcpy(s, data, size);
	s[size] = '\0';
	if (atom_parse(s, size, &f, &err) == 0) {
		if (f.n > ATOM_MAX_ENTRIES)
			abort();
		for (size_t i = 0; i < f.n; i++)
			if (!f.v[i].title || !f.v[i].link)
				abort();
		atom_feed_release(&f);
	} else if (!err.data || !*err.data)
		abort();	/* a refusal always says why */
	watch_diff_paths(s, &paths, &npaths);
	for (size_t i = 0; i < npaths; i++) {
		if (!*paths[i])
			abort();
		free(paths[i]);
	}
	free(paths);
	buf_release(&err);
	free(s);
	return 0;
}
