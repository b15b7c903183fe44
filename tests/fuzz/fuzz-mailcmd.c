/*
 * fuzz-mailcmd: libFuzzer target over the reader of commands in replies
 * (core/mailcmd.c) and the To/Cc reader of a raw message (core/mime.c
 * msg_recipients): any bytes as a body and as a message.  Invariants: a
 * found command has a verb, boots in -1..MAILCMD_MAX_BOOTS, suite and base
 * of printable ASCII not starting with '-'; a refused one says why; every
 * recipient is non-empty and at most 254 bytes.
 * Seed corpus: tests/fuzz/corpus/fuzz-mailcmd/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/mailcmd.h"
#include "core/mime.h"
#include "lib/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mailcmd c;
	struct buf err = BUF_INIT(4096), f = BUF_INIT(0);
	char **addrs;
	size_t n;
	int r = mailcmd_find((const char *)data, size, &c, &err);

	if (r == 1) {
		if (c.verb < MAILCMD_TEST || c.verb > MAILCMD_CANCEL ||
		    c.boots < -1 || c.boots > MAILCMD_MAX_BOOTS ||
		    c.suite[0] == '-' || c.base[0] == '-')
			abort();
		for (const char *p = c.suite; *p; p++)
			if (*p < 0x21 || *p > 0x7e)
				abort();
		mailcmd_format(&c, &f);
		if (!f.len)
			abort();
	} else if (r < 0 && !err.len)
		abort();
	if (msg_recipients((const char *)data, size, &addrs, &n) == 0 ||
	    addrs) {
		for (size_t i = 0; i < n; i++) {
			if (!addrs[i][0] || strlen(addrs[i]) > 254)
				abort();
			free(addrs[i]);
		}
		free(addrs);
	}
	buf_release(&err);
	buf_release(&f);
	return 0;
}
