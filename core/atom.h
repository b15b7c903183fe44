/*
 * atom: the entries of a public-inbox Atom feed (<list>/new.atom): each
 * message's title (its subject) and link (its lore URL).  A small,
 * bounded reader for exactly what public-inbox writes, not a general XML
 * parser: entries are <entry>...</entry>, the title the text of <title>,
 * the link the href of the first <link> in the entry.  Entities (&amp;
 * &lt; &gt; &quot; &apos; &#N; &#xN;) are decoded.
 *
 * Core library: includes neither daemon/app.h nor db.h.
 */
#ifndef KPERFCI_ATOM_H
#define KPERFCI_ATOM_H

#include <stddef.h>

struct buf;

#define ATOM_MAX_ENTRIES	1000

struct atom_entry {
	char	*title;
	char	*link;
};

struct atom_feed {
	struct atom_entry *v;
	size_t	 n;
};

/*
 * Parses text[0..len).  Returns 0 (an empty feed is fine), or -1 with err
 * when the text is not an Atom feed at all ("no <feed> element") or an
 * entry is malformed (which entry, and why).
 */
int	atom_parse(const char *text, size_t len, struct atom_feed *out,
	    struct buf *err);
void	atom_feed_release(struct atom_feed *);

#endif
