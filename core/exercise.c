/*
 * exercise: a series' plan (suites, changed functions, what to probe) and
 * the suites' matrix; console splat counting.  See exercise.h for the
 * rules on inlined, static and duplicate functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/changed.h"
#include "core/exercise.h"
#include "core/tree.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

/* Bounds on what is read for one series. */
#define EXERCISE_MAX_DIFF	(64 * 1024 * 1024)
#define EXERCISE_MAX_SRC	(16 * 1024 * 1024)
#define EXERCISE_MAX_FNS	256	/* per file */

void
exercise_plan_release(struct exercise_plan *p)
{
	json_decref(p->changes);
	json_decref(p->probes);
	free(p->matrix);
	memset(p, 0, sizeof(*p));
}

static int
suite_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 32 && s[0] != '-' &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

int
exercise_suites_check(const json_t *suites, const char *etc_dir,
    struct buf *err)
{
	size_t i;

	if (!json_is_array(suites) || json_array_size(suites) == 0 ||
	    json_array_size(suites) > EXERCISE_MAX_SUITES) {
		buf_addf(err, "field \"suites\" must be an array of 1..%d suite "
		    "names", EXERCISE_MAX_SUITES);
		return -1;
	}
	for (i = 0; i < json_array_size(suites); i++) {
		const char *s = json_string_value(json_array_get(suites, i));
		char *path;
		int found;

		if (!s || !suite_name_ok(s)) {
			buf_addf(err, "suites[%zu]: expected a suite name "
			    "([a-z0-9-], as in etc/suites/NAME.conf)", i);
			return -1;
		}
		if (strcmp(s, "all") == 0)
			continue;
		path = xasprintf("%s/suites/%s.conf", etc_dir, s);
		found = access(path, R_OK) == 0;
		free(path);
		if (!found) {
			buf_addf(err, "suites[%zu]: no suite \"%s\" (no "
			    "etc/suites/%s.conf)", i, s, s);
			return -1;
		}
	}
	return 0;
}

/* ---- suites ------------------------------------------------------------ */

static json_t *
suite_get(json_t *suites, const char *name)
{
	size_t i;
	json_t *o;

	json_array_foreach(suites, i, o)
		if (strcmp(json_string_value(json_object_get(o, "suite")),
		    name) == 0)
			return o;
	o = json_pack("{s:s,s:[]}", "suite", name, "why");
	json_array_append_new(suites, o);
	return o;
}

/* [{suite, why:[paths]}] from the touched files, or from asked. */
static json_t *
plan_suites(const struct changed_diff *d, const json_t *asked)
{
	json_t *suites = json_array();
	size_t i;

	if (asked) {
		for (i = 0; i < json_array_size(asked); i++)
			json_array_append_new(json_object_get(suite_get(suites,
			    json_string_value(json_array_get(asked, i))),
			    "why"), json_string("asked at submission"));
		return suites;
	}
	for (i = 0; i < d->n; i++) {
		const char *s = changed_suite_of(d->files[i].path);

		json_array_append_new(json_object_get(suite_get(suites,
		    s ? s : "all"), "why"), json_string(d->files[i].path));
	}
	if (d->n == 0)
		json_array_append_new(json_object_get(suite_get(suites, "all"),
		    "why"), json_string("the series changes no file"));
	return suites;
}

/* ---- matrix ------------------------------------------------------------ */

/* The key of a "key = value" line ("" for other lines), into k. */
static void
line_key(const char *line, size_t n, char *k, size_t sz)
{
	size_t i = strspn(line, " \t"), e = i;

	while (e < n && line[e] != '=' && line[e] != ' ' && line[e] != '\t')
		e++;
	if (line[i] == '#' || line[i] == ';' || line[i] == '[' || e == i ||
	    !memchr(line, '=', n) || e - i >= sz)
		e = i;
	memcpy(k, line + i, e - i);
	k[e - i] = '\0';
}

/* Does the run section starting at p (after its header) set key? */
static int
run_sets(const char *p, const char *key)
{
	char k[64];

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (p[strspn(p, " \t")] == '[')
			return 0;
		line_key(p, n, k, sizeof(k));
		if (*k && !strcmp(k, key))
			return 1;
		p += n + (nl ? 1 : 0);
	}
	return 0;
}

