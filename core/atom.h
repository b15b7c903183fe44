/*
 * atom: the entries of a public-inbox Atom feed (<list>/new.atom): each
 * message's title (its subject) and link (its lore URL).  A small,
 * bounded reader for exactly what public-inbox writes, not a general XML
 * parser: entries are <entry>...</entry>, the title the text of <title>,
 * the link the href of the first <link> in the entry, the author's
 * address the text of <author><email> when there is one.  Entities (&amp;
 * &lt; &gt; &quot; &apos; &#N; &#xN;) are decoded.
 *
 * One bad entry (no title, a title or link over 4 KB, a bad entity, one
 * not closed) is skipped and listed in skipped, never fatal: the good
 * entries beside it are still read.
 *
 * Core library: includes neither daemon/app.h nor db.h.
 */
#ifndef KPERFCI_ATOM_H
#define KPERFCI_ATOM_H

#include <stddef.h>

struct buf;

#define ATOM_MAX_ENTRIES	1000

#define ATOM_MAX_SKIPPED	32	/* skipped entries listed (all counted) */

struct atom_entry {
	char	*title;
	char	*link;
	char	*email;		/* the author's address, or NULL */
};

/* An entry that was skipped: its place in the feed (1-based), and why. */
struct atom_skip {
	size_t	 entry;
	char	*why;
};

struct atom_feed {
	struct atom_entry *v;
	size_t	 n;
	struct atom_skip *skipped;	/* the first ATOM_MAX_SKIPPED */
	size_t	 nskipped;		/* listed */
	size_t	 nbad;			/* all skipped, listed or not */
};

/*
 * Parses text[0..len).  Returns 0 (an empty feed is fine; bad entries
 * skipped and listed), or -1 with err when the text is not an Atom feed
 * at all ("no <feed> element").
 */
int	atom_parse(const char *text, size_t len, struct atom_feed *out,
	    struct buf *err);
void	atom_feed_release(struct atom_feed *);

#endif
