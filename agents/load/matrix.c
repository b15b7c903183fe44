/* matrix: the workloads.conf parser (see matrix.h) on lib/ini.c. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/matrix.h"
#include "agents/load/util.h"
#include "lib/ini.h"

#define MATRIX_MAX_ENTRIES	1000

static int
matrix_name_ok(const char *k)
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

/* lib/ini.h callbacks; the first error stops the parse. */
struct matrix_ctx {
	struct matrix	*m;
	struct matrix_entry defs;
	struct matrix_entry *cur;	/* &defs, the last run, or NULL */
};

static void
matrix_ini_error(void *ctx, const char *sentence)
{
	load_err("%s", sentence);
}

static int
matrix_ini_section(void *ctx, const struct ini_item *it)
{
	struct matrix_ctx *x = ctx;
	struct matrix *m = x->m;
	int i;

	x->cur = NULL;
	if (strcmp(it->section, "defaults") == 0 && !it->sub) {
		if (m->n)
			return load_err("%s:%d: [defaults] must come before the "
			    "first [run]", it->file, it->line);
		x->cur = &x->defs;
		return 0;
	}
	if (strcmp(it->section, "run") || !it->sub)
		return load_err("%s:%d: a section header must be [defaults] or "
		    "[run \"NAME\"]", it->file, it->line);
	if (!matrix_name_ok(it->sub))
		return load_err("%s:%d: run name \"%s\": use letters, digits, - "
		    "and _", it->file, it->line, it->sub);
	for (i = 0; i < m->n; i++)
		if (strcmp(m->e[i].name, it->sub) == 0)
			return load_err("%s:%d: run \"%s\" is defined twice",
			    it->file, it->line, it->sub);
	if (m->n == MATRIX_MAX_ENTRIES)
		return load_err("%s:%d: more than %d runs", it->file, it->line,
		    MATRIX_MAX_ENTRIES);
	m->e = load_xrealloc(m->e, (m->n + 1) * sizeof(*m->e));
	x->cur = &m->e[m->n++];
	memset(x->cur, 0, sizeof(*x->cur));
	x->cur->name = load_xstrdup(it->sub);
	x->cur->line = it->line;
	return 0;
}

static int
matrix_ini_key(void *ctx, const struct ini_item *it)
{
	struct matrix_ctx *x = ctx;
	struct matrix_entry *cur = x->cur;

	if (!*it->value)
		return load_err("%s:%d: key \"%s\" has no value", it->file,
		    it->line, it->key);
	if (strcmp(it->key, "workload") != 0)
		return matrix_set(cur, it->key, it->value, it->file, it->line);
	if (cur == &x->defs)
		return load_err("%s:%d: workload belongs in a [run] section",
		    it->file, it->line);
	if (cur->workload)
		return load_err("%s:%d: workload is set twice", it->file,
		    it->line);
	cur->workload = load_xstrdup(it->value);
	return 0;
}

/* Every run names a workload and gets the [defaults] it does not set. */
static int
matrix_finish(struct matrix *m, const struct matrix_entry *defs,
    const char *fname)
{
	int i, j, k, have;

	for (i = 0; i < m->n; i++) {
		struct matrix_entry *e = &m->e[i];

		if (!e->workload)
			return load_err("%s:%d: run \"%s\" names no workload",
			    fname, e->line, e->name);
		for (j = 0; j < defs->n; j++) {
			for (k = 0, have = 0; k < e->n; k++)
				have |= strcmp(e->keys[k], defs->keys[j]) == 0;
			if (!have && matrix_set(e, defs->keys[j], defs->vals[j],
			    fname, e->line) < 0)
				return -1;
		}
	}
	return 0;
}

int
matrix_parse(struct matrix *m, const char *text, size_t len, const char *fname)
{
	static const struct ini_ops ops = {
		matrix_ini_section, matrix_ini_key, matrix_ini_error, 1,
	};
	struct matrix_ctx x;
	int rc;

	memset(m, 0, sizeof(*m));
	memset(&x, 0, sizeof(x));
	x.m = m;
	rc = ini_parse(&ops, &x, fname, text, len);
	if (rc == 0)
		rc = matrix_finish(m, &x.defs, fname);
	matrix_entry_release(&x.defs);
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
