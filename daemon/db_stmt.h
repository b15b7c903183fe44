/*
 * db_stmt: the statement helpers every db*.c file uses.  Only db.c and
 * db_<area>.c include this (it includes sqlite3.h); nothing else does.
 */
#ifndef KPERFCI_DB_STMT_H
#define KPERFCI_DB_STMT_H

#include <sqlite3.h>

struct db;

/* Prepares sql on db's connection; NULL (logged) on error. */
sqlite3_stmt *db_prep(struct db *, const char *sql);
/* Binds s as text, or NULL when s is NULL. */
void	 db_bind_text(sqlite3_stmt *, int, const char *s);
/* Column i as a malloc'd string the caller owns, NULL for SQL NULL. */
char	*db_col_dup(sqlite3_stmt *, int);
/*
 * Steps a statement once (one that returns no rows, or whose first row is
 * not needed) and finalizes it.  st may be NULL (a failed db_prep): -1.
 * 0, or -1 logged as "db: what: message" (what may be NULL).
 */
int	 db_step_done(struct db *, sqlite3_stmt *, const char *what);

#endif
