/*
 * api_watch: the watched lists as JSON.
 *
 *	GET /api/v1/watches	[{name, lore, list, paths, poll, per_day,
 *				  priority, last_poll, failures, seen,
 *				  submitted, last_error}]
 */
#include <jansson.h>

#include "daemon/http.h"
#include "daemon/routes.h"
#include "daemon/watches.h"

static int
api_watches(struct http_req *req, struct http_resp *resp)
{
	(void)req;
	return http_reply_json(resp, 200, json_pack("{s:o}", "watches",
	    watches_json()));
}

const struct route api_watch_routes[] = {
	{ "GET", "/api/v1/watches", api_watches, 0, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
