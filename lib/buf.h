/*
 * buf: a growable byte buffer with a hard maximum, for everything read from
 * outside (HTTP bodies, mail, lore responses, subprocess output).
 *
 * The data is always NUL-terminated (not counted in len) so it can be used
 * as a C string when the content is text.  An append that would pass max
 * fails with -1 and leaves the buffer as it was; b->overflow is set so the
 * caller can say "too large" rather than "malformed".
 */
#ifndef KPERFCI_BUF_H
#define KPERFCI_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
	size_t	 max;		/* 0: no limit (only for data we produced) */
	int	 overflow;
};

#define BUF_INIT(m) { NULL, 0, 0, (m), 0 }

void	 buf_init(struct buf *, size_t max);
/* Frees the data; the buffer can be reused (empty, same max). */
void	 buf_release(struct buf *);
void	 buf_reset(struct buf *);
int	 buf_add(struct buf *, const void *, size_t);
int	 buf_addstr(struct buf *, const char *);
int	 buf_addch(struct buf *, int);
int	 buf_addf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	 buf_vaddf(struct buf *, const char *, va_list);
/* Returns the data (never NULL) and hands ownership to the caller. */
char	*buf_detach(struct buf *, size_t *lenp);
/* Reads a whole file; -1 with errno set, or ERANGE-style overflow flag. */
int	 buf_read_file(struct buf *, const char *path);
/* Reads everything from fd until EOF. */
int	 buf_read_fd(struct buf *, int fd);
/* Writes len bytes to path atomically (a temporary file of its own, mode
   0644, renamed over path): safe from several threads at once. */
int	 buf_write_file(const char *path, const void *, size_t);

#endif
