/*
 * cli/track: `kperfci track list|show NAME|run NAME` -- the tracked trees
 * over the API (/api/v1/tracks...).
 *
 *	track list		one line per track: name, tree, branch, last run
 *	track show NAME		its runs and regressions (--json: the object)
 *	track run NAME		queue a run now; prints its id
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/client.h"
#include "cli/term.h"
#include "lib/buf.h"

int	cmd_track_list(int, char **);
int	cmd_track_show(int, char **);
int	cmd_track_run(int, char **);

static const char *
tstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	/* from the server: a commit subject may hold ESC or BEL */
	return s ? term_clean(s) : "-";
}

/* The track name in argv[1], checked for a path-safe spelling. */
static const char *
track_arg(int argc, char **argv, const char *usage)
{
	const char *n = argc > 1 ? argv[1] : NULL;

	if (!n || !*n || strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
	    "OPQRSTUVWXYZ0123456789._-") != strlen(n)) {
		fprintf(stderr, "usage: kperfci %s\n", usage);
		return NULL;
	}
	return n;
}

int
cmd_track_list(int argc, char **argv)
{
	json_t *o = client_json("GET", "/api/v1/tracks", NULL, NULL), *t, *r;
	size_t i;

	if (!o)
		return 1;
	json_array_foreach(json_object_get(o, "tracks"), i, t) {
		r = json_object_get(t, "last_run");
		term_printf("%-20s tree %s branch %s  last run: ",
		    tstr(t, "name"), tstr(t, "tree"), tstr(t, "branch"));
		if (json_is_object(r))
			term_printf("%lld %s%s%s\n",
			    (long long)json_integer_value(
			    json_object_get(r, "id")), tstr(r, "state"),
			    json_is_string(json_object_get(r, "note")) ?
			    ": " : "", json_is_string(json_object_get(r,
			    "note")) ? tstr(r, "note") : "");
		else
			term_printf("none\n");
	}
	json_decref(o);
	return 0;
}

int
cmd_track_show(int argc, char **argv)
{
	const char *name = track_arg(argc, argv, "track show NAME [--json]");
	char path[512];
	json_t *o, *x;
	size_t i;

	if (!name)
		return 2;
	snprintf(path, sizeof(path), "/api/v1/tracks/%s", name);
	if (!(o = client_json("GET", path, NULL, NULL)))
		return 1;
	if (argc > 2 && !strcmp(argv[2], "--json")) {
		char *s = json_dumps(o, JSON_INDENT(2));

		puts(s);
		free(s);
		json_decref(o);
		return 0;
	}
	term_printf("track %s: tree %s, branch %s, %lld boots per run\n\n"
	    "runs:\n", tstr(o, "name"), tstr(o, "tree"), tstr(o, "branch"),
	    (long long)json_integer_value(json_object_get(o, "boots")));
	json_array_foreach(json_object_get(o, "runs"), i, x)
		term_printf("  %-5lld %-8s %-7s %.12s %s\n",
		    (long long)json_integer_value(json_object_get(x, "id")),
		    tstr(x, "state"), tstr(x, "trigger"), tstr(x, "head"),
		    json_is_string(json_object_get(x, "error")) ?
		    tstr(x, "error") : json_is_string(json_object_get(x,
		    "note")) ? tstr(x, "note") : "");
	term_printf("\nregressions:\n");
	json_array_foreach(json_object_get(o, "regressions"), i, x)
		term_printf("  #%lld %s %s %s %+.1f%% runs %lld..%lld: "
		    "%s %.12s %s\n",
		    (long long)json_integer_value(json_object_get(x, "id")),
		    tstr(x, "workload"), tstr(x, "params"), tstr(x, "metric"),
		    json_number_value(json_object_get(x, "pct_change")),
		    (long long)json_integer_value(json_object_get(x,
		    "last_good_run")), (long long)json_integer_value(
		    json_object_get(x, "first_bad_run")), tstr(x, "state"),
		    tstr(x, "first_bad_commit"), tstr(x, "subject"));
	json_decref(o);
	return 0;
}

int
cmd_track_run(int argc, char **argv)
{
	const char *name = track_arg(argc, argv, "track run NAME");
	char path[512];
	json_t *o, *body;

	if (!name)
		return 2;
	snprintf(path, sizeof(path), "/api/v1/tracks/%s/runs", name);
	body = json_object();
	o = client_json("POST", path, body, NULL);
	json_decref(body);
	if (!o)
		return 1;
	term_printf("run %lld%s\n", (long long)json_integer_value(
	    json_object_get(o, "id")), json_is_true(json_object_get(o,
	    "existing")) ? " (already in progress)" : " queued");
	json_decref(o);
	return 0;
}
