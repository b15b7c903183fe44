/*
 * db_mail: the SQL of daemon/mail.c (schema/0015-mail.sql).
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon/db.h"
#include "daemon/db_mail.h"
#include "daemon/db_stmt.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#define MAIL_COLS "id, msgid, kind, state, reason, subject, rcpt, list, " \
	"message, series_id, comparison_id, regression_id, look, attempts, " \
	"next_try, created, sent"

void
mail_row_release(struct mail_row *m)
{
	free(m->msgid);
	free(m->kind);
	free(m->state);
	free(m->reason);
	free(m->subject);
	free(m->rcpt);
	free(m->list);
	free(m->message);
	memset(m, 0, sizeof(*m));
}

void
mail_rows_free(struct mail_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mail_row_release(&v[i]);
	free(v);
}

static void
db_mail_row(sqlite3_stmt *st, struct mail_row *m)
{
	m->id = sqlite3_column_int64(st, 0);
	m->msgid = db_col_dup(st, 1);
	m->kind = db_col_dup(st, 2);
	m->state = db_col_dup(st, 3);
	m->reason = db_col_dup(st, 4);
	m->subject = db_col_dup(st, 5);
	m->rcpt = db_col_dup(st, 6);
	m->list = db_col_dup(st, 7);
	m->message = db_col_dup(st, 8);
	m->series_id = sqlite3_column_int64(st, 9);
	m->comparison_id = sqlite3_column_int64(st, 10);
	m->regression_id = sqlite3_column_int64(st, 11);
	m->look = sqlite3_column_int(st, 12);
	m->attempts = sqlite3_column_int(st, 13);
	m->next_try = sqlite3_column_int64(st, 14);
	m->created = sqlite3_column_int64(st, 15);
	m->sent = sqlite3_column_int64(st, 16);
}

static void
db_bind_id(sqlite3_stmt *st, int i, long long v)
{
	if (v)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

int
db_mail_add(struct db *db, const struct mail_row *m, long long now,
    int *added)
{
	sqlite3_stmt *st = db_prep(db, "INSERT OR IGNORE INTO mail (msgid, "
	    "kind, series_id, comparison_id, regression_id, look, state, "
	    "subject, rcpt, list, message, next_try, created, reason) VALUES "
	    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");

	*added = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, m->msgid);
	db_bind_text(st, 2, m->kind);
	db_bind_id(st, 3, m->series_id);
	db_bind_id(st, 4, m->comparison_id);
	db_bind_id(st, 5, m->regression_id);
	sqlite3_bind_int(st, 6, m->look);
	db_bind_text(st, 7, m->state ? m->state : m->message ? "queued" :
	    "new");
	db_bind_text(st, 8, m->subject);
	db_bind_text(st, 9, m->rcpt);
	db_bind_text(st, 10, m->list);
	db_bind_text(st, 11, m->message);
	sqlite3_bind_int64(st, 12, m->next_try);
	sqlite3_bind_int64(st, 13, now);
	db_bind_text(st, 14, m->reason);
	if (db_step_done(db, st, "mail add") < 0)
		return -1;
	*added = sqlite3_changes(db_handle(db)) > 0;
	return 0;
}

int
db_mail_get(struct db *db, long long id, struct mail_row *m)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " MAIL_COLS " FROM mail WHERE "
	    "id=?");
	int rc;

	memset(m, 0, sizeof(*m));
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		db_mail_row(st, m);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return error("db: mail get: %s", sqlite3_errmsg(db_handle(db)));
}

static int
db_mail_rows(struct db *db, sqlite3_stmt *st, size_t max,
    struct mail_row **out, size_t *n)
{
	int rc;

	*out = NULL;
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && (!max || *n < max)) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		db_mail_row(st, &(*out)[(*n)++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		mail_rows_free(*out, *n);
		*out = NULL;
		*n = 0;
		return error("db: mail rows: %s", sqlite3_errmsg(db_handle(db)));
	}
	return 0;
}

int
db_mail_list(struct db *db, long long series_id, size_t max,
    struct mail_row **out, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, series_id ? "SELECT " MAIL_COLS
	    " FROM mail WHERE series_id=? ORDER BY id DESC" : "SELECT "
	    MAIL_COLS " FROM mail ORDER BY id DESC");

	*out = NULL;
	*n = 0;
	if (st == NULL)
		return -1;
	if (series_id)
		sqlite3_bind_int64(st, 1, series_id);
	return db_mail_rows(db, st, max, out, n);
}

int
db_mail_due(struct db *db, const char *state, long long now, size_t max,
    struct mail_row **out, size_t *n)
{
	sqlite3_stmt *st = db_prep(db, "SELECT " MAIL_COLS " FROM mail WHERE "
	    "state=? AND next_try<=? ORDER BY id");

	*out = NULL;
	*n = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, state);
	sqlite3_bind_int64(st, 2, now);
	return db_mail_rows(db, st, max, out, n);
}

int
db_mail_next(struct db *db, long long *when)
{
	sqlite3_stmt *st = db_prep(db, "SELECT MIN(next_try) FROM mail WHERE "
	    "state IN ('new', 'queued', 'sending')");
	int rc;

	*when = 0;
	if (st == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*when = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : error("db: mail next: %s",
	    sqlite3_errmsg(db_handle(db)));
}

int
db_mail_rendered(struct db *db, long long id, const char *state,
    const char *reason, const char *subject, const char *rcpt,
    const char *list, const char *message, long long now)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE mail SET state=?, reason=?, "
	    "subject=?, rcpt=?, list=?, message=?, next_try=? WHERE id=? AND "
	    "state='new'");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, state);
	db_bind_text(st, 2, reason);
	db_bind_text(st, 3, subject);
	db_bind_text(st, 4, rcpt);
	db_bind_text(st, 5, list);
	db_bind_text(st, 6, message);
	sqlite3_bind_int64(st, 7, now);
	sqlite3_bind_int64(st, 8, id);
	return db_step_done(db, st, "mail rendered");
}

int
db_mail_set(struct db *db, long long id, const char *state,
    const char *reason, int bump, long long next_try, long long sent)
{
	sqlite3_stmt *st = db_prep(db, "UPDATE mail SET state=?, reason=?, "
	    "attempts=attempts+?, next_try=?, sent=COALESCE(?, sent) WHERE "
	    "id=?");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, state);
	db_bind_text(st, 2, reason);
	sqlite3_bind_int(st, 3, bump);
	sqlite3_bind_int64(st, 4, next_try);
	db_bind_id(st, 5, sent);
	sqlite3_bind_int64(st, 6, id);
	return db_step_done(db, st, "mail set");
}

static int
db_mail_count(struct db *db, const char *sql, const char *v, long long since,
    long long *n)
{
	sqlite3_stmt *st = db_prep(db, sql);
	int rc;

	*n = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, v);
	sqlite3_bind_int64(st, 2, since);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : error("db: mail count: %s",
	    sqlite3_errmsg(db_handle(db)));
}

int
db_mail_count_rcpt(struct db *db, const char *addr, long long since,
    long long *n)
{
	/* rcpt is one address a line: match a whole line */
	return db_mail_count(db, "SELECT COUNT(*) FROM mail WHERE state IN "
	    "('queued', 'sending', 'sent') AND instr(char(10) || lower(rcpt) "
	    "|| char(10), char(10) || lower(?1) || char(10)) > 0 AND "
	    "created>=?2", addr, since, n);
}

