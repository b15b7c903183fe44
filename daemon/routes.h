/*
 * routes: where areas plug into the daemon core.  Each area declares its
 * route table here and adds one line to the list in routes.c.
 */
#ifndef KPERFCI_ROUTES_H
#define KPERFCI_ROUTES_H

#include <jansson.h>

#include "daemon/http.h"
#include "lib/buf.h"

struct db;

/* Route tables, one per area (ended by { NULL }). */
extern const struct route api_series_routes[];
extern const struct route ui_routes[];
extern const struct route ui_series_routes[];	/* ui_series.c */
extern const struct route api_build_routes[];	/* api_build.c */
extern const struct route ui_build_routes[];	/* ui_build.c */
extern const struct route api_agent_routes[];
extern const struct route ui_agent_routes[];
extern const struct route api_manage_routes[];	/* api_manage.c */
extern const struct route api_watch_routes[];	/* api_watch.c */
extern const struct route api_track_routes[];	/* api_track.c */
extern const struct route ui_track_routes[];	/* ui_track.c */
extern const struct route api_kcidb_routes[];	/* api_kcidb.c */

/* The boot plan section of the series page (ui_series.c). */
void	ui_series_schedule(struct db *, long long series_id, struct buf *out);

#endif
