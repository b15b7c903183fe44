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
 * patches with trailers, and every series section's members.
 */
json_t	*api_series_json(struct db *, const struct db_series *, int full);

#endif
