/*
 * db_mail: the store of replies in the thread, the reply policy of each
 * series and the commands read from replies (schema/0015-mail.sql).  Only
 * db_mail.c holds their SQL.  Strings in structs are owned and freed by
 * mail_row_release.
 */
#ifndef KPERFCI_DB_MAIL_H
#define KPERFCI_DB_MAIL_H

#include <stddef.h>

struct db;

struct mail_row {
	long long id;
	char	*msgid, *kind, *state, *reason, *subject, *rcpt, *list;
	char	*message;
	long long series_id, comparison_id, regression_id;
	int	 look, attempts;
	long long next_try, created, sent;
};

void	mail_row_release(struct mail_row *);
void	mail_rows_free(struct mail_row *, size_t n);

/*
 * A new row in state m->state (NULL: 'new', or 'queued' when message is
 * set), with m->reason, unless one
 * with this Message-ID exists: then nothing changes and *added is 0.
 */
int	db_mail_add(struct db *, const struct mail_row *, long long now,
	    int *added);
/* 0 found, 1 not found, -1. */
int	db_mail_get(struct db *, long long id, struct mail_row *);
/* Rows of series id (newest first), or of every series (id 0), at most
   max. */
int	db_mail_list(struct db *, long long series_id, size_t max,
	    struct mail_row **out, size_t *n);
/* Rows in state (oldest first) whose next_try <= now, at most max. */
int	db_mail_due(struct db *, const char *state, long long now, size_t max,
	    struct mail_row **out, size_t *n);
/* The soonest next_try among 'new', 'queued' and 'sending' rows (0: none). */
int	db_mail_next(struct db *, long long *when);
/* Writes the rendered message, recipients and list; state 'queued' or
   'skipped' (reason). */
int	db_mail_rendered(struct db *, long long id, const char *state,
	    const char *reason, const char *subject, const char *rcpt,
	    const char *list, const char *message, long long now);
/* Moves row id to state (reason may be NULL), attempts += bump,
   next_try, sent (0: unchanged). */
int	db_mail_set(struct db *, long long id, const char *state,
	    const char *reason, int bump, long long next_try, long long sent);
/* Mails queued or sent since `since` to addr (any recipient line), and
   mails whose list is `list`. */
int	db_mail_count_rcpt(struct db *, const char *addr, long long since,
	    long long *n);
int	db_mail_count_list(struct db *, const char *list, long long since,
	    long long *n);

/* The reply policy of a series: *reply "yes"/"regressions"/"no" (NULL
   when none stored), *in_reply_to or NULL.  Caller frees both. */
int	db_mail_policy_get(struct db *, long long series_id, char **reply,
	    char **in_reply_to);
int	db_mail_policy_set(struct db *, long long series_id, const char *reply,
	    const char *in_reply_to);

/* Commands: 1 when msgid was acted on already, 0 not, -1. */
int	db_mail_command_seen(struct db *, const char *msgid);
int	db_mail_command_add(struct db *, const char *msgid, const char *watch,
	    const char *sender, long long series_id, const char *command,
	    const char *outcome, long long new_series, long long now);

/* The newest series whose submitted message, cover letter or a patch is
   msgid: 0 with *sid, 1 none, -1. */
int	db_mail_series_for(struct db *, const char *msgid, long long *sid);

/* Search-based watches: the time the last poll covered (0: never). */
int	db_mail_search_since(struct db *, const char *watch, long long *since);
int	db_mail_search_set(struct db *, const char *watch, long long since);

#endif
