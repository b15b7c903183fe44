/*
 * db_limits: the store behind daemon/limits.h's quotas: who submitted a
 * series, and how many bytes a submitter's series keep: their mail, their
 * runs' results, console logs and builds (schema/0006-submitter.sql,
 * 0023-stored-bytes.sql).  Only db_limits.c holds their SQL.
 */
#ifndef KPERFCI_DB_LIMITS_H
#define KPERFCI_DB_LIMITS_H

struct db;

/* What who's series keep, in bytes, by kind. */
struct db_limits_held {
	long long mail;		/* uploads, cover letters, patches */
	long long results;	/* samples, lock profiles, attempts' records,
				   the comparisons' stored statistics */
	long long consoles;	/* console logs (<data>/console/) */
	long long builds;	/* patched builds: artifacts and build logs in
				   the cache, the bzImage the agents boot */
};

/* db_limits.c: h filled for who's series; 0 or -1. */
int	db_limits_held(struct db *, const char *who,
	    struct db_limits_held *h);
int	db_limits_set_submitter(struct db *, long long id, const char *who);
/* The uploaded mbox bytes series id keeps (0 for a lore URL); 0, 1 (no
   such series) or -1. */
int	db_limits_series_upload(struct db *, long long id, long long *bytes);

#endif
