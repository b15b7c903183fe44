/*
 * tracks: what the faces ask of the nightly work, below both the track
 * threads (track.c) and the pages and API of tracks (ui_track.c,
 * api_track.c), so none of those includes another:
 *
 *	tracks_conf_get		[track "NAME"] as a struct track_conf
 *	tracks_run_now		a manual run stored, the threads woken
 *	tracks_report		a regression's report.txt (kernel test
 *				robot form), for the page and the API
 *
 * The threads register their wake-up (tracks_set_kick) when they start;
 * before that a queued run simply waits for them.
 */
#ifndef KPERFCI_TRACKS_H
#define KPERFCI_TRACKS_H

#include <stddef.h>

#include "lib/buf.h"

struct db;
struct track_regression;
struct bisect_step;

struct track_conf {
	char	*name, *tree, *branch, *matrix;	/* matrix: a path or NULL */
	int	 at_min;		/* minutes after local midnight, -1 */
	long	 every_sec;		/* 0: none */
	int	 boots, max_boots, priority, first_parent;
};

void	tracks_conf_release(struct track_conf *);
/* Fills tc from [track "name"] of app.settings.  0, or -1 (no such track). */
int	tracks_conf_get(const char *name, struct track_conf *tc);

/*
 * Queues a manual run of track name.  *id the run; *existing 1 when a run
 * of the track was already in progress (its id).  0, 1 unknown track, -1.
 */
int	tracks_run_now(struct db *, const char *name, long long *id,
	    int *existing);

/* What tracks_run_now calls to wake the track threads (track_start sets
   track_kick). */
void	tracks_set_kick(void (*)(void));

/* A regression's report.txt, kernel test robot form, appended to b. */
void	tracks_report(struct buf *b, const struct track_regression *,
	    const struct bisect_step *, size_t n);

#endif
