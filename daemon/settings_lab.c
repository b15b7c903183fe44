/*
 * settings_lab: the settings of labs that already exist, [kcidb] (where
 * results go, daemon/kcidb.c) and [lava "NAME"] (a LAVA lab's devices,
 * agents/lava.c), with the checks that read more than one key: a lava
 * section names a server or a local dispatcher, an [agent] that exists,
 * and a token file whose sha256 is the configured one.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"
#include "daemon/settings.h"
#include "lib/buf.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"

static int
settings_lava_check(const struct settings *s, const struct settings_lava *l,
    struct buf *err)
{
	char have[65];
	int rc = 0;

	if (!l->url == !l->lava_run) {
		buf_addf(err, "[lava \"%s\"] needs url (a LAVA server) or "
		    "lava_run (the local dispatcher), not %s\n", l->name,
		    l->url ? "both" : "neither");
		rc = -1;
	}
	if (l->url && strncmp(l->url, "http://", 7) &&
	    strncmp(l->url, "https://", 8)) {
		buf_addf(err, "[lava \"%s\"] url must be http:// or https://\n",
		    l->name);
		rc = -1;
	}
	if (l->url && (!l->token_file || !l->token_sha256)) {
		buf_addf(err, "[lava \"%s\"] needs token_file and "
		    "token_sha256 with a server\n", l->name);
		rc = -1;
	}
	if (l->lava_run && !l->device) {
		buf_addf(err, "[lava \"%s\"] lava_run needs device (a device "
		    "dictionary)\n", l->name);
		rc = -1;
	}
	if (l->token_file && l->token_sha256) {
		if (sha256_file(l->token_file, have) == -1) {
			buf_addf(err, "[lava \"%s\"] token_file %s cannot be "
			    "read\n", l->name, l->token_file);
			rc = -1;
		} else if (strcmp(have, l->token_sha256)) {
			buf_addf(err, "[lava \"%s\"] token_file %s does not "
			    "match token_sha256\n", l->name, l->token_file);
			rc = -1;
		}
	}
	if (!l->ndevice_types) {
		buf_addf(err, "[lava \"%s\"] needs a device_type\n", l->name);
		rc = -1;
	}
	if (!l->topology) {
		buf_addf(err, "[lava \"%s\"] needs topology (what its devices "
		    "are)\n", l->name);
		rc = -1;
	}
	if (!l->agent || !settings_agent_token(s, l->agent)) {
		buf_addf(err, "[lava \"%s\"] agent = \"%s\" is not a "
		    "configured [agent]\n", l->name, l->agent ? l->agent : "");
		rc = -1;
	}
	return rc;
}

int
settings_lab(const struct config *c, struct settings *s, struct buf *err)
{
	const char *submit = config_str(c, "kcidb", NULL, "submit");
	size_t n = 0;
	int rc = 0;

	s->kcidb.origin = config_str(c, "kcidb", NULL, "origin");
	s->kcidb.retries = (int)config_int(c, "kcidb", NULL, "retries");
	s->kcidb.timeout = (int)config_int(c, "kcidb", NULL, "timeout");
	if (submit && submit[strspn(submit, " \t")])
		s->kcidb.submit = settings_argv(submit);

	while (config_subsection(c, "lava", n))
		n++;
	s->lavas = xcalloc(n + 1, sizeof(*s->lavas));
	for (size_t i = 0; i < n; i++) {
		struct settings_lava *l = &s->lavas[s->nlavas++];
		const char *v;

		l->name = config_subsection(c, "lava", i);
		l->url = config_str(c, "lava", l->name, "url");
		l->token_file = config_str(c, "lava", l->name, "token_file");
		l->token_sha256 = config_str(c, "lava", l->name,
		    "token_sha256");
		l->lava_run = config_str(c, "lava", l->name, "lava_run");
		l->device = config_str(c, "lava", l->name, "device");
		l->agent = config_str(c, "lava", l->name, "agent");
		l->topology = config_str(c, "lava", l->name, "topology");
		while ((v = config_list(c, "lava", l->name, "device_type",
		    l->ndevice_types))) {
			l->device_types = xrealloc(l->device_types,
			    (l->ndevice_types + 1) * sizeof(*l->device_types));
			l->device_types[l->ndevice_types++] = v;
		}
		if (settings_lava_check(s, l, err) < 0)
			rc = -1;
	}
	return rc;
}

void
settings_lab_release(struct settings *s)
{
	if (s->kcidb.submit)
		for (char **p = s->kcidb.submit; *p; p++)
			free(*p);
	free(s->kcidb.submit);
	for (size_t i = 0; i < s->nlavas; i++)
		free(s->lavas[i].device_types);
	free(s->lavas);
	s->kcidb.submit = NULL;
	s->lavas = NULL;
	s->nlavas = 0;
}
