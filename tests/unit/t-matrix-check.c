/*
 * t-matrix-check: core/matrix_check.c, the daemon's check of a submitted
 * matrix, on what a run may cost: the shipped matrices are accepted, and a
 * matrix that would hold an agent for hours a boot is refused naming the
 * budget (issue 18, finding 9: 10 x 3600 s runs were accepted).
 */
#include <string.h>

#include "core/matrix_check.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

/* n runs of the null workload, each seconds long, once, no warm-up. */
static void
runs(struct buf *m, int n, int seconds)
{
	buf_reset(m);
	for (int i = 0; i < n; i++)
		buf_addf(m, "[run \"r%d\"]\nworkload = null\nseconds = %d\n"
		    "iterations = 1\nwarmup = 0\n", i, seconds);
}

int
main(void)
{
	struct buf m = BUF_INIT(0), err = BUF_INIT(0);

	runs(&m, 10, 3600);
	ok(matrix_check("m.conf", m.data, m.len, &err) < 0 &&
	    strstr(err.data, "measures for 36000 s a boot") &&
	    strstr(err.data, "at most 7200 s"),
	    "ten 3600 s runs are refused, naming the cost and the budget "
	    "(%s)", err.data ? err.data : "");
	buf_reset(&err);
	runs(&m, 2, 3600);
	ok(matrix_check("m.conf", m.data, m.len, &err) == 0,
	    "two 3600 s runs (7200 s) fit (%s)", err.data ? err.data : "");
	buf_reset(&err);
	buf_reset(&m);
	buf_addstr(&m, "[run \"a\"]\nworkload = null\nseconds = 600\n"
	    "iterations = 10\nwarmup = 3\n");
	ok(matrix_check("m.conf", m.data, m.len, &err) < 0 &&
	    strstr(err.data, "7800 s"), "warm-up runs count: 600 s x 13 "
	    "(%s)", err.data ? err.data : "");
	buf_release(&m);
	buf_release(&err);
	return tap_done();
}
