/*
 * log: one place for diagnostics, in the OpenBSD daemon style.
 *
 * log_warn appends strerror(errno); log_warnx does not.  fatal/fatalx are
 * for start-up and broken invariants only, never for what a peer sent.
 * error() logs like log_warnx and returns -1 so callers can write
 * "return error(...)".
 */
#ifndef KPERFCI_LOG_H
#define KPERFCI_LOG_H

#define PRINTF(a, b) __attribute__((format(printf, a, b)))

/* prog: name in messages; to_stderr: 1 logs to stderr, 0 to syslog. */
void	log_init(const char *prog, int to_stderr);
void	log_set_verbose(int);
void	log_info(const char *, ...) PRINTF(1, 2);
void	log_debug(const char *, ...) PRINTF(1, 2);
void	log_warn(const char *, ...) PRINTF(1, 2);
void	log_warnx(const char *, ...) PRINTF(1, 2);
int	error(const char *, ...) PRINTF(1, 2);
void	fatal(const char *, ...) PRINTF(1, 2) __attribute__((noreturn));
void	fatalx(const char *, ...) PRINTF(1, 2) __attribute__((noreturn));

#endif
