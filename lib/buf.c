/* buf: bounded growable buffers (see buf.h). */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/xalloc.h"

void
buf_init(struct buf *b, size_t max)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->max = max;
	b->overflow = 0;
}

void
buf_release(struct buf *b)
{
	free(b->data);
	buf_init(b, b->max);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	b->overflow = 0;
	if (b->data)
		b->data[0] = '\0';
}

static int
buf_grow(struct buf *b, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - b->len - 1 ||
	    (b->max && b->len + extra > b->max)) {
		b->overflow = 1;
		return -1;
	}
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	if (b->cap < 64)
		b->cap = 64;
	while (b->cap < need)
		b->cap = b->cap < SIZE_MAX / 2 ? b->cap * 2 : need;
	b->data = xrealloc(b->data, b->cap);
	return 0;
}

int
buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n) == -1)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int
buf_addch(struct buf *b, int c)
{
	char ch = (char)c;

	return buf_add(b, &ch, 1);
}

int
buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || buf_grow(b, (size_t)n) == -1)
		return -1;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}

char *
buf_detach(struct buf *b, size_t *lenp)
{
	char *p;

	if (b->data == NULL && buf_grow(b, 0) == 0)
		b->data[0] = '\0';	/* buf_grow does not terminate */
	if (b->data == NULL) {
		b->data = xmalloc(1);
		b->data[0] = '\0';
	}
	p = b->data;
	if (lenp)
		*lenp = b->len;
	buf_init(b, b->max);
	return p;
}

int
buf_read_fd(struct buf *b, int fd)
{
	char tmp[65536];
	ssize_t n;

	for (;;) {
		n = read(fd, tmp, sizeof(tmp));
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (buf_add(b, tmp, (size_t)n) == -1) {
			errno = EFBIG;
			return -1;
		}
	}
}

int
buf_read_file(struct buf *b, const char *path)
{
	int fd, r, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	r = buf_read_fd(b, fd);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

int
buf_write_file(const char *path, const void *p, size_t len)
{
	char tmp[4096];
	const char *c = p;
	ssize_t n;
	int fd, e;

	/* A name of its own per call: threads of one process writing the
	   same path (two series publishing one kernel) must not rename each
	   other's file away. */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >=
	    sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1)
		return -1;
	if (fchmod(fd, 0644) == -1)
		goto fail;
	while (len > 0) {
		n = write(fd, c, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		c += n;
		len -= (size_t)n;
	}
	if (fsync(fd) == -1 || close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) == -1) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
fail:
	e = errno;
	if (fd != -1)
		close(fd);
	unlink(tmp);
	errno = e;
	return -1;
}
