/*
 * mbox: split an mboxrd byte stream (lore's t.mbox.gz, an uploaded file,
 * git format-patch output) into raw messages.
 *
 * Separators are "From " lines at the start of the input or after a blank
 * line; ">From ", ">>From " ... lines are unescaped by one '>' (mboxrd);
 * CRLF line ends become LF.  A message whose header block never ends (the
 * input was cut off in the middle of its headers) is dropped and counted
 * in ->truncated; a body cut short is kept as it is (the series picker will
 * find its diff incomplete or missing).
 *
 * Ownership: mbox_split() fills a struct mbox whose messages it owns;
 * mbox_release() frees them.  Pure code, thread-safe.
 */
#ifndef KPERFCI_MBOX_H
#define KPERFCI_MBOX_H

#include <stddef.h>

#include "lib/buf.h"

#define MBOX_MAX_MESSAGES	10000

struct mbox_msg {
	char	*data;		/* NUL-terminated, LF line ends, unescaped */
	size_t	 len;
};

struct mbox {
	struct mbox_msg *msgs;
	size_t	 n;
	size_t	 truncated;	/* messages dropped because cut off */
};

/*
 * Splits data[0..len) into messages.  Returns 0, or -1 with a sentence in
 * err ("empty mbox", "not an mbox: ...", "mbox holds more than N
 * messages").  Input that starts with a header line instead of "From " is
 * taken as one single message (a .eml file or lore's /raw).
 */
int	mbox_split(const char *data, size_t len, struct mbox *out,
	    struct buf *err);
void	mbox_release(struct mbox *);

/*
 * Whether an upload looks like mail before anything stores it: it must
 * start (after blank lines) with an mbox "From " line followed by a header
 * field, or with RFC 5322 header fields ("Name: value", continuation lines),
 * and its header block (the first 16 KiB at most) holds no NUL or control
 * bytes.  0, or -1 with a sentence in err naming the line and the problem.
 */
int	mbox_looks_like_mail(const char *data, size_t len, struct buf *err);

#endif
