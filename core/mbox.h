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
 * Memory: mbox_next() hands out one message at a time, pointing into the
 * input where it needs no unescaping and into one reused buffer where it
 * does, so a caller that decodes each message as it comes holds the input,
 * one raw message and what it decoded, never a second copy of the whole
 * mbox.  No message may take more than MBOX_MAX_MESSAGE bytes of the mbox:
 * lore's lists take mail of about 100 KB at most, and without a cap one
 * 60 MB message cost six times its size to decode.  A bigger message
 * refuses the whole mbox (a series with one part left out would be picked
 * wrongly, or fail with a sentence that hides the cause).
 *
 * Ownership: mbox_split() fills a struct mbox whose messages it owns;
 * mbox_release() frees them.  mbox_next() lends its message until the next
 * call.  Pure code, thread-safe.
 */
#ifndef KPERFCI_MBOX_H
#define KPERFCI_MBOX_H

#include <stddef.h>

#include "lib/buf.h"

#define MBOX_MAX_MESSAGES	10000
#define MBOX_MAX_MESSAGE	(8u << 20)	/* bytes of one message */

struct mbox_msg {
	char	*data;		/* LF line ends, unescaped; NUL-terminated
				   from mbox_split(), not from mbox_next() */
	size_t	 len;
};

struct mbox {
	struct mbox_msg *msgs;
	size_t	 n;
	size_t	 truncated;	/* messages dropped because cut off */
};

/* Where mbox_next() is in the input; opaque but for pos and truncated. */
struct mbox_iter {
	const char *p, *end;
	int	 mboxmode;	/* "From " separators; else one message */
	size_t	 pos;		/* the message last read, 1 for the first */
	size_t	 n;		/* messages handed out */
	size_t	 truncated;	/* messages dropped because cut off */
	struct buf copy;	/* the current message, when unescaped */
};

/*
 * Starts reading data[0..len), which the caller keeps until the end.
 * 0, or -1 with a sentence in err ("empty mbox", "not an mbox: ...").
 * Input that starts with a header line instead of "From " is taken as
 * one single message (a .eml file or lore's /raw).
 */
int	mbox_iter_init(struct mbox_iter *, const char *data, size_t len,
	    struct buf *err);
/*
 * The next message into *msg (data[0..len), lent until the next call):
 * 1; 0 at the end; -1 with a sentence in err ("mbox holds more than N
 * messages", "message 3 of the mbox (Message-ID <x>) is larger than ...",
 * "mbox holds no messages", "mbox is truncated: ...").
 */
int	mbox_next(struct mbox_iter *, struct mbox_msg *msg, struct buf *err);
void	mbox_iter_release(struct mbox_iter *);

/*
 * Splits data[0..len) into messages, each a copy of its own: for small
 * inputs and the tests; what decodes a thread reads it with mbox_next().
 * Returns 0, or -1 with the sentences of mbox_iter_init and mbox_next.
 */
int	mbox_split(const char *data, size_t len, struct mbox *out,
	    struct buf *err);
void	mbox_release(struct mbox *);

/*
 * Reads all of data[0..len) as mbox_next() would, keeping nothing: 0, or
 * -1 with its sentence.  An upload is checked so before it is stored.
 */
int	mbox_check(const char *data, size_t len, struct buf *err);

/*
 * Whether an upload looks like mail before anything stores it: it must
 * start (after blank lines) with an mbox "From " line followed by a header
 * field, or with RFC 5322 header fields ("Name: value", continuation lines),
 * and its header block (the first 16 KiB at most) holds no NUL or control
 * bytes.  0, or -1 with a sentence in err naming the line and the problem.
 */
int	mbox_looks_like_mail(const char *data, size_t len, struct buf *err);

#endif
