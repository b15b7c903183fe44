/*
 * db_limits: the store behind daemon/limits.h's quotas: who submitted a
 * series, and how many uploaded bytes a submitter keeps in the store
 * (schema/0006-submitter.sql).  Only db_limits.c holds their SQL.
 */
#ifndef KPERFCI_DB_LIMITS_H
#define KPERFCI_DB_LIMITS_H

struct db;

/* db_limits.c: the bytes who's series keep in the store (uploads, cover
   letters and patches); 0 or -1. */
int	db_limits_upload_bytes(struct db *, const char *who,
	    long long *bytes);
int	db_limits_set_submitter(struct db *, long long id, const char *who);
/* The uploaded mbox bytes series id keeps (0 for a lore URL); 0, 1 (no
   such series) or -1. */
int	db_limits_series_upload(struct db *, long long id, long long *bytes);

#endif
