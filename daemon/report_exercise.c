/*
 * report_exercise: the parts of a comparison's report that say what the
 * series changed and whether it ran (the suites and why, each changed
 * function with its calls per side, the "not exercised" verdict), and on
 * what the boots ran (THP and mTHP, command line, accelerator, CPU,
 * memory, kernel configs, WARN/BUG/lockdep splats as fail:runs).  Pure:
 * report_load.c's report_load reads the store and calls
 * report_exercise_set.
 *
 * DESIGN (the verdict).  A comparison whose series changes countable
 * functions (exercise.h: present once in the patched System.map) and in
 * whose boots none of them was ever called, on either side, measured code
 * the series did not change.  Its rows would read "no change" -- the false
 * answer this exists to stop -- so every row with numbers on both sides
 * reads "not exercised", and so does the headline.  A row the statistics
 * call significant is not turned into a regression or an improvement
 * either: a difference where nothing changed ran is suspicious (a build
 * layout effect, the machine) and is listed as such.  Functions that are
 * not countable (inlined, compiler copies, ambiguous names) count neither
 * way; a series with none countable is "not countable", and the
 * statistics' verdicts stand, said so on the page.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exercise.h"
#include "daemon/html.h"
#include "daemon/report.h"
#include "lib/xalloc.h"

static char *
jdup(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return xstrdup(s ? s : "");
}

void
report_exercise_release(struct report_exercise *e)
{
	for (size_t i = 0; i < e->nfns; i++) {
		free(e->fns[i].name);
		free(e->fns[i].file);
		free(e->fns[i].symbol);
		free(e->fns[i].status);
		free(e->fns[i].note);
	}
	free(e->fns);
	json_decref(e->changes);
	json_decref(e->env[0]);
	json_decref(e->env[1]);
	free(e->accel);
	free(e->splat[0]);
	free(e->splat[1]);
	memset(e, 0, sizeof(*e));
}

static void
ex_add_hits(struct report_exercise *e, int side, const json_t *hits)
{
	size_t i, k;
	const json_t *h;

	json_array_foreach(hits, i, h) {
		const char *fn = json_string_value(json_object_get(h,
		    "function"));

		for (k = 0; fn && k < e->nfns; k++) {
			if (strcmp(e->fns[k].symbol, fn))
				continue;
			if (json_is_integer(json_object_get(h, "hits"))) {
				e->fns[k].hits[side] += json_integer_value(
				    json_object_get(h, "hits"));
				e->fns[k].counted[side]++;
			} else
				e->fns[k].refused[side]++;
		}
	}
}

static void
ex_add_attempt(struct report_exercise *e, const json_t *a)
{
	const char *sd = json_string_value(json_object_get(a, "side"));
	const json_t *env = json_object_get(a, "environment");
	const json_t *sp = json_object_get(a, "splats");
	int side = sd && !strcmp(sd, "patched") ? REPORT_PATCHED :
	    REPORT_BASE;
	const char *acc;

	if (json_is_object(env)) {
		json_decref(e->env[side]);
		e->env[side] = json_deep_copy(env);
		acc = json_string_value(json_object_get(env, "accel"));
		if (acc) {
			free(e->accel);
			e->accel = xstrdup(acc);
			e->emulated |= !strncmp(acc, "tcg", 3);
		}
	}
	if (json_is_integer(sp)) {
		e->runs[side]++;
		if (json_integer_value(sp) > 0) {
			e->splats[side]++;
			if (!e->splat[side])
				e->splat[side] = jdup(a, "splat");
		}
	}
	ex_add_hits(e, side, json_object_get(a, "probe_hits"));
}

/* The state is exercise_state_of's (the scheduler uses the same rule). */
static void
ex_decide(struct report_exercise *e, const json_t *att)
{
	static const enum report_ex_state map[] = {
		[EXERCISE_NONE] = REPORT_EX_NONE,
		[EXERCISE_UNMEASURED] = REPORT_EX_UNMEASURED,
		[EXERCISE_UNCOUNTABLE] = REPORT_EX_UNCOUNTABLE,
		[EXERCISE_EXERCISED] = REPORT_EX_EXERCISED,
		[EXERCISE_NOT_EXERCISED] = REPORT_EX_NOT_EXERCISED,
	};

	for (size_t k = 0; k < e->nfns; k++)
		e->ncountable += !strcmp(e->fns[k].status, "probed");
	e->state = map[exercise_state_of(e->changes, att)];
}

