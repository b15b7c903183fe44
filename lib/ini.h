/*
 * ini: the one tokenizer for kperfci's "[section] key = value" files: the
 * daemon's kperfci.conf (daemon/config.c), the agent's agent.conf
 * (agents/agent_conf.c) and the workload matrix (agents/load/matrix.c, also
 * run by the daemon on a submitted matrix).  It knows the grammar only;
 * which sections and keys exist, their types, duplicates and defaults are
 * the callers' business, in their callbacks.  It needs nothing but libc, so
 * the static kperfci-load links it too.
 *
 *	# a comment              ; so is this (whole lines only)
 *	[section]
 *	[section "sub name"]
 *	key = value              value: the rest of the line, trimmed
 *	key = "  value  "        quotes keep spaces at the ends
 *
 * Names (section, key) are letters, digits, '-' and '_'; a subsection is
 * any non-empty text without '"'.  Lines end at '\n' ("\r\n" works: '\r'
 * is whitespace); a NUL byte anywhere is an error.
 *
 * Syntax errors are reported through ops->error as one sentence,
 * "file:line: what was wrong" (no newline).  A callback that refuses a
 * header or a key reports its own sentence and returns -1; the keys under
 * a refused (or malformed) header are skipped, not reported again.
 */
#ifndef KPERFCI_INI_H
#define KPERFCI_INI_H

#include <stddef.h>

/* What a callback sees; every pointer is borrowed for the call only. */
struct ini_item {
	const char	*file;
	int		 line;
	const char	*section;	/* never NULL */
	const char	*sub;		/* [section "sub"], else NULL */
	const char	*key;		/* NULL: the header line itself */
	const char	*value;		/* NULL for a header */
};

struct ini_ops {
	/* A header; NULL accepts every header.  0, or -1 (refused). */
	int	(*section)(void *ctx, const struct ini_item *);
	/* A key = value line under an accepted header.  0, or -1. */
	int	(*key)(void *ctx, const struct ini_item *);
	/* One syntax error sentence, "file:line: ...". */
	void	(*error)(void *ctx, const char *sentence);
	/* 1: stop at the first error (syntax or callback); 0: report all. */
	int	 stop;
};

/* Longest excerpt of an offending line quoted in a syntax error. */
#define INI_QUOTE_MAX	80

/*
 * Parses len bytes of text (need not be NUL-terminated).  file names the
 * text in messages.  Returns 0 when every line parsed and every callback
 * returned 0, else -1.
 */
int	ini_parse(const struct ini_ops *, void *ctx, const char *file,
	    const char *text, size_t len);

#endif
