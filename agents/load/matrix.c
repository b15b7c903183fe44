/* matrix: the workloads.conf parser (see matrix.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/matrix.h"
#include "agents/load/util.h"

#define MATRIX_MAX_ENTRIES	1000

static char *
matrix_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int
matrix_key_ok(const char *k)
{
	if (!*k)
		return 0;
	for (; *k; k++)
		if (!isalnum((unsigned char)*k) && *k != '-' && *k != '_')
			return 0;
	return 1;
}

static int
matrix_set(struct matrix_entry *e, const char *k, const char *v,
    const char *fname, int line)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (strcmp(e->keys[i], k) == 0)
			return load_err("%s:%d: key \"%s\" is set twice", fname,
			    line, k);
	if (e->n == MATRIX_MAX_KEYS)
		return load_err("%s:%d: too many keys in one section", fname, line);
	e->keys[e->n] = load_xstrdup(k);
	e->vals[e->n++] = load_xstrdup(v);
	return 0;
}

static void
matrix_entry_release(struct matrix_entry *e)
{
	int i;

	for (i = 0; i < e->n; i++) {
		free(e->keys[i]);
		free(e->vals[i]);
	}
	free(e->name);
	free(e->workload);
	memset(e, 0, sizeof(*e));
}

int
matrix_parse(struct matrix *m, const char *text, size_t len, const char *fname)
{
	struct matrix_entry defs, *cur = NULL;
	char *copy, *line, *next, *s, *eq;
	int lineno = 0, i, j, rc = -1;

	memset(m, 0, sizeof(*m));
	memset(&defs, 0, sizeof(defs));
	if (memchr(text, '\0', len))
		return load_err("%s: contains a NUL byte", fname);
	copy = load_xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		s = matrix_trim(line);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']'), *q1, *q2;

			if (!end || end[1]) {
				load_err("%s:%d: a section header must be [defaults] or [run \"NAME\"]",
				    fname, lineno);
				goto out;
			}
			*end = '\0';
			s = matrix_trim(s + 1);
			if (strcmp(s, "defaults") == 0) {
				if (m->n) {
					load_err("%s:%d: [defaults] must come before the first [run]",
					    fname, lineno);
					goto out;
				}
				cur = &defs;
				continue;
			}
			q1 = strchr(s, '"');
			q2 = q1 ? strchr(q1 + 1, '"') : NULL;
			if (strncmp(s, "run", 3) || !q1 || !q2 || q2[1] ||
			    q2 == q1 + 1 || strlen(matrix_trim(s + 3)) !=
			    (size_t)(q2 - q1 + 1)) {
				load_err("%s:%d: a section header must be [defaults] or [run \"NAME\"]",
				    fname, lineno);
				goto out;
			}
			*q2 = '\0';
			if (!matrix_key_ok(q1 + 1)) {
				load_err("%s:%d: run name \"%s\": use letters, digits, - and _",
				    fname, lineno, q1 + 1);
				goto out;
			}
			for (i = 0; i < m->n; i++)
				if (strcmp(m->e[i].name, q1 + 1) == 0) {
					load_err("%s:%d: run \"%s\" is defined twice",
					    fname, lineno, q1 + 1);
					goto out;
				}
			if (m->n == MATRIX_MAX_ENTRIES) {
				load_err("%s:%d: more than %d runs", fname, lineno,
				    MATRIX_MAX_ENTRIES);
				goto out;
			}
			m->e = load_xrealloc(m->e, (m->n + 1) * sizeof(*m->e));
			cur = &m->e[m->n++];
			memset(cur, 0, sizeof(*cur));
			cur->name = load_xstrdup(q1 + 1);
			cur->line = lineno;
			continue;
		}
		eq = strchr(s, '=');
		if (!eq) {
			load_err("%s:%d: expected key = value", fname, lineno);
			goto out;
		}
		*eq = '\0';
		s = matrix_trim(s);
		eq = matrix_trim(eq + 1);
		if (!matrix_key_ok(s)) {
			load_err("%s:%d: bad key \"%s\"", fname, lineno, s);
			goto out;
		}
		if (!*eq) {
			load_err("%s:%d: key \"%s\" has no value", fname, lineno, s);
			goto out;
		}
		if (!cur) {
			load_err("%s:%d: key \"%s\" outside a section", fname,
			    lineno, s);
			goto out;
		}
		if (strcmp(s, "workload") == 0) {
			if (cur == &defs) {
				load_err("%s:%d: workload belongs in a [run] section",
				    fname, lineno);
				goto out;
			}
			if (cur->workload) {
				load_err("%s:%d: workload is set twice", fname, lineno);
				goto out;
			}
			cur->workload = load_xstrdup(eq);
			continue;
		}
		if (matrix_set(cur, s, eq, fname, lineno) < 0)
			goto out;
	}
	for (i = 0; i < m->n; i++) {
		struct matrix_entry *e = &m->e[i];

		if (!e->workload) {
			load_err("%s:%d: run \"%s\" names no workload", fname,
			    e->line, e->name);
			goto out;
		}
		for (j = 0; j < defs.n; j++) {
			int k, have = 0;

			for (k = 0; k < e->n; k++)
				have |= strcmp(e->keys[k], defs.keys[j]) == 0;
			if (!have && matrix_set(e, defs.keys[j], defs.vals[j],
			    fname, e->line) < 0)
				goto out;
		}
	}
	rc = 0;
out:
	free(copy);
	matrix_entry_release(&defs);
	if (rc < 0)
		matrix_release(m);
	return rc;
}

int
matrix_load(struct matrix *m, const char *path)
{
	size_t len;
	char *text;
	int rc;

	text = load_read_all(path, 1 << 20, &len);
	if (!text)
		return load_err("cannot read %s: %s", path, strerror(errno));
	rc = matrix_parse(m, text, len, path);
	free(text);
	return rc;
}

void
matrix_release(struct matrix *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		matrix_entry_release(&m->e[i]);
	free(m->e);
	memset(m, 0, sizeof(*m));
}
