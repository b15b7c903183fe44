/*
 * fuzz-sched: the scheduler's part of a POST /api/v1/series body
 * (sched_request_parse: "matrix" and "boots") over arbitrary JSON, with
 * the invariants of what it accepts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/matrix_check.h"
#include "daemon/app.h"
#include "daemon/config.h"
#include "daemon/sched.h"
#include "lib/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int loaded;
	struct buf err = BUF_INIT(4096);
	const char *matrix;
	int boots;
	json_t *j;

	if (!loaded) {
		/* app.cfg is empty: the table's defaults apply */
		if (app_load_settings(&err) < 0)
			abort();
		loaded = 1;
	}
	j = json_loadb((const char *)data, size, 0, NULL);
	if (j == NULL)
		return 0;
	if (sched_request_parse(j, &matrix, &boots, &err) == 0) {
		/* a count in range, or "auto" (the scheduler's plan) */
		if (boots != SCHED_BOOTS_AUTO && (boots < 0 ||
		    boots > app.settings.sched.max_boots))
			abort();
		/* an accepted matrix is one kperfci-load's checks accept
		   (at least one run, in whatever INI spelling: `[run"a"]`
		   is as good as `[run "a"]`) and within the protocol's cap */
		if (matrix && (strlen(matrix) > PROTO_MAX_MATRIX ||
		    matrix_check("matrix", matrix, strlen(matrix), &err) < 0))
			abort();
	} else if (err.len == 0) {
		abort();	/* refused without saying why */
	}
	buf_release(&err);
	json_decref(j);
	return 0;
}
