/*
 * cli/mail: `kperfci mail show ID` -- what kperfci sent, or would send,
 * into series ID's thread (GET /api/v1/series/ID/mail).  Each stored mail
 * is printed whole (headers and body) after a line saying its state; a
 * series with none stored yet prints the reply's body as it would be now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/client.h"
#include "cli/term.h"

int	cmd_mail_show(int, char **);

static const char *
mstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

int
cmd_mail_show(int argc, char **argv)
{
	char path[128], *end;
	long long id;
	json_t *o, *m;
	size_t i;

	if (argc < 2 || (id = strtoll(argv[1], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: kperfci mail show ID\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/api/v1/series/%lld/mail", id);
	if (!(o = client_json("GET", path, NULL, NULL)))
		return 1;
	json_array_foreach(json_object_get(o, "mails"), i, m) {
		term_printf("# mail %lld (%s): %s%s%s\n",
		    (long long)json_integer_value(json_object_get(m, "id")),
		    term_clean(mstr(m, "kind")), term_clean(mstr(m, "state")),
		    *mstr(m, "reason") ? ": " : "",
		    term_clean(mstr(m, "reason")));
		term_printf("%s\n", mstr(m, "message"));
	}
	if (!json_array_size(json_object_get(o, "mails"))) {
		if (json_is_string(json_object_get(o, "preview")))
			term_printf("# nothing sent yet; the reply would say:\n"
			    "\n%s", mstr(o, "preview"));
		else
			term_printf("# nothing sent yet, and no finished "
			    "comparison to reply with\n");
	}
	json_decref(o);
	return 0;
}
