/*
 * mail_threads: "#kperfci" commands in the threads of series submitted by
 * lore URL (a watch reads its own list's; see mail_threads.c).
 */
#ifndef KPERFCI_MAIL_THREADS_H
#define KPERFCI_MAIL_THREADS_H

struct db;

#define MAIL_THREADS_MAX	50	/* newest series read */
#define MAIL_THREADS_DAYS	14	/* submitted at most this long ago */

/* One pass over those threads: the commands handed on, or -1 when the
   store cannot be read.  Called by the watch thread every [mail]
   thread_poll seconds. */
int	mail_threads_poll(struct db *);

#endif