void
report_exercise_set(struct report *r, json_t *changes, const json_t *att)
{
	struct report_exercise *e = &r->ex;
	const json_t *fns = json_object_get(changes, "functions"), *f, *a;
	size_t i;

	report_exercise_release(e);
	e->changes = json_incref(changes);
	e->nfns = json_array_size(fns);
	e->fns = xcalloc(e->nfns + 1, sizeof(*e->fns));
	json_array_foreach(fns, i, f) {
		e->fns[i].name = jdup(f, "name");
		e->fns[i].file = jdup(f, "file");
		e->fns[i].symbol = jdup(f, "symbol");
		e->fns[i].status = jdup(f, "status");
		e->fns[i].note = jdup(f, "note");
		e->fns[i].added = json_is_true(json_object_get(f, "added"));
	}
	json_array_foreach(att, i, a)
		ex_add_attempt(e, a);
	ex_decide(e, att);
}

/* ---- words -------------------------------------------------------------- */

static const char *
ex_state_word(enum report_ex_state s)
{
	switch (s) {
	case REPORT_EX_EXERCISED:	return "exercised";
	case REPORT_EX_NOT_EXERCISED:	return "not exercised";
	case REPORT_EX_UNCOUNTABLE:	return "not countable";
	case REPORT_EX_UNMEASURED:	return "not measured";
	case REPORT_EX_NONE:		break;
	}
	return NULL;
}

/* The one-paragraph explanation of the state. */
static void
ex_sentence(const struct report *r, struct buf *b)
{
	const struct report_exercise *e = &r->ex;

	switch (e->state) {
	case REPORT_EX_NOT_EXERCISED:
		buf_addf(b, "Not exercised: none of the %zu changed function%s "
		    "that can be counted ran in any boot, on either side (a "
		    "kprobe on each, in one pass after the measured runs, "
		    "counted 0 calls). The numbers measure code this series "
		    "did not change: the absence of a difference says "
		    "nothing about the series, and a significant difference "
		    "is not a regression or an improvement of it but "
		    "suspicious (the kernels' layout, the machine). Run a "
		    "suite that calls the changed code (--suite).",
		    e->ncountable,
		    e->ncountable == 1 ? "" : "s");
		break;
	case REPORT_EX_EXERCISED:
		buf_addstr(b, "Exercised: the changed code ran during the "
		    "workloads (calls per side below).");
		break;
	case REPORT_EX_UNCOUNTABLE:
		buf_addstr(b, "Not countable: no changed function can be "
		    "probed (inlined, compiler copies only, or a name defined "
		    "more than once), so whether the changed code ran is "
		    "unknown; the verdicts are the statistics' alone.");
		break;
	case REPORT_EX_UNMEASURED:
		buf_addstr(b, "Not measured: no boot has reported call counts "
		    "of the changed functions yet (an agent without the "
		    "counting pass, or boots still running).");
		break;
	case REPORT_EX_NONE:
		break;
	}
}

static void
ex_fn_hits(const struct report_fn *f, int s, char *out, size_t sz)
{
	if (strcmp(f->status, "probed"))
		snprintf(out, sz, "-");
	else if (f->counted[s] == 0)
		snprintf(out, sz, f->refused[s] ? "refused" : "-");
	else
		snprintf(out, sz, "%lld in %d boot%s", f->hits[s],
		    f->counted[s], f->counted[s] == 1 ? "" : "s");
}

static void
ex_fn_status(const struct report_fn *f, char *out, size_t sz)
{
	if (!strcmp(f->status, "inlined") || !strcmp(f->status, "specialised")
	    || !strcmp(f->status, "ambiguous"))
		snprintf(out, sz, "%s: not countable", f->status);
	else
		snprintf(out, sz, "%s", f->status);
}

