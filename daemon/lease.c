/*
 * lease: the job-lease timer (see lease.h).
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/db_agent.h"
#include "daemon/lease.h"
#include "daemon/pipeline.h"
#include "daemon/power.h"
#include "lib/log.h"

static pthread_mutex_t ls_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ls_cond = PTHREAD_COND_INITIALIZER;
static pthread_t ls_thread;
static int ls_running, ls_stop;

int
lease_tick(long long now)
{
	struct db *db = app_db();
	int n = 0;

	int cycled;

	if (!db)
		return -1;
	/* machines under power control first: their jobs never expire */
	if ((cycled = power_tick(db, now)) > 0)
		n += cycled;
	if (db_job_expire(db, now, &cycled) == -1)
		return -1;
	n += cycled;
	if (n > 0) {
		log_info("lease: %d job lease%s settled", n, n == 1 ? "" : "s");
		/* a comparison waiting on those jobs may move on */
		pipeline_kick();
	}
	return n;
}

static void *
lease_main(void *arg)
{
	struct timespec ts;

	(void)arg;
	if (app_db() && power_sync(app_db()) == -1)
		log_warnx("lease: power margins not written");
	pthread_mutex_lock(&ls_lock);
	while (!ls_stop) {
		pthread_mutex_unlock(&ls_lock);
		lease_tick((long long)time(NULL));
		pthread_mutex_lock(&ls_lock);
		if (ls_stop)
			break;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&ls_cond, &ls_lock, &ts);
	}
	pthread_mutex_unlock(&ls_lock);
	app_db_close_thread();
	return NULL;
}

int
lease_start(void)
{
	int e;

	ls_stop = 0;
	if ((e = pthread_create(&ls_thread, NULL, lease_main, NULL))) {
		errno = e;
		log_warn("lease: cannot start the timer thread");
		return -1;
	}
	ls_running = 1;
	return 0;
}

void
lease_stop(void)
{
	if (!ls_running)
		return;
	pthread_mutex_lock(&ls_lock);
	ls_stop = 1;
	pthread_cond_broadcast(&ls_cond);
	pthread_mutex_unlock(&ls_lock);
	pthread_join(ls_thread, NULL);
	ls_running = 0;
}
