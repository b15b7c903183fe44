/*
 * limits: per-submitter rate limits and the upload quota (see limits.h).
 *
 * DESIGN: one token bucket per submitter, in a small array under one
 * mutex: a submission looks at one bucket, and LIMITS_MAX_SUBMITTERS
 * buckets are scanned linearly only when a new submitter arrives.  Capacity
 * submit_burst, refilled at submit_per_hour / 3600 per second (monotonic
 * clock).  The quota is asked of the store (the sum of the submitter's
 * uploads) before the bucket is charged, so a refused upload costs no
 * token.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/app.h"
#include "daemon/config.h"
#include "daemon/limits.h"
#include "lib/log.h"

struct limits_bucket {
	char	 who[64];
	double	 tokens;
	double	 stamp;			/* monotonic seconds */
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
		/* forget the submitter who spent least */
		for (i = 1; i < limits_n; i++)
			if (limits_buckets[i].tokens +
			    (now - limits_buckets[i].stamp) * rate >
			    limits_buckets[full].tokens +
			    (now - limits_buckets[full].stamp) * rate)
				full = i;
		b = &limits_buckets[full];
	}
	snprintf(b->who, sizeof(b->who), "%s", who);
	b->tokens = burst;
	b->stamp = now;
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
	long long held;
	int rc = 0;

	*retry_after = 0;
	if (!who || !*who)
		return 0;
	if (upload_len) {
		if (db_limits_upload_bytes(db, who, &held) < 0)
			return -1;
		if (held + (long long)upload_len > quota) {
			buf_addf(why, "storage quota: the series submitted from "
			    "%s hold %lld bytes of uploads, and %zu more would "
			    "pass [http] upload_quota (%lld bytes)", who, held,
			    upload_len, quota);
			return 1;
		}
	}
	pthread_mutex_lock(&limits_lock);
	b = limits_bucket(who, burst, per_hour / 3600.0, limits_now());
	if (b->tokens >= 1) {
		b->tokens -= 1;
	} else {
		*retry_after = (long)((1 - b->tokens) * 3600.0 / per_hour) + 1;
		buf_addf(why, "rate limit: at most %.0f submissions at once "
		    "and %.0f per hour from %s ([http] submit_burst, "
		    "submit_per_hour); try again in %ld s", burst, per_hour,
		    who, *retry_after);
		rc = 1;
	}
	pthread_mutex_unlock(&limits_lock);
	return rc;
}

int
limits_submitted(struct db *db, const char *who, long long id)
{
	if (!who || !*who)
		return 0;
	return db_limits_set_submitter(db, id, who);
}
