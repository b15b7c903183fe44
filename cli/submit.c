/*
 * submit, status: queue a series and follow it; show one or all series.
 *
 *	kperfci submit URL [--version N] [--base REV] [--boots N|auto]
 *	    [--reply yes|regressions|no]
 *	    [--matrix FILE] [--suite NAME]... [--no-follow | --wait]
 *	kperfci submit --mbox FILE [--version N] [--base REV] [--boots N|auto]
 *	    [--suite NAME]... [--no-follow | --wait]
 *	kperfci status [ID]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/term.h"
#include "core/matrix_check.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

int	submit_wait(long long id);	/* cli/wait.c: to the verdict */

/* States where a series rests: nothing more happens without new input. */
static int
submit_state_rests(json_t *s)
{
	json_t *f = json_object_get(s, "final");

	return json_is_true(f);
}

/* A string member, made safe for the terminal (term_clean), or NULL. */
static const char *
jget(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? term_clean(json_string_value(v)) : NULL;
}

/* jget, but "" instead of NULL, for printing */
static const char *
jtxt(json_t *o, const char *k)
{
	const char *v = jget(o, k);

	return v ? v : "";
}

static void
status_print_one(json_t *s)
{
	json_t *pp = json_object_get(s, "patches"), *p, *t, *tt;
	const char *e = jget(s, "error");
	size_t i, k;

	printf("series %lld: %s\n", (long long)json_integer_value(
	    json_object_get(s, "id")), jtxt(s, "state"));
	if (jget(s, "rest"))
		printf("  rests: %s\n", jget(s, "rest"));
	if (e)
		printf("  error: %s\n", e);
	if (jget(s, "subject"))
		printf("  subject: %s\n", jget(s, "subject"));
	if (json_is_integer(json_object_get(s, "version")))
		printf("  version: v%lld\n", (long long)json_integer_value(
		    json_object_get(s, "version")));
	printf("  source: %s\n", jget(s, "source") ? jget(s, "source") : "");
	if (jget(s, "base_commit"))
		printf("  base-commit: %s\n", jget(s, "base_commit"));
	if (jget(s, "change_id"))
		printf("  change-id: %s\n", jget(s, "change_id"));
	json_array_foreach(pp, i, p) {
		printf("  [%lld/%lld] %s\n", (long long)json_integer_value(
		    json_object_get(p, "counter")),
		    (long long)json_integer_value(json_object_get(p, "total")),
		    jget(p, "subject") ? jget(p, "subject") : "");
		t = json_object_get(p, "trailers");
		json_array_foreach(t, k, tt)
			printf("      %s: %s\n", jtxt(tt, "name"),
			    jtxt(tt, "value"));
	}
}

int
cmd_status(int argc, char **argv)
{
	json_t *j, *arr, *s;
	char path[64];
	size_t i;
	int st;

	if (argc > 2 || (argc == 2 && (strspn(argv[1], "0123456789") !=
	    strlen(argv[1]) || !*argv[1]))) {
		fprintf(stderr, "usage: kperfci status [ID]\n");
		return 2;
	}
	if (argc == 2) {
		snprintf(path, sizeof(path), "/api/v1/series/%.20s", argv[1]);
		if (!(j = client_json("GET", path, NULL, &st)))
			return 1;
		status_print_one(j);
		json_decref(j);
		return 0;
	}
	if (!(j = client_json("GET", "/api/v1/series", NULL, &st)))
		return 1;
	arr = json_object_get(j, "series");
	json_array_foreach(arr, i, s)
		printf("%6lld  %-8s  %s\n", (long long)json_integer_value(
		    json_object_get(s, "id")), jtxt(s, "state"),
		    jget(s, "title") ? jget(s, "title") :
		    jget(s, "source") ? jget(s, "source") : "");
	json_decref(j);
	return 0;
}

/* Polls until the series rests; 0 for a non-failed rest. */
static int
submit_follow(long long id)
{
	char path[64], *last = NULL;
	const char *state;
	json_t *j;
	int st, rc = 1;

	snprintf(path, sizeof(path), "/api/v1/series/%lld", id);
	for (;;) {
		if (!(j = client_json("GET", path, NULL, &st)))
			break;
		state = jget(j, "state");
		if (state && (!last || strcmp(last, state))) {
			printf("%s\n", state);
			fflush(stdout);
			free(last);
			last = xstrdup(state);
		}
		if (submit_state_rests(j)) {
			if (state && !strcmp(state, "failed")) {
				fprintf(stderr, "kperfci: series %lld failed: "
				    "%s\n", id, jget(j, "error") ?
				    jget(j, "error") : "(no reason)");
			} else {
				status_print_one(j);
				rc = 0;
			}
			json_decref(j);
			break;
		}
		json_decref(j);
		usleep(500 * 1000);
	}
	free(last);
	return rc;
}

