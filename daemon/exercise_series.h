/*
 * exercise_series: the exercise plan (core/exercise.h) of a stored series:
 * its tree (daemon/trees.h), commits, the patched build's System.map and
 * the suites its submitter asked for.
 */
#ifndef KPERFCI_EXERCISE_SERIES_H
#define KPERFCI_EXERCISE_SERIES_H

#include "core/exercise.h"
#include "lib/buf.h"

struct db;

/* etc/ next to the schema directory (malloc'd). */
char	*exercise_etc_dir(void);
/* exercise_plan_make for series sid (its tree, commits, patched build's
   System.map, asked suites).  0, or -1 with err. */
int	exercise_series_plan(struct db *, long long sid,
	    struct exercise_plan *, struct buf *err);

#endif
