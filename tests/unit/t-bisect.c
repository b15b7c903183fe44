/*
 * t-bisect: the bisect logic (core/bisect.c) on synthetic commit graphs:
 * linear histories (every possible first bad commit found, within
 * ceil(log2) steps), merges (whole-graph and first-parent walks), commits
 * that do not build (skipped, suspects when they hide the answer), bad
 * input, and that the answer depends only on the stored marks (resume).
 *
 * The oracle: a commit is bad iff the first bad commit f is among its
 * ancestors (itself included), over all parents.
 */
#include <stdlib.h>
#include <string.h>

#include "core/bisect.h"
#include "tests/unit/tap.h"

#define MAXN 256

struct g {
	size_t	 n;
	size_t	 pstart[MAXN + 1];
	size_t	 parents[2 * MAXN];
	size_t	 np;
};

static void
g_add(struct g *g, long p1, long p2)
{
	g->pstart[g->n] = g->np;
	if (p1 >= 0)
		g->parents[g->np++] = p1;
	if (p2 >= 0)
		g->parents[g->np++] = p2;
	g->n++;
	g->pstart[g->n] = g->np;
}

static struct bisect_graph
g_view(const struct g *g)
{
	struct bisect_graph v = { g->n, g->pstart, g->parents };

	return v;
}

/* 1 if a is an ancestor of b or b itself (all parents). */
static int
is_anc(const struct g *g, size_t a, size_t b)
{
	size_t k;

	if (a == b)
		return 1;
	for (k = g->pstart[b]; k < g->pstart[b + 1]; k++)
		if (is_anc(g, a, g->parents[k]))
			return 1;
	return 0;
}

/*
 * Runs a bisect from good to bad with first bad commit f; unbuildable
 * commits (skip[i]) are marked skipped when chosen.  Returns the answer's
 * status; *steps the commits tested or skipped, *who the answer.
 */
static int
simulate(const struct g *g, size_t good, size_t bad, size_t f,
    const unsigned char *skip, int first_parent, int *steps, size_t *who,
    struct bisect_answer *last)
{
	struct bisect_graph v = g_view(g);
	unsigned char marks[MAXN] = { 0 };
	struct bisect_answer a;
	char err[128];

	marks[good] = BISECT_GOOD;
	marks[bad] = BISECT_BAD;
	*steps = 0;
	for (;;) {
		if (bisect_next(&v, marks, first_parent, &a, err,
		    sizeof(err)) < 0) {
			printf("# %s\n", err);
			return -1;
		}
		if (a.status != BISECT_NEXT || *steps > (int)g->n)
			break;
		(*steps)++;
		if (skip && skip[a.commit])
			marks[a.commit] = BISECT_SKIP;
		else
			marks[a.commit] = is_anc(g, f, a.commit) ?
			    BISECT_BAD : BISECT_GOOD;
	}
	*who = a.commit;
	if (last)
		*last = a;
	else
		free(a.suspects);
	return a.status;
}

static void
test_linear(void)
{
	struct g g = { 0 };
	size_t i, f, who;
	int steps, maxsteps = 0, allfound = 1;

	g_add(&g, -1, -1);
	for (i = 1; i < 64; i++)
		g_add(&g, i - 1, -1);
	for (f = 1; f < 64; f++) {
		int st = simulate(&g, 0, 63, f, NULL, 1, &steps, &who, NULL);

		if (st != BISECT_FOUND || who != f) {
			allfound = 0;
			printf("# f=%zu: status %d, got %zu\n", f, st, who);
		}
		if (steps > maxsteps)
			maxsteps = steps;
	}
	ok(allfound, "linear, 63 candidates: every first bad commit found");
	ok(maxsteps <= 6, "in at most ceil(log2 63) = 6 steps (max %d)",
	    maxsteps);

	{
		struct bisect_graph v = g_view(&g);
		unsigned char marks[MAXN] = { 0 };
		struct bisect_answer a, b;
		char err[128];

		marks[0] = BISECT_GOOD;
		marks[63] = BISECT_BAD;
		bisect_next(&v, marks, 0, &a, err, sizeof(err));
		is_int(a.status, BISECT_NEXT, "first step is a test");
		ok(a.commit >= 31 && a.commit <= 32,
		    "of the midpoint (%zu)", a.commit);
		is_int(a.remaining, 63, "63 candidates");
		is_int(a.steps_left, 6, "about 6 steps left");
		marks[a.commit] = BISECT_BAD;
		bisect_next(&v, marks, 0, &a, err, sizeof(err));
		bisect_next(&v, marks, 0, &b, err, sizeof(err));
		ok(a.commit == b.commit && a.remaining == b.remaining,
		    "the same marks give the same step (resume)");
		/* adjacent good and bad: done without a test */
		memset(marks, 0, sizeof(marks));
		marks[40] = BISECT_GOOD;
		marks[41] = BISECT_BAD;
		bisect_next(&v, marks, 0, &a, err, sizeof(err));
		ok(a.status == BISECT_FOUND && a.commit == 41,
		    "good parent, bad child: the child, no step");
	}
}

/*
 * main:  0 - 1 - 2 ---------- 3 - 4 - M(9) - 10
 *                 \                   /
 * side:            5 - 6 - 7 - 8 ----
 * M's first parent is 4, second 8.
 */
