/*
 * trees: the [tree "name"] sections of kperfci.conf as core/tree.h's
 * struct tree_conf, with paths made absolute.  The one owner of tree
 * configuration: pipeline stages, tracks, bisects and exercise plans read
 * trees through it, never through each other.
 */
#ifndef KPERFCI_TREES_H
#define KPERFCI_TREES_H

#include "lib/buf.h"

struct tree_conf;

/* The configured tree series go to (NULL when none is configured). */
const char *trees_series_name(void);
/* Fills tc from [tree "name"] with absolute paths.  0 or -1 with err. */
int	trees_conf(const char *name, struct tree_conf *tc, struct buf *err);

#endif
