/*
 * term: what the CLI prints from outside -- the server's answers, a lore
 * thread, an mbox -- made safe for a terminal.  A commit subject with ESC
 * or BEL in it must not move the cursor, retitle the window or ring.
 * Every command that prints such data prints it through these (track,
 * status, series show, submit's follow, wait, the client's error lines,
 * tree apply's and build's errors).
 *
 * What is replaced by '?': C0 control bytes but tab (and newline where
 * lines are kept), DEL, and the C1 controls U+0080..U+009F in UTF-8, which
 * some terminals obey like ESC.
 */
#ifndef KPERFCI_TERM_H
#define KPERFCI_TERM_H

#include <stddef.h>

#include "lib/buf.h"

/* One line: s with newlines replaced too.  "" for NULL.  The string
   lives until TERM_RING later calls. */
#define TERM_RING	16
const char *term_clean(const char *s);
/* Appends s[0..n) made safe; lines: keep '\n'. */
void	term_add(struct buf *, const char *s, size_t n, int lines);
/* printf to stdout, the whole formatted text made safe (lines kept). */
int	term_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same to stderr: error lines that carry git's, a patch's or a build
   log's text. */
int	term_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
