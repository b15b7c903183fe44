/*
 * limits: per-submitter rate limits and the upload quota (see limits.h).
 *
 * DESIGN: one token bucket per submitter, in a small array under one
 * mutex: a submission looks at one bucket, and LIMITS_MAX_SUBMITTERS
 * buckets are scanned linearly only when a new submitter arrives.  Capacity
 * submit_burst, refilled at submit_per_hour / 3600 per second (monotonic
 * clock).  The quota is asked of the store (what the submitter's series
 * keep: their mail, and their runs' results, console logs and builds)
 * before the bucket is charged, so a refused upload costs no token.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/app.h"
#include "daemon/config.h"
#include "daemon/html.h"
#include "daemon/http.h"
#include "daemon/db_limits.h"
#include "daemon/limits.h"
#include "lib/log.h"

struct limits_bucket {
	char	 who[64];
	double	 tokens;
	double	 stamp;			/* monotonic seconds */
	long long pending;		/* quota bytes reserved, not stored */
};

static pthread_mutex_t limits_lock = PTHREAD_MUTEX_INITIALIZER;
static struct limits_bucket limits_buckets[LIMITS_MAX_SUBMITTERS];
static size_t limits_n;

static double
limits_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void
limits_reset(void)
{
	pthread_mutex_lock(&limits_lock);
	limits_n = 0;
	pthread_mutex_unlock(&limits_lock);
}

/* who's bucket, refilled to now; a new full one if who is new. */
static struct limits_bucket *
limits_bucket(const char *who, double burst, double rate, double now)
{
	struct limits_bucket *b = NULL;
	size_t i, full = 0;

	for (i = 0; i < limits_n; i++)
		if (!strcmp(limits_buckets[i].who, who)) {
			b = &limits_buckets[i];
			b->tokens += (now - b->stamp) * rate;
			if (b->tokens > burst)
				b->tokens = burst;
			b->stamp = now;
			return b;
		}
	if (limits_n < LIMITS_MAX_SUBMITTERS) {
		b = &limits_buckets[limits_n++];
	} else {
		/* forget the submitter who spent least (never one with a
		   reservation in flight) */
		while (limits_buckets[full].pending && full + 1 < limits_n)
			full++;
		for (i = full + 1; i < limits_n; i++)
			if (!limits_buckets[i].pending &&
			    limits_buckets[i].tokens +
			    (now - limits_buckets[i].stamp) * rate >
			    limits_buckets[full].tokens +
			    (now - limits_buckets[full].stamp) * rate)
				full = i;
		b = &limits_buckets[full];
	}
	snprintf(b->who, sizeof(b->who), "%s", who);
	b->tokens = burst;
	b->stamp = now;
	b->pending = 0;
	return b;
}

int
limits_submit(struct db *db, const char *who, size_t upload_len,
    struct buf *why, long *retry_after)
{
	double burst = app.settings.http.submit_burst;
	double per_hour = app.settings.http.submit_per_hour;
	long long quota = app.settings.http.upload_quota;
	struct limits_bucket *b;
	struct db_limits_held h;
	long long held;
	int rc = 0;

	*retry_after = 0;
	if (!who || !*who)
		return 0;
	/* the store's sum and the reservation under one lock: two uploads
	   in parallel see each other */
	pthread_mutex_lock(&limits_lock);
	b = limits_bucket(who, burst, per_hour / 3600.0, limits_now());
	if (db_limits_held(db, who, &h) < 0) {
		rc = -1;
		goto out;
	}
	held = h.mail + h.results + h.consoles + h.builds;
	if (held + b->pending + (long long)upload_len > quota) {
		buf_addf(why, "storage quota: the series submitted from %s "
		    "keep %lld bytes in the store (mail %lld, results %lld, "
		    "console logs %lld, builds %lld; %lld more on their way), "
		    "and %zu more would pass [http] upload_quota (%lld bytes)",
		    who, held, h.mail, h.results, h.consoles, h.builds,
		    b->pending, upload_len, quota);
		rc = 1;
		goto out;
	}
	if (b->tokens < 1) {
		*retry_after = (long)((1 - b->tokens) * 3600.0 / per_hour) + 1;
		buf_addf(why, "rate limit: at most %.0f submissions, re-runs "
		    "and track runs at once and %.0f per hour from %s ([http] "
		    "submit_burst, submit_per_hour); try again in %ld s",
		    burst, per_hour, who, *retry_after);
		rc = 1;
		goto out;
	}
	b->tokens -= 1;
	b->pending += (long long)upload_len;
out:
	pthread_mutex_unlock(&limits_lock);
	return rc;
}

void
limits_release(const char *who, size_t upload_len)
{
	size_t i;

	if (!who || !*who || !upload_len)
		return;
	pthread_mutex_lock(&limits_lock);
	for (i = 0; i < limits_n; i++)
		if (!strcmp(limits_buckets[i].who, who)) {
			limits_buckets[i].pending -= (long long)upload_len;
			if (limits_buckets[i].pending < 0)
				limits_buckets[i].pending = 0;
			break;
		}
	pthread_mutex_unlock(&limits_lock);
}

int
limits_submitted(struct db *db, const char *who, long long id,
    size_t upload_len)
{
	int rc;

	if (!who || !*who)
		return 0;
	rc = db_limits_set_submitter(db, id, who);
	limits_release(who, upload_len);
	return rc;
}

int
limits_http(struct db *db, const char *who, size_t upload_len,
    struct http_resp *resp, int html)
{
	struct buf why = BUF_INIT(1024);
	char ra[32];
	long retry;
	int rc = limits_submit(db, who, upload_len, &why, &retry);

	if (rc == 1 && retry > 0) {
		snprintf(ra, sizeof(ra), "%ld", retry);
		http_resp_header(resp, "Retry-After", ra);
	}
	if (rc != 0 && !why.len)
		buf_addstr(&why, "the submission limits could not be read from "
		    "the store");
	if (rc != 0 && html)
		html_error_page(resp, rc == 1 ? 429 : 500, why.data);
	else if (rc != 0)
		http_reply_error(resp, rc == 1 ? 429 : 500, "%s", why.data);
	buf_release(&why);
	return rc == 0 ? 0 : -1;
}
