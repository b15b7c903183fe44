/*
 * fuzz-lava: LAVA's answers as the bridge reads them (agents/lava.c): a
 * job log (lava-run's stdout, the server's logs/ YAML lines) and a job
 * state object (api/v0.2/jobs/ID/).  The first byte picks which.
 */
#include <stddef.h>
#include <stdint.h>

#include "agents/lava.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1) {
		struct lava_log l;

		lava_log_init(&l);
		lava_log_parse(&l, (const char *)data + 1, size - 1);
		(void)lava_log_outcome(&l);
		lava_log_release(&l);
	} else {
		struct lava_job_state s;

		lava_state_parse(&s, (const char *)data + 1, size - 1);
		lava_state_release(&s);
	}
	return 0;
}
