/*
 * db_report: the store of a finished comparison's report (daemon/report.h):
 * its statistics and lock-profile diff once computed, and the key a live
 * comparison's cached result is valid for (schema/0004 result, 0007
 * profiles).  Only db_report.c holds their SQL.
 */
#ifndef KPERFCI_DB_REPORT_H
#define KPERFCI_DB_REPORT_H

#include <stddef.h>

struct db;

/* What the samples of comparison cid are now ("done=3,jobs=6,..."). */
int	db_report_key(struct db *, long long cid, char *key, size_t sz);
/* The stored result and profiles JSON text (NULL when none); 0 or -1. */
int	db_report_stored(struct db *, long long cid, char **result,
	    char **profiles);
/* Stores profiles, and result unless one is stored already.  0 or -1. */
int	db_report_store(struct db *, long long cid, const char *result,
	    const char *profiles);

#endif
