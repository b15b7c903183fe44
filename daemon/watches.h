/*
 * watches: the table of watched lists, one entry per [watch "NAME"], and
 * what each poll left in it (its time, failures, last error, skipped
 * entries).  The watch thread (watch.c) loads it, polls and writes it;
 * GET /api/v1/watches (api_watch.c) reads it through watches_json.  Below
 * both, so the API never includes the thread.
 */
#ifndef KPERFCI_WATCHES_H
#define KPERFCI_WATCHES_H

#include <stddef.h>
#include <time.h>

#include <jansson.h>

#include "core/atom.h"

struct settings;

#define WATCH_MAX_SKIPPED	ATOM_MAX_SKIPPED
/* Series roots whose threads were not complete when first read (a cover
   letter reaches the lore before its patches): looked at again, each for
   WATCH_SETTLE seconds from the first look, before they are skipped. */
#define WATCH_MAX_PENDING	64
#define WATCH_SETTLE		3600

struct watch_pending {
	char		*msgid;
	time_t		 first;
};

struct watch {
	const char	*name;		/* borrowed from app.settings */
	const char	*lore, *list;
	const char	**paths;
	size_t		 npaths;
	long long	 poll, per_day, priority, author_max;
	/* the poll's state, under watches_lock */
	time_t		 next, last_poll;
	int		 failures;
	char		*last_error;
	long long	 last_new;	/* series submitted by the last poll */
	char		*skipped[WATCH_MAX_SKIPPED];	/* the last poll's */
	size_t		 nskipped, nbad;
	/* the watch thread's own (no lock) */
	struct watch_pending pending[WATCH_MAX_PENDING];
};

/* Fills the table from set's [watch] sections (names, lists and paths
   borrowed from set), each due now; watches_release empties it. */
void	 watches_load(const struct settings *set);
void	 watches_release(void);
/* The entries, 0 <= i < watches_count(). */
size_t	 watches_count(void);
struct watch *watches_get(size_t i);

/*
 * The lock of every entry's poll state.  watches_wait sleeps (the lock
 * held, as pthread_cond_timedwait) until watches_wake or the absolute
 * time until.
 */
void	 watches_lock(void);
void	 watches_unlock(void);
void	 watches_wait(const struct timespec *until);
void	 watches_wake(void);

/* GET /api/v1/watches: each watch, its settings and its state. */
json_t	*watches_json(void);

#endif
