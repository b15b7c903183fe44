/*
 * strvec: a growable argv (see strvec.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/strvec.h"
#include "lib/log.h"
#include "lib/xalloc.h"

void
strvec_push(struct strvec *sv, const char *s)
{
	if (sv->n + 2 > sv->alloc) {
		sv->alloc = sv->alloc ? 2 * sv->alloc : 16;
		sv->v = xrealloc(sv->v, sv->alloc * sizeof(*sv->v));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("strvec: out of memory");
	va_end(ap);
	if (sv->nown == sv->ownalloc) {
		sv->ownalloc = sv->ownalloc ? 2 * sv->ownalloc : 8;
		sv->own = xrealloc(sv->own, sv->ownalloc * sizeof(*sv->own));
	}
	sv->own[sv->nown++] = s;
	strvec_push(sv, s);
}

void
strvec_pushv(struct strvec *sv, const char *const *v)
{
	for (; v && *v; v++)
		strvec_push(sv, *v);
}

const char *const *
strvec_argv(const struct strvec *sv)
{
	static const char *const empty[] = { NULL };

	return sv->v ? sv->v : empty;
}

void
strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->nown; i++)
		free(sv->own[i]);
	free(sv->own);
	free(sv->v);
	*sv = (struct strvec)STRVEC_INIT;
}
