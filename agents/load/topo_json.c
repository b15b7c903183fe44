/*
 * topo_json: reads back the topology `kperfci-load topo --json` prints
 * (topo_print_json), so a matrix can be resolved for a machine other than
 * this one (--check --topology FILE; the fixtures of the seed authors'
 * machines in tests/fixtures/topology/).  kperfci-load is static and links
 * no JSON library: a small strict parser (RFC 8259 values, depth and size
 * limits) builds a tree, and the fields are then checked one by one.
 *
 * Used: "model", "kernel" (optional strings), "mem_kb", "nodes" [{"id",
 * "mem_kb", "cpus"}], "cpus" [{"cpu", "node", "socket", "core",
 * "thread"}].  Sockets and cores are counted from "cpus" as topo_load
 * counts them; unknown keys are ignored (a newer printer may add some).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/topo.h"
#include "agents/load/util.h"

#define TJ_MAX_DEPTH	16
#define TJ_MAX_LEN	(4 << 20)
#define TJ_MAX_CPU	8192

enum tj_type { TJ_NULL, TJ_BOOL, TJ_NUM, TJ_STR, TJ_ARR, TJ_OBJ };

struct tj {
	enum tj_type	 type;
	double		 num;
	char		*str;		/* TJ_STR */
	char		**keys;		/* TJ_OBJ */
	struct tj	*kids;		/* TJ_ARR, TJ_OBJ */
	int		 n;
};

struct tj_parser {
	const char	*start, *s, *end;
	const char	*fname;
};

