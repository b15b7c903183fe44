/*
 * limits: what one submitter may make the daemon spend.  Submissions
 * (POST /api/v1/series, the web form) are rate limited per submitter with
 * a token bucket ([http] submit_burst at once, then submit_per_hour), and
 * the bytes a submitter's series hold (mail, results, logs, builds) are
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
 * May `who` submit work carrying upload_len uploaded bytes now?  Every
 * kind of work a client can start charges the same bucket: a submission,
 * a re-run, a track run.  0 (one token taken, and upload_len reserved
 * against the quota until limits_submitted or limits_release), or 1 with
 * why ("rate limit: ...", "storage quota: ...") and *retry_after
 * (seconds; 0 for the quota) filled, for a 429; -1 when the store cannot
 * say (logged).  burst, per_hour, quota: the [http] values.
 *
 * The quota counts what who's series keep in the store and beside it
 * (uploaded mbox bytes, the patches parsed from them or fetched for them,
 * and what their runs brought back: samples, lock profiles, stored
 * statistics, console logs, the patched builds' artifacts and logs and
 * the kernels booted) plus what is reserved and not yet stored, all read
 * under one lock: parallel uploads cannot race past it.  Runs' results
 * arrive after the submission was accepted, so they can take a submitter
 * past the quota; the next submission is then refused.
 */
int	limits_submit(struct db *, const char *who, size_t upload_len,
	    struct buf *why, long *retry_after);
/* Records who submitted series id (for the quota) and gives back the
   upload_len limits_submit reserved (the store holds it now).  0 or -1
   (logged). */
int	limits_submitted(struct db *, const char *who, long long id,
	    size_t upload_len);
/* Gives back a reservation whose work was not stored after all. */
void	limits_release(const char *who, size_t upload_len);

/* For tests: forgets every bucket. */
void	limits_reset(void);

/*
 * limits_submit for an HTTP request: 0, or -1 with the 429 (Retry-After
 * set) or 500 in resp, as JSON or, html, as a page.  who: the key
 * (auth_limits_key).
 */
struct http_resp;
int	limits_http(struct db *, const char *who, size_t upload_len,
	    struct http_resp *, int html);

#endif
