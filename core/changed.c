/*
 * changed: a series' diff -> touched files, suites and changed functions
 * (see changed.h for the rules).  Everything here is pure and bounded:
 * the diff comes from our own git, but the patched source and the diff's
 * content come from an untrusted patch, so every loop is limited by the
 * input and every name by CHANGED_MAX_NAME.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/changed.h"
#include "lib/xalloc.h"

/*
 * Touched path -> suite (etc/suites/NAME.conf).  A path is matched
 * exactly; a path no row names calls for "all" (the whole default matrix).
 * The rows follow the seed threads: 000 (lru_lock), 001 (per-memcg
 * list_lru), 004 (large folios), 002 (root memcg flush).
 */
const struct changed_suite_row changed_suite_map[] = {
	{ "mm/swap.c",			"lru-lock" },
	{ "mm/vmscan.c",		"lru-lock" },
	{ "mm/list_lru.c",		"list-lru" },
	{ "mm/shrinker.c",		"list-lru" },
	{ "fs/dcache.c",		"list-lru" },
	{ "fs/inode.c",			"list-lru" },
	{ "mm/huge_memory.c",		"large-folio" },
	{ "mm/memory.c",		"large-folio" },
	{ "mm/memcontrol.c",		"memcg-flush" },
	{ "mm/workingset.c",		"memcg-flush" },
	{ "kernel/cgroup/rstat.c",	"memcg-flush" },
	{ NULL, NULL }
};

const char *
changed_suite_of(const char *path)
{
	for (const struct changed_suite_row *r = changed_suite_map; r->path;
	    r++)
		if (strcmp(r->path, path) == 0)
			return r->suite;
	return NULL;
}

int
changed_valid_ident(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= CHANGED_MAX_NAME ||
	    !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_') ||
		    (unsigned char)s[i] > 0x7f)
			return 0;
	return 1;
}

/* ---- diff parsing ------------------------------------------------------ */

void
changed_diff_release(struct changed_diff *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->files[i].path);
		free(d->files[i].hunks);
	}
	free(d->files);
	d->files = NULL;
	d->n = 0;
}

struct dparse {
	struct changed_diff *d;
	struct changed_file *f;		/* current file or NULL */
	size_t	 nhunks;		/* all files */
	long	 lineno;
	struct buf *err;
	/* inside a hunk */
	long	 old_left, new_left, cur_new;
	long	 run_add_start, run_adds;
	int	 run_del;
};

static struct changed_file *
dparse_file(struct dparse *p)
{
	struct changed_diff *d = p->d;

	if (d->n >= CHANGED_MAX_FILES) {
		buf_addf(p->err, "line %ld: more than %d files", p->lineno,
		    CHANGED_MAX_FILES);
		return NULL;
	}
	d->files = xrealloc(d->files, (d->n + 1) * sizeof(*d->files));
	memset(&d->files[d->n], 0, sizeof(d->files[0]));
	return &d->files[d->n++];
}

static void
dparse_set_path(struct changed_file *f, const char *s, size_t n)
{
	if (n > 4096)
		n = 4096;
	free(f->path);
	f->path = xstrndup(s, n);
}

static int
dparse_add_hunk(struct dparse *p, long start, long count)
{
	struct changed_file *f = p->f;

	if (p->nhunks >= CHANGED_MAX_HUNKS) {
		buf_addf(p->err, "line %ld: more than %d changed ranges",
		    p->lineno, CHANGED_MAX_HUNKS);
		return -1;
	}
	f->hunks = xrealloc(f->hunks, (f->nhunks + 1) * sizeof(*f->hunks));
	f->hunks[f->nhunks].start = start < 0 ? 0 : start;
	f->hunks[f->nhunks].count = count;
	f->nhunks++;
	p->nhunks++;
	return 0;
}

/* Ends a run of changed lines: the added lines, or the deletion point. */
static int
dparse_close_run(struct dparse *p)
{
	int rc = 0;

	if (p->run_adds > 0)
		rc = dparse_add_hunk(p, p->run_add_start, p->run_adds);
	else if (p->run_del)
		rc = dparse_add_hunk(p, p->cur_new - 1, 0);
	p->run_adds = 0;
	p->run_del = 0;
	return rc;
}