static const char submit_usage[] =
    "usage: kperfci submit URL [--version N] [--base REV] [--boots N|auto]\n"
    "           [--matrix FILE] [--suite NAME]... [--reply yes|regressions|no]\n"
    "           [--no-follow | --wait]\n"
    "       kperfci submit --mbox FILE [--version N] [--base REV] "
    "[--boots N|auto]\n"
    "           [--suite NAME]... [--reply yes|regressions|no]\n"
    "           [--no-follow | --wait]\n";

/* What the command line of `kperfci submit` asked for. */
struct submit_args {
	const char *base, *mbox, *matrix;
	const char *reply;	/* yes | regressions | no (the daemon's) */
	long	 version, boots;
	int	 follow;		/* 0 no, 1 the pipeline, 2 the verdict */
	json_t	*suites;
};

/* Reads the options into *s.  0, or 2 after a usage error (printed). */
static int
submit_parse(int argc, char **argv, struct submit_args *s)
{
	static const struct option opts[] = {
		{ "version", required_argument, NULL, 'V' },
		{ "base", required_argument, NULL, 'b' },
		{ "mbox", required_argument, NULL, 'm' },
		{ "boots", required_argument, NULL, 'B' },
		{ "matrix", required_argument, NULL, 'M' },
		{ "suite", required_argument, NULL, 's' },
		{ "reply", required_argument, NULL, 'r' },
		{ "no-follow", no_argument, NULL, 'n' },
		{ "wait", no_argument, NULL, 'w' },	/* cli/wait.c */
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'V':
			s->version = strtol(optarg, &end, 10);
			if (*end || s->version < 1 || s->version > 1000) {
				fprintf(stderr, "kperfci: --version must be an "
				    "integer between 1 and 1000\n");
				return 2;
			}
			break;
		case 'b': s->base = optarg; break;
		case 'm': s->mbox = optarg; break;
		case 'B':
			/* auto: enough to check the claims (the daemon) */
			if (!strcmp(optarg, "auto")) {
				s->boots = -1;
				break;
			}
			s->boots = strtol(optarg, &end, 10);
			if (*end || s->boots < 1 || s->boots > 1000) {
				fprintf(stderr, "kperfci: --boots must be an "
				    "integer between 1 and 1000, or auto\n");
				return 2;
			}
			break;
		case 'M': s->matrix = optarg; break;
		case 'r':
			if (strcmp(optarg, "yes") && strcmp(optarg,
			    "regressions") && strcmp(optarg, "no")) {
				fprintf(stderr, "kperfci: --reply must be yes, "
				    "regressions or no, not \"%s\"\n", optarg);
				return 2;
			}
			s->reply = optarg;
			break;
		case 's':
			/* the suites to run instead of those the series
			   touches (etc/suites/NAME.conf); checked by the
			   daemon */
			if (strchr(optarg, ',')) {
				fprintf(stderr, "kperfci: one --suite per "
				    "suite\n");
				return 2;
			}
			json_array_append_new(s->suites, json_string(optarg));
			break;
		case 'n': s->follow = 0; break;
		case 'w': s->follow = 2; break;
		default:
			fprintf(stderr, "%s", submit_usage);
			return 2;
		}
	}
	if ((s->mbox && optind != argc) || (!s->mbox && optind != argc - 1)) {
		fprintf(stderr, "%s", submit_usage);
		return 2;
	}
	if (s->mbox && s->matrix) {
		fprintf(stderr, "kperfci: --matrix goes with a URL; an mbox "
		    "upload takes only --boots\n");
		return 2;
	}
	return 0;
}

/* The upload's path: /api/v1/series?version=&boots=&suites=&base=. */
static void
submit_mbox_path(const struct submit_args *s, struct buf *path)
{
	buf_addstr(path, "/api/v1/series?");
	if (s->version)
		buf_addf(path, "version=%ld&", s->version);
	if (s->boots == -1)
		buf_addstr(path, "boots=auto&");
	else if (s->boots)
		buf_addf(path, "boots=%ld&", s->boots);
	if (s->reply)
		buf_addf(path, "reply=%s&", s->reply);	/* checked: a word */
	for (size_t i = 0; i < json_array_size(s->suites); i++) {
		char *q = curl_easy_escape(NULL, json_string_value(
		    json_array_get(s->suites, i)), 0);

		buf_addf(path, "%s%s", i ? "," : "suites=", q ? q : "");
		if (i + 1 == json_array_size(s->suites))
			buf_addch(path, '&');
		curl_free(q);
	}
	if (s->base) {
		char *q = curl_easy_escape(NULL, s->base, 0);

		buf_addf(path, "base=%s", q ? q : "");
		curl_free(q);
	}
}

