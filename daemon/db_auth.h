/*
 * db_auth: the SQL behind submitters' operations on their series
 * (schema/0006-series-owner.sql): who owns a series, cancelling one with
 * its comparison and jobs, re-running one as a new series, and whether
 * the store can take writes at all.
 */
#ifndef KPERFCI_DB_AUTH_H
#define KPERFCI_DB_AUTH_H

#include "lib/buf.h"

struct db;

int	db_series_set_owner(struct db *, long long id, const char *owner);
/* 0 with *owner (malloc'd, NULL when unknown), 1 no such series, -1. */
int	db_series_owner(struct db *, long long id, char **owner);

/*
 * Cancels series id: state 'cancelled' (error "cancelled by WHO"), its
 * running comparison and its queued or leased jobs 'cancelled', their
 * agents idle; one transaction.  0 done, 1 no such series, 2 already at
 * rest (*state gets the state, malloc'd), -1.
 */
int	db_series_cancel(struct db *, long long id, const char *who,
	    char **state);

/*
 * A new queued series asking for what series id asked (source, version,
 * base, priority, matrix, boots), owned by owner.  0 with *nid, 1 no such
 * series, 2 an upload whose mbox is no longer kept, -1.
 */
int	db_series_rerun(struct db *, long long id, const char *owner,
	    long long *nid);

/*
 * 0 when the store takes writes; -1 with "PATH: cause" in err when it is
 * opened read-only or its file, directory or data_dir is not writable.
 * Takes no lock.
 */
int	db_store_writable(struct db *, const char *data_dir, struct buf *err);

#endif
