/*
 * routes: the one list of route tables.  Each area adds one line;
 * nothing else in the core needs to change.
 */
#include <stddef.h>

#include "daemon/auth.h"
#include "daemon/html.h"
#include "daemon/mail.h"
#include "daemon/report.h"
#include "daemon/routes.h"
#include "daemon/sched.h"

const struct route *const http_route_tables[] = {
	api_series_routes,
	ui_routes,
	ui_series_routes,
	api_agent_routes,
	ui_agent_routes,
	api_build_routes,
	ui_build_routes,
	api_comparison_routes,
	api_manage_routes,
	api_watch_routes,
	api_track_routes,
	ui_track_routes,
	api_mail_routes,
	api_kcidb_routes,
	NULL
};

int (*const http_route_guard)(struct http_req *, const struct route *,
    struct http_resp *) = auth_guard;

int (*const http_route_preflight)(struct http_req *, const struct route *,
    struct http_resp *, char *, size_t) = auth_preflight;

void (*const http_route_error_page)(struct http_resp *, int, const char *) =
    html_error_page;