/* "@@ -a[,b] +c[,d] @@": 0 or -1. */
static int
dparse_range(const char **s, char sign, long *start, long *count)
{
	char *end;
	long v;

	if (**s != sign)
		return -1;
	(*s)++;
	if (!isdigit((unsigned char)**s))
		return -1;
	v = strtol(*s, &end, 10);
	if (v < 0 || v > 100000000)
		return -1;
	*start = v;
	*count = 1;
	*s = end;
	if (**s == ',') {
		(*s)++;
		if (!isdigit((unsigned char)**s))
			return -1;
		v = strtol(*s, &end, 10);
		if (v < 0 || v > 100000000)
			return -1;
		*count = v;
		*s = end;
	}
	return 0;
}

static int
dparse_hunk_header(struct dparse *p, const char *line)
{
	const char *s = line + 3;
	long os, oc, ns, nc;

	if (p->f == NULL) {
		buf_addf(p->err, "line %ld: hunk before any file header",
		    p->lineno);
		return -1;
	}
	if (dparse_range(&s, '-', &os, &oc) == -1 || *s++ != ' ' ||
	    dparse_range(&s, '+', &ns, &nc) == -1 || strncmp(s, " @@", 3)) {
		buf_addf(p->err, "line %ld: malformed hunk header", p->lineno);
		return -1;
	}
	p->old_left = oc;
	p->new_left = nc;
	p->cur_new = nc == 0 ? ns + 1 : ns;
	p->run_adds = 0;
	p->run_del = 0;
	return 0;
}

/* One line inside a hunk. 0 consumed, 1 not a hunk line, -1 error. */
static int
dparse_hunk_line(struct dparse *p, const char *line)
{
	switch (line[0]) {
	case '+':
		if (p->new_left <= 0)
			return 1;
		if (p->run_adds == 0)
			p->run_add_start = p->cur_new;
		p->run_adds++;
		p->cur_new++;
		p->new_left--;
		break;
	case '-':
		if (p->old_left <= 0)
			return 1;
		p->run_del = 1;
		p->old_left--;
		break;
	case ' ':
	case '\0':		/* an empty context line, whitespace eaten */
		if (p->old_left <= 0 || p->new_left <= 0)
			return 1;
		if (dparse_close_run(p) == -1)
			return -1;
		p->cur_new++;
		p->old_left--;
		p->new_left--;
		break;
	case '\\':		/* "\ No newline at end of file" */
		return 0;
	default:
		return 1;
	}
	if (p->old_left <= 0 && p->new_left <= 0 && dparse_close_run(p) == -1)
		return -1;
	return 0;
}

static int
dparse_line(struct dparse *p, const char *line)
{
	const char *b;

	if ((p->old_left > 0 || p->new_left > 0)) {
		int rc = dparse_hunk_line(p, line);

		if (rc != 1)
			return rc;
		/* A short hunk: what it had is kept. */
		if (dparse_close_run(p) == -1)
			return -1;
		p->old_left = p->new_left = 0;
	}
	if (strncmp(line, "diff --git ", 11) == 0) {
		if (!(p->f = dparse_file(p)))
			return -1;
		if ((b = strstr(line + 11, " b/")))
			dparse_set_path(p->f, b + 3, strlen(b + 3));
		else
			dparse_set_path(p->f, line + 11, strlen(line + 11));
	} else if (strncmp(line, "--- ", 4) == 0) {
		if (p->f == NULL && !(p->f = dparse_file(p)))
			return -1;
		if (p->f->path == NULL && strncmp(line + 4, "a/", 2) == 0)
			dparse_set_path(p->f, line + 6, strcspn(line + 6, "\t"));
	} else if (strncmp(line, "+++ ", 4) == 0) {
		if (p->f == NULL && !(p->f = dparse_file(p)))
			return -1;
		if (strncmp(line + 4, "/dev/null", 9) == 0)
			p->f->deleted = 1;
		else if (strncmp(line + 4, "b/", 2) == 0)
			dparse_set_path(p->f, line + 6, strcspn(line + 6, "\t"));
	} else if (strncmp(line, "deleted file mode", 17) == 0 && p->f) {
		p->f->deleted = 1;
	} else if (strncmp(line, "@@ ", 3) == 0) {
		return dparse_hunk_header(p, line);
	}
	return 0;
}

int
changed_diff_parse(struct changed_diff *d, const char *text, size_t len,
    struct buf *err)
{
	struct dparse p = { 0 };
	size_t i = 0;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	p.d = d;
	p.err = err;
	while (i < len && rc == 0) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t raw = nl ? (size_t)(nl - (text + i)) : len - i, n = raw;
		char *line;

