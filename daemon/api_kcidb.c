/*
 * api_kcidb: GET /api/v1/kcidb?since=T[&limit=N] -- the KCIDB exports
 * stored after T (Unix seconds, default 0), merged into one KCIDB I/O
 * document, oldest first, at most limit exports (default 100, at most
 * 1000).  The document itself stays valid KCIDB (no extra top-level
 * keys), so the cursor travels in a header: Kperfci-Next-Since is the
 * newest export's time, to pass as the next since.  Nothing is computed
 * here: daemon/kcidb.c stored each export when its object finished.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "daemon/db_kcidb.h"
#include "daemon/http.h"
#include "daemon/kcidb.h"
#include "daemon/routes.h"

static int
api_kcidb_number(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;

	if (s == NULL)
		return 0;
	if (*s == '\0' || strspn(s, "0123456789") != strlen(s) ||
	    strlen(s) > 18)
		return -1;
	v = strtoll(s, &end, 10);
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int
api_kcidb(struct http_req *req, struct http_resp *resp)
{
	long long since = 0, limit = 100, last;
	char **bodies = NULL, hdr[32];
	long long *created = NULL;
	size_t n = 0;
	json_t *doc;

	if (api_kcidb_number(http_query(req, "since"), 0, 1LL << 62,
	    &since) == -1)
		return http_reply_error(resp, 400, "since: Unix seconds, "
		    "e.g. since=1700000000");
	if (api_kcidb_number(http_query(req, "limit"), 1, 1000, &limit) == -1)
		return http_reply_error(resp, 400, "limit: 1 to 1000");
	if (db_kcidb_since(req->db, since, (size_t)limit, &bodies, &created,
	    &n) == -1)
		return http_reply_error(resp, 500, "the store could not be "
		    "read");
	doc = kcidb_doc();
	last = since;
	for (size_t i = 0; i < n; i++) {
		json_t *one = json_loads(bodies[i], 0, NULL);

		if (one)
			kcidb_merge(doc, one);
		json_decref(one);
		free(bodies[i]);
		last = created[i];
	}
	free(bodies);
	free(created);
	snprintf(hdr, sizeof(hdr), "%lld", last);
	http_resp_header(resp, "Kperfci-Next-Since", hdr);
	return http_reply_json(resp, 200, doc);
}

const struct route api_kcidb_routes[] = {
	{ "GET", "/api/v1/kcidb", api_kcidb, 0, 0 },
	{ NULL, NULL, NULL, 0, 0 }
};
