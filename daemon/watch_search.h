/*
 * watch_search: a watched list read through the lore's search instead of
 * its Atom feed, which shows only the newest entries (a busy list polled
 * rarely scrolls series past it).  Each poll asks public-inbox for every
 * message received since the last complete poll (less an hour of overlap:
 * the seen-set makes repeats harmless) that touches a watched path (dfn:)
 * or names kperfci (a command in a reply):
 *
 *	POST <base><list>/?x=m&t=1&q=(dfn:"mm" OR ... OR kperfci) rt:SINCE..
 *
 * (t=1: whole threads, so a cover letter without a diff comes with its
 * patches) and hands the messages to the watch as feed entries, newest first, the
 * way new.atom lists them.
 */
#ifndef KPERFCI_WATCH_SEARCH_H
#define KPERFCI_WATCH_SEARCH_H

#include <stddef.h>

struct atom_feed;
struct buf;
struct db;

/*
 * Fills feed from a search for [watch "name"] (search = auto | yes | no).
 * 0 with feed filled; 1 when the feed must be read instead (search = no,
 * or auto and the inbox answers no search); -1 with err.
 */
int	watch_search_feed(struct db *, const char *name, const char *base,
	    const char *list, const char *const *paths, size_t npaths,
	    struct atom_feed *feed, struct buf *err);
/* The poll read every entry of that search: the next one starts there. */
void	watch_search_commit(struct db *, const char *name);

#endif