		if (n && text[i + n - 1] == '\r')
			n--;
		line = xstrndup(text + i, n);
		if (strlen(line) != n) {
			buf_addf(err, "line %ld: contains a NUL byte",
			    p.lineno + 1);
			free(line);
			return -1;
		}
		p.lineno++;
		rc = dparse_line(&p, line);
		free(line);
		i += raw + (nl ? 1 : 0);
	}
	if (rc == 0 && (p.old_left > 0 || p.new_left > 0))
		rc = dparse_close_run(&p);
	for (size_t k = 0; rc == 0 && k < d->n; k++)
		if (d->files[k].path == NULL)
			d->files[k].path = xstrdup("?");
	return rc;
}

/* ---- function spans ---------------------------------------------------- */

#define HEAD_MAX	2048

struct scan {
	const char *s;
	size_t	 len, i;
	long	 line;
	int	 depth;
	int	 bol;			/* only blanks since the line began */
	/* the head at depth 0 */
	char	 head[HEAD_MAX];
	size_t	 hlen;
	long	 head_line;		/* 0: empty */
	int	 head_eq;		/* '=' outside parentheses */
	int	 head_paren;
	/* the open function */
	struct changed_span cur;
	int	 in_fn;
	struct changed_span *out;
	size_t	 n, cap;
};

static void
scan_head_reset(struct scan *sc)
{
	sc->hlen = 0;
	sc->head_line = 0;
	sc->head_eq = 0;
	sc->head_paren = 0;
}

static void
scan_head_add(struct scan *sc, char c)
{
	if (isspace((unsigned char)c)) {
		if (sc->hlen == 0 || sc->head[sc->hlen - 1] == ' ')
			return;
		c = ' ';
	} else if (sc->head_line == 0)
		sc->head_line = sc->line;
	if (c == '(')
		sc->head_paren++;
	else if (c == ')' && sc->head_paren > 0)
		sc->head_paren--;
	else if (c == '=' && sc->head_paren == 0)
		sc->head_eq = 1;
	if (sc->hlen == HEAD_MAX - 1) {
		/* Keep the tail: the name is near the end. */
		memmove(sc->head, sc->head + HEAD_MAX / 2,
		    HEAD_MAX - 1 - HEAD_MAX / 2);
		sc->hlen = HEAD_MAX - 1 - HEAD_MAX / 2;
	}
	sc->head[sc->hlen++] = c;
	sc->head[sc->hlen] = '\0';
}

/* Names with a parenthesised argument that are not the function. */
static int
head_is_attr(const char *id)
{
	static const char *const attrs[] = { "__attribute__", "__attribute",
	    "__releases", "__acquires", "__must_hold", "__cond_acquires",
	    "__cond_releases", "__printf", "__scanf", "__aligned",
	    "__section", "__alloc_size", "__realloc_size", "__diag_ignore",
	    "asm", "__asm__", "__asm", "typeof", "__typeof__", "__typeof",
	    "_Alignas", "alignas", "__counted_by", "__no_sanitize_or_inline",
	    "__nocfi", "__weak_alias", "__assume_aligned", "_Static_assert",
	    "static_assert", NULL };

	for (size_t i = 0; attrs[i]; i++)
		if (strcmp(attrs[i], id) == 0)
			return 1;
	return 0;
}

static int
ident_is_macro(const char *id)
{
	int upper = 0;

	for (; *id; id++) {
		if (islower((unsigned char)*id))
			return 0;
		if (isupper((unsigned char)*id))
			upper = 1;
	}
	return upper;
}

/* The identifier ending just before p (head[0..p)), into out. */
static int
head_ident_before(const char *head, size_t p, char *out, size_t sz)
{
	size_t e = p, b;

	while (e > 0 && head[e - 1] == ' ')
		e--;
	b = e;
	while (b > 0 && (isalnum((unsigned char)head[b - 1]) ||
	    head[b - 1] == '_'))
		b--;
	if (b == e || e - b >= sz || isdigit((unsigned char)head[b]))
		return 0;
	memcpy(out, head + b, e - b);
	out[e - b] = '\0';
	return 1;
}

