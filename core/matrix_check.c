/*
 * matrix_check: a submitted workload matrix through kperfci-load's own
 * parser and workload table (see matrix_check.h).  agents/load records its
 * errors in one process-wide buffer (load_err), so checks take a lock.
 */
#include <pthread.h>
#include <string.h>

#include "agents/load/matrix.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"
#include "core/matrix_check.h"

static pthread_mutex_t matrix_check_lock = PTHREAD_MUTEX_INITIALIZER;

/* One run: its workload exists and takes these keys and values. */
static int
matrix_check_run(const char *name, const struct matrix_entry *e,
    double *seconds, struct buf *err)
{
	const struct wl_def *d = wl_find(e->workload);
	struct wl_run r;

	if (!d) {
		buf_addf(err, "%s:%d: run \"%s\": unknown workload \"%s\" "
		    "(see kperfci-load list)", name, e->line, e->name,
		    e->workload);
		return -1;
	}
	/* no topology: machine-relative values are checked for syntax */
	if (wl_configure(&r, d, NULL, e->n, (const char *const *)e->keys,
	    (const char *const *)e->vals) < 0) {
		buf_addf(err, "%s:%d: run \"%s\": %s", name, e->line, e->name,
		    load_last_error());
		return -1;
	}
	*seconds += r.seconds * (r.iterations + r.warmup);
	wl_run_release(&r);
	return 0;
}

int
matrix_check(const char *name, const char *text, size_t len,
    struct buf *err)
{
	struct matrix m;
	double seconds = 0;
	int i, rc = -1;

	pthread_mutex_lock(&matrix_check_lock);
	load_set_quiet(1);
	load_clear_error();
	if (matrix_parse(&m, text, len, name) < 0) {
		buf_addstr(err, load_last_error());
		goto out;
	}
	if (m.n == 0) {
		buf_addf(err, "%s: no [run \"NAME\"] section (see "
		    "etc/workloads.conf for the format)", name);
		goto out;
	}
	for (i = 0; i < m.n; i++)
		if (matrix_check_run(name, &m.e[i], &seconds, err) < 0)
			goto out;
	/* every boot of a comparison runs the whole matrix */
	if (seconds > MATRIX_CHECK_MAX_SECONDS) {
		buf_addf(err, "%s: the matrix measures for %.0f s a boot "
		    "(seconds x (iterations + warmup) over its runs); at most "
		    "%d s", name, seconds, MATRIX_CHECK_MAX_SECONDS);
		goto out;
	}
	rc = 0;
out:
	matrix_release(&m);	/* a failed parse leaves m empty */
	pthread_mutex_unlock(&matrix_check_lock);
	return rc;
}
