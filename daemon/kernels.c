/*
 * kernels: every kernel the daemon builds (see kernels.h).  Runs on the
 * thread that asks (a pipeline worker, the track thread); build.c bounds
 * how many builds run at once ([build] slots).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/build.h"
#include "core/tree.h"
#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/db_build.h"
#include "daemon/kernels.h"
#include "lib/xalloc.h"

char *
kernels_cache_dir(void)
{
	const char *c = app.settings.build.cache;

	if (!c)
		return xasprintf("%s/builds", app.data_dir);
	return c[0] == '/' ? xstrdup(c) : xasprintf("%s/%s", app.data_dir, c);
}

void
kernels_opts(struct build_opts *opts)
{
	const struct settings *set = &app.settings;
	static const char *hide[1];

	memset(opts, 0, sizeof(*opts));
	build_set_slots(set->build.slots);
	opts->jobs = set->build.jobs;
	opts->timeout_sec = set->build.timeout;
	opts->sandbox = 1;
	/* The build must not see the store, uploads or other builds. */
	hide[0] = app.data_dir;
	opts->hide = hide;
	opts->nhide = 1;
	opts->pids_max = set->build.pids_max;
	opts->mem_max = set->build.mem_max;
	opts->file_max = set->build.file_max;
	opts->output_max = set->build.output_max;
}

/* Runs on the building thread and on build.c's monitor thread: each uses
   its own connection (app_db). */
static void
kernels_progress(void *arg, enum build_state st, int pct)
{
	struct db *db = app_db();

	if (db)
		db_build_set_state(db, *(int64_t *)arg, build_state_name(st),
		    pct);
}

/* What the cache keeps of a build while the store names it (build.h,
   build_gc): the storage quota counts it for the series built. */
static long long
kernels_artifact_bytes(const char *dir)
{
	static const char *const keep[] = { "bzImage", "System.map",
	    "config", "build.log" };
	struct stat st;
	long long n = 0;
	size_t i;
	char *p;

	for (i = 0; dir && i < sizeof(keep) / sizeof(keep[0]); i++) {
		p = xasprintf("%s/%s", dir, keep[i]);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
			n += (long long)st.st_size;
		free(p);
	}
	return n;
}

/* The row of a finished build: a cache hit keeps the figures of the build
   that made it. */
static void
kernels_record(struct db *db, int64_t id, const struct build_result *res)
{
	struct db_build row;

	if (!res->cache_hit || db_build_get(db, id, &row) != 0 ||
	    !row.sha256) {
		db_build_finish(db, id, "done", res->dir, res->sha256, NULL,
		    NULL, res->seconds, res->cc_lines);
		return;
	}
	db_build_set_state(db, id, "done", 100);
	db_build_release(&row);
}

int
kernels_build(struct db *db, const struct kernels_request *req,
    int64_t *build_id, char key[65], char **dir, struct buf *err)
{
	const struct tree_conf *tc = req->tree;
	struct build_spec spec = { 0 };
	struct build_opts opts;
	struct build_result res;
	char *cache = NULL;
	int rc = -1;

	spec.repo = tc->path;
	spec.commit = req->commit;
	spec.config = tc->config;
	spec.fragments = (const char *const *)tc->fragments;
	spec.nfragments = tc->nfragments;
	spec.base_commit = req->base_key ? req->base_commit : NULL;
	spec.base_key = req->base_key;
	if (build_spec_key(&spec, key, err) != 0)
		return -1;
	*build_id = 0;
	if (db_build_claim(db, key, tc->name, req->commit, req->desc ?
	    req->desc : tc->config, req->base_id, build_id) != 0) {
		buf_addstr(err, "cannot store the build");
		return -1;
	}
	if (req->claimed)
		req->claimed(req->arg, *build_id);
	kernels_opts(&opts);
	cache = kernels_cache_dir();
	opts.cache_dir = cache;
	opts.progress = kernels_progress;
	opts.arg = build_id;
	opts.cancel = req->stop;
	if (build_run(&spec, &opts, &res) != 0) {
		if (req->stop && *req->stop) {
			/* Stopped by the daemon, not a result: the build
			   starts over when its work is resumed. */
			db_build_set_state(db, *build_id, "queued", -1);
			rc = 1;
			goto out;
		}
		db_build_finish(db, *build_id, "failed", res.dir[0] ? res.dir :
		    NULL, NULL, res.error, res.log_tail, res.seconds,
		    res.cc_lines);
		db_build_set_bytes(db, *build_id, kernels_artifact_bytes(
		    res.dir[0] ? res.dir : NULL));
		buf_addf(err, "%s", res.error);
		goto out;
	}
	kernels_record(db, *build_id, &res);
	db_build_set_bytes(db, *build_id, kernels_artifact_bytes(res.dir));
	if (dir)
		*dir = xstrdup(res.dir);
	rc = 0;
out:
	free(cache);
	return rc;
}