/* "mm/swap.c -> lru-lock; mm/mlock.c -> all" */
static void
ex_suites_line(const struct report_exercise *e, struct buf *b)
{
	const json_t *su = json_object_get(e->changes, "suites"), *o, *w;
	size_t i, k;

	json_array_foreach(su, i, o) {
		const char *name = json_string_value(json_object_get(o,
		    "suite"));

		json_array_foreach(json_object_get(o, "why"), k, w) {
			if (b->len)
				buf_addstr(b, "; ");
			buf_addf(b, "%s -> %s", json_string_value(w) ?
			    json_string_value(w) : "?", name ? name : "?");
		}
	}
}

static const char *
env_str(const struct report *r, int s, const char *k)
{
	const char *v = json_string_value(json_object_get(r->ex.env[s], k));

	return v ? v : json_string_value(json_object_get(r->ex.env[!s], k));
}

/* What "emulated" means for the accelerator the boots ran under. */
static const char *
ex_emulated_words(const struct report_exercise *e)
{
	if (e->accel && strstr(e->accel, "icount"))
		return "TCG with icount, contention is emulated (the guest's "
		    "vCPUs run one at a time; a lock waiter or a delay loop "
		    "gives its turn to the others, so time under a lock costs "
		    "less than on hardware)";
	if (e->accel && strstr(e->accel, "multi-threaded"))
		return "multi-threaded TCG: the vCPUs run at once, but every "
		    "instruction is emulated and timing follows the host's "
		    "load";
	return "TCG, one vCPU at a time: contention is emulated";
}

/* ---- HTML --------------------------------------------------------------- */

static void
ex_html_env(const struct report *r, struct buf *b)
{
	static const char *const keys[][2] = { { "thp_enabled", "THP" },
	    { "thp_defrag", "THP defrag" }, { "mthp", "mTHP" },
	    { "cmdline", "command line" }, { "accel", "accelerator" },
	    { NULL, NULL } };

	buf_addstr(b, "<h3>Environment</h3>\n<dl class=\"env\">\n");
	for (size_t i = 0; keys[i][0]; i++) {
		const char *v = env_str(r, REPORT_PATCHED, keys[i][0]);

		buf_addf(b, "<dt>%s</dt><dd>", keys[i][1]);
		html_txt(b, v ? v : "-");
		buf_addstr(b, "</dd>\n");
	}
	buf_addstr(b, "<dt>machine</dt><dd>");
	html_txt(b, r->topology ? r->topology : "-");
	buf_addstr(b, "</dd>\n<dt>kernel config</dt><dd>");
	for (int s = 0; s < 2; s++) {
		if (r->kernel[s].build_id)
			buf_addf(b, "%s<a href=\"/api/v1/builds/%lld/config\">"
			    "%s</a>", s ? " &middot; " : "",
			    r->kernel[s].build_id, report_side_name(s));
	}
	buf_addstr(b, "</dd>\n<dt>WARN/BUG/lockdep (fail:runs)</dt><dd>");
	for (int s = 0; s < 2; s++) {
		buf_addf(b, "%s%s %d:%d", s ? " &middot; " : "",
		    report_side_name(s), r->ex.splats[s], r->ex.runs[s]);
		if (r->ex.splat[s]) {
			buf_addstr(b, " (<code>");
			html_txt(b, r->ex.splat[s]);
			buf_addstr(b, "</code>)");
		}
	}
	buf_addstr(b, "</dd>\n</dl>\n");
}

