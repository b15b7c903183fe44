/*
 * limits: what one submitter may make the daemon spend.  Submissions
 * (POST /api/v1/series, the web form) are rate limited per submitter with
 * a token bucket ([http] submit_burst at once, then submit_per_hour), and
 * the uploaded mbox bytes a submitter's series hold in the store are
 * capped ([http] upload_quota).  A submitter is the client address (or a
 * name an authentication layer gives it); a request with none (an
 * in-process call) is not limited.
 *
 * The buckets live in memory (a restart refills them), at most
 * LIMITS_MAX_SUBMITTERS of them: when full, the fullest bucket (the
 * submitter who spent least) is forgotten.  Thread-safe.
 */
#ifndef KPERFCI_LIMITS_H
#define KPERFCI_LIMITS_H

#include <stddef.h>

#include "lib/buf.h"

struct db;

#define LIMITS_MAX_SUBMITTERS	4096

/*
 * May `who` submit a series carrying upload_len uploaded bytes now?  0
 * (one submission is counted), or 1 with why ("rate limit: ...", "storage
 * quota: ...") and *retry_after (seconds; 0 for the quota) filled, for a
 * 429; -1 when the store cannot say (logged).  burst, per_hour, quota: the
 * [http] values.
 */
int	limits_submit(struct db *, const char *who, size_t upload_len,
	    struct buf *why, long *retry_after);
/* Records who submitted series id (for the quota).  0 or -1 (logged). */
int	limits_submitted(struct db *, const char *who, long long id);

/* For tests: forgets every bucket. */
void	limits_reset(void);

/* db_limits.c: the uploaded bytes of who's series; 0 or -1. */
int	db_limits_upload_bytes(struct db *, const char *who,
	    long long *bytes);
int	db_limits_set_submitter(struct db *, long long id, const char *who);

#endif
