/*
 * t-strvec: lib/strvec.c: pushes past any fixed size keep every argument,
 * formatted ones are owned, the vector stays NULL-terminated.
 */
#include <stdio.h>
#include <string.h>

#include "lib/strvec.h"
#include "tests/unit/tap.h"

int
main(void)
{
	struct strvec sv = STRVEC_INIT;
	static const char *const more[] = { "c", "d", NULL };
	const char *const *v;
	size_t i;
	int good = 1;

	ok(strvec_argv(&sv)[0] == NULL, "an empty vector is { NULL }");
	strvec_push(&sv, "git");
	strvec_pushv(&sv, more);
	for (i = 0; i < 200; i++)
		strvec_pushf(&sv, "arg%zu", i);
	v = strvec_argv(&sv);
	is_int((int)sv.n, 203, "203 arguments, none dropped");
	ok(!strcmp(v[0], "git") && !strcmp(v[2], "d"), "borrowed ones kept");
	for (i = 0; i < 200; i++) {
		char want[16];

		snprintf(want, sizeof(want), "arg%zu", i);
		if (strcmp(v[3 + i], want))
			good = 0;
	}
	ok(good, "formatted ones in order, each its own copy");
	ok(v[203] == NULL, "NULL-terminated");
	strvec_clear(&sv);
	ok(sv.n == 0 && strvec_argv(&sv)[0] == NULL, "cleared: empty again");
	return tap_done();
}
