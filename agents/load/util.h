/*
 * util: the small helpers kperfci-load's modules share.  kperfci-load is a
 * static binary linked only against libload.a (no lib/ archive), and the agent
 * links these objects next to lib/, so names carry the load_ prefix and
 * nothing here clashes with lib/log.h.
 *
 * load_err() records the message (the JSON {"error":...} line that main
 * prints names it) and writes it to stderr; it returns -1 so callers can
 * "return load_err(...)".
 */
#ifndef KPERFCI_LOAD_UTIL_H
#define KPERFCI_LOAD_UTIL_H

#include <stddef.h>
#include <sys/types.h>

int	 load_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Last message given to load_err, "" when none. */
const char *load_last_error(void);
void	 load_clear_error(void);
/* 1: load_err also prints to stderr (default); 0: silent (unit tests). */
void	 load_set_quiet(int);

void	*load_xmalloc(size_t);
void	*load_xcalloc(size_t, size_t);
void	*load_xrealloc(void *, size_t);
char	*load_xstrdup(const char *);

/* Reads up to cap-1 bytes of a small (sysfs/proc) file, NUL-terminated,
   trailing newline stripped.  -1 (errno set, nothing logged) on failure. */
int	 load_read_small(const char *path, char *out, size_t cap);
/* Writes a string to a sysfs/proc/cgroup file; -1 with errno, not logged. */
int	 load_write_str(const char *path, const char *s);
/* Reads a whole file into a malloc'd string (at most max bytes). */
char	*load_read_all(const char *path, size_t max, size_t *lenp);

double	 load_now(void);		/* CLOCK_MONOTONIC seconds */
/* Strict parsers: the whole string must be the number. */
int	 load_parse_long(const char *s, long *out);
int	 load_parse_double(const char *s, double *out);
/* Sizes like 4096, 64K, 128M, 1G (binary units). */
int	 load_parse_size(const char *s, unsigned long long *out);

/* Pins the calling thread (0) to one CPU. */
int	 load_pin_cpu(int cpu);

#endif
