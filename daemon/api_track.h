/*
 * api_track: JSON and text of tracks, runs, regressions and bisect steps,
 * shared by the API routes (api_track.c) and the pages (ui_track.c).
 */
#ifndef KPERFCI_API_TRACK_H
#define KPERFCI_API_TRACK_H

#include <jansson.h>

#include "lib/buf.h"

struct track_run;
struct track_regression;
struct bisect_step;
struct track_conf;

json_t	*api_track_run_json(const struct track_run *);
json_t	*api_track_regression_json(const struct track_regression *);
json_t	*api_track_step_json(const struct bisect_step *);
json_t	*api_track_conf_json(const struct track_conf *);
/* The regression with "steps". */
json_t	*api_track_regression_full(const struct track_regression *,
	    const struct bisect_step *, size_t n);
/* report.txt, kernel test robot form. */
void	 api_track_report(struct buf *, const struct track_regression *,
	    const struct bisect_step *, size_t n);

#endif
