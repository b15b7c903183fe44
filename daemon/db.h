/*
 * db: the SQLite store.  Only db.c and db_<area>.c files include sqlite3.h
 * and hold SQL; everyone else calls the functions declared here (series)
 * or in their area's header.
 *
 * One connection per thread: every worker and every HTTP thread opens its
 * own with db_open() (WAL lets readers run beside the one writer;
 * busy_timeout makes writers wait instead of failing).  Migrations are
 * schema/NNNN-name.sql files applied in order, each in a transaction, and
 * tracked by PRAGMA user_version = NNNN of the last one applied.
 */
#ifndef KPERFCI_DB_H
#define KPERFCI_DB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

struct db;
struct sqlite3;
struct series;

/* Opens (creating) the database; no migrations.  NULL after logging. */
struct db *db_open(const char *path);
void	 db_close(struct db *);
/* Raw handle, only for db_*.c files. */
struct sqlite3 *db_handle(struct db *);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK.  0 or -1 (logged). */
int	 db_begin(struct db *);
int	 db_commit(struct db *);
int	 db_rollback(struct db *);
/* Runs SQL text with no parameters (several statements allowed). */
/*
 * A number that changes whenever anything in the store changes (another
 * connection's commit or this connection's own write): what a response
 * computed from the store may be cached under (http_cache.c).  In
 * db_report.c.  0 or -1.
 */
int	 db_data_version(struct db *, unsigned long long *v);
int	 db_exec(struct db *, const char *sql);

/*
 * Migrations from dir (schema/NNNN-name.sql).  db_pending appends the file
 * names not yet applied to names (one per line) and returns their count, or
 * -1.  db_migrate applies them in order, each in its own transaction.
 */
int	 db_pending(struct db *, const char *dir, struct buf *names);
int	 db_migrate(struct db *, const char *dir);
int	 db_user_version(struct db *);

/* ---- series ---------------------------------------------------------- */

struct db_series_req {
	const char *source;		/* the URL as given, or "upload" */
	const char *lore_base;		/* NULL for uploads */
	const char *lore_list;
	const char *msgid;
	int	 version;		/* 0: newest */
	const char *base;		/* submitter's base rev, or NULL */
	const void *upload;		/* mbox bytes, or NULL */
	size_t	 upload_len;
};

struct db_trailer {
	char	*name, *value;
};

struct db_patch {
	int64_t	 id;
	int	 counter, total, from_version;
	char	*subject, *author, *email, *date, *msgid, *message, *diff;
	char	*notes;		/* below the cut line (struct patch) */
	struct db_trailer *trailers;
	size_t	 ntrailers;
};

/* One row of series; every string owned, NULL when unset. */
struct db_series {
	int64_t	 id;
	char	*source, *lore_base, *lore_list, *msgid, *req_base;
	int	 req_version;
	char	*state, *error;
	int	 version, total, priority;
	char	*cover_subject, *cover_body, *cover_msgid;
	char	*change_id, *base_commit, *author, *email, *versions;
	long long submitted, updated;
	int	 has_upload;
	char	*rest;			/* why it rests here, or NULL */
	char	*title;			/* cover subject, else patch 1's */
	char	*origin;		/* "watch NAME", or NULL: submitted */
	struct db_patch *patches;	/* only from db_series_get(.., 1) */
	size_t	 npatches;
};

void	 db_series_release(struct db_series *);
void	 db_series_free_list(struct db_series *, size_t n);

/* Inserts a queued series; *id gets its id. */
int	 db_series_insert(struct db *, const struct db_series_req *,
	    int64_t *id);
/* 0 found, 1 not found, -1 error.  with_patches loads patches+trailers. */
int	 db_series_get(struct db *, int64_t id, int with_patches,
	    struct db_series *);
/* Newest first, at most max rows (no patches).  -1 or 0. */
int	 db_series_list(struct db *, size_t max, struct db_series **out,
	    size_t *n);
/* The uploaded mbox of a series (empty when none). */
int	 db_series_upload(struct db *, int64_t id, struct buf *out);
/*
 * Ids of series whose state is one of states[0..n) and that do not rest,
 * highest priority then oldest first, skipping the first `skip`, at most
 * max.
 */
int	 db_series_in_states(struct db *, const char *const *states, size_t n,
	    size_t skip, int64_t *ids, size_t max, size_t *nids);
/*
 * Moves a series from state `from` to `to` (error may be NULL); touches
 * nothing else.  Returns 0, 1 when the series was not in `from`, -1.
 */
int	 db_series_set_state(struct db *, int64_t id, const char *from,
	    const char *to, const char *error);
/*
 * Marks a series in `state` as resting there with reason (see
 * pipeline.h, STAGE_REST); db_series_clear_rest clears every mark.
 * db_series_in_states skips resting series.
 */
int	 db_series_set_rest(struct db *, int64_t id, const char *state,
	    const char *reason);
int	 db_series_clear_rest(struct db *);
/*
 * Stores a picked series (patches, trailers, cover, footers) and moves it
 * from `from` to `to` in one transaction; drops the upload blob.
 */
int	 db_series_store_picked(struct db *, int64_t id, const struct series *,
	    const char *from, const char *to);

#endif