/* The first argument of the group opening at head[p], as an identifier. */
static int
head_first_arg(const char *head, size_t p, char *out, size_t sz)
{
	size_t b = p + 1, e;

	while (head[b] == ' ')
		b++;
	e = b;
	while (isalnum((unsigned char)head[e]) || head[e] == '_')
		e++;
	if (e == b || e - b >= sz)
		return 0;
	memcpy(out, head + b, e - b);
	out[e - b] = '\0';
	return changed_valid_ident(out);
}

/*
 * The function name of a head ("static inline int foo(int a)"), or 0
 * when the head does not define a function: the identifier before the
 * last top-level parenthesised group that is not an attribute.
 */
static int
head_name(const char *head, char *name, size_t sz)
{
	char id[CHANGED_MAX_NAME], arg[CHANGED_MAX_NAME], best[CHANGED_MAX_NAME];
	size_t best_p = 0;
	int depth = 0, have = 0;

	for (size_t p = 0; head[p]; p++) {
		if (head[p] == '(') {
			if (depth++ == 0 && head_ident_before(head, p, id,
			    sizeof(id)) && !head_is_attr(id)) {
				memcpy(best, id, sizeof(best));
				best_p = p;
				have = 1;
			}
		} else if (head[p] == ')' && depth > 0)
			depth--;
	}
	if (!have)
		return 0;
	if (!ident_is_macro(best)) {
		snprintf(name, sz, "%s", best);
		return 1;
	}
	/* SYSCALL_DEFINE3(mmap, ...) defines sys_mmap; other macros that
	   define a function take its name as their first argument. */
	if (!head_first_arg(head, best_p, arg, sizeof(arg)))
		return 0;
	{
		const char *pre = strncmp(best, "SYSCALL_DEFINE", 14) == 0 ?
		    "sys_" : strncmp(best, "COMPAT_SYSCALL_DEFINE", 21) == 0 ?
		    "compat_sys_" : "";

		if (strlen(pre) + strlen(arg) >= sz)
			return 0;
		memcpy(name, pre, strlen(pre));
		memcpy(name + strlen(pre), arg, strlen(arg) + 1);
	}
	return 1;
}

static void
scan_open_brace(struct scan *sc)
{
	if (sc->depth == 0 && sc->head_line && !sc->head_eq &&
	    head_name(sc->head, sc->cur.name, sizeof(sc->cur.name))) {
		sc->cur.start = sc->head_line;
		sc->in_fn = 1;
	}
	sc->depth++;
	scan_head_reset(sc);
}

static void
scan_close_brace(struct scan *sc)
{
	if (sc->depth > 0)
		sc->depth--;
	if (sc->depth == 0) {
		if (sc->in_fn) {
			sc->cur.end = sc->line;
			if (sc->n == sc->cap) {
				sc->cap = sc->cap ? 2 * sc->cap : 64;
				sc->out = xrealloc(sc->out, sc->cap *
				    sizeof(*sc->out));
			}
			sc->out[sc->n++] = sc->cur;
			sc->in_fn = 0;
		}
		scan_head_reset(sc);
	}
}

/* Skips from s[i] (an opening quote) past its closing quote. */
static void
scan_skip_quoted(struct scan *sc, char q)
{
	for (sc->i++; sc->i < sc->len; sc->i++) {
		char c = sc->s[sc->i];

		if (c == '\\' && sc->i + 1 < sc->len) {
			if (sc->s[++sc->i] == '\n')
				sc->line++;
		} else if (c == q)
			return;
		else if (c == '\n') {
			sc->line++;	/* unterminated: stop at the line */
			return;
		}
	}
}

/* Skips a preprocessor line (with its continuations), up to its '\n'. */
static void
scan_skip_cpp(struct scan *sc)
{
	for (; sc->i < sc->len; sc->i++) {
		char c = sc->s[sc->i];

		if (c == '\\' && sc->i + 1 < sc->len &&
		    sc->s[sc->i + 1] == '\n') {
			sc->i++;
			sc->line++;
		} else if (c == '/' && sc->i + 1 < sc->len &&
		    sc->s[sc->i + 1] == '*') {
			for (sc->i += 2; sc->i + 1 < sc->len &&
			    !(sc->s[sc->i] == '*' && sc->s[sc->i + 1] == '/');
			    sc->i++)
				if (sc->s[sc->i] == '\n')
					sc->line++;
			sc->i++;
		} else if (c == '\n') {
			sc->i--;	/* the caller's loop sees the '\n' */
			return;
		}
	}
}