void
report_exercise_html(const struct report *r, struct buf *b)
{
	const struct report_exercise *e = &r->ex;
	struct buf t = BUF_INIT(0);
	char h[64], st[64];

	if (r->ex.emulated) {
		buf_addstr(b, "<p class=\"emulated\"><strong>emulated</strong>: ");
		html_txt(b, ex_emulated_words(e));
		buf_addstr(b, " (every row carries this mark).</p>\n");
	}
	if (e->changes) {
		buf_addstr(b, "<section id=\"changed-code\"><h3>Changed code"
		    "</h3>\n<p>Suites run: ");
		ex_suites_line(e, &t);
		html_txt(b, t.data ? t.data : "-");
		buf_addstr(b, " (matrix: ");
		html_txt(b, json_string_value(json_object_get(e->changes,
		    "matrix_source")) ? json_string_value(json_object_get(
		    e->changes, "matrix_source")) : "-");
		buf_addstr(b, ")</p>\n");
		if (json_is_string(json_object_get(e->changes,
		    "boots_source"))) {
			buf_addstr(b, "<p>Boots: ");
			html_txt(b, json_string_value(json_object_get(
			    e->changes, "boots_source")));
			buf_addstr(b, "</p>\n");
		}
		buf_reset(&t);
		ex_sentence(r, &t);
		if (t.len) {
			buf_addf(b, "<p class=\"exercise ex-%s\">", e->state ==
			    REPORT_EX_NOT_EXERCISED ? "not" : "note");
			html_txt(b, t.data);
			buf_addstr(b, "</p>\n");
		}
		buf_addstr(b, "<table class=\"functions\"><thead><tr><th>"
		    "function</th><th>file</th><th>status</th><th>base calls"
		    "</th><th>patched calls</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < e->nfns; i++) {
			const struct report_fn *f = &e->fns[i];

			buf_addstr(b, "<tr><td><code>");
			html_txt(b, f->name);
			buf_addstr(b, "</code>");
			if (f->added)
				buf_addstr(b, " (new)");
			buf_addstr(b, "</td><td>");
			html_txt(b, f->file);
			buf_addstr(b, "</td><td title=\"");
			html_attr(b, f->note);
			buf_addstr(b, "\">");
			ex_fn_status(f, st, sizeof(st));
			html_txt(b, st);
			for (int s = 0; s < 2; s++) {
				ex_fn_hits(f, s, h, sizeof(h));
				buf_addstr(b, "</td><td class=\"num\">");
				html_txt(b, h);
			}
			buf_addstr(b, "</td></tr>\n");
		}
		if (e->nfns == 0)
			buf_addstr(b, "<tr><td colspan=\"5\">no C function "
			    "changed</td></tr>\n");
		buf_addstr(b, "</tbody></table>\n<p class=\"note\">Each hunk "
		    "is mapped to the function enclosing it in the patched "
		    "source. A function is counted with a kprobe when the "
		    "patched build's System.map names it once (static "
		    "functions that were not inlined included); one absent "
		    "there was inlined into its callers and is \"inlined: not "
		    "countable\", as are compiler copies (.constprop, .isra) "
		    "and names defined more than once. Not countable functions "
		    "count neither for nor against \"exercised\".</p>\n"
		    "</section>\n");
	}
	ex_html_env(r, b);
	buf_release(&t);
}

/* ---- text --------------------------------------------------------------- */

void
report_exercise_text(const struct report *r, struct buf *b)
{
	const struct report_exercise *e = &r->ex;
	struct buf t = BUF_INIT(0);
	char h0[64], h1[64], st[64];

	if (e->changes) {
		buf_addstr(b, "\nChanged code\n  suites:   ");
		ex_suites_line(e, &t);
		buf_addf(b, "%s\n", t.data ? t.data : "-");
		buf_addf(b, "  matrix:   %s\n", json_string_value(
		    json_object_get(e->changes, "matrix_source")) ?
		    json_string_value(json_object_get(e->changes,
		    "matrix_source")) : "-");
		if (json_is_string(json_object_get(e->changes, "boots_source")))
			buf_addf(b, "  boots:    %s\n", json_string_value(
			    json_object_get(e->changes, "boots_source")));
		buf_reset(&t);
		ex_sentence(r, &t);
		if (t.len)
			buf_addf(b, "  %s\n", t.data);
		for (size_t i = 0; i < e->nfns; i++) {
			const struct report_fn *f = &e->fns[i];

			ex_fn_status(f, st, sizeof(st));
			ex_fn_hits(f, 0, h0, sizeof(h0));
			ex_fn_hits(f, 1, h1, sizeof(h1));
			buf_addf(b, "  %s%s (%s): %s; base %s, patched %s\n",
			    f->name, f->added ? " (new)" : "", f->file, st, h0,
			    h1);
		}
	}
	buf_addstr(b, "\nEnvironment\n");
	buf_addf(b, "  THP:      %s (defrag %s)\n", env_str(r, 1,
	    "thp_enabled") ? env_str(r, 1, "thp_enabled") : "-",
	    env_str(r, 1, "thp_defrag") ? env_str(r, 1, "thp_defrag") : "-");
	buf_addf(b, "  mTHP:     %s\n", env_str(r, 1, "mthp") ?
	    env_str(r, 1, "mthp") : "-");
	buf_addf(b, "  cmdline:  %s\n", env_str(r, 1, "cmdline") ?
	    env_str(r, 1, "cmdline") : "-");
	buf_addf(b, "  accel:    %s\n", e->accel ? e->accel : "-");
	for (int s = 0; s < 2; s++)
		if (r->kernel[s].build_id)
			buf_addf(b, "  config:   %s /api/v1/builds/%lld/config\n",
			    report_side_name(s), r->kernel[s].build_id);
	for (int s = 0; s < 2; s++)
		buf_addf(b, "  %-8s  WARN/BUG/lockdep fail:runs %d:%d%s%s\n",
		    report_side_name(s), e->splats[s], e->runs[s],
		    e->splat[s] ? "  first: " : "", e->splat[s] ?
		    e->splat[s] : "");
	if (e->emulated)
		buf_addf(b, "  emulated: %s\n", ex_emulated_words(e));
	buf_release(&t);
}

