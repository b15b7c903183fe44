/*
 * mailcmd: the commands kperfci takes in replies on a list, read from the
 * body of a message (outside input: every field is checked here).
 *
 *	#kperfci test [suite NAME] [boots N|auto] [base REV]
 *	#kperfci retest
 *	#kperfci cancel
 *
 * The first line of the body that starts with "#kperfci" (after blanks)
 * is the command; quoted lines ("> ...") are never read, so quoting an
 * earlier command does not repeat it.  Words are separated by blanks; a
 * word is at most MAILCMD_WORD_MAX bytes of printable ASCII.
 */
#ifndef KPERFCI_MAILCMD_H
#define KPERFCI_MAILCMD_H

#include <stddef.h>

#include "lib/buf.h"

#define MAILCMD_WORD_MAX	128
#define MAILCMD_MAX_BOOTS	100

enum mailcmd_verb { MAILCMD_TEST = 1, MAILCMD_RETEST, MAILCMD_CANCEL };

struct mailcmd {
	enum mailcmd_verb verb;
	char	 suite[MAILCMD_WORD_MAX + 1];	/* "" when not given */
	int	 boots;				/* 0 not given, -1 auto */
	char	 base[MAILCMD_WORD_MAX + 1];	/* "" when not given */
	char	 line[MAILCMD_WORD_MAX * 4];	/* the command as read */
};

/*
 * Looks for a command in body[0..len).  1 with *out filled, 0 when the
 * body has no command line, -1 when it has one that is malformed (a
 * sentence in err naming the word: the reply says why).
 */
int	mailcmd_find(const char *body, size_t len, struct mailcmd *out,
	    struct buf *err);

/* "test suite lru-lock boots 6": the command in canonical words. */
void	mailcmd_format(const struct mailcmd *, struct buf *out);

#endif
