/*
 * wait: `kperfci submit URL --wait` follows a series from submission to
 * verdict in the terminal, then prints the text report (its table and
 * significant changes) and exits 0 when the comparison finished, 1 when
 * the series or the comparison failed or the series rests before the end
 * (no tree or no agent configured: nothing more will happen by itself).
 *
 * It polls GET /api/v1/series/{id}/comparison, which answers from the
 * first moment (state, builds) to the last (verdict).  On a terminal the
 * progress is one line redrawn in place (a bar of boots done out of
 * planned, both sides); otherwise one plain line per change, so logs and
 * CI output stay readable.  Every string from the server is stripped of
 * control bytes before it reaches the terminal.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/client.h"
#include "cli/term.h"
#include "lib/buf.h"
#include "lib/xalloc.h"

/* Polling interval, and how long the server may be unreachable. */
#define WAIT_POLL_MS		1000
#define WAIT_MAX_ERRORS		60

int	submit_wait(long long id);

static const char *
wait_str(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static long long
wait_int(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

/* Appends s without control bytes (terminal escapes from the server). */
static void
wait_clean(struct buf *b, const char *s)
{
	term_add(b, s, s ? strlen(s) : 0, 0);
}

/* "building 40%" / "done" / "-" for one side's build. */
static void
wait_build(struct buf *b, json_t *k)
{
	const char *st = wait_str(k, "build_state");

	if (!st) {
		buf_addstr(b, "-");
		return;
	}
	wait_clean(b, st);
	if (json_is_integer(json_object_get(k, "build_progress")) &&
	    strcmp(st, "done"))
		buf_addf(b, " %lld%%", wait_int(k, "build_progress"));
}

/* The status in words, without the bar: what changed is what is printed. */
static void
wait_status(json_t *j, struct buf *b)
{
	json_t *prog = json_object_get(j, "progress"), *k =
	    json_object_get(j, "kernels");
	const char *st = wait_str(j, "state"), *agent;
	static const char *const sides[2] = { "base", "patched" };
	int s;

	buf_addstr(b, "state ");
	wait_clean(b, st ? st : "?");
	if (json_is_object(json_object_get(k, "base")) &&
	    json_object_get(json_object_get(k, "base"), "build_state") &&
	    !json_is_null(json_object_get(json_object_get(k, "base"),
	    "build_state"))) {
		buf_addstr(b, ", builds ");
		wait_build(b, json_object_get(k, "base"));
		buf_addstr(b, " / ");
		wait_build(b, json_object_get(k, "patched"));
	}
	if (!json_is_null(json_object_get(j, "comparison")) &&
	    json_object_get(j, "comparison")) {
		for (s = 0; s < 2; s++) {
			json_t *d = json_object_get(prog, sides[s]);

			buf_addf(b, ", %s %lld/%lld", sides[s],
			    wait_int(d, "done"), wait_int(d, "planned"));
			if (wait_int(d, "failed"))
				buf_addf(b, " (%lld failed)", wait_int(d,
				    "failed"));
		}
		buf_addstr(b, " boots");
	}
	if ((agent = wait_str(prog, "agent"))) {
		buf_addstr(b, ", on ");
		wait_clean(b, agent);
	}
}

/* [#####.....] of boots finished over planned, both sides together. */
static void
wait_bar(json_t *j, struct buf *b)
{
	json_t *prog = json_object_get(j, "progress");
	json_t *bs = json_object_get(prog, "base"), *ps =
	    json_object_get(prog, "patched");
	long long planned = wait_int(bs, "planned") + wait_int(ps, "planned");
	long long fin = wait_int(bs, "done") + wait_int(bs, "failed") +
	    wait_int(ps, "done") + wait_int(ps, "failed");
	int width = 20, n, i;

	n = planned > 0 ? (int)(width * (fin > planned ? planned : fin) /
	    planned) : 0;
	buf_addch(b, '[');
	for (i = 0; i < width; i++)
		buf_addch(b, i < n ? '#' : '.');
	buf_addstr(b, "] ");
}

/* Prints the text report; returns 0 when it could be fetched. */
static int
wait_report(long long id)
{
	struct buf out = BUF_INIT(4 << 20), clean = BUF_INIT(0);
	char path[64];
	int st;

	snprintf(path, sizeof(path), "/series/%lld/report.txt", id);
	st = client_request("GET", path, NULL, NULL, 0, &out);
	if (st != 200) {
		if (st > 0)
			fprintf(stderr, "kperfci: the report of series %lld: "
			    "server answered %d\n", id, st);
		buf_release(&out);
		return -1;
	}
	/* keep newlines; drop every other control byte */
	term_add(&clean, out.data, out.len, 1);
	fputs(clean.data ? clean.data : "", stdout);
	fflush(stdout);
	buf_release(&out);
	buf_release(&clean);
	return 0;
}

int
submit_wait(long long id)
{
	struct buf line = BUF_INIT(0), last = BUF_INIT(0);
	int tty = isatty(STDOUT_FILENO), errors = 0, st, rc = 1;
	const char *verdict, *state;
	char path[96];
	json_t *j;

	/* progress only while polling; the rows once, at the end */
	snprintf(path, sizeof(path), "/api/v1/series/%lld/comparison?result=0",
	    id);
	for (;;) {
		j = client_json("GET", path, NULL, &st);
		if (!j) {
			if (st == 404 || ++errors >= WAIT_MAX_ERRORS)
				break;
			usleep(WAIT_POLL_MS * 1000);
			continue;
		}
		errors = 0;
		buf_reset(&line);
		wait_status(j, &line);
		if (!last.data || strcmp(last.data, line.data)) {
			if (tty) {
				struct buf bar = BUF_INIT(0);

				wait_bar(j, &bar);
				/* \r and clear to the end of the line */
				printf("\r%s%.*s\033[K", bar.data, 110,
				    line.data);
				buf_release(&bar);
			} else {
				printf("%s\n", line.data);
			}
			fflush(stdout);
			buf_reset(&last);
			buf_addstr(&last, line.data);
		}
		if (!json_is_true(json_object_get(j, "live"))) {
			struct buf v = BUF_INIT(0);

			/* the verdict needs the rows: one full request */
			json_decref(j);
			*strchr(path, '?') = '\0';
			if (!(j = client_json("GET", path, NULL, &st)))
				break;

			verdict = wait_str(j, "verdict");
			state = wait_str(j, "series_state");
			wait_clean(&v, verdict ? verdict : "?");
			if (tty)
				printf("\n");
			printf("verdict: %s\n\n", v.data);
			buf_release(&v);
			wait_report(id);
			/* 0 only for a finished comparison: a failed one,
			   or a series resting before the end ("waiting: no
			   agent is configured"), has no result to give */
			rc = state && !strcmp(state, "done") && !(verdict &&
			    !strncmp(verdict, "failed", 6)) ? 0 : 1;
			json_decref(j);
			break;
		}
		json_decref(j);
		usleep(WAIT_POLL_MS * 1000);
	}
	buf_release(&line);
	buf_release(&last);
	return rc;
}