/* ---- JSON --------------------------------------------------------------- */

void
report_exercise_json(const struct report *r, json_t *o)
{
	const struct report_exercise *e = &r->ex;
	json_t *fns = json_array(), *env, *sp;
	const char *w = ex_state_word(e->state);

	for (size_t i = 0; i < e->nfns; i++) {
		const struct report_fn *f = &e->fns[i];
		json_t *fo = json_pack("{s:s,s:s,s:s,s:s,s:s,s:b}", "name",
		    f->name, "file", f->file, "symbol", f->symbol, "status",
		    f->status, "note", f->note, "added", f->added);

		json_object_set_new(fo, "countable", json_boolean(
		    !strcmp(f->status, "probed")));
		for (int s = 0; s < 2; s++)
			json_object_set_new(fo, report_side_name(s), json_pack(
			    "{s:o,s:i,s:i}", "hits", f->counted[s] ?
			    json_integer(f->hits[s]) : json_null(),
			    "boots_counted", f->counted[s], "boots_refused",
			    f->refused[s]));
		json_array_append_new(fns, fo);
	}
	json_object_set_new(o, "changes", e->changes ? json_pack(
	    "{s:O,s:O,s:O,s:O,s:o}", "files", json_object_get(e->changes,
	    "files"), "suites", json_object_get(e->changes, "suites"),
	    "matrix_source", json_object_get(e->changes, "matrix_source") ?
	    json_object_get(e->changes, "matrix_source") : json_null(),
	    "boots_source", json_object_get(e->changes, "boots_source") ?
	    json_object_get(e->changes, "boots_source") : json_null(),
	    "functions", fns) : (json_decref(fns), json_null()));
	json_object_set_new(o, "exercised", w ? json_string(w) : json_null());
	env = json_object();
	sp = json_object();
	for (int s = 0; s < 2; s++) {
		json_object_set_new(env, report_side_name(s), e->env[s] ?
		    json_deep_copy(e->env[s]) : json_null());
		json_object_set_new(sp, report_side_name(s), json_pack(
		    "{s:i,s:i,s:s%}", "fail", e->splats[s], "runs", e->runs[s],
		    "first", e->splat[s] ? e->splat[s] : "", e->splat[s] ?
		    strlen(e->splat[s]) : (size_t)0));
		json_object_set_new(env, s ? "config_patched" : "config_base",
		    r->kernel[s].build_id
		    ? json_sprintf("/api/v1/builds/%lld/config",
		    r->kernel[s].build_id) : json_null());
	}
	json_object_set_new(env, "accel", e->accel ? json_string(e->accel) :
	    json_null());
	json_object_set_new(env, "emulated", json_boolean(e->emulated));
	json_object_set_new(env, "splats", sp);
	json_object_set_new(o, "environment", env);
}
