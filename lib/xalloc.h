/*
 * xalloc: allocation that cannot fail.  Running out of memory in a daemon
 * that holds requests in a store is not recoverable in any useful way, so
 * these die with a message instead of returning NULL.
 */
#ifndef KPERFCI_XALLOC_H
#define KPERFCI_XALLOC_H

#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
/* Returns a malloc'd string; the caller owns it. */
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));

#endif
