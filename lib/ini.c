/*
 * ini: the "[section] key = value" tokenizer (see ini.h).  It owns the
 * grammar and its syntax errors; nothing here knows a section or a key.
 * libc only: kperfci-load links it into a static binary.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ini.h"

struct ini_state {
	const struct ini_ops *ops;
	void		*ctx;
	const char	*file;
	int		 line;
	int		 bad;
	/* 0: no header yet; 1: under an accepted one; -1: a refused one */
	int		 in;
	struct ini_item	 cur;		/* section and sub of the header */
};

static int
ini_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int
ini_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '_';
}

static char *
ini_trim(char *s)
{
	char *e;

	while (ini_space(*s))
		s++;
	e = s + strlen(s);
	while (e > s && ini_space(e[-1]))
		*--e = '\0';
	return s;
}

static int
ini_quote_len(const char *s)
{
	size_t n = strlen(s);

	return n > INI_QUOTE_MAX ? INI_QUOTE_MAX : (int)n;
}

/* Reports "file:line: ..." and marks the parse failed; always -1. */
__attribute__((format(printf, 2, 3)))
static int
ini_error(struct ini_state *st, const char *fmt, ...)
{
	char msg[1024 + INI_QUOTE_MAX];
	int n;
	va_list ap;

	n = snprintf(msg, sizeof(msg), "%s:%d: ", st->file, st->line);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	if (st->ops->error)
		st->ops->error(st->ctx, msg);
	st->bad = 1;
	return -1;
}

/* [name] or [name "sub"], s trimmed and starting with '['. */
static int
ini_header(struct ini_state *st, char *s)
{
	char *p = s + 1, *name, *name_end, *sub = NULL, *sub_end = NULL;
	int rc;

	st->in = -1;
	while (ini_space(*p))
		p++;
	name = p;
	while (ini_name_char(*p))
		p++;
	name_end = p;
	while (ini_space(*p))
		p++;
	if (*p == '"') {
		sub = p + 1;
		if (!(sub_end = strchr(sub, '"')) || sub_end == sub)
			goto malformed;
		p = sub_end + 1;
		while (ini_space(*p))
			p++;
	}
	if (name_end == name || *p != ']' || p[1])
		goto malformed;
	/* the line is cut only once it is known to be well formed */
	*name_end = '\0';
	if (sub_end)
		*sub_end = '\0';
	st->cur.section = name;
	st->cur.sub = sub;
	st->cur.key = st->cur.value = NULL;
	st->cur.line = st->line;
	rc = st->ops->section ? st->ops->section(st->ctx, &st->cur) : 0;
	if (rc < 0) {
		st->bad = 1;
		return -1;
	}
	st->in = 1;
	return 0;
malformed:
	return ini_error(st, "malformed section header \"%.*s\" (want "
	    "[name] or [name \"sub\"])", ini_quote_len(s), s);
}

/* key = value, s trimmed and not a header. */
static int
ini_key(struct ini_state *st, char *s)
{
	char *eq = strchr(s, '='), *key, *val, *k;
	size_t vlen;

	if (!eq || eq == s)
		return ini_error(st, "expected key = value, got \"%.*s\"",
		    ini_quote_len(s), s);
	for (k = s; k < eq && ini_name_char(*k); k++)
		;
	while (k < eq && ini_space(*k))
		k++;
	if (k != eq) {
		*eq = '\0';
		key = ini_trim(s);
		return ini_error(st, "bad key \"%.*s\" (use letters, digits, "
		    "- and _)", ini_quote_len(key), key);
	}
	*eq = '\0';
	key = ini_trim(s);
	val = ini_trim(eq + 1);
	if (st->in == 0)
		return ini_error(st, "key \"%.*s\" outside a section",
		    ini_quote_len(key), key);
	if (st->in < 0)
		return 0;	/* under a refused header: reported there */
	/* "value": the quotes keep spaces at its ends */
	vlen = strlen(val);
	if (*val == '"') {
		if (vlen < 2 || val[vlen - 1] != '"')
			return ini_error(st, "the value of \"%s\" opens a quote "
			    "it does not close", key);
		val[vlen - 1] = '\0';
		val++;
	}
	st->cur.key = key;
	st->cur.value = val;
	st->cur.line = st->line;
	if (st->ops->key && st->ops->key(st->ctx, &st->cur) < 0) {
		st->bad = 1;
		return -1;
	}
	return 0;
}

int
ini_parse(const struct ini_ops *ops, void *ctx, const char *file,
    const char *text, size_t len)
{
	struct ini_state st = { .ops = ops, .ctx = ctx, .file = file };
	const char *nul = memchr(text, '\0', len), *t;
	char *copy, *line, *next, *s;
	int rc;

	st.cur.file = file;
	if (nul) {
		st.line = 1;
		for (t = text; (t = memchr(t, '\n', nul - t)); t++)
			st.line++;
		return ini_error(&st, "contains a NUL byte");
	}
	if (!(copy = malloc(len + 1))) {
		st.line = 0;
		return ini_error(&st, "out of memory for %zu bytes", len);
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = copy; line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		st.line++;
		s = ini_trim(line);
		if (*s == '\0' || *s == '#' || *s == ';')
			continue;
		rc = *s == '[' ? ini_header(&st, s) : ini_key(&st, s);
		if (rc < 0 && ops->stop)
			break;
	}
	free(copy);
	return st.bad ? -1 : 0;
}