/*
 * Appends one suite file to out with its [defaults] keys written into each
 * of its runs that does not set them (kperfci-load accepts [defaults] only
 * before the first run, and every suite has its own); a run name already
 * in out gets the suite's name in front.
 */
static void
matrix_merge_one(struct buf *out, const char *suite, const char *text)
{
	struct buf defs = BUF_INIT(0);
	const char *p = text;
	int in_defs = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *t = p + strspn(p, " \t");

		if (*t == '[') {
			in_defs = strncmp(t, "[defaults]", 10) == 0;
			if (!in_defs) {
				char *hdr = xstrndup(t, n - (size_t)(t - p));
				char *q = strchr(hdr, '"'), *probe = q ?
				    xasprintf("[run \"%.*s\"]", (int)strcspn(
				    q + 1, "\""), q + 1) : NULL;
				const char *d = defs.data;

				/* a run name already taken: "SUITE-NAME" */
				if (probe && out->data && strstr(out->data, probe))
					buf_addf(out, "[run \"%s-%s\n", suite,
					    q + 1);
				else
					buf_addf(out, "%s\n", hdr);
				while (d && *d) {
					size_t dn = strcspn(d, "\n");
					char k[64];

					line_key(d, dn, k, sizeof(k));
					if (*k && !run_sets(p + n + (nl ? 1 : 0),
					    k)) {
						buf_add(out, d, dn);
						buf_addch(out, '\n');
					}
					d += dn + (d[dn] ? 1 : 0);
				}
				free(hdr);
				free(probe);
			}
		} else if (in_defs) {
			if (*t && *t != '#' && *t != ';') {
				buf_add(&defs, p, n);
				buf_addch(&defs, '\n');
			}
		} else {
			buf_add(out, p, n);
			buf_addch(out, '\n');
		}
		p += n + (nl ? 1 : 0);
	}
	buf_release(&defs);
}

