/*
 * fuzz-config: the kperfci.conf parser (config_parse) and its getters on
 * whatever it accepted.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"
#include "lib/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT(1 << 20);
	struct config c;
	char *text = xstrndup((const char *)data, size);
	const char *s;
	size_t i;

	config_init(&c);
	if (config_parse(&c, "fuzz", text, &err) == 0) {
		(void)config_int(&c, "daemon", NULL, "port");
		(void)config_int(&c, "daemon", NULL, "max_body");
		(void)config_str(&c, "daemon", NULL, "data");
		for (i = 0; (s = config_list(&c, "lore", NULL, "allow", i)); i++)
			(void)strlen(s);
	}
	config_release(&c);
	buf_release(&err);
	free(text);
	return 0;
}
