/*
 * mime: decode one raw mail message into struct msg with GMime 3.
 *
 * Headers come out decoded (RFC 2047, unfolded, UTF-8); the body is the
 * text a reader sees: every text/plain part plus every patch attachment
 * (text/x-patch, text/x-diff, text/plain attachments), transfer-decoded
 * (quoted-printable, base64), converted to UTF-8, format=flowed undone,
 * CRLF made LF, concatenated in message order.  HTML alternatives and
 * binary attachments are skipped.
 *
 * msg_parse_mbox() decodes a whole thread (an mbox) one message at a
 * time as mbox_next() hands them out, so that what it holds is the input,
 * one raw message and the decoded ones; the raw message is never kept.
 *
 * Thread-safety: msg_parse() initialises GMime once (pthread_once) and is
 * safe to call from several threads on different messages.
 * Ownership: every pointer in struct msg is owned by it; msg_release().
 * A struct msg_list owns its messages; msg_list_release().
 */
#ifndef KPERFCI_MIME_H
#define KPERFCI_MIME_H

#include <stddef.h>

#include "lib/buf.h"

#define MSG_MAX_REFERENCES	256

struct msg {
	char	*from_name;	/* display name; the address when none */
	char	*from_email;	/* "" when the From: header is unusable */
	char	*subject;	/* decoded, whitespace folded; "" if none */
	char	*date;		/* Date: header as sent, or "" */
	long long date_epoch;	/* 0 when the date cannot be parsed */
	char	*msgid;		/* without <>, NULL when missing */
	char	*in_reply_to;	/* first id of In-Reply-To:, or NULL */
	char	**references;	/* References: ids, oldest first */
	size_t	 nreferences;
	char	*body;		/* UTF-8, LF line ends */
	size_t	 body_len;
};

/*
 * Parses raw[0..len).  Returns 0, or -1 with a sentence in err when the
 * message cannot be parsed at all ("message has no headers").  Missing
 * fields are not errors: the series picker decides what it needs.
 */
int	msg_parse(const char *raw, size_t len, struct msg *out,
	    struct buf *err);
void	msg_release(struct msg *);

struct msg_list {
	struct msg **v;		/* the decoded messages, in mbox order */
	size_t	 n;
	size_t	 nmbox;		/* complete messages in the mbox */
	size_t	 truncated;	/* cut off inside their headers, dropped */
};

/*
 * Decodes every message of the mbox data[0..len) (see mbox.h).  One that
 * does not decode is left out and, when skipped is not NULL, told to it
 * with its position in the mbox (1 for the first) and the reason.
 * Returns 0, or -1 with the mbox's sentence in err (its first line, a
 * message over MBOX_MAX_MESSAGE, too many messages, none complete) and
 * out empty: a thread is read whole or not at all.
 */
int	msg_parse_mbox(const char *data, size_t len, struct msg_list *out,
	    void (*skipped)(size_t pos, const char *why, void *arg), void *arg,
	    struct buf *err);
void	msg_list_release(struct msg_list *);

/*
 * The To and Cc mailboxes of raw[0..len) (groups flattened, at most
 * MSG_MAX_RECIPIENTS, each at most 254 bytes): *addrs a malloc'd array of
 * malloc'd strings.  0, or -1 when the message cannot be parsed.
 */
#define MSG_MAX_RECIPIENTS	64
int	msg_recipients(const char *raw, size_t len, char ***addrs,
	    size_t *n);

/* Undoes RFC 3676 format=flowed in place (exposed for the unit tests). */
void	mime_unflow(char *text, int delsp);

#endif
