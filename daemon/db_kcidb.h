/*
 * db_kcidb: the store of KCIDB exports (schema/0021-kcidb.sql).  Only
 * db_kcidb.c holds their SQL.  Strings handed out are owned by the caller.
 */
#ifndef KPERFCI_DB_KCIDB_H
#define KPERFCI_DB_KCIDB_H

#include <stddef.h>

struct db;

/* Something finished and not exported yet. */
struct kcidb_todo {
	char	 kind[16];		/* comparison | track_run | bisect */
	long long object_id;
	long long series_id;		/* comparison: its series, else 0 */
};

/* Finished objects without an export, oldest first, at most max. */
int	db_kcidb_todo(struct db *, size_t max, struct kcidb_todo **out,
	    size_t *n);

/* Stores an export (kept once per (kind, object_id)); submit 0 stores it
   as submit_state "none".  0 or -1. */
int	db_kcidb_add(struct db *, const char *kind, long long object_id,
	    const char *body, int submit, long long now);

/* Bodies created after since (and id after after_id), oldest first, at
   most max: *bodies[i] (owned), *created[i], *ids[i]. */
int	db_kcidb_since(struct db *, long long since, size_t max,
	    char ***bodies, long long **created, size_t *n);

/* The oldest pending export whose next_try has come: 0 found (*id,
   *body owned, *attempts), 1 none, -1. */
int	db_kcidb_due(struct db *, long long now, long long *id, char **body,
	    int *attempts);
/* The earliest next_try of a pending export (0: none). */
int	db_kcidb_next(struct db *, long long *when);
/* Records an attempt: state "submitted", "pending" (retry at next_try)
   or "failed", and how it ended. */
int	db_kcidb_attempt(struct db *, long long id, const char *state,
	    long long next_try, const char *error);
/* Counts of exports by submit state (for tests and the log). */
int	db_kcidb_count(struct db *, const char *state, long long *n);

#endif
