/*
 * api_series: the series JSON API (routes in api_series_routes).
 */
#ifndef KPERFCI_API_SERIES_H
#define KPERFCI_API_SERIES_H

#include <jansson.h>

struct db;
struct db_series;

/*
 * The JSON object of a series.  full adds the cover letter, footers,
 * patches with trailers, the comparison, builds, schedule and owner.
 */
json_t	*api_series_json(struct db *, const struct db_series *, int full);
/* Adds "schedule" (the boot plan of the series' comparison) to obj. */
int	 api_series_schedule(struct db *, long long series_id, json_t *obj);

struct db_build;
/* A build as JSON (GET /api/v1/builds/{id}, a series' "builds"). */
json_t	*api_build_json(const struct db_build *);

#endif
