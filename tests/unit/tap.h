/*
 * tap.h: a tiny TAP producer for the C unit tests (run with prove).
 *
 *	ok(cond, "name %d", i);
 *	is_int(got, want, "name");
 *	is_str(got, want, "name");
 *	return tap_done();
 */
#ifndef KPERFCI_TAP_H
#define KPERFCI_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int
tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		printf("#   failed at %s:%d\n", file, line);
		tap_failed++;
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (!ok(g_ == w_, __VA_ARGS__))					\
		printf("#   got %lld, want %lld\n", g_, w_);	\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *g_ = (got), *w_ = (want);				\
	int same_ = (g_ == NULL && w_ == NULL) ||			\
	    (g_ && w_ && strcmp(g_, w_) == 0);				\
	if (!ok(same_, __VA_ARGS__))					\
		printf("#   got \"%s\"\n#  want \"%s\"\n",		\
		    g_ ? g_ : "(null)", w_ ? w_ : "(null)");		\
} while (0)

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