/* Uploads the mbox; the server's answer in *j (NULL when it sent none
   that parses).  0, or -1 (printed). */
static int
submit_mbox(const struct submit_args *s, json_t **j)
{
	struct buf data = BUF_INIT(64 << 20), resp = BUF_INIT(1 << 20);
	struct buf path = BUF_INIT(0);
	json_t *e;
	int st, rc = -1;

	if (buf_read_file(&data, s->mbox) < 0) {
		fprintf(stderr, "kperfci: cannot read %s: %s\n", s->mbox,
		    data.overflow ? "larger than 64 MiB" :
		    "no such file or unreadable");
		goto out;
	}
	submit_mbox_path(s, &path);
	st = client_request("POST", path.data, "application/mbox",
	    data.data, data.len, &resp);
	if (st < 0)
		goto out;
	*j = json_loadb(resp.data ? resp.data : "", resp.len, 0, NULL);
	if (st != 202) {
		e = *j ? json_object_get(*j, "error") : NULL;
		fprintf(stderr, "kperfci: server answered %d: %s\n", st,
		    json_is_string(e) ? json_string_value(e) :
		    resp.data ? resp.data : "");
		goto out;
	}
	rc = 0;
out:
	buf_release(&data);
	buf_release(&resp);
	buf_release(&path);
	return rc;
}

/* Submits the lore URL with the options and the matrix text; the
   server's answer in *j.  0, or -1 (printed). */
static int
submit_url(const struct submit_args *s, const char *url,
    const struct buf *mtext, json_t **j)
{
	json_t *req = json_pack("{s:s}", "url", url);
	int st;

	if (s->version)
		json_object_set_new(req, "version", json_integer(s->version));
	if (s->base)
		json_object_set_new(req, "base", json_string(s->base));
	if (s->reply)
		json_object_set_new(req, "reply", json_string(s->reply));
	if (s->boots == -1)
		json_object_set_new(req, "boots", json_string("auto"));
	else if (s->boots)
		json_object_set_new(req, "boots", json_integer(s->boots));
	if (json_array_size(s->suites))
		json_object_set(req, "suites", s->suites);
	if (s->matrix)
		json_object_set_new(req, "matrix", json_stringn(mtext->data ?
		    mtext->data : "", mtext->len));
	*j = client_json("POST", "/api/v1/series", req, &st);
	json_decref(req);
	return *j ? 0 : -1;
}

int
cmd_submit(int argc, char **argv)
{
	struct submit_args s = { .follow = 1, .suites = json_array() };
	struct buf mtext = BUF_INIT(1 << 20);
	json_t *j = NULL;
	long long id;
	int rc = 1;

	if ((rc = submit_parse(argc, argv, &s)) != 0)
		goto out;
	rc = 1;
	if (s.matrix && buf_read_file(&mtext, s.matrix) < 0) {
		fprintf(stderr, "kperfci: cannot read %s: %s\n", s.matrix,
		    mtext.overflow ? "larger than 1 MiB" :
		    "no such file or unreadable");
		goto out;
	}
	/* the daemon's check, here, so the error names the user's file */
	if (s.matrix) {
		struct buf err = BUF_INIT(4096);

		if (matrix_check(s.matrix, mtext.data ? mtext.data : "",
		    mtext.len, &err) != 0) {
			fprintf(stderr, "kperfci: %s\n", err.data ?
			    err.data : "bad matrix");
			buf_release(&err);
			rc = 2;
			goto out;
		}
		buf_release(&err);
	}
	if (s.mbox ? submit_mbox(&s, &j) != 0 :
	    submit_url(&s, argv[optind], &mtext, &j) != 0)
		goto out;
	if (!j || !json_is_integer(json_object_get(j, "id"))) {
		fprintf(stderr, "kperfci: server gave no series id\n");
		goto out;
	}
	id = json_integer_value(json_object_get(j, "id"));
	printf("%lld\n", id);
	fflush(stdout);
	rc = s.follow == 2 ? submit_wait(id) : s.follow ? submit_follow(id) : 0;
out:
	json_decref(j);
	json_decref(s.suites);
	buf_release(&mtext);
	return rc;
}
