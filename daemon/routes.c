/*
 * routes: the one list of route tables and series sections.  Each area
 * adds one line per list; nothing else in the core needs to change.
 */
#include <stddef.h>

#include "daemon/routes.h"

const struct route *const http_route_tables[] = {
	api_series_routes,
	ui_routes,
	api_agent_routes,
	NULL
};

const struct series_section series_sections[] = {
	{ NULL, NULL, NULL }
};
