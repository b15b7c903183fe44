/*
 * noise: the boot-to-boot spread an agent class has shown (see noise.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/stats.h"
#include "daemon/db.h"
#include "daemon/db_sched.h"
#include "daemon/noise.h"
#include "lib/xalloc.h"

/* The row's entry, a new one when it has none yet. */
static struct noise_row *
noise_slot(struct noise *nz, const struct stats_row *r)
{
	struct noise_row *e = (struct noise_row *)noise_find(nz, r->workload,
	    r->params, r->metric);

	if (e)
		return e;
	if (nz->n == nz->cap) {
		nz->cap = nz->cap ? 2 * nz->cap : 32;
		nz->v = xrealloc(nz->v, nz->cap * sizeof(*nz->v));
	}
	e = &nz->v[nz->n++];
	memset(e, 0, sizeof(*e));
	e->workload = xstrdup(r->workload);
	e->params = xstrdup(r->params);
	e->metric = xstrdup(r->metric);
	e->better = r->better;
	return e;
}

static int
noise_side(const struct stats_side *s, double *ss)
{
	if (!s->present || s->nboots < 2 || !isfinite(s->pct_stddev))
		return 0;
	*ss += (double)(s->nboots - 1) * s->pct_stddev * s->pct_stddev;
	return (int)s->nboots - 1;
}

void
noise_add_result(struct noise *nz, const char *text)
{
	struct stats_result res;
	json_t *j;
	char err[160];
	size_t i;

	if (!text || !(j = json_loads(text, 0, NULL)))
		return;
	memset(&res, 0, sizeof(res));
	if (stats_result_from_json(j, &res, err, sizeof(err)) == 0) {
		for (i = 0; i < res.n; i++) {
			const struct stats_row *r = &res.rows[i];
			double ss = 0;
			int dof = noise_side(&r->base, &ss) +
			    noise_side(&r->test, &ss);
			struct noise_row *e;

			if (dof == 0)
				continue;
			e = noise_slot(nz, r);
			e->ss += ss;
			e->dof += dof;
			e->cv_pct = sqrt(e->ss / e->dof);
			e->ncomparisons++;
		}
		nz->ncomparisons++;
	}
	stats_result_release(&res);
	json_decref(j);
}

int
noise_class(struct db *db, const char *class, long long before_id,
    struct noise *nz)
{
	char **results = NULL;
	size_t n = 0, i;

	memset(nz, 0, sizeof(*nz));
	if (!class)
		return 0;
	if (db_sched_class_results(db, class, before_id,
	    NOISE_MAX_COMPARISONS, &results, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		noise_add_result(nz, results[i]);
		free(results[i]);
	}
	free(results);
	return 0;
}

const struct noise_row *
noise_find(const struct noise *nz, const char *workload, const char *params,
    const char *metric)
{
	size_t i;

	for (i = 0; nz && i < nz->n; i++)
		if (!strcmp(nz->v[i].workload, workload) &&
		    !strcmp(nz->v[i].params, params) &&
		    !strcmp(nz->v[i].metric, metric))
			return &nz->v[i];
	return NULL;
}

void
noise_release(struct noise *nz)
{
	size_t i;

	for (i = 0; i < nz->n; i++) {
		free(nz->v[i].workload);
		free(nz->v[i].params);
		free(nz->v[i].metric);
	}
	free(nz->v);
	memset(nz, 0, sizeof(*nz));
}
