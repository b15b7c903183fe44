/*
 * settings_lab: the settings of the kernel CI ecosystem's side, [kcidb]
 * (where results go, daemon/kcidb.c).  A LAVA lab is not configured
 * here: the daemon sees it as an agent, the LAVA bridge (kperfci-agent
 * with backend = lava, its [lava] section in agent.conf: agents/lava*.c),
 * which owns the lab's URL, token and device type as every agent owns
 * how it boots.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"
#include "daemon/settings.h"
#include "lib/buf.h"

int
settings_lab(const struct config *c, struct settings *s, struct buf *err)
{
	const char *submit = config_str(c, "kcidb", NULL, "submit");

	(void)err;	/* the key table's checks said all there is */

	s->kcidb.origin = config_str(c, "kcidb", NULL, "origin");
	s->kcidb.retries = (int)config_int(c, "kcidb", NULL, "retries");
	s->kcidb.timeout = (int)config_int(c, "kcidb", NULL, "timeout");
	if (submit && submit[strspn(submit, " \t")])
		s->kcidb.submit = settings_argv(submit);
	return 0;
}

void
settings_lab_release(struct settings *s)
{
	if (s->kcidb.submit)
		for (char **p = s->kcidb.submit; *p; p++)
			free(*p);
	free(s->kcidb.submit);
	s->kcidb.submit = NULL;
}
