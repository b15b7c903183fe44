/* log: stderr or syslog diagnostics shared by every binary (see log.h). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "lib/log.h"

static const char *log_prog = "kperfci";
static int log_stderr = 1;
static int log_verbose;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void
log_init(const char *prog, int to_stderr)
{
	log_prog = prog;
	log_stderr = to_stderr;
	if (!to_stderr)
		openlog(prog, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void
log_set_verbose(int v)
{
	log_verbose = v;
}

static void
vlog(int pri, const char *prefix, const char *fmt, va_list ap, int errnum)
{
	char msg[2048];
	int n;

	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (errnum && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(errnum));
	if (!log_stderr) {
		syslog(pri, "%s%s", prefix, msg);
		return;
	}
	pthread_mutex_lock(&log_lock);
	fprintf(stderr, "%s: %s%s\n", log_prog, prefix, msg);
	pthread_mutex_unlock(&log_lock);
}

#define LOGFN(name, pri, prefix, useerr)			\
void								\
name(const char *fmt, ...)					\
{								\
	int e = errno;						\
	va_list ap;						\
	va_start(ap, fmt);					\
	vlog(pri, prefix, fmt, ap, useerr ? e : 0);		\
	va_end(ap);						\
	errno = e;						\
}

LOGFN(log_info, LOG_INFO, "", 0)
LOGFN(log_warn, LOG_WARNING, "", 1)
LOGFN(log_warnx, LOG_WARNING, "", 0)

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, "debug: ", fmt, ap, 0);
	va_end(ap);
}

int
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, "error: ", fmt, ap, 0);
	va_end(ap);
	return -1;
}

void
fatal(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, "fatal: ", fmt, ap, e);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, "fatal: ", fmt, ap, 0);
	va_end(ap);
	exit(1);
}
