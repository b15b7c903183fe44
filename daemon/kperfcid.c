/*
 * kperfcid: the kperfci daemon.  Loads the configuration (a file given with
 * -c, else the embedded etc/kperfci.conf), opens and migrates the store,
 * starts the pipeline workers and the HTTP server, and waits for SIGTERM or
 * SIGINT to stop gracefully.
 *
 *	kperfcid [-dnv] [-c FILE]
 *	  -c FILE  configuration file instead of the embedded default
 *	  -d       stay in the foreground and log to stderr
 *	  -n       check the configuration and pending migrations, then exit
 *	  -v       verbose (debug) logging
 */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/http.h"
#include "daemon/http_cache.h"
#include "daemon/lease.h"
#include "daemon/kcidb.h"
#include "daemon/mail.h"
#include "daemon/pipeline.h"
#include "daemon/sched.h"
#include "daemon/settings.h"
#include "daemon/track.h"
#include "daemon/watch.h"
#include "lib/log.h"
#include "lib/xalloc.h"

static void
usage(void)
{
	fprintf(stderr, "usage: kperfcid [-dnv] [-c FILE]\n");
	exit(2);
}

/* Room for [http] max_connections descriptors besides the store's. */
static void
kperfcid_nofile(unsigned conns)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)conns + 256;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < want)
		log_warnx("only %llu file descriptors for [http] "
		    "max_connections = %u", (unsigned long long)rl.rlim_cur,
		    conns);
}

/* -n: report on the configuration and the store, never create anything. */
static int
kperfcid_check(const char *cfgname)
{
	struct buf names = BUF_INIT(0);
	struct stat st;
	struct db *db;
	int n;

	if (stat(app.db_path, &st) < 0) {
		/* no store yet: every migration is pending */
		db = db_open(":memory:");
	} else {
		db = db_open(app.db_path);
	}
	if (!db)
		return 1;
	n = db_pending(db, app.schema_dir, &names);
	db_close(db);
	if (n < 0)
		return 1;
	printf("configuration %s: ok\n", cfgname);
	printf("store %s: %d pending migration%s\n", app.db_path, n,
	    n == 1 ? "" : "s");
	if (n > 0)
		fputs(names.data, stdout);
	buf_release(&names);
	return 0;
}

/* Loads the configuration and its settings, then resolves the paths (the
   data directory is created unless only checking).  0, or -1 (printed). */
static int
kperfcid_load(const char *cfgfile, int check)
{
	const char *name = cfgfile ? cfgfile : "(embedded)";
	struct buf err = BUF_INIT(0);
	int rc = -1;

	config_init(&app.cfg);
	if ((cfgfile ? config_load(&app.cfg, cfgfile, &err) :
	    config_load_default(&app.cfg, &err)) < 0 ||
	    app_load_settings(&err) < 0) {
		fputs(err.data, stderr);
		fprintf(stderr, "kperfcid: configuration %s has errors\n", name);
		goto out;
	}
	if (app_setup(!check, &err) < 0) {
		fputs(err.data, stderr);
		goto out;
	}
	rc = 0;
out:
	buf_release(&err);
	return rc;
}

/* Migrates the store, then leaves the terminal unless foreground. */
static int
kperfcid_detach(int foreground)
{
	struct db *db;

	/* migrate before anything else runs against the store */
	db = app_db();
	if (!db || db_migrate(db, app.schema_dir) < 0)
		return -1;
	if (!foreground) {
		/* no SQLite connection may cross a fork */
		app_db_close_thread();
		if (daemon(0, 0) < 0)
			fatal("daemon");
		log_init("kperfcid", 0);
	}
	return 0;
}