static void
tj_free(struct tj *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		tj_free(&v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

static void
tj_ws(struct tj_parser *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' ||
	    *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static int
tj_fail(struct tj_parser *p, const char *what)
{
	return load_err("%s: bad JSON at byte %ld: %s", p->fname,
	    (long)(p->s - p->start), what);
}

/* Strings: escapes are checked; \u escapes keep only ASCII (enough for
   model names), anything else becomes '?'. */
static int
tj_string(struct tj_parser *p, char **out)
{
	char *b;
	size_t n = 0;

	p->s++;		/* opening quote */
	b = load_xmalloc(p->end - p->s + 1);
	while (p->s < p->end && *p->s != '"') {
		unsigned char c = (unsigned char)*p->s++;

		if (c < 0x20) {
			free(b);
			return tj_fail(p, "control character in a string");
		}
		if (c != '\\') {
			b[n++] = (char)c;
			continue;
		}
		if (p->s >= p->end)
			break;
		c = (unsigned char)*p->s++;
		switch (c) {
		case '"': case '\\': case '/': b[n++] = (char)c; break;
		case 'b': b[n++] = '\b'; break;
		case 'f': b[n++] = '\f'; break;
		case 'n': b[n++] = '\n'; break;
		case 'r': b[n++] = '\r'; break;
		case 't': b[n++] = '\t'; break;
		case 'u': {
			unsigned v = 0;
			int i;

			for (i = 0; i < 4; i++) {
				if (p->s >= p->end || !isxdigit((unsigned char)*p->s)) {
					free(b);
					return tj_fail(p, "bad \\u escape");
				}
				v = v * 16 + (isdigit((unsigned char)*p->s) ?
				    *p->s - '0' : (tolower((unsigned char)*p->s) - 'a' + 10));
				p->s++;
			}
			b[n++] = v >= 0x20 && v < 0x7f ? (char)v : '?';
			break;
		}
		default:
			free(b);
			return tj_fail(p, "bad escape in a string");
		}
	}
	if (p->s >= p->end) {
		free(b);
		return tj_fail(p, "unterminated string");
	}
	p->s++;
	b[n] = '\0';
	*out = b;
	return 0;
}

static int
tj_number(struct tj_parser *p, double *out)
{
	const char *q = p->s;
	char buf[64];

	if (q < p->end && *q == '-')
		q++;
	if (q >= p->end || !isdigit((unsigned char)*q))
		return tj_fail(p, "expected a value");
	if (*q == '0' && q + 1 < p->end && isdigit((unsigned char)q[1]))
		return tj_fail(p, "leading zero");
	while (q < p->end && (isdigit((unsigned char)*q) || *q == '.' ||
	    *q == 'e' || *q == 'E' || *q == '+' || *q == '-'))
		q++;
	if (q - p->s >= (long)sizeof(buf))
		return tj_fail(p, "number too long");
	memcpy(buf, p->s, q - p->s);
	buf[q - p->s] = '\0';
	if (load_parse_double(buf, out) < 0 || !isfinite(*out))
		return tj_fail(p, "bad number");
	p->s = q;
	return 0;
}

static int tj_value(struct tj_parser *, struct tj *, int depth);

static int
tj_container(struct tj_parser *p, struct tj *v, int depth)
{
	int obj = *p->s == '{';
	char close = obj ? '}' : ']';

	v->type = obj ? TJ_OBJ : TJ_ARR;
	p->s++;
	tj_ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		tj_ws(p);
		if (obj) {
			if (p->s >= p->end || *p->s != '"')
				return tj_fail(p, "expected a key");
			if (tj_string(p, &key) < 0)
				return -1;
			tj_ws(p);
			if (p->s >= p->end || *p->s != ':') {
				free(key);
				return tj_fail(p, "expected ':'");
			}
			p->s++;
		}
		v->kids = load_xrealloc(v->kids, (v->n + 1) * sizeof(*v->kids));
		if (obj)
			v->keys = load_xrealloc(v->keys, (v->n + 1) * sizeof(*v->keys));
		memset(&v->kids[v->n], 0, sizeof(*v->kids));
		if (obj)
			v->keys[v->n] = key;
		v->n++;
		if (tj_value(p, &v->kids[v->n - 1], depth + 1) < 0)
			return -1;
		tj_ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			return 0;
		}
		return tj_fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int
tj_value(struct tj_parser *p, struct tj *v, int depth)
{
	static const struct { const char *w; enum tj_type t; double n; } lit[] = {
		{ "null", TJ_NULL, 0 }, { "true", TJ_BOOL, 1 }, { "false", TJ_BOOL, 0 },
	};
	size_t i;

	if (depth > TJ_MAX_DEPTH)
		return tj_fail(p, "nested too deeply");
	tj_ws(p);
	if (p->s >= p->end)
		return tj_fail(p, "unexpected end");
	if (*p->s == '{' || *p->s == '[')
		return tj_container(p, v, depth);
	if (*p->s == '"') {
		v->type = TJ_STR;
		return tj_string(p, &v->str);
	}
	for (i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
		size_t l = strlen(lit[i].w);

		if ((size_t)(p->end - p->s) >= l && strncmp(p->s, lit[i].w, l) == 0) {
			v->type = lit[i].t;
			v->num = lit[i].n;
			p->s += l;
			return 0;
		}
	}
	v->type = TJ_NUM;
	return tj_number(p, &v->num);
}

static const struct tj *
tj_get(const struct tj *o, const char *key)
{
	int i;

	if (o->type != TJ_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return &o->kids[i];
	return NULL;
}

/* An integer field in [lo, hi]; missing is an error unless def is given. */
static int
tj_int(const struct tj *o, const char *key, long long lo, long long hi,
    const long long *def, long long *out, const char *fname, const char *where)
{
	const struct tj *v = tj_get(o, key);

	if (!v) {
		if (def) {
			*out = *def;
			return 0;
		}
		return load_err("%s: %s: missing \"%s\"", fname, where, key);
	}
	if (v->type != TJ_NUM || v->num != floor(v->num) || v->num < lo ||
	    v->num > hi)
		return load_err("%s: %s: \"%s\" must be an integer in %lld..%lld",
		    fname, where, key, lo, hi);
	*out = (long long)v->num;
	return 0;
}

static int
tj_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int
tj_cpus(struct load_topo *t, const struct tj *cpus, const char *fname)
{
	char where[64];
	long long v[5];
	static const char *const f[] = { "cpu", "node", "socket", "core", "thread" };
	static const long long zero = 0;
	int i, k;

	if (!cpus || cpus->type != TJ_ARR || cpus->n < 1 || cpus->n > TJ_MAX_CPU)
		return load_err("%s: \"cpus\" must be an array of 1..%d CPUs", fname,
		    TJ_MAX_CPU);
	t->cpus = load_xcalloc(cpus->n, sizeof(*t->cpus));
	for (i = 0; i < cpus->n; i++) {
		snprintf(where, sizeof(where), "cpus[%d]", i);
		for (k = 0; k < 5; k++)
			if (tj_int(&cpus->kids[i], f[k], 0, TJ_MAX_CPU - 1,
			    k >= 3 ? &zero : NULL, &v[k], fname, where) < 0)
				return -1;
		if (topo_cpu(t, (int)v[0]))
			return load_err("%s: %s: CPU %lld is listed twice", fname,
			    where, v[0]);
		t->cpus[i] = (struct load_cpu){ (int)v[0], (int)v[1], (int)v[2],
		    (int)v[3], (int)v[4] };
		t->ncpus++;
	}
	for (i = 1; i < t->ncpus; i++)
		if (t->cpus[i].id < t->cpus[i - 1].id)
			return load_err("%s: \"cpus\" must be in ascending order", fname);
	return 0;
}

static int
tj_nodes(struct load_topo *t, const struct tj *nodes, const char *fname)
{
	char where[64];
	long long id, kb;
	static const long long zero = 0;
	int i, k;

	if (!nodes || nodes->type != TJ_ARR || nodes->n < 1 || nodes->n > 1024)
		return load_err("%s: \"nodes\" must be an array of 1..1024 nodes", fname);
	t->nodes = load_xcalloc(nodes->n, sizeof(*t->nodes));
	for (i = 0; i < nodes->n; i++) {
		struct load_node *nd = &t->nodes[i];

		snprintf(where, sizeof(where), "nodes[%d]", i);
		if (tj_int(&nodes->kids[i], "id", 0, 1023, NULL, &id, fname, where) < 0 ||
		    tj_int(&nodes->kids[i], "mem_kb", 0, 1LL << 50, &zero, &kb,
		    fname, where) < 0)
			return -1;
		if (topo_node(t, (int)id))
			return load_err("%s: %s: node %lld is listed twice", fname,
			    where, id);
		if (i && id < t->nodes[i - 1].id)
			return load_err("%s: \"nodes\" must be in ascending order", fname);
		nd->id = (int)id;
		nd->mem_kb = kb;
		t->nnodes++;
	}
	/* a node's CPUs are those of "cpus" that name it */
	for (i = 0; i < t->ncpus; i++) {
		struct load_node *nd = (struct load_node *)topo_node(t, t->cpus[i].node);

		if (!nd)
			return load_err("%s: cpus[%d]: node %d is not in \"nodes\"",
			    fname, i, t->cpus[i].node);
		nd->cpus = load_xrealloc(nd->cpus, (nd->ncpus + 1) * sizeof(int));
		nd->cpus[nd->ncpus++] = t->cpus[i].id;
	}
	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].ncpus)
			qsort(t->nodes[i].cpus, t->nodes[i].ncpus, sizeof(int), tj_cmp_int);
	for (k = 0; k < t->ncpus; k++)
		t->ncores += t->cpus[k].thread == 0;
	return 0;
}

static void
tj_copy_str(const struct tj *o, const char *key, char *dst, size_t cap)
{
	const struct tj *v = tj_get(o, key);

	if (v && v->type == TJ_STR)
		snprintf(dst, cap, "%s", v->str);
}

int
topo_load_json(struct load_topo *t, const char *text, size_t len,
    const char *fname)
{
	struct tj_parser p = { text, text, text + len, fname };
	struct tj root;
	long long kb;
	int i, j, rc = -1;

	memset(t, 0, sizeof(*t));
	memset(&root, 0, sizeof(root));
	if (len > TJ_MAX_LEN)
		return load_err("%s: larger than %d bytes", fname, TJ_MAX_LEN);
	if (memchr(text, '\0', len))
		return load_err("%s: contains a NUL byte", fname);
	if (tj_value(&p, &root, 0) < 0)
		goto out;
	tj_ws(&p);
	if (p.s != p.end) {
		tj_fail(&p, "trailing text after the object");
		goto out;
	}
	if (root.type != TJ_OBJ) {
		load_err("%s: the topology must be a JSON object", fname);
		goto out;
	}
	if (tj_int(&root, "mem_kb", 1, 1LL << 50, NULL, &kb, fname, "topology") < 0)
		goto out;
	t->mem_kb = kb;
	tj_copy_str(&root, "model", t->model, sizeof(t->model));
	tj_copy_str(&root, "kernel", t->kernel, sizeof(t->kernel));
	if (tj_cpus(t, tj_get(&root, "cpus"), fname) < 0 ||
	    tj_nodes(t, tj_get(&root, "nodes"), fname) < 0)
		goto out;
	for (i = 0; i < t->ncpus; i++) {
		for (j = 0; j < i && t->cpus[j].socket != t->cpus[i].socket; j++)
			;
		t->nsockets += j == i;
	}
	rc = 0;
out:
	tj_free(&root);
	if (rc < 0)
		topo_release(t);
	return rc;
}

int
topo_load_json_file(struct load_topo *t, const char *path)
{
	size_t len;
	char *text;
	int rc;

	text = load_read_all(path, TJ_MAX_LEN + 1, &len);
	if (!text)
		return load_err("cannot read %s: %s", path, strerror(errno));
	rc = topo_load_json(t, text, len, path);
	free(text);
	return rc;
}
