/*
 * fuzz-buildlog: the parsers of build logs (written by untrusted kernel
 * Makefiles): progress steps, first error, log tail.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/build.h"
#include "lib/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf b = BUF_INIT(1 << 20);
	const char *log = (const char *)data;

	if (build_count_steps(log, size) < 0)
		abort();
	build_first_error(log, size, &b);
	if (b.len > 600)
		abort();		/* the error line is capped */
	buf_release(&b);
	build_log_tail(log, size, 30, &b);
	if (b.len > size)
		abort();
	buf_release(&b);
	return 0;
}
