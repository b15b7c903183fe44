/*
 * routes: where areas plug into the daemon core.  Each area declares its
 * route table and (optionally) a series section here, and adds one line to
 * each list in routes.c.
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
extern const struct route api_build_routes[];	/* api_build.c */
extern const struct route ui_build_routes[];	/* ui_build.c */
extern const struct route api_agent_routes[];
extern const struct route ui_agent_routes[];
extern const struct route api_manage_routes[];	/* api_manage.c */
extern const struct route api_watch_routes[];	/* api_watch.c */
extern const struct route api_track_routes[];	/* api_track.c */
extern const struct route ui_track_routes[];	/* ui_track.c */

/*
 * A series section: an area's part of the series page and series JSON
 * (builds, comparisons).  json adds members to the series object (e.g.
 * "builds": [...]); html appends a <section> to the page.  Either may be
 * NULL.  They run on an HTTP thread with its db and must not block.
 */
struct series_section {
	const char *name;		/* NULL ends the list */
	int	(*json)(struct db *, long long series_id, json_t *obj);
	void	(*html)(struct db *, long long series_id, struct buf *out);
};

extern const struct series_section series_sections[];

/* The "manage" section (api_manage.c): owner, cancel and re-run. */
int	manage_series_json(struct db *, long long series_id, json_t *obj);
void	manage_series_html(struct db *, long long series_id, struct buf *out);

#endif
