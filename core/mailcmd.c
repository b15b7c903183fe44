/*
 * mailcmd: parsing "#kperfci ..." command lines in replies (mailcmd.h).
 * Pure: no store, no network; the fuzzer (tests/fuzz/fuzz-mailcmd.c)
 * feeds it raw bodies.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/mailcmd.h"

#define MAILCMD_MAX_WORDS	16

/* A suite name or a rev: letters, digits and -_.~^/: (no shell, no
   option: it may not start with '-'). */
static int
mailcmd_word_ok(const char *w)
{
	if (!*w || *w == '-')
		return 0;
	for (; *w; w++)
		if (!isalnum((unsigned char)*w) && !strchr("-_.~^/:", *w))
			return 0;
	return 1;
}

/* Splits line[0..n) into words (copied into store); -1 on a bad byte. */
static int
mailcmd_split(const char *line, size_t n, char words[][MAILCMD_WORD_MAX + 1],
    size_t *nw, struct buf *err)
{
	size_t i = 0;

	*nw = 0;
	while (i < n) {
		size_t s;

		while (i < n && (line[i] == ' ' || line[i] == '\t' ||
		    line[i] == '\r'))
			i++;
		if (i >= n)
			break;
		s = i;
		while (i < n && line[i] != ' ' && line[i] != '\t' &&
		    line[i] != '\r') {
			unsigned char c = (unsigned char)line[i];

			if (c < 0x21 || c > 0x7e)
				return buf_addstr(err, "the command line has a "
				    "byte that is not printable ASCII"), -1;
			i++;
		}
		if (i - s > MAILCMD_WORD_MAX)
			return buf_addf(err, "a word of the command is longer "
			    "than %d bytes", MAILCMD_WORD_MAX), -1;
		if (*nw == MAILCMD_MAX_WORDS)
			return buf_addf(err, "the command has more than %d words",
			    MAILCMD_MAX_WORDS), -1;
		memcpy(words[*nw], line + s, i - s);
		words[*nw][i - s] = '\0';
		(*nw)++;
	}
	return 0;
}

static int
mailcmd_parse_test(char words[][MAILCMD_WORD_MAX + 1], size_t nw,
    struct mailcmd *out, struct buf *err)
{
	for (size_t i = 2; i < nw; i += 2) {
		const char *k = words[i], *v = i + 1 < nw ? words[i + 1] : NULL;

		if (!v)
			return buf_addf(err, "\"%s\" needs a value", k), -1;
		if (!strcmp(k, "suite")) {
			if (*out->suite)
				return buf_addstr(err, "suite is given twice"),
				    -1;
			if (!mailcmd_word_ok(v))
				return buf_addf(err, "\"%s\" is not a suite "
				    "name", v), -1;
			strcpy(out->suite, v);
		} else if (!strcmp(k, "boots")) {
			char *end;
			long b;

			if (out->boots)
				return buf_addstr(err, "boots is given twice"),
				    -1;
			if (!strcmp(v, "auto")) {
				out->boots = -1;
				continue;
			}
			b = strtol(v, &end, 10);
			if (*end || !isdigit((unsigned char)*v) || b < 1 ||
			    b > MAILCMD_MAX_BOOTS)
				return buf_addf(err, "boots \"%s\" is not a "
				    "number in 1..%d or auto", v,
				    MAILCMD_MAX_BOOTS), -1;
			out->boots = (int)b;
		} else if (!strcmp(k, "base")) {
			if (*out->base)
				return buf_addstr(err, "base is given twice"),
				    -1;
			if (!mailcmd_word_ok(v))
				return buf_addf(err, "\"%s\" is not a git "
				    "revision", v), -1;
			strcpy(out->base, v);
		} else
			return buf_addf(err, "unknown option \"%s\" (known: "
			    "suite, boots, base)", k), -1;
	}
	return 0;
}

static int
mailcmd_parse_line(const char *line, size_t n, struct mailcmd *out,
    struct buf *err)
{
	char words[MAILCMD_MAX_WORDS][MAILCMD_WORD_MAX + 1];
	size_t nw;

	if (mailcmd_split(line, n, words, &nw, err) < 0)
		return -1;
	/* words[0] is "#kperfci" (checked by the caller) */
	if (nw < 2)
		return buf_addstr(err, "#kperfci needs a command (test, retest "
		    "or cancel)"), -1;
	if (!strcmp(words[1], "test")) {
		out->verb = MAILCMD_TEST;
		return mailcmd_parse_test(words, nw, out, err);
	}
	if (!strcmp(words[1], "retest") || !strcmp(words[1], "cancel")) {
		if (nw > 2)
			return buf_addf(err, "%s takes no options", words[1]),
			    -1;
		out->verb = !strcmp(words[1], "retest") ? MAILCMD_RETEST :
		    MAILCMD_CANCEL;
		return 0;
	}
	return buf_addf(err, "unknown command \"%s\" (known: test, retest, "
	    "cancel)", words[1]), -1;
}

int
mailcmd_find(const char *body, size_t len, struct mailcmd *out,
    struct buf *err)
{
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	while (i < len) {
		size_t s = i, e, n;
		const char *nl = memchr(body + i, '\n', len - i);

		e = nl ? (size_t)(nl - body) : len;
		i = e + 1;
		while (s < e && (body[s] == ' ' || body[s] == '\t'))
			s++;
		if (e - s < 8 || memcmp(body + s, "#kperfci", 8) ||
		    (e - s > 8 && body[s + 8] != ' ' && body[s + 8] != '\t' &&
		    body[s + 8] != '\r'))
			continue;
		n = e - s;
		if (n >= sizeof(out->line))
			return buf_addf(err, "the command line is longer than "
			    "%zu bytes", sizeof(out->line) - 1), -1;
		memcpy(out->line, body + s, n);
		out->line[n] = '\0';
		while (n && (out->line[n - 1] == '\r' ||
		    out->line[n - 1] == ' '))
			out->line[--n] = '\0';
		return mailcmd_parse_line(body + s, e - s, out, err) < 0 ?
		    -1 : 1;
	}
	return 0;
}

void
mailcmd_format(const struct mailcmd *c, struct buf *out)
{
	buf_addstr(out, c->verb == MAILCMD_TEST ? "test" :
	    c->verb == MAILCMD_RETEST ? "retest" : "cancel");
	if (*c->suite)
		buf_addf(out, " suite %s", c->suite);
	if (c->boots > 0)
		buf_addf(out, " boots %d", c->boots);
	else if (c->boots < 0)
		buf_addstr(out, " boots auto");
	if (*c->base)
		buf_addf(out, " base %s", c->base);
}