int
db_mail_count_list(struct db *db, const char *list, long long since,
    long long *n)
{
	return db_mail_count(db, "SELECT COUNT(*) FROM mail WHERE state IN "
	    "('queued', 'sending', 'sent') AND lower(list)=lower(?1) AND "
	    "created>=?2", list, since, n);
}

int
db_mail_policy_get(struct db *db, long long series_id, char **reply,
    char **in_reply_to)
{
	sqlite3_stmt *st = db_prep(db, "SELECT reply, in_reply_to FROM "
	    "mail_policy WHERE series_id=?");
	int rc;

	*reply = *in_reply_to = NULL;
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*reply = db_col_dup(st, 0);
		*in_reply_to = db_col_dup(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 :
	    error("db: mail policy: %s", sqlite3_errmsg(db_handle(db)));
}

int
db_mail_policy_set(struct db *db, long long series_id, const char *reply,
    const char *in_reply_to)
{
	sqlite3_stmt *st = db_prep(db, "INSERT OR REPLACE INTO mail_policy "
	    "(series_id, reply, in_reply_to) VALUES (?, ?, ?)");

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	db_bind_text(st, 2, reply);
	db_bind_text(st, 3, in_reply_to);
	return db_step_done(db, st, "mail policy");
}

int
db_mail_command_seen(struct db *db, const char *msgid)
{
	sqlite3_stmt *st = db_prep(db, "SELECT 1 FROM mail_command WHERE "
	    "msgid=?");
	int rc;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, msgid);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : error("db: mail command: %s",
	    sqlite3_errmsg(db_handle(db)));
}

int
db_mail_command_add(struct db *db, const char *msgid, const char *watch,
    const char *sender, long long series_id, const char *command,
    const char *outcome, long long new_series, long long now)
{
	sqlite3_stmt *st = db_prep(db, "INSERT OR IGNORE INTO mail_command "
	    "(msgid, watch, sender, series_id, command, outcome, new_series, "
	    "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, msgid);
	db_bind_text(st, 2, watch);
	db_bind_text(st, 3, sender);
	db_bind_id(st, 4, series_id);
	db_bind_text(st, 5, command);
	db_bind_text(st, 6, outcome);
	db_bind_id(st, 7, new_series);
	sqlite3_bind_int64(st, 8, now);
	return db_step_done(db, st, "mail command");
}

int
db_mail_search_since(struct db *db, const char *watch, long long *since)
{
	sqlite3_stmt *st = db_prep(db, "SELECT since FROM watch_search WHERE "
	    "watch=?");
	int rc;

	*since = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, watch);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*since = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 :
	    error("db: watch search: %s", sqlite3_errmsg(db_handle(db)));
}

int
db_mail_search_set(struct db *db, const char *watch, long long since)
{
	sqlite3_stmt *st = db_prep(db, "INSERT OR REPLACE INTO watch_search "
	    "(watch, since) VALUES (?, ?)");

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, watch);
	sqlite3_bind_int64(st, 2, since);
	return db_step_done(db, st, "watch search");
}

int
db_mail_series_for(struct db *db, const char *msgid, long long *sid)
{
	sqlite3_stmt *st = db_prep(db, "SELECT id FROM series WHERE msgid=?1 "
	    "OR cover_msgid=?1 UNION SELECT series_id FROM patches WHERE "
	    "msgid=?1 ORDER BY 1 DESC LIMIT 1");
	int rc;

	*sid = 0;
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, msgid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*sid = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : error("db: mail series: %s",
	    sqlite3_errmsg(db_handle(db)));
}
