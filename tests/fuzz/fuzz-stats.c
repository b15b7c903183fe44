/*
 * fuzz-stats: the sample parser (stats_load_jsonl) over arbitrary bytes,
 * and, when it accepts them, the comparison and its outputs on what it
 * produced (the set against itself, with few resamples).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stats_set set;
	struct stats_result res;
	struct stats_opts o;
	char err[512];
	FILE *devnull;
	json_t *j;
	char *s;

	stats_set_init(&set);
	if (stats_load_jsonl(&set, (const char *)data, size, err, sizeof(err))
	    == 0 && set.nsamples > 0 && set.nsamples < 5000) {
		stats_opts_init(&o);
		o.resamples = 100;
		stats_compare(&set, &set, &o, &res);
		j = stats_result_to_json(&res);
		if (!j)
			abort();	/* a NaN or bad string slipped into JSON */
		s = json_dumps(j, 0);
		free(s);
		json_decref(j);
		devnull = fopen("/dev/null", "w");
		if (devnull) {
			stats_result_print_table(devnull, &res);
			fclose(devnull);
		}
		stats_result_release(&res);
	}
	stats_set_release(&set);
	return 0;
}
