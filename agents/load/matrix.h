/*
 * matrix: reads etc/workloads.conf, the list of workload runs a comparison
 * performs (see the format at the top of that file):
 *
 *   [defaults]              seconds / iterations / warmup for every run
 *   [run "NAME"]            one run: workload = W, then W's parameters
 *   key = value             '#' starts a comment line; blank lines ignored
 *
 * Each entry gets the [defaults] keys its own section does not set.  A
 * syntax error names file:line.  Values are checked later, per workload
 * (wl_configure), so matrix has no knowledge of the workload table.
 */
#ifndef KPERFCI_LOAD_MATRIX_H
#define KPERFCI_LOAD_MATRIX_H

#include <stddef.h>

#define MATRIX_MAX_KEYS	24

struct matrix_entry {
	char	*name;
	char	*workload;
	int	 line;
	int	 n;
	char	*keys[MATRIX_MAX_KEYS];
	char	*vals[MATRIX_MAX_KEYS];
};

struct matrix {
	struct matrix_entry *e;
	int	 n;
};

int	 matrix_parse(struct matrix *, const char *text, size_t len,
	    const char *fname);
int	 matrix_load(struct matrix *, const char *path);
void	 matrix_release(struct matrix *);

#endif
