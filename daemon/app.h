/*
 * app: the daemon's process-wide context, set up once at start-up and
 * read-only afterwards: the loaded configuration and its typed settings
 * (what the stages, handlers and workers read), resolved paths, and the
 * per-thread database connection every HTTP thread and worker uses.
 */
#ifndef KPERFCI_APP_H
#define KPERFCI_APP_H

#include "daemon/config.h"
#include "daemon/settings.h"
#include "lib/buf.h"

struct db;

struct app {
	struct config cfg;
	struct settings settings;	/* from cfg, by app_setup */
	char	*data_dir;		/* absolute */
	char	*db_path;
	char	*schema_dir;
	char	*web_dir;
	volatile int stop;		/* set on SIGTERM/SIGINT */
};

extern struct app app;

/*
 * Loads app.settings from app.cfg (settings_load; again after app.cfg
 * changed).  0 or -1 with err.
 */
int	 app_load_settings(struct buf *err);
/*
 * Loads app.settings, then resolves the paths from them (relative to the current directory;
 * defaults from the source tree, KPERFCI_SRCDIR, or PREFIX/share/kperfci).
 * Creates the data directory when create is set.  0 or -1 with err.
 */
int	 app_setup(int create, struct buf *err);
void	 app_release(void);
/*
 * This thread's connection to app.db_path, opened on first use and closed
 * when the thread exits.  NULL (logged) when it cannot be opened.
 */
struct db *app_db(void);
/* Closes this thread's connection now (main thread at exit). */
void	 app_db_close_thread(void);

#endif
