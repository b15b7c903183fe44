/*
 * watches: the table of watched lists (see watches.h).  One lock guards
 * what a poll leaves in it; the watch thread holds it except while it
 * polls, and sleeps on the condition below, so watches_json never sees a
 * half-written entry and watch_stop wakes the thread at once.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "daemon/app.h"
#include "daemon/db_watch.h"
#include "daemon/settings.h"
#include "daemon/watches.h"
#include "lib/xalloc.h"

static pthread_mutex_t watches_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watches_cond = PTHREAD_COND_INITIALIZER;
static struct watch *watches;
static size_t nwatches;

/* ---- the table -------------------------------------------------------- */

void
watches_load(const struct settings *set)
{
	nwatches = 0;
	watches = xcalloc(set->nwatches + 1, sizeof(*watches));
	for (size_t i = 0; i < set->nwatches; i++) {
		const struct settings_watch *sw = &set->watches[i];
		struct watch *w = &watches[nwatches++];

		w->name = sw->name;
		w->lore = sw->lore;
		w->list = sw->list;
		w->poll = sw->poll;
		w->per_day = sw->per_day;
		/* rounded up: per_day 6, share 3: 2 each */
		w->author_max = (sw->per_day + sw->author_share - 1) /
		    (sw->author_share > 0 ? sw->author_share : 1);
		w->priority = sw->priority;
		w->paths = xcalloc(sw->npaths + 1, sizeof(*w->paths));
		memcpy(w->paths, sw->paths, sw->npaths * sizeof(*w->paths));
		w->npaths = sw->npaths;
		w->next = time(NULL);
	}
}

void
watches_release(void)
{
	for (size_t i = 0; i < nwatches; i++) {
		free(watches[i].paths);
		free(watches[i].last_error);
		for (size_t j = 0; j < watches[i].nskipped; j++)
			free(watches[i].skipped[j]);
		for (size_t j = 0; j < WATCH_MAX_PENDING; j++)
			free(watches[i].pending[j].msgid);
	}
	free(watches);
	watches = NULL;
	nwatches = 0;
}

size_t
watches_count(void)
{
	return nwatches;
}

struct watch *
watches_get(size_t i)
{
	return i < nwatches ? &watches[i] : NULL;
}

/* ---- the lock --------------------------------------------------------- */

void
watches_lock(void)
{
	pthread_mutex_lock(&watches_mutex);
}

void
watches_unlock(void)
{
	pthread_mutex_unlock(&watches_mutex);
}

void
watches_wait(const struct timespec *until)
{
	pthread_cond_timedwait(&watches_cond, &watches_mutex, until);
}

void
watches_wake(void)
{
	pthread_cond_broadcast(&watches_cond);
}

/* ---- the status ------------------------------------------------------- */

json_t *
watches_json(void)
{
	json_t *a = json_array();
	struct db *db = app_db();

	pthread_mutex_lock(&watches_mutex);
	for (size_t i = 0; i < nwatches; i++) {
		const struct watch *w = &watches[i];
		json_t *paths = json_array(), *skipped = json_array();
		long long seen = 0, sub = 0;

		for (size_t j = 0; j < w->npaths; j++)
			json_array_append_new(paths, json_string(w->paths[j]));
		for (size_t j = 0; j < w->nskipped; j++)
			json_array_append_new(skipped,
			    json_string(w->skipped[j]));
		if (db)
			db_watch_counts(db, w->name, &seen, &sub);
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:o,s:I,s:I,"
		    "s:I,s:I,s:I,s:I,s:I,s:I,s:s?,s:o,s:I}", "name", w->name,
		    "lore", w->lore, "list", w->list, "paths", paths,
		    "poll", (json_int_t)w->poll,
		    "per_day", (json_int_t)w->per_day,
		    "per_author", (json_int_t)w->author_max,
		    "priority", (json_int_t)w->priority,
		    "last_poll", (json_int_t)w->last_poll,
		    "failures", (json_int_t)w->failures,
		    "seen", (json_int_t)seen, "submitted", (json_int_t)sub,
		    "last_error", w->last_error,
		    "skipped", skipped, "skipped_count", (json_int_t)w->nbad));
	}
	pthread_mutex_unlock(&watches_mutex);
	return a;
}
