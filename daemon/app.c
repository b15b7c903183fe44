/*
 * app: process-wide context and per-thread db connections (see app.h).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/app.h"
#include "daemon/db.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#ifndef KPERFCI_SRCDIR
#define KPERFCI_SRCDIR "."
#endif
#ifndef KPERFCI_SHAREDIR
#define KPERFCI_SHAREDIR "/usr/local/share/kperfci"
#endif

struct app app;

static pthread_key_t app_db_key;
static pthread_once_t app_db_once = PTHREAD_ONCE_INIT;

static void
app_db_destroy(void *p)
{
	db_close(p);
}

static void
app_db_key_init(void)
{
	pthread_key_create(&app_db_key, app_db_destroy);
}

struct db *
app_db(void)
{
	struct db *db;

	pthread_once(&app_db_once, app_db_key_init);
	db = pthread_getspecific(app_db_key);
	if (db)
		return db;
	if (!app.db_path) {
		error("app: no database configured");
		return NULL;
	}
	db = db_open(app.db_path);
	if (db)
		pthread_setspecific(app_db_key, db);
	return db;
}

void
app_db_close_thread(void)
{
	pthread_once(&app_db_once, app_db_key_init);
	db_close(pthread_getspecific(app_db_key));
	pthread_setspecific(app_db_key, NULL);
}

/* Absolute form of p (relative to the current directory). */
static char *
app_abs(const char *p)
{
	char cwd[PATH_MAX];

	if (p[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(p);
	return xasprintf("%s/%s", cwd, p);
}

/* First existing directory among the configured one and the fallbacks. */
static char *
app_find_dir(const char *configured, const char *name)
{
	struct stat st;
	char *p;

	if (configured && *configured)
		return app_abs(configured);
	p = xasprintf("%s/%s", KPERFCI_SRCDIR, name);
	if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
		return p;
	free(p);
	return xasprintf("%s/%s", KPERFCI_SHAREDIR, name);
}

int
app_load_settings(struct buf *err)
{
	settings_release(&app.settings);
	return settings_load(&app.cfg, &app.settings, err);
}

int
app_setup(int create, struct buf *err)
{
	const char *data, *dbp;
	struct stat st;

	app_release();
	if (app_load_settings(err) < 0)
		return -1;
	data = app.settings.daemon.data;
	dbp = app.settings.daemon.db;
	app.data_dir = app_abs(data);
	app.db_path = dbp && *dbp ? app_abs(dbp) :
	    xasprintf("%s/kperfci.db", app.data_dir);
	app.schema_dir = app_find_dir(app.settings.daemon.schema, "schema");
	app.web_dir = app_find_dir(app.settings.daemon.web, "web");
	if (stat(app.schema_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		buf_addf(err, "schema directory %s: %s\n", app.schema_dir,
		    strerror(errno ? errno : ENOTDIR));
		return -1;
	}
	/* 0711: the build user may pass through to the build cache (which
	   it reaches by its full path), never list or read the rest. */
	if (create && mkdir(app.data_dir, 0711) < 0 && errno != EEXIST) {
		buf_addf(err, "cannot create data directory %s: %s\n",
		    app.data_dir, strerror(errno));
		return -1;
	}
	return 0;
}

void
app_release(void)
{
	free(app.data_dir);
	free(app.db_path);
	free(app.schema_dir);
	free(app.web_dir);
	app.data_dir = app.db_path = app.schema_dir = app.web_dir = NULL;
	settings_release(&app.settings);
}
