/*
 * matrix_check: a workload matrix (etc/workloads.conf syntax) checked in
 * the daemon the way kperfci-load checks it in the guest, with the same
 * code: agents/load/matrix.c (on lib/ini.c) for the syntax and the
 * sections, then wl_find and wl_configure for each run's workload, keys and
 * values.  Only what depends on the machine that will run it (a task count
 * on a node it lacks, a size relative to its memory) is left to the guest.
 * So a bad submitted matrix is a 400 naming file:line at POST time, not a
 * failed job after two kernel builds.
 */
#ifndef KPERFCI_MATRIX_CHECK_H
#define KPERFCI_MATRIX_CHECK_H

#include <stddef.h>

#include "lib/buf.h"

/* What one boot may spend measuring (a matrix of ten 3600 s runs would
   hold an agent for ten hours a boot). */
#define MATRIX_CHECK_MAX_SECONDS	7200

/*
 * 0 when text (len bytes; name is the file name in messages) is a matrix
 * with at least one run that kperfci-load would accept on some machine,
 * measuring for at most MATRIX_CHECK_MAX_SECONDS a boot;
 * else -1 with one sentence in err ("name:line: ...").  Thread-safe.
 */
int	matrix_check(const char *name, const char *text, size_t len,
	    struct buf *err);

#endif
