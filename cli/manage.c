/*
 * manage: cancel or re-run a series (daemon/api_manage.c).  The daemon
 * lets the admin do either to any series and a submitter to its own; the
 * token comes from --token or $KPERFCI_TOKEN (not needed on the daemon's
 * own host for series submitted from there).
 *
 *	kperfci cancel ID
 *	kperfci rerun ID
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"

/* POSTs {} to /api/v1/series/ID/WHAT; the answer or NULL (printed). */
static json_t *
manage_post(int argc, char **argv, const char *what)
{
	char path[96];
	json_t *body, *j;
	int st;

	if (argc != 2 || !*argv[1] || strlen(argv[1]) > 18 ||
	    strspn(argv[1], "0123456789") != strlen(argv[1])) {
		fprintf(stderr, "usage: kperfci %s ID\n", what);
		return NULL;
	}
	snprintf(path, sizeof(path), "/api/v1/series/%s/%s", argv[1], what);
	body = json_object();
	j = client_json("POST", path, body, &st);
	json_decref(body);
	return j;
}

int
cmd_cancel(int argc, char **argv)
{
	json_t *j = manage_post(argc, argv, "cancel");

	if (!j)
		return 1;
	printf("series %s: cancelled\n", argv[1]);
	json_decref(j);
	return 0;
}

int
cmd_rerun(int argc, char **argv)
{
	json_t *j = manage_post(argc, argv, "rerun");

	if (!j)
		return 1;
	/* the new id first, alone, as `submit` prints it */
	printf("%lld\n", (long long)json_integer_value(json_object_get(j,
	    "id")));
	fprintf(stderr, "series %s re-run as series %lld\n", argv[1],
	    (long long)json_integer_value(json_object_get(j, "id")));
	json_decref(j);
	return 0;
}
