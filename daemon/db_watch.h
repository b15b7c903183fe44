/*
 * db_watch: the SQL of daemon/watch.c (schema/0012-watch.sql,
 * 0016-watch-author.sql).
 */
#ifndef KPERFCI_DB_WATCH_H
#define KPERFCI_DB_WATCH_H

#include <stdint.h>

struct db;

/* 1 when watch has seen msgid, 0 when not, -1 on error. */
int	db_watch_seen(struct db *, const char *watch, const char *msgid);
/* Records msgid as seen, with what came of it (first outcome kept). */
int	db_watch_mark(struct db *, const char *watch, const char *msgid,
	    const char *outcome, int64_t now);
/* Series the watch submitted since the given time. */
int	db_watch_count_since(struct db *, const char *watch, int64_t since,
	    long long *n);
/* Series the watch submitted since the given time from one author. */
int	db_watch_count_author_since(struct db *, const char *watch,
	    const char *author, int64_t since, long long *n);
/* The identity of a submitted series: its subject key (the subject
   without [PATCH ...]), the author's address, its change-id or NULL. */
struct db_watch_key {
	const char	*subject_key;
	const char	*author;
	const char	*change_id;
};
/* Records a submission: origin "watch NAME", priority, its key. */
int	db_watch_submitted(struct db *, int64_t series_id, const char *watch,
	    const struct db_watch_key *, int version, int priority,
	    int64_t now);
/*
 * Series of this watch by the same author, with the same subject key or
 * the same change-id, and an older version, that have not started their
 * boots (queued, fetched, applied, built): up to max ids into ids.
 */
int	db_watch_older(struct db *, const char *watch,
	    const struct db_watch_key *, int version, int64_t *ids,
	    size_t max, size_t *n);
/* Counts for the watch list: messages seen, series submitted. */
int	db_watch_counts(struct db *, const char *watch, long long *seen,
	    long long *submitted);

#endif
