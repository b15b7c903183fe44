/*
 * db_exercise: the store of a comparison's exercise plan (core/exercise.h)
 * -- its changed functions and probes, each attempt's probe hits,
 * environment and console splats, and the suites a submitter asked for
 * (schema/0006-exercise.sql).  Only db_exercise.c holds their SQL.
 */
#ifndef KPERFCI_DB_EXERCISE_H
#define KPERFCI_DB_EXERCISE_H

#include <jansson.h>

#include "core/exercise.h"

struct db;

int	db_exercise_set(struct db *, long long comparison_id,
	    const json_t *changes, const json_t *probes);
/* The plan's JSON of a comparison: *changes (new ref or NULL). 0 or -1. */
int	db_exercise_get(struct db *, long long comparison_id, json_t **changes);
/* The probes of a job's comparison (new ref) or NULL. */
json_t	*db_exercise_job_probes(struct db *, long long job_id);
/* Stores what an upload says beyond samples: probe hits, environment,
   and the console's splat count. 0 or -1. */
int	db_exercise_attempt(struct db *, long long job_id, int attempt,
	    const json_t *upload);
/*
 * Per job of a comparison (its newest done attempt): side, boot, probe_hits,
 * environment, splats, splat — a JSON array of objects.  0 or -1.
 */
int	db_exercise_attempts(struct db *, long long comparison_id,
	    json_t **out);
/* The suites a submitter asked for (JSON array text) or NULL. */
int	db_exercise_request_set(struct db *, long long series_id,
	    const json_t *suites);
int	db_exercise_request_get(struct db *, long long series_id,
	    json_t **suites);
/* exercise_state_of for comparison cid, read from the store (NONE on
   errors). */
enum exercise_state exercise_comparison_state(struct db *, long long cid);

#endif
