/*
 * kcidb: results in the kernel CI ecosystem's common form, KCIDB I/O JSON
 * (schema v5.3 of github.com/kernelci/kcidb-io; the copy the tests
 * validate against is tests/fixtures/kcidb/).
 *
 * What becomes what:
 *   comparison  two checkouts (the base commit; the base with the series,
 *               "-patched"), one build each, and per statistics row one
 *               test per side: path kperfci.WORKLOAD.METRIC, number = the
 *               side's mean with its unit; the patched test's status is
 *               the row's verdict (regression FAIL, improvement and no
 *               change PASS, inconclusive DONE, missing MISS); every
 *               boot is a test kperfci.boot (boot-failed FAIL, the
 *               reason as comment)
 *   track run   the tested head's checkout and build, one DONE test per
 *               (workload, params, metric) with the mean over the boots
 *   bisect      per step a checkout of its commit, its build and one test
 *               of the regression's metric: bad FAIL, good PASS, skip
 *               SKIP, number = %change against the good run
 * ids are ORIGIN:c<comparison>..., ORIGIN:t<run>..., ORIGIN:s<step>...
 *
 * The renderers are pure (unit tests call them on built models); the
 * worker (kcidb_start) exports each finished object once into the store
 * (db_kcidb.h), then hands each new export to [kcidb] submit, an argv
 * run without a shell with the JSON on stdin, retried with backoff.
 */
#ifndef KPERFCI_KCIDB_H
#define KPERFCI_KCIDB_H

#include <stddef.h>

#include <jansson.h>

#define KCIDB_MAJOR	5
#define KCIDB_MINOR	3

struct db;
struct report;
struct track_run;
struct track_point;
struct track_regression;
struct bisect_step;

/* An empty KCIDB document ({"version": ..., "checkouts": [], ...}). */
json_t	*kcidb_doc(void);
/* Appends src's checkouts, builds and tests to dst (src borrowed). */
void	kcidb_merge(json_t *dst, const json_t *src);

/* The export of a comparison (r loaded with its result), a new doc. */
json_t	*kcidb_comparison(const struct report *r, const char *origin);
/* The export of a track run: tree_url (https only is kept) may be NULL. */
json_t	*kcidb_track_run(const struct track_run *run, const char *tree_url,
	    const struct track_point *pts, size_t npts, const char *origin);
/* The export of a regression's bisect steps. */
json_t	*kcidb_bisect(const struct track_regression *g,
	    const struct bisect_step *steps, size_t nsteps,
	    const char *origin);

/* One pass of the worker: exports what finished, then runs the submit
   command for what is due.  Returns 0, -1 on a store error. */
int	kcidb_pass(struct db *, long long now);

int	kcidb_start(void);
void	kcidb_stop(void);
/* Wakes the worker (a comparison or a run just finished). */
void	kcidb_kick(void);

#endif
