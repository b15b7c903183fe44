/*
 * bisect: which commit to test next, on an abstract commit graph, the way
 * `git bisect` chooses; and when to stop.
 *
 * The graph is the commits between the last good and the first bad head
 * (and those heads), each with its parents inside the graph, first parent
 * first.  Marks say what is known of each commit (good, bad, skip: did not
 * build or boot).  bisect_next() looks only at the graph and the marks, so
 * a bisect is resumed after a restart by reloading its stored marks.
 *
 * No I/O, no git: the nightly pipeline builds the graph from the tree
 * (tree.c) and runs the steps; tests/unit/t-bisect.c runs it on synthetic
 * graphs.
 */
#ifndef KPERFCI_BISECT_H
#define KPERFCI_BISECT_H

#include <stddef.h>

#define BISECT_MAX_COMMITS	100000

enum bisect_mark {
	BISECT_UNKNOWN = 0,
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIP,		/* does not build or boot: not testable */
};

struct bisect_graph {
	size_t	 n;
	const size_t *pstart;	/* n + 1 offsets into parents */
	const size_t *parents;	/* indices < n, first parent first */
};

enum bisect_status {
	BISECT_NEXT,		/* test commit next */
	BISECT_FOUND,		/* commit is the first bad commit */
	BISECT_ONLY_SKIPPED,	/* the first bad commit is one of suspects
				   (untestable commits and the bad one) */
};

struct bisect_answer {
	enum bisect_status status;
	size_t	 commit;	/* NEXT: to test; FOUND: the first bad */
	size_t	 remaining;	/* candidates left (bad one included) */
	int	 steps_left;	/* about log2(remaining) */
	size_t	*suspects;	/* ONLY_SKIPPED: malloc'd, the caller frees */
	size_t	 nsuspects;
};

/*
 * The next step.  first_parent: walk merges by their first parent only,
 * so a merge is tested (and may be named) as one commit, as
 * `git bisect --first-parent`; otherwise the whole graph, as plain `git
 * bisect`: the next commit is the one whose ancestors among the candidates
 * come closest to half of them.  Candidates are the ancestors of every
 * bad commit that are not ancestors of a good one.  Needs at least one bad
 * commit.  Returns 0, or -1 on a bad graph or contradictory marks (a bad
 * commit that is an ancestor of a good one), with the reason in err.
 */
int	bisect_next(const struct bisect_graph *, const unsigned char *marks,
	    int first_parent, struct bisect_answer *, char *err, size_t errsz);

#endif
