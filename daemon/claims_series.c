/*
 * claims_series: the claims of a stored series (see claims_series.h).
 */
#include <stdlib.h>

#include "core/claims.h"
#include "core/series.h"
#include "daemon/claims_series.h"
#include "daemon/db.h"
#include "lib/xalloc.h"

int
claims_series_extract(struct db *db, long long sid, struct claims *out)
{
	struct db_series s;
	int rc;

	if ((rc = db_series_get(db, sid, 1, &s)) != 0)
		return rc;
	if (s.cover_body)
		claims_extract(out, s.cover_body, "cover letter");
	for (size_t i = 0; i < s.npatches; i++) {
		char *where = xasprintf("patch %d/%d", s.patches[i].counter,
		    s.patches[i].total);

		claims_extract(out, s.patches[i].message, where);
		if (s.patches[i].notes)
			claims_extract(out, s.patches[i].notes, where);
		free(where);
	}
	db_series_release(&s);
	return 0;
}
