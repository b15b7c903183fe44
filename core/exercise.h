/*
 * exercise: the daemon's half of "which suites does a series call for,
 * and was the code it changes exercised?".
 *
 * When a comparison is created (sched.c), exercise_plan reads the series'
 * diff base..patched from the tree (without context, so hunks are exactly
 * the changed lines), maps every touched path to a suite (changed.c's
 * table: "mm/swap.c -> lru-lock"; a path no row names -> all), maps every
 * hunk to the function enclosing it in the PATCHED source, and checks each
 * function against the patched build's System.map:
 *
 *   - named there exactly once: "probed" -- a kprobe counts its calls in
 *     the extra pass every boot makes after its measured passes (a static
 *     function that was not inlined is in System.map and probed like any
 *     other);
 *   - absent: "inlined" -- the compiler folded it into its callers, there
 *     is no address to probe, so it is reported as "inlined: not
 *     countable" and counts neither for nor against "exercised";
 *   - only compiler copies (name.constprop.0, .isra, .part): "specialised",
 *     not countable for the same reason;
 *   - named N > 1 times (static functions of the same name in several
 *     files): kprobes refuse a non-unique symbol, so it is reported as
 *     "defined N times: not countable" rather than probed at one address;
 *   - SYSCALL_DEFINE(name) functions are looked up as __do_sys_NAME, then
 *     __se_sys_NAME and __x64_sys_NAME.
 * At most PROTO_MAX_PROBES functions are probed; the rest say so.
 *
 * The plan (stored with the comparison as JSON, comparisons.changes) also
 * holds the suites and why, and the matrix is made from them
 * (exercise_matrix: etc/suites/NAME.conf, merged; etc/workloads.conf for
 * "all" or for a suite whose file does not exist, said in the plan).
 *
 * exercise_splats counts kernel-test-robot style WARN/BUG/lockdep reports
 * in a console log.
 */
#ifndef KPERFCI_EXERCISE_H
#define KPERFCI_EXERCISE_H

#include <stddef.h>

#include <jansson.h>

#include "lib/buf.h"


/* Most suites a submission may name. */
#define EXERCISE_MAX_SUITES	16

struct exercise_plan {
	json_t	*changes;	/* the analysis (owned): files, suites,
				   functions, matrix_source */
	json_t	*probes;	/* array of names to count (owned) */
	char	*matrix;	/* the suites' matrix, or NULL (owned) */
};

void	exercise_plan_release(struct exercise_plan *);

/*
 * The plan of a series whose commits base..patched are in repo; sysmap is
 * the patched build's System.map text (NULL: unknown, every function
 * "unknown"); asked: the suites a submitter named (JSON array) or NULL;
 * etc_dir: where suites/ and workloads.conf live.  0, or -1 with a
 * sentence in err.
 */
int	exercise_plan_make(const char *repo, const char *base,
	    const char *patched, const char *sysmap, size_t sysmap_len,
	    const json_t *asked, const char *etc_dir, struct exercise_plan *,
	    struct buf *err);

/*
 * The plan from the diff text itself (exercise_plan_make's pure part);
 * read_src(path, out, arg) appends the patched file to out: 0, 1 absent,
 * -1.  For tests.
 */
int	exercise_plan_diff(const char *diff, size_t len,
	    int (*read_src)(const char *path, struct buf *out, void *arg),
	    void *arg, const char *sysmap, size_t sysmap_len,
	    const json_t *asked, const char *etc_dir, struct exercise_plan *,
	    struct buf *err);

/*
 * Checks a submission's "suites": an array of 1..EXERCISE_MAX_SUITES names
 * of etc/suites/NAME.conf files (or "all").  0, or -1 with a sentence in
 * err.
 */
int	exercise_suites_check(const json_t *suites, const char *etc_dir,
	    struct buf *err);

/*
 * WARN/BUG/lockdep reports in a console log: how many, and the first line
 * (into first, sz bytes; "" when none).
 */
int	exercise_splats(const char *console, size_t len, char *first,
	    size_t sz);

/* Was the changed code exercised?  (The rule report_exercise.c shows.) */
enum exercise_state {
	EXERCISE_NONE = 0,		/* no plan */
	EXERCISE_UNMEASURED,		/* countable functions, no count yet */
	EXERCISE_UNCOUNTABLE,		/* no function can be probed */
	EXERCISE_EXERCISED,		/* a countable function was called */
	EXERCISE_NOT_EXERCISED,		/* counted, and never called */
};

/*
 * The state from a plan (changes) and the attempts' rows
 * (daemon/db_exercise.h's db_exercise_attempts): NOT_EXERCISED when some boot counted the probed
 * functions and no count, on either side, is above 0.
 */
enum exercise_state exercise_state_of(const json_t *changes,
	    const json_t *attempts);

#endif