static void
build_merge(struct g *g)
{
	memset(g, 0, sizeof(*g));
	g_add(g, -1, -1);	/* 0 */
	g_add(g, 0, -1);	/* 1 */
	g_add(g, 1, -1);	/* 2 */
	g_add(g, 2, -1);	/* 3 */
	g_add(g, 3, -1);	/* 4 */
	g_add(g, 2, -1);	/* 5 */
	g_add(g, 5, -1);	/* 6 */
	g_add(g, 6, -1);	/* 7 */
	g_add(g, 7, -1);	/* 8 */
	g_add(g, 4, 8);		/* 9: merge */
	g_add(g, 9, -1);	/* 10 */
}

static void
test_merges(void)
{
	struct g g;
	size_t who, f;
	int steps, st, ok_all = 1;

	build_merge(&g);
	st = simulate(&g, 0, 10, 7, NULL, 0, &steps, &who, NULL);
	ok(st == BISECT_FOUND && who == 7,
	    "whole graph: a bad commit on a merged branch is named (%zu)",
	    who);
	st = simulate(&g, 0, 10, 7, NULL, 1, &steps, &who, NULL);
	ok(st == BISECT_FOUND && who == 9,
	    "first parent: the merge that brought it is named (%zu)", who);
	st = simulate(&g, 0, 10, 3, NULL, 1, &steps, &who, NULL);
	ok(st == BISECT_FOUND && who == 3,
	    "first parent: a main-line commit is named (%zu)", who);
	for (f = 1; f <= 10; f++) {
		st = simulate(&g, 0, 10, f, NULL, 0, &steps, &who, NULL);
		if (st != BISECT_FOUND || who != f) {
			ok_all = 0;
			printf("# f=%zu: %d %zu\n", f, st, who);
		}
	}
	ok(ok_all, "whole graph: every commit of the merge graph found");
	{
		/* the good side is excluded over all parents: good = 8 (the
		   side branch tip) leaves only main-line commits 3, 4, 9, 10 */
		struct bisect_graph v = g_view(&g);
		unsigned char marks[MAXN] = { 0 };
		struct bisect_answer a;
		char err[128];

		marks[8] = BISECT_GOOD;
		marks[10] = BISECT_BAD;
		bisect_next(&v, marks, 0, &a, err, sizeof(err));
		is_int(a.remaining, 4, "good side branch tip: 4 candidates");
	}
}

static void
test_skips(void)
{
	struct g g = { 0 };
	unsigned char skip[MAXN] = { 0 };
	struct bisect_answer a;
	size_t i, who;
	int steps, st, found;

	g_add(&g, -1, -1);
	for (i = 1; i < 32; i++)
		g_add(&g, i - 1, -1);
	skip[15] = skip[16] = skip[8] = 1;
	st = simulate(&g, 0, 31, 20, skip, 1, &steps, &who, NULL);
	ok(st == BISECT_FOUND && who == 20,
	    "unbuildable commits elsewhere: the first bad still found (%zu)",
	    who);
	st = simulate(&g, 0, 31, 17, skip, 1, &steps, &who, &a);
	is_int(st, BISECT_ONLY_SKIPPED,
	    "first bad right after unbuildable ones: cannot be decided");
	found = 0;
	for (i = 0; i < a.nsuspects; i++)
		found |= a.suspects[i] == 17;
	ok(a.nsuspects == 3 && found,
	    "suspects are 15, 16 and 17 (%zu of them)", a.nsuspects);
	free(a.suspects);
	memset(skip, 1, sizeof(skip));
	st = simulate(&g, 0, 31, 9, skip, 1, &steps, &who, &a);
	ok(st == BISECT_ONLY_SKIPPED && a.nsuspects == 31 && steps <= 31,
	    "nothing builds: it ends, all 31 suspects, %d steps", steps);
	free(a.suspects);
}

static void
test_bad_input(void)
{
	struct g g = { 0 };
	struct bisect_graph v;
	unsigned char marks[MAXN] = { 0 };
	struct bisect_answer a;
	char err[128] = "";
	size_t i;

	g_add(&g, -1, -1);
	for (i = 1; i < 8; i++)
		g_add(&g, i - 1, -1);
	v = g_view(&g);
	marks[0] = BISECT_GOOD;
	is_int(bisect_next(&v, marks, 1, &a, err, sizeof(err)), -1,
	    "no bad commit: refused");
	ok(strstr(err, "no bad") != NULL, "saying so (%s)", err);
	marks[7] = BISECT_GOOD;
	marks[3] = BISECT_BAD;
	is_int(bisect_next(&v, marks, 1, &a, err, sizeof(err)), -1,
	    "bad ancestor of a good: refused");
	ok(strstr(err, "ancestor of good") != NULL, "saying so (%s)", err);
	g.parents[2] = 99;
	memset(marks, 0, sizeof(marks));
	marks[7] = BISECT_BAD;
	is_int(bisect_next(&v, marks, 1, &a, err, sizeof(err)), -1,
	    "a parent outside the graph: refused");
	ok(strstr(err, "not in the graph") != NULL, "saying so (%s)", err);
}

int
main(void)
{
	test_linear();
	test_merges();
	test_skips();
	test_bad_input();
	return tap_done();
}
