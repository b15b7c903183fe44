/*
 * stage_build: the pipeline stages of trees and builds (their prototypes
 * are with the stage table in pipeline.h).
 *
 *	fetched -> applied	stage_apply: choose the base, apply the series
 *	applied -> built	stage_build: build base, then patched from it
 *
 * When no [tree] is configured the apply stage rests (the series stays at
 * fetched), so a daemon without trees behaves as before.
 *
 * Both stages run on pipeline worker threads, never on HTTP threads.  The
 * build stage blocks for as long as the kernel builds; build.c bounds how
 * many builds run at once ([build] slots) and the live state of each is
 * written to the store (queued, configuring, building N%, done, failed) by
 * the progress callback, so pages can show it while the worker waits.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/app.h"
#include "core/build.h"
#include "daemon/db.h"
#include "daemon/db_build.h"
#include "daemon/kernels.h"
#include "daemon/pipeline.h"
#include "core/series.h"
#include "core/tree.h"
#include "daemon/trees.h"
#include "lib/log.h"
#include "lib/xalloc.h"

/* "tinyconfig + perf.config + qemu.config": for pages. */
static char *
stage_config_desc(const struct tree_conf *tc)
{
	struct buf b = BUF_INIT(0);

	buf_addstr(&b, tc->config);
	for (size_t i = 0; i < tc->nfragments; i++) {
		const char *s = strrchr(tc->fragments[i], '/');

		buf_addf(&b, " + %s", s ? s + 1 : tc->fragments[i]);
	}
	return buf_detach(&b, NULL);
}

int
stage_apply(struct stage_ctx *ctx)
{
	const char *name = trees_series_name();
	struct tree_conf tc;
	struct db_series s;
	struct patch *patches = NULL;
	struct tree_applied applied = { 0 };
	struct buf reason = BUF_INIT(4096), err = BUF_INIT(64 << 10);
	enum tree_base_kind kind;
	char base[41], *ref = NULL;
	int *counters = NULL;
	size_t n = 0;
	int rc = STAGE_FAIL, have_series = 0;

	memset(&tc, 0, sizeof(tc));
	if (!name) {
		/* No tree: the series rests at fetched, as without builds. */
		buf_addstr(&ctx->err, "no [tree] is configured to apply it to");
		return STAGE_REST;
	}
	if (trees_conf(name, &tc, &ctx->err) != 0)
		goto out;
	if (db_series_get(ctx->db, ctx->series_id, 0, &s) != 0) {
		buf_addf(&ctx->err, "cannot read series %lld",
		    ctx->series_id);
		goto out;
	}
	have_series = 1;
	if (!tc.url && access(tc.path, F_OK) != 0) {
		buf_addf(&ctx->err, "tree %s: no repository at %s (import one "
		    "with: kperfci tree import --tarball /usr/src/"
		    "linux-source-6.12.tar.xz --name %s --dir %s)", tc.name,
		    tc.path, tc.name, tc.path);
		goto out;
	}
	db_build_tree_upsert(ctx->db, tc.name, tc.url, tc.path, tc.branch);
	if (tc.url) {
		char *log = xasprintf("%s/trees/%s.fetch.log", app.data_dir,
		    tc.name);
		char *dir = xasprintf("%s/trees", app.data_dir);

		mkdir(dir, 0755);
		free(dir);
		db_build_tree_fetch_state(ctx->db, tc.name, "fetching", NULL,
		    NULL);
		if (tree_fetch(tc.path, tc.url, tc.branch, log,
		    settings_tree(&app.settings, tc.name)->fetch_timeout,
		    &err) != 0) {
			db_build_tree_fetch_state(ctx->db, tc.name, "failed",
			    err.data, NULL);
			buf_addf(&ctx->err, "tree %s: %s", tc.name, err.data);
			free(log);
			goto out;
		}
		free(log);
		if (tree_resolve(tc.path, tc.branch, base) == 0)
			db_build_tree_fetch_state(ctx->db, tc.name, "done", NULL,
			    base);
	}
	if (tree_choose_base(tc.path, tc.branch, s.base_commit, s.req_base,
	    base, &kind, &reason) != 0) {
		buf_addf(&ctx->err, "tree %s has no base for this series: %s",
		    tc.name, reason.data);
		goto out;
	}
	if (db_build_patches(ctx->db, ctx->series_id, &patches, &n) != 0 ||
	    n == 0) {
		buf_addf(&ctx->err, "series %lld has no stored patches",
		    ctx->series_id);
		goto out;
	}
	counters = xcalloc(n, sizeof(int));
	for (size_t i = 0; i < n; i++)
		counters[i] = patches[i].counter;
	ref = xasprintf("refs/kperfci/series/%lld", ctx->series_id);
	if (tree_apply(tc.path, base, patches, n, ref, &applied, &err) != 0) {
		/* The base choice is shown even when the series fails. */
		db_build_series_set(ctx->db, ctx->series_id, tc.name, base,
		    tree_base_kind_name(kind), reason.data, NULL, NULL, NULL,
		    NULL, 0);
		buf_addf(&ctx->err, "%s", err.data);
		goto out;
	}
	if (db_build_series_set(ctx->db, ctx->series_id, tc.name, base,
	    tree_base_kind_name(kind), reason.data, applied.commit, ref,
	    counters, applied.paths, applied.npaths) != 0) {
		buf_addf(&ctx->err, "cannot store the applied series");
		goto out;
	}
	rc = STAGE_OK;
out:
	if (have_series)
		db_series_release(&s);
	db_build_patches_free(patches, n);
	tree_applied_release(&applied);
	tree_conf_release(&tc);
	buf_release(&reason);
	buf_release(&err);
	free(counters);
	free(ref);
	return rc;
}