static void
scan_step(struct scan *sc)
{
	char c = sc->s[sc->i], n = sc->i + 1 < sc->len ? sc->s[sc->i + 1] : 0;

	if (c == '\n') {
		sc->line++;
		sc->bol = 1;
		if (sc->depth == 0)
			scan_head_add(sc, ' ');
		return;
	}
	if (sc->bol && c == '#') {
		scan_skip_cpp(sc);
		return;
	}
	if (!isspace((unsigned char)c))
		sc->bol = 0;
	if (c == '/' && n == '/') {
		while (sc->i + 1 < sc->len && sc->s[sc->i + 1] != '\n')
			sc->i++;
	} else if (c == '/' && n == '*') {
		for (sc->i += 2; sc->i + 1 < sc->len &&
		    !(sc->s[sc->i] == '*' && sc->s[sc->i + 1] == '/'); sc->i++)
			if (sc->s[sc->i] == '\n')
				sc->line++;
		sc->i++;
	} else if (c == '"' || c == '\'') {
		if (sc->depth == 0)
			scan_head_add(sc, 'X');	/* a literal, not code */
		scan_skip_quoted(sc, c);
	} else if (c == '{') {
		scan_open_brace(sc);
	} else if (c == '}') {
		scan_close_brace(sc);
	} else if (sc->depth == 0) {
		if (c == ';')
			scan_head_reset(sc);
		else
			scan_head_add(sc, c);
	}
}

size_t
changed_spans(const char *src, size_t len, struct changed_span **out)
{
	struct scan *sc = xcalloc(1, sizeof(*sc));
	size_t n;

	sc->s = src;
	sc->len = len;
	sc->line = 1;
	sc->bol = 1;
	for (sc->i = 0; sc->i < sc->len; sc->i++)
		scan_step(sc);
	*out = sc->out;
	n = sc->n;
	free(sc);
	return n;
}

const struct changed_span *
changed_span_at(const struct changed_span *s, size_t n, long line)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].start <= line && line <= s[i].end)
			return &s[i];
	return NULL;
}

static void
fn_add(struct changed_fn *out, size_t *n, size_t max, const char *name,
    int added)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(out[i].name, name) == 0) {
			out[i].added &= added;
			return;
		}
	if (*n >= max)
		return;
	snprintf(out[*n].name, sizeof(out[*n].name), "%s", name);
	out[*n].added = added;
	(*n)++;
}

size_t
changed_functions(const struct changed_file *f, const char *src, size_t len,
    struct changed_fn *out, size_t max)
{
	struct changed_span *sp = NULL;
	size_t nsp, n = 0;

	if (f->deleted || f->nhunks == 0)
		return 0;
	nsp = changed_spans(src, len, &sp);
	for (size_t s = 0; s < nsp; s++)
		for (size_t h = 0; h < f->nhunks; h++) {
			const struct changed_hunk *k = &f->hunks[h];
			long a = k->start, b = k->start + k->count - 1;

			if (k->count == 0) {
				/* A deletion between lines a and a + 1: the
				   function holding both lost lines. */
				if (sp[s].start <= a && a + 1 <= sp[s].end)
					fn_add(out, &n, max, sp[s].name, 0);
				continue;
			}
			if (b < sp[s].start || a > sp[s].end)
				continue;
			fn_add(out, &n, max, sp[s].name,
			    a <= sp[s].start && sp[s].end <= b);
		}
	free(sp);
	return n;
}

/* ---- System.map -------------------------------------------------------- */

int
changed_sysmap_count(const char *map, size_t len, const char *name,
    int *variants)
{
	size_t nl = strlen(name), i = 0;
	int n = 0;

	*variants = 0;
	while (i < len) {
		const char *line = map + i, *e = memchr(line, '\n', len - i);
		size_t ll = e ? (size_t)(e - line) : len - i;
		const char *t = memchr(line, ' ', ll), *sym;

		i += ll + 1;
		/* "ffffffff81001000 T name" */
		if (t == NULL || (size_t)(t - line) + 3 > ll || t[2] != ' ' ||
		    !strchr("tTwW", t[1]))
			continue;
		sym = t + 3;
		ll -= (size_t)(sym - line);
		if (ll == nl && memcmp(sym, name, nl) == 0)
			n++;
		else if (ll > nl && memcmp(sym, name, nl) == 0 &&
		    sym[nl] == '.')
			(*variants)++;
	}
	return n;
}
