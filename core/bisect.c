/*
 * bisect: the choice of the next commit and the end of a bisect (see
 * bisect.h).  No I/O.
 *
 * DESIGN
 *
 * Stateless over (graph, marks): every call recomputes the candidates
 *
 *	C = (intersection over bad b of ancestors(b)) - ancestors(goods)
 *
 * (ancestors include the commit itself; with first_parent the bad side is
 * walked along first parents only, the good side always over all parents,
 * as `git rev-list --first-parent bad ^good`).  The current bad commit is
 * the one bad commit left in C.  If C holds only it, it is the first bad
 * commit.  Otherwise the next commit t is the untested, unskipped
 * candidate maximising min(w, |C| - w), w = |ancestors(t) & C| (git's
 * "best bisection": either answer removes about half).  Ties go to the
 * earlier commit in the graph's order (the caller lists them newest
 * first, as rev-list does), so the choice is reproducible.  Skipped
 * commits are never chosen; when only skipped commits remain besides the
 * bad one, the answer is the list of suspects, as `git bisect skip` ends.
 * Each call costs O(|C| * graph) -- a few thousand commits between two
 * nights is nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bisect.h"
#include "lib/xalloc.h"

/* Marks in out[] (0/1) every ancestor of c, c included; returns the count
   of those also set in within[] (or all, within NULL). */
static size_t
bi_ancestors(const struct bisect_graph *g, size_t c, int first_parent,
    unsigned char *out, const unsigned char *within, size_t *stack)
{
	size_t sp = 0, count = 0, x, k, end;

	memset(out, 0, g->n);
	stack[sp++] = c;
	out[c] = 1;
	while (sp) {
		x = stack[--sp];
		if (!within || within[x])
			count++;
		end = g->pstart[x + 1];
		if (first_parent && end > g->pstart[x] + 1)
			end = g->pstart[x] + 1;
		for (k = g->pstart[x]; k < end; k++) {
			size_t p = g->parents[k];

			if (!out[p]) {
				out[p] = 1;
				stack[sp++] = p;
			}
		}
	}
	return count;
}

static int
bi_check(const struct bisect_graph *g, const unsigned char *marks,
    char *err, size_t errsz)
{
	size_t i, k, nbad = 0;

	if (g->n == 0 || g->n > BISECT_MAX_COMMITS) {
		snprintf(err, errsz, "bisect: %zu commits (1 to %d)", g->n,
		    BISECT_MAX_COMMITS);
		return -1;
	}
	for (i = 0; i < g->n; i++) {
		if (g->pstart[i + 1] < g->pstart[i]) {
			snprintf(err, errsz, "bisect: commit %zu: bad parent "
			    "list", i);
			return -1;
		}
		for (k = g->pstart[i]; k < g->pstart[i + 1]; k++)
			if (g->parents[k] >= g->n || g->parents[k] == i) {
				snprintf(err, errsz, "bisect: commit %zu: "
				    "parent %zu is not in the graph", i,
				    g->parents[k]);
				return -1;
			}
		if (marks[i] > BISECT_SKIP) {
			snprintf(err, errsz, "bisect: commit %zu: unknown "
			    "mark %d", i, marks[i]);
			return -1;
		}
		nbad += marks[i] == BISECT_BAD;
	}
	if (!nbad) {
		snprintf(err, errsz, "bisect: no bad commit");
		return -1;
	}
	return 0;
}

/* Computes the candidate set into cand; returns the current bad commit or
   (size_t)-1 with err set. */
static size_t
bi_candidates(const struct bisect_graph *g, const unsigned char *marks,
    int first_parent, unsigned char *cand, unsigned char *tmp,
    size_t *stack, char *err, size_t errsz)
{
	size_t i, j, bad = (size_t)-1;
	int first = 1;

	for (i = 0; i < g->n; i++) {
		if (marks[i] != BISECT_BAD)
			continue;
		if (first) {
			bi_ancestors(g, i, first_parent, cand, NULL, stack);
			first = 0;
			continue;
		}
		bi_ancestors(g, i, first_parent, tmp, NULL, stack);
		for (j = 0; j < g->n; j++)
			cand[j] &= tmp[j];
	}
	for (i = 0; i < g->n; i++) {
		if (marks[i] != BISECT_GOOD)
			continue;
		bi_ancestors(g, i, 0, tmp, NULL, stack);
		for (j = 0; j < g->n; j++) {
			if (tmp[j] && marks[j] == BISECT_BAD) {
				snprintf(err, errsz, "bisect: bad commit %zu "
				    "is an ancestor of good commit %zu", j, i);
				return (size_t)-1;
			}
			if (tmp[j])
				cand[j] = 0;
		}
	}
	for (i = 0; i < g->n; i++)
		if (cand[i] && marks[i] == BISECT_BAD)
			bad = i;
	if (bad == (size_t)-1)
		snprintf(err, errsz, "bisect: the bad commits have no common "
		    "descendant line (marks contradict the graph)");
	return bad;
}

static int
bi_log2(size_t n)
{
	int k = 0;

	while ((1ul << k) < n)
		k++;
	return k;
}

int
bisect_next(const struct bisect_graph *g, const unsigned char *marks,
    int first_parent, struct bisect_answer *a, char *err, size_t errsz)
{
	unsigned char *cand = NULL, *tmp = NULL;
	size_t *stack = NULL, i, n = 0, bad, best = (size_t)-1, w, s;
	size_t best_score = 0;
	int ret = -1;

	memset(a, 0, sizeof(*a));
	if (bi_check(g, marks, err, errsz) < 0)
		return -1;
	cand = xcalloc(g->n, 1);
	tmp = xcalloc(g->n, 1);
	stack = xcalloc(g->n + 1, sizeof(*stack));
	bad = bi_candidates(g, marks, first_parent, cand, tmp, stack, err,
	    errsz);
	if (bad == (size_t)-1)
		goto out;
	for (i = 0; i < g->n; i++)
		n += cand[i];
	a->remaining = n;
	a->steps_left = bi_log2(n);
	for (i = 0; i < g->n; i++) {
		if (!cand[i] || i == bad || marks[i] == BISECT_SKIP)
			continue;
		w = bi_ancestors(g, i, first_parent, tmp, cand, stack);
		s = w < n - w ? w : n - w;
		if (best == (size_t)-1 || s > best_score) {
			best = i;
			best_score = s;
		}
	}
	if (n == 1) {
		a->status = BISECT_FOUND;
		a->commit = bad;
	} else if (best != (size_t)-1) {
		a->status = BISECT_NEXT;
		a->commit = best;
	} else {
		a->status = BISECT_ONLY_SKIPPED;
		a->commit = bad;
		a->suspects = xcalloc(n, sizeof(size_t));
		for (i = 0; i < g->n; i++)
			if (cand[i])
				a->suspects[a->nsuspects++] = i;
	}
	ret = 0;
out:
	free(cand);
	free(tmp);
	free(stack);
	return ret;
}
