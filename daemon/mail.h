/*
 * mail: replies in the series' thread, and commands read from replies.
 *
 * A [mail] section turns it on (send = outbox | smtp | sendmail; none by
 * default).  What asks for a mail is cheap and never blocks: the
 * scheduler's finished comparison (mail_comparison_done), a regression
 * opened by a track (mail_regression_opened), a command read by a watch
 * (mail_watch_reply).  Each stores a row keyed by a Message-ID derived
 * from what it is about; one background thread (the mail queue) renders
 * the rows (report_mail.c), decides who gets them and sends them, with
 * retries.  Nobody outside the thread's own From/To/Cc is ever mailed.
 * The store's rows are what `kperfci mail show` prints.
 */
#ifndef KPERFCI_MAIL_H
#define KPERFCI_MAIL_H

#include <stddef.h>

#include <jansson.h>

#include "daemon/http.h"
#include "lib/buf.h"

struct db;



/* Starts and stops the mail queue thread (nothing when send = none). */
int	mail_start(void);
void	mail_stop(void);

/*
 * Hooks.  Each stores what to mail and wakes the queue; errors are
 * logged, never the caller's failure.
 */
/* The comparison cid of series sid finished at look `look`. */
void	mail_comparison_done(struct db *, long long sid, long long cid,
	    int look);
/* A track opened regression id (mailed once it is bisected). */
void	mail_regression_opened(struct db *, long long id);
/* Series sid came from [watch "name"]: its reply policy. */
void	mail_series_watched(struct db *, long long sid, const char *watch);
/* Series sid was submitted with reply=... (NULL: [mail] reply). */
int	mail_series_reply(struct db *, long long sid, const char *reply,
	    struct buf *err);

/*
 * A reply seen on [watch "name"] (base, list, its Message-ID): when its
 * body has a "#kperfci" command it is acted on once and answered in the
 * thread.  Writes what came of it into outcome.  0, or -1 on a lore error
 * (retried at the next poll).
 */
int	mail_watch_reply(struct db *, const char *watch, const char *base,
	    const char *list, const char *msgid, struct buf *outcome,
	    struct buf *err);

/* The mail state of series sid for its page and JSON: NULL when none, or
   a new object {state, reason, msgid, id}. */
json_t	*mail_series_json(struct db *, long long sid);
/* One line for the series page ("reply sent <msgid>", "reply queued
   (SMTP: 451 ...)"), or nothing. */
void	mail_series_line(struct db *, long long sid, struct buf *out);

/*
 * The message text (pure but for [mail] from, cc and cc_max in
 * app.settings; t-mail checks them).
 */
/* What a mail needs to know of the message it replies to; every string
   and array is owned (mail_root_release frees them). */
struct mail_root {
	char	*msgid, *subject, *from_name, *from_email;
	char	**refs;			/* its References, oldest first */
	size_t	 nrefs;
	char	**addrs;		/* its To and Cc */
	size_t	 naddrs;
	char	*body;			/* for commands */
};
void	mail_root_release(struct mail_root *);
/* The recipients: rcpt gets To (the root's From) then the Cc, one a
   line; hdr gets the To: and Cc: headers.  Every address comes from the
   root message.  0, or -1 when there is nobody to write to. */
int	mail_recipients(const struct mail_root *root, struct buf *rcpt,
	    struct buf *hdr);
/* Every header but To/Cc: From, Subject, Date, Message-ID <msgid>,
   In-Reply-To extra_ref (when given) or the root, References the root's
   own then the root (then extra_ref). */
void	mail_headers(struct buf *b, const char *msgid,
	    const struct mail_root *root, const char *extra_ref,
	    const char *subject);
/* "Re: <subject>", once (a new string). */
char	*mail_re(const char *subject);

/* api_mail.c:
 *	GET /api/v1/mail/{id}			one stored mail
 *	GET /api/v1/series/{id}/mail		its mails, and a preview */
extern const struct route api_mail_routes[];

#endif
