/*
 * smtp: handing one message to an SMTP relay with libcurl (the project's
 * one network library): STARTTLS when asked (required, not opportunistic;
 * the relay's certificate and name verified against the system's CAs or
 * a CA file), AUTH with a user and password read from a file, bounded
 * time.
 *
 * Thread-safety: reentrant; curl_global_init must have run once.
 */
#ifndef KPERFCI_SMTP_H
#define KPERFCI_SMTP_H

#include <stddef.h>

#include "lib/buf.h"

#define SMTP_TIMEOUT		60	/* seconds, whole transaction */
#define SMTP_CONNECT_TIMEOUT	10

struct smtp_relay {
	const char	*host;		/* "127.0.0.1" or "smtp.example.org" */
	int		 port;
	int		 starttls;	/* 1: refuse to send without TLS */
	const char	*user, *password;	/* NULL: no AUTH */
	const char	*helo;		/* the name we greet with, or NULL */
	const char	*ca_file;	/* PEM CAs to verify the relay by;
					   NULL: the system's */
};

/*
 * Sends msg[0..len) (a whole message, LF or CRLF line ends) from `from` to
 * every address of rcpt.  0 when the relay accepted it for every
 * recipient; else -1 with the relay's or curl's reason in err ("451 try
 * again later"), and *permanent 1 when the relay refused the message
 * (5xx to MAIL, RCPT or DATA).  A refused login (535), a relay without
 * STARTTLS and a certificate that does not verify are never permanent:
 * they are this side's configuration, and the message goes once it is
 * fixed.
 */
int	smtp_send(const struct smtp_relay *, const char *from,
	    const char *const *rcpt, size_t nrcpt, const char *msg,
	    size_t len, int *permanent, struct buf *err);

/* Reads "user:password" (one line) from path.  0, or -1 with err. */
int	smtp_read_auth(const char *path, char **user, char **password,
	    struct buf *err);

#endif
