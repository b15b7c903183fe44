/*
 * strvec: a growable, NULL-terminated argv (git's strvec).  Every program
 * the project runs gets its arguments from one of these, never from an
 * array sized by hand: an argument past a fixed array was once dropped
 * without a word.
 *
 *	struct strvec av = STRVEC_INIT;
 *
 *	strvec_push(&av, "git");		// borrowed: must outlive av
 *	strvec_pushf(&av, "--depth=%d", n);	// formatted: owned by av
 *	strvec_pushv(&av, extra);		// a NULL-terminated list
 *	run.argv = strvec_argv(&av);
 *	...
 *	strvec_clear(&av);
 *
 * strvec_argv is never NULL (an empty vector is { NULL }).
 */
#ifndef KPERFCI_STRVEC_H
#define KPERFCI_STRVEC_H

#include <stddef.h>

struct strvec {
	const char **v;
	size_t	 n, alloc;
	char	**own;			/* what pushf formatted */
	size_t	 nown, ownalloc;
};

#define STRVEC_INIT	{ NULL, 0, 0, NULL, 0, 0 }

void	 strvec_push(struct strvec *, const char *);
void	 strvec_pushf(struct strvec *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	 strvec_pushv(struct strvec *, const char *const *);
const char *const *strvec_argv(const struct strvec *);
void	 strvec_clear(struct strvec *);

#endif