/* The HTTP server on [daemon] and [http] settings; NULL on failure. */
static struct http_server *
kperfcid_http(const struct settings *set, char **spool)
{
	struct http_opts ho;
	struct http_server *srv;

	memset(&ho, 0, sizeof(ho));
	ho.listen = set->daemon.listen;
	ho.port = set->daemon.port;
	ho.threads = set->daemon.threads;
	ho.max_body = set->daemon.max_body;
	ho.thread_db = app_db;
	*spool = xasprintf("%s/tmp", app.data_dir);
	ho.spool = *spool;
	ho.max_inflight = set->http.max_inflight;
	ho.max_connections = set->http.max_connections;
	ho.per_ip_connections = set->http.per_ip_connections;
	ho.timeout = set->http.timeout;
	ho.min_rate = set->http.min_rate;
	ho.per_prefix_connections = set->http.per_prefix_connections;
	ho.reserved_connections = set->http.reserved_connections;
	ho.header_timeout = set->http.header_timeout;
	ho.response_timeout = set->http.response_timeout;
	ho.trust_loopback = set->auth.trust_loopback;
	ho.proxies = (const char *const *)set->auth.proxies;
	ho.nproxies = set->auth.nproxies;
	kperfcid_nofile(ho.max_connections);
	http_cache_size(set->http.cache);
	srv = http_start(&ho);
	if (srv)
		log_info("listening on http://%s%s%s:%d/ (data %s)",
		    strchr(ho.listen, ':') ? "[" : "", ho.listen,
		    strchr(ho.listen, ':') ? "]" : "", http_port(srv),
		    app.data_dir);
	return srv;
}

/* Starts the workers and the server, waits for SIGTERM or SIGINT, stops
   everything in reverse order.  0, or -1 when something did not start. */
static int
kperfcid_serve(const struct settings *set)
{
	struct http_server *srv;
	char *spool = NULL;
	sigset_t sigs;
	int sig, rc = -1;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	signal(SIGPIPE, SIG_IGN);
	/* every thread inherits the blocked set; main waits for them */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	/* the wiring that would otherwise call up a floor (t0010): a
	   finished comparison asks the mail queue for its reply */
	sched_set_done_hook(mail_comparison_done);
	/* builds have their own workers, one per [build] slot */
	if (pipeline_start(set->daemon.workers, set->build.slots,
	    set->daemon.poll) < 0)
		goto out;
	if (track_start(set->daemon.poll) < 0) {
		pipeline_stop();
		goto out;
	}
	if (lease_start() < 0) {
		track_stop();
		pipeline_stop();
		goto out;
	}
	srv = kperfcid_http(set, &spool);
	if (!srv || watch_start() < 0) {
		if (srv)
			http_stop(srv);
		lease_stop();
		track_stop();
		pipeline_stop();
		goto out;
	}
	if (kcidb_start() < 0)
		log_warnx("kcidb: no export worker");
	if (mail_start() < 0)
		log_warnx("mail: the queue did not start; replies wait");
	while (sigwait(&sigs, &sig) != 0 || sig == SIGHUP)
		;
	log_info("signal %d: stopping", sig);
	app.stop = 1;
	watch_stop();
	mail_stop();
	kcidb_stop();
	http_stop(srv);
	lease_stop();
	track_stop();
	pipeline_stop();
	rc = 0;
out:
	curl_global_cleanup();
	free(spool);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *cfgfile = NULL;
	int ch, foreground = 0, check = 0, verbose = 0, rc = 1;

	while ((ch = getopt(argc, argv, "c:dnvh")) != -1) {
		switch (ch) {
		case 'c': cfgfile = optarg; break;
		case 'd': foreground = 1; break;
		case 'n': check = 1; break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	log_init("kperfcid", 1);
	log_set_verbose(verbose);

	if (kperfcid_load(cfgfile, check) < 0)
		goto out;
	if (check)
		rc = kperfcid_check(cfgfile ? cfgfile : "(embedded)");
	else if (kperfcid_detach(foreground) == 0 &&
	    kperfcid_serve(&app.settings) == 0)
		rc = 0;
out:
	app_db_close_thread();
	app_release();
	config_release(&app.cfg);
	return rc;
}
