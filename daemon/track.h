/*
 * track: nightly runs of tracked trees ([track "NAME"] in kperfci.conf),
 * their history, change points, regressions and bisects.
 *
 *	[track "mm-nightly"]
 *	tree = linux-6.12		an existing [tree "..."]
 *	branch = master			default: the tree's branch
 *	at = 02:00			local time; or every = 6h (m, h, d)
 *	matrix = etc/nightly.conf	default: [sched] matrix / workloads.conf
 *	boots = 3			per run (the history's boots per night)
 *	max_boots = 9			per bisect step, adaptive up to this
 *	priority = -100			jobs queue behind interactive series (0)
 *	first_parent = true		bisect along first parents
 *
 * A run is a stored request: queued -> fetched -> built -> running ->
 * done | failed.  One background thread (track_start) owns all of it: it
 * creates timer runs (a missed time runs once when the daemon comes back),
 * moves runs and bisects through their states, and resumes them after a
 * restart from the store.  Runs of one track never overlap.  The design
 * is argued at the top of track.c.
 */
#ifndef KPERFCI_TRACK_H
#define KPERFCI_TRACK_H

#include <time.h>

#include "daemon/tracks.h"
#include "lib/buf.h"

struct db;

/*
 * Whether a timer run is due at now: the newest scheduled time at or
 * before now (for at: the last HH:MM local; for every: since + k*every)
 * is after both since (the track's first sighting) and last (the newest
 * timer run, 0 if none).  So a daemon down over several nights runs once.
 */
int	track_due(const struct track_conf *, time_t since, time_t last,
	    time_t now);

/* Starts / stops the track thread; track_kick wakes it (a new run). */
int	track_start(int poll_sec);
void	track_kick(void);
void	track_stop(void);

/*
 * After a done run: the online rule (changepoint_online) over every
 * metric's history of track, and a regression (one per first bad run,
 * every opening metric listed) for what opens that none covers yet.  0 or
 * -1.  Called by the track thread; public for tests.
 */
int	track_analyse(struct db *, const char *track);

/* One pass over everything (timers, runs, bisects), on db.  For tests. */
int	track_pass(struct db *, volatile int *stop);

#endif