static char *
read_text(const char *path)
{
	struct buf b = BUF_INIT(PROTO_MAX_MATRIX);

	if (buf_read_file(&b, path) == -1) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* The suites' matrix into p->matrix, and where it came from into changes. */
static int
plan_matrix(struct exercise_plan *p, const json_t *suites, const char *etc,
    struct buf *err)
{
	struct buf out = BUF_INIT(PROTO_MAX_MATRIX), src = BUF_INIT(0);
	size_t i, n = json_array_size(suites);
	char *path, *text;
	int all = 0;

	for (i = 0; i < n; i++)
		all |= !strcmp(json_string_value(json_object_get(
		    json_array_get(suites, i), "suite")), "all");
	for (i = 0; i < n && !all; i++) {
		const char *s = json_string_value(json_object_get(
		    json_array_get(suites, i), "suite"));

		path = xasprintf("%s/suites/%s.conf", etc, s);
		text = read_text(path);
		free(path);
		if (text == NULL) {
			buf_addf(&src, "%setc/suites/%s.conf does not exist: ",
			    src.len ? "; " : "", s);
			all = 1;
			break;
		}
		buf_addf(&src, "%setc/suites/%s.conf", src.len ? " + " : "",
		    s);
		if (n == 1)
			buf_addstr(&out, text);
		else {
			buf_addf(&out, "# ---- suite %s\n", s);
			matrix_merge_one(&out, s, text);
		}
		free(text);
	}
	if (all) {
		path = xasprintf("%s/workloads.conf", etc);
		text = read_text(path);
		free(path);
		if (text == NULL) {
			buf_addstr(err, "etc/workloads.conf cannot be read");
			buf_release(&out);
			buf_release(&src);
			return -1;
		}
		buf_reset(&out);
		buf_addstr(&out, text);
		free(text);
		buf_addstr(&src, "etc/workloads.conf (all)");
	}
	if (out.overflow) {
		buf_addf(err, "the suites' matrix exceeds %d bytes",
		    PROTO_MAX_MATRIX);
		buf_release(&out);
		buf_release(&src);
		return -1;
	}
	json_object_set_new(p->changes, "matrix_source", json_string(src.data));
	p->matrix = buf_detach(&out, NULL);
	buf_release(&src);
	return 0;
}

/* ---- functions --------------------------------------------------------- */

/* The status of name against System.map; *symbol the name to probe. */
static const char *
fn_status(const char *name, const char *map, size_t len, char *symbol,
    size_t sz, char *note, size_t nsz)
{
	int n, v;

	snprintf(symbol, sz, "%s", name);
	if (map == NULL) {
		snprintf(note, nsz, "no System.map for the patched build");
		return "unknown";
	}
	if (strncmp(name, "sys_", 4) == 0 ||
	    strncmp(name, "compat_sys_", 11) == 0) {
		static const char *const pre[] = { "__do_", "__se_", "__x64_",
		    "" };

		for (size_t i = 0; i < 4; i++) {
			snprintf(symbol, sz, "%s%s", pre[i], name);
			if (changed_sysmap_count(map, len, symbol, &v) == 1) {
				snprintf(note, nsz, "system call, probed as %s",
				    symbol);
				return "probed";
			}
		}
		snprintf(symbol, sz, "%s", name);
	}
	n = changed_sysmap_count(map, len, name, &v);
	if (n == 1) {
		note[0] = '\0';
		return "probed";
	}
	if (n > 1) {
		snprintf(note, nsz, "defined %d times (static functions of one "
		    "name): kprobes refuse an ambiguous name, not countable",
		    n);
		return "ambiguous";
	}
	if (v > 0) {
		snprintf(note, nsz, "only compiler copies (%s.constprop/.isra/"
		    ".part) are in System.map: not countable", name);
		return "specialised";
	}
	snprintf(note, nsz, "not in System.map: inlined into its callers, "
	    "not countable");
	return "inlined";
}

static void
plan_file_functions(struct exercise_plan *p, const struct changed_file *f,
    const char *src, size_t slen, const char *map, size_t mlen)
{
	struct changed_fn *fn = xcalloc(EXERCISE_MAX_FNS, sizeof(*fn));
	json_t *fns = json_object_get(p->changes, "functions");
	size_t n = changed_functions(f, src, slen, fn, EXERCISE_MAX_FNS);
	char symbol[CHANGED_MAX_NAME + 16], note[200];

	for (size_t i = 0; i < n; i++) {
		const char *st = fn_status(fn[i].name, map, mlen, symbol,
		    sizeof(symbol), note, sizeof(note));
		int dup = 0;

		for (size_t k = 0; k < json_array_size(p->probes); k++)
			dup |= !strcmp(json_string_value(json_array_get(
			    p->probes, k)), symbol);
		if (!strcmp(st, "probed") && !dup) {
			if (json_array_size(p->probes) >= PROTO_MAX_PROBES ||
			    !proto_valid_symbol(symbol)) {
				st = "not probed";
				snprintf(note, sizeof(note), "more than %d "
				    "changed functions", PROTO_MAX_PROBES);
			} else
				json_array_append_new(p->probes,
				    json_string(symbol));
		}
		json_array_append_new(fns, json_pack("{s:s,s:s,s:s,s:s,s:b,s:s}",
		    "name", fn[i].name, "file", f->path, "symbol", symbol,
		    "status", st, "added", fn[i].added, "note", note));
	}
	free(fn);
}

static int
is_c_source(const char *path)
{
	size_t n = strlen(path);

	return n > 2 && path[n - 2] == '.' &&
	    (path[n - 1] == 'c' || path[n - 1] == 'h');
}

int
exercise_plan_diff(const char *diff, size_t len,
    int (*read_src)(const char *, struct buf *, void *), void *arg,
    const char *map, size_t mlen, const json_t *asked, const char *etc,
    struct exercise_plan *p, struct buf *err)
{
	struct changed_diff d;
	json_t *files, *suites;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	if (changed_diff_parse(&d, diff, len, err) == -1)
		goto out;
	p->changes = json_object();
	p->probes = json_array();
	files = json_array();
	for (size_t i = 0; i < d.n; i++)
		json_array_append_new(files, json_string(d.files[i].path));
	json_object_set_new(p->changes, "files", files);
	json_object_set_new(p->changes, "functions", json_array());
	suites = plan_suites(&d, asked);
	json_object_set_new(p->changes, "suites", suites);
	json_object_set_new(p->changes, "suites_from", json_string(asked ?
	    "asked at submission" : "the files the series touches"));
	for (size_t i = 0; i < d.n; i++) {
		struct buf src = BUF_INIT(EXERCISE_MAX_SRC);

		if (!d.files[i].deleted && d.files[i].nhunks &&
		    is_c_source(d.files[i].path) &&
		    read_src(d.files[i].path, &src, arg) == 0)
			plan_file_functions(p, &d.files[i], src.data ?
			    src.data : "", src.len, map, mlen);
		buf_release(&src);
	}
	if (plan_matrix(p, suites, etc, err) == -1)
		goto out;
	rc = 0;
out:
	changed_diff_release(&d);
	if (rc == -1)
		exercise_plan_release(p);
	return rc;
}

struct tree_src {
	const char *repo, *commit;
};

static int
tree_src_read(const char *path, struct buf *out, void *arg)
{
	struct tree_src *t = arg;
	struct buf err = BUF_INIT(512);
	int rc = tree_read_blob(t->repo, t->commit, path, out, &err);

	buf_release(&err);
	return rc;
}

int
exercise_plan_make(const char *repo, const char *base, const char *patched,
    const char *map, size_t mlen, const json_t *asked, const char *etc,
    struct exercise_plan *p, struct buf *err)
{
	struct buf diff = BUF_INIT(EXERCISE_MAX_DIFF);
	struct tree_src t = { repo, patched };
	int rc;

	memset(p, 0, sizeof(*p));
	if (tree_diff_text(repo, base, patched, &diff, err) == -1) {
		buf_release(&diff);
		return -1;
	}
	rc = exercise_plan_diff(diff.data ? diff.data : "", diff.len,
	    tree_src_read, &t, map, mlen, asked, etc, p, err);
	buf_release(&diff);
	return rc;
}

/* ---- the verdict ------------------------------------------------------- */

enum exercise_state
exercise_state_of(const json_t *changes, const json_t *attempts)
{
	const json_t *fns = json_object_get(changes, "functions"), *f, *a, *h;
	size_t i, k, n = 0;
	long long hits = 0;
	int counted = 0;

	if (!json_is_object(changes))
		return EXERCISE_NONE;
	json_array_foreach(fns, i, f) {
		const char *st = json_string_value(json_object_get(f, "status"));
		const char *sym = json_string_value(json_object_get(f,
		    "symbol"));

		if (!st || strcmp(st, "probed") || !sym)
			continue;
		n++;
		json_array_foreach(attempts, k, a) {
			size_t m;

			json_array_foreach(json_object_get(a, "probe_hits"), m,
			    h) {
				const char *fn = json_string_value(
				    json_object_get(h, "function"));

				if (!fn || strcmp(fn, sym) ||
				    !json_is_integer(json_object_get(h,
				    "hits")))
					continue;
				counted++;
				hits += json_integer_value(json_object_get(h,
				    "hits"));
			}
		}
	}
	if (n == 0)
		return EXERCISE_UNCOUNTABLE;
	if (counted == 0)
		return EXERCISE_UNMEASURED;
	return hits > 0 ? EXERCISE_EXERCISED : EXERCISE_NOT_EXERCISED;
}

/* ---- console ----------------------------------------------------------- */

int
exercise_splats(const char *con, size_t len, char *first, size_t sz)
{
	/* What the kernel prints at the start of a report (lockdep's begin
	   with "WARNING: possible ..." too). */
	static const char *const pat[] = { "WARNING:", "BUG:",
	    "kernel BUG at", "Oops:", "general protection fault",
	    "UBSAN:", "Kernel panic", NULL };
	size_t i = 0;
	int n = 0;

	if (sz)
		first[0] = '\0';
	while (i < len) {
		const char *line = con + i, *e = memchr(line, '\n', len - i);
		size_t ll = e ? (size_t)(e - line) : len - i;

		i += ll + 1;
		for (size_t k = 0; pat[k]; k++) {
			const char *hit = memmem(line, ll, pat[k],
			    strlen(pat[k]));

			if (hit == NULL)
				continue;
			if (n++ == 0 && sz) {
				size_t m = ll - (size_t)(hit - line);

				if (m >= sz)
					m = sz - 1;
				memcpy(first, hit, m);
				first[m] = '\0';
				for (size_t c = 0; c < m; c++)
					if ((unsigned char)first[c] < 0x20 ||
					    (unsigned char)first[c] > 0x7e)
						first[c] = '?';
			}
			break;
		}
	}
	return n;
}
