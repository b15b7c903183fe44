/*
 * changed: what a series changes, read from its diff and its patched
 * source: the files it touches, the suites those files call for, and the
 * C functions its hunks change.  Pure: no store, no git, no daemon (the
 * glue that reads blobs and System.map is core/exercise.c), so unit
 * tests and the fuzz target link only this.
 *
 * Functions, in the PATCHED source (a hunk's "+" side):
 *   - a function is a top-level `{ ... }` block whose head (the text since
 *     the previous top-level `;`, `}` or preprocessor line) has a
 *     parenthesised parameter list and no `=` (an initialiser is not a
 *     function): `static inline`, `__always_inline`, attributes before the
 *     name or after the parameters (`__releases(x)`) all work;
 *   - SYSCALL_DEFINEn(name, ...) and COMPAT_SYSCALL_DEFINEn are functions
 *     named sys_NAME / compat_sys_NAME (the symbol resolver in exercise.c
 *     looks for __do_sys_NAME, __x64_sys_NAME...);
 *   - a hunk that spans several functions changes each of them; a hunk
 *     whose lines all lie between functions (a comment, a declaration, a
 *     macro) changes none; a function wholly inside the added lines of one
 *     hunk is new ("added");
 *   - a line inside a multi-line #define belongs to no function.
 * Comments, strings and character literals are skipped, so braces in them
 * do not count.  Nothing here knows whether the compiler inlined a
 * function: that is decided against the build's System.map (exercise.c).
 */
#ifndef KPERFCI_CHANGED_H
#define KPERFCI_CHANGED_H

#include <stddef.h>

#include "lib/buf.h"

/* Limits on what one series can name. */
#define CHANGED_MAX_FILES	4096
#define CHANGED_MAX_HUNKS	65536	/* over all files */
#define CHANGED_MAX_NAME	128	/* a function name, NUL included */

/* One hunk, new (patched) side: lines start .. start+count-1; count 0 is
   a pure deletion after line start. */
struct changed_hunk {
	long	 start, count;
};

struct changed_file {
	char	*path;			/* the patched path ("mm/swap.c") */
	int	 deleted;		/* the series removes the file */
	struct changed_hunk *hunks;
	size_t	 nhunks;
};

struct changed_diff {
	struct changed_file *files;
	size_t	 n;
};

/*
 * Parses a unified diff (git's format, any context size; `git diff -U0`
 * gives exact ranges) into files and new-side hunk ranges.  Binary files
 * and renames without content changes appear with no hunks.  0, or -1 with
 * a sentence in err naming the offending line.  Release with
 * changed_diff_release whatever the result.
 */
int	changed_diff_parse(struct changed_diff *, const char *text, size_t len,
	    struct buf *err);
void	changed_diff_release(struct changed_diff *);

/* One function definition in a source file. */
struct changed_span {
	char	 name[CHANGED_MAX_NAME];
	long	 start, end;		/* first line of the head, closing } */
};

/*
 * The function definitions of a C source (see the rules above), in order.
 * Returns how many (0 for a file without any), *out allocated (free()).
 */
size_t	changed_spans(const char *src, size_t len, struct changed_span **out);

/* The function of spans enclosing line, or NULL. */
const struct changed_span *changed_span_at(const struct changed_span *,
	    size_t n, long line);

/* One changed function of one file. */
struct changed_fn {
	char	 name[CHANGED_MAX_NAME];
	int	 added;			/* wholly inside added lines */
};

/*
 * The functions of src (the patched file) that f's hunks change, each
 * once, in source order.  Returns how many (at most max) in out.
 */
size_t	changed_functions(const struct changed_file *f, const char *src,
	    size_t len, struct changed_fn *out, size_t max);

/* 1 for a C identifier of at most CHANGED_MAX_NAME - 1 bytes. */
int	changed_valid_ident(const char *);

/*
 * The suite a touched path calls for (the table in changed.c: mm/swap.c
 * -> "lru-lock" ...), or NULL when none does (the series then runs all).
 */
const char *changed_suite_of(const char *path);

/* The table itself, for the page and the docs: rows until path NULL. */
struct changed_suite_row {
	const char *path;
	const char *suite;
};
extern const struct changed_suite_row changed_suite_map[];

/*
 * How many text symbols (types t, T, w, W) named exactly name
 * System.map (sysmap, len bytes) lists; *variants gets how many
 * compiler-specialised copies (name.constprop.N, name.isra.N, name.part.N,
 * name.cold) it lists.
 */
int	changed_sysmap_count(const char *sysmap, size_t len, const char *name,
	    int *variants);

#endif
