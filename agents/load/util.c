/* util: error recording, small file I/O, strict number parsing (util.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/load/util.h"

static char load_errbuf[1024];
static int load_quiet;

int
load_err(const char *fmt, ...)
{
	char tmp[sizeof(load_errbuf)];
	va_list ap;

	/* through tmp: callers may wrap load_last_error() in a new message */
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	memcpy(load_errbuf, tmp, sizeof(tmp));
	if (!load_quiet)
		fprintf(stderr, "kperfci-load: %s\n", load_errbuf);
	return -1;
}

const char *
load_last_error(void)
{
	return load_errbuf;
}

void
load_clear_error(void)
{
	load_errbuf[0] = '\0';
}

void
load_set_quiet(int q)
{
	load_quiet = q;
}

static void *
load_oom(void *p)
{
	if (!p) {
		fprintf(stderr, "kperfci-load: out of memory\n");
		exit(2);
	}
	return p;
}

void *
load_xmalloc(size_t n)
{
	return load_oom(malloc(n ? n : 1));
}

void *
load_xcalloc(size_t n, size_t m)
{
	return load_oom(calloc(n ? n : 1, m ? m : 1));
}

void *
load_xrealloc(void *p, size_t n)
{
	return load_oom(realloc(p, n ? n : 1));
}

char *
load_xstrdup(const char *s)
{
	return load_oom(strdup(s));
}

int
load_read_small(const char *path, char *out, size_t cap)
{
	ssize_t n;
	int fd;

	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, out, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	return 0;
}

int
load_write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, e;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	e = errno;
	close(fd);
	if (n != (ssize_t)len) {
		errno = n < 0 ? e : EIO;
		return -1;
	}
	return 0;
}

char *
load_read_all(const char *path, size_t max, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *p;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	p = load_xmalloc(cap);
	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= max)
				break;
			cap *= 2;
			p = load_xrealloc(p, cap);
		}
		n = read(fd, p + len, cap - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(p);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	p[len] = '\0';
	if (lenp)
		*lenp = len;
	return p;
}

double
load_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
load_parse_long(const char *s, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int
load_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || v != v)
		return -1;
	*out = v;
	return 0;
}

int
load_parse_size(const char *s, unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	default: return -1;
	}
	if (*end || (v && mul > ~0ULL / v))
		return -1;
	*out = v * mul;
	return 0;
}

int
load_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return load_err("cannot pin to CPU %d: %s", cpu, strerror(errno));
	return 0;
}