/* Links a build row to the series as soon as it exists, so the page
   follows the live state. */
struct stage_link {
	struct stage_ctx *ctx;
	const char *base_commit;
	int64_t	 base_id;
};

static void
stage_link_build(void *arg, int64_t id)
{
	struct stage_link *l = arg;

	db_build_series_set_builds(l->ctx->db, l->ctx->series_id,
	    l->base_commit ? l->base_id : id, l->base_commit ? id : 0);
}

/* Builds one kernel through the daemon's one build path (kernels.c) and
   records it; *id gets the build row.  0 built, -1 failed (reason in
   ctx->err), 1 interrupted by the daemon stopping. */
static int
stage_build_one(struct stage_ctx *ctx, const struct tree_conf *tc,
    const char *commit, const char *base_commit, const char *base_key,
    int64_t base_id, int64_t *id, char key[65])
{
	struct kernels_request req = { 0 };
	struct stage_link link = { ctx, base_commit, base_id };
	char *desc = stage_config_desc(tc);
	int rc;

	req.tree = tc;
	req.commit = commit;
	req.base_commit = base_commit;
	req.base_key = base_key;
	req.base_id = base_id;
	req.desc = desc;
	req.stop = ctx->stop;
	req.claimed = stage_link_build;
	req.arg = &link;
	rc = kernels_build(ctx->db, &req, id, key, NULL, &ctx->err);
	free(desc);
	return rc;
}

/* Keeps the build cache under [build] cache_max (see build_cache_gc). */
static void
stage_build_gc(struct stage_ctx *ctx)
{
	long long max = app.settings.build.cache_max;
	struct build_gc_stats gs;
	char **keys = NULL, *cache;
	size_t n = 0;

	if (max <= 0)
		return;
	if (db_build_keys(ctx->db, &keys, &n) != 0) {
		log_warnx("build cache: cannot list the store's builds; not "
		    "collected");
		return;
	}
	cache = kernels_cache_dir();
	if (build_cache_gc(cache, max, (const char *const *)keys, n, &gs) == 0 &&
	    (gs.trees_evicted || gs.builds_removed || gs.sources_removed))
		log_info("build cache %s: %lld -> %lld MiB (budget %lld MiB): "
		    "%d trees evicted, %d builds and %d sources removed, %d "
		    "in use", cache, gs.before >> 20, gs.after >> 20, max >> 20,
		    gs.trees_evicted, gs.builds_removed, gs.sources_removed,
		    gs.busy);
	else if (gs.after > max)
		log_warnx("build cache %s: %lld MiB, over its budget of %lld "
		    "MiB with nothing left to evict", cache, gs.after >> 20,
		    max >> 20);
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(cache);
}

int
stage_build(struct stage_ctx *ctx)
{
	const char *name = trees_series_name();
	struct db_series_build sb;
	struct tree_conf tc;
	int64_t base_id = 0, patched_id = 0;
	char base_key[65], patched_key[65];
	int rc = STAGE_FAIL, have_sb = 0, r;
	size_t mark;

	memset(&tc, 0, sizeof(tc));
	if (db_build_series_get(ctx->db, ctx->series_id, &sb) != 0 ||
	    !sb.patched_commit) {
		buf_addf(&ctx->err, "series %lld has no applied commit",
		    ctx->series_id);
		goto out;
	}
	have_sb = 1;
	if (!name || strcmp(name, sb.tree))
		name = sb.tree;
	if (trees_conf(name, &tc, &ctx->err) != 0)
		goto out;
	mark = ctx->err.len;
	r = stage_build_one(ctx, &tc, sb.base_commit, NULL, NULL, 0, &base_id,
	    base_key);
	if (r == 1) {
		rc = STAGE_WAIT;
		goto out;
	}
	if (r != 0) {
		char *why = xstrdup(ctx->err.data + mark);

		ctx->err.len = mark;
		ctx->err.data[mark] = '\0';
		buf_addf(&ctx->err, "base build failed: %s", why);
		free(why);
		db_build_series_set_builds(ctx->db, ctx->series_id, base_id, 0);
		goto out;
	}
	db_build_series_set_builds(ctx->db, ctx->series_id, base_id, 0);
	r = stage_build_one(ctx, &tc, sb.patched_commit, sb.base_commit,
	    base_key, base_id, &patched_id, patched_key);
	if (r == 1) {
		rc = STAGE_WAIT;
		goto out;
	}
	if (r != 0) {
		char *why = xstrdup(ctx->err.data + mark);

		ctx->err.len = mark;
		ctx->err.data[mark] = '\0';
		buf_addf(&ctx->err, "patched build failed: %s", why);
		free(why);
		db_build_series_set_builds(ctx->db, ctx->series_id, base_id,
		    patched_id);
		goto out;
	}
	db_build_series_set_builds(ctx->db, ctx->series_id, base_id,
	    patched_id);
	rc = STAGE_OK;
out:
	if (rc != STAGE_WAIT && have_sb)
		stage_build_gc(ctx);
	if (have_sb)
		db_series_build_release(&sb);
	tree_conf_release(&tc);
	return rc;
}
