/*
 * fuzz-claims: libFuzzer target over the claims reader (core/claims.c):
 * any bytes as a message body -> claims -> JSON -> a check against a few
 * rows.  Invariants: every claim has text and a rule, a before-after claim
 * has both values, and the JSON serialises.
 * Seed corpus: tests/fuzz/corpus/fuzz-claims/ (the seed threads' text).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/claims.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct claim_row rows[] = {
		{ "fault-free", "mode=shmem,tasks=all,ntasks=4", "pages_per_sec",
		    "improvement", 1, 12, 8, 16, 1.5, 0.01, 1 },
		{ "swap-memhog", "groups=4,ntasks=4", "wall_sec", "no change",
		    -1, -0.5, -2, 1, 1, 0.01, 1 },
		{ "lock-contention", "lock=lru_lock,ntasks=4", "wait_share",
		    "regression", -1, 30, 20, 40, 5, 0.01, 0 },
	};
	struct claims cs = { 0 };
	char *s = malloc(size + 1);
	json_t *j;
	char *txt;

	memcpy(s, data, size);
	s[size] = '\0';
	claims_extract(&cs, s, "fuzz");
	for (size_t i = 0; i < cs.n; i++) {
		struct claim_check chk;

		if (!cs.v[i].text || !cs.v[i].rule || !cs.v[i].words)
			abort();
		if (cs.v[i].kind == CLAIM_BEFORE_AFTER &&
		    !(cs.v[i].has_before && cs.v[i].has_after))
			abort();
		claims_check(&cs.v[i], rows, 3, &chk);
		if (chk.row >= 3)
			abort();
	}
	j = claims_to_json(&cs);
	txt = json_dumps(j, 0);
	if (!txt)
		abort();
	free(txt);
	json_decref(j);
	claims_release(&cs);
	free(s);
	return 0;
}
