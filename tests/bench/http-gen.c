/*
 * http-gen: fills a kperfci store for the HTTP benchmarks through the
 * daemon's own store code: NSERIES series (picked from a fixture thread
 * with series_pick and stored with db_series_store_picked), the first
 * NCOMP of them with a finished comparison (sched_create, every job
 * leased and uploaded the way agents do, finished by stage_sched_wait,
 * then viewed once with report_load, which stores its lock table as the
 * first view of a page would), plus one agent and two kernels.
 *
 *	http-gen DIR NSERIES NCOMP	(DIR/kperfci.conf is written too)
 *
 * The generator's own connection runs with synchronous=OFF: it is a
 * fixture, not a store anyone must trust after a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "daemon/agent.h"
#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/db_agent.h"
#include "core/mbox.h"
#include "core/mime.h"
#include "daemon/pipeline.h"
#include "daemon/report.h"
#include "daemon/sched.h"
#include "core/series.h"
#include "lib/buf.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

static const char *const workloads[][3] = {
	{ "fault-free", "mode=shmem,tasks=node", "pages_per_sec" },
	{ "fault-free", "mode=anon,tasks=node", "pages_per_sec" },
	{ "page-fault", "tasks=all,variant=1", "ops_per_sec" },
	{ "swap-memhog", "memcgs=4", "sys_sec" },
	{ "memcg-flush", "memcgs=128", "flush_p99_us" },
};

/* The series every row of the store is: the fixture thread, picked. */
static int
gen_pick(struct series *s)
{
	struct buf data = BUF_INIT(0), err = BUF_INIT(4096);
	char *path = xasprintf("%s/tests/fixtures/threads/basic.mbox",
	    KPERFCI_SRCDIR);
	struct mbox mb;
	struct msg *msgs, **ptrs;
	size_t i, n = 0;
	int rc;

	if (buf_read_file(&data, path) < 0 ||
	    mbox_split(data.data, data.len, &mb, &err) < 0) {
		fprintf(stderr, "http-gen: %s: cannot read\n", path);
		return -1;
	}
	msgs = xcalloc(mb.n, sizeof(*msgs));
	ptrs = xcalloc(mb.n, sizeof(*ptrs));
	for (i = 0; i < mb.n; i++)
		if (msg_parse(mb.msgs[i].data, mb.msgs[i].len, &msgs[n],
		    &err) == 0) {
			ptrs[n] = &msgs[n];
			n++;
		}
	rc = series_pick(ptrs, n, NULL, 0, s, &err);
	if (rc < 0)
		fprintf(stderr, "http-gen: pick: %s\n", err.data);
	free(path);
	buf_release(&data);
	buf_release(&err);
	return rc;
}

static long long
gen_kernel(struct db *db, const char *tag)
{
	struct buf err = BUF_INIT(1024);
	char img[0x400];
	long long id = 0;

	memset(img, 0, sizeof(img));
	memcpy(img + 0x202, "HdrS", 4);
	snprintf(img + 0x300, 0x100, "%s", tag);
	if (agent_kernel_add(db, img, sizeof(img), tag, &id, &err) < 0)
		fprintf(stderr, "http-gen: kernel: %s\n", err.data);
	buf_release(&err);
	return id;
}

/* Leases the next job as agent a1 and uploads 3 iterations of every
   workload; 0, or 1 when no job is left. */
static int
gen_upload(struct db *db, long long now, unsigned seed)
{
	json_t *j = NULL, *row = NULL, *up, *samples;
	const char *side;
	long long id;
	int attempt, boot, it;
	size_t w;

	if (db_job_lease(db, "a1", "cls", now, 600, &j) != 0)
		return 1;
	id = json_integer_value(json_object_get(j, PROTO_ID));
	attempt = (int)json_integer_value(json_object_get(j, PROTO_ATTEMPT));
	db_job_get(db, id, &row);
	side = json_string_value(json_object_get(row, "side"));
	boot = (int)json_integer_value(json_object_get(row, "boot"));
	samples = json_array();
	for (w = 0; w < sizeof(workloads) / sizeof(workloads[0]); w++)
		for (it = 0; it < 3; it++)
			json_array_append_new(samples, json_pack("{s:s,s:s,"
			    "s:i,s:s,s:f,s:s,s:s}", "workload", workloads[w][0],
			    "params", workloads[w][1], "iteration", it,
			    "metric", workloads[w][2], "value", 1000.0 *
			    (w + 1) * (side && !strcmp(side, "patched") ?
			    0.9 + 0.01 * (seed % 20) : 1) * (1 + 0.002 *
			    ((boot * 7 + it * 3 + seed) % 11)), "unit", "x/s",
			    "better", "higher"));
	up = json_pack("{s:s,s:i,s:s,s:o,s:[{s:s,s:s,s:s,s:[{s:s,s:s,s:f,"
	    "s:[]}]}]}", PROTO_AGENT, "a1", PROTO_ATTEMPT, attempt,
	    PROTO_STATUS, "done", PROTO_SAMPLES, samples, PROTO_PROFILES,
	    "type", "lock-profile", "workload", "lock-profile", "params",
	    "mode=shmem", "locks", "lock", "lru_lock", "symbol",
	    "_raw_spin_lock", "share", 0.1 + 0.01 * boot, "callers");
	if (db_job_store(db, id, up, NULL, now, 0) != DB_STORED)
		fprintf(stderr, "http-gen: job %lld not stored\n", id);
	json_decref(up);
	json_decref(row);
	json_decref(j);
	return 0;
}

static int
gen_comparison(struct db *db, long long sid, long long kb, long long kp,
    long long now)
{
	struct buf err = BUF_INIT(4096);
	volatile int stop = 0;
	struct stage_ctx ctx;
	int rc;

	db_series_set_state(db, sid, "fetched", "built", NULL);
	if (sched_create(db, sid, kb, kp, "built", "running", &err) < 0) {
		fprintf(stderr, "http-gen: comparison: %s\n", err.data);
		buf_release(&err);
		return -1;
	}
	while (gen_upload(db, now, (unsigned)sid) == 0)
		;
	memset(&ctx, 0, sizeof(ctx));
	ctx.db = db;
	ctx.series_id = sid;
	ctx.from = "running";
	ctx.to = "done";
	ctx.stop = &stop;
	buf_init(&ctx.err, 4096);
	rc = stage_sched_wait(&ctx);
	if (rc == STAGE_OK) {
		struct report r;

		db_series_set_state(db, sid, "running", "done", NULL);
		report_load(db, sid, 1, &r);	/* the first view */
		report_release(&r);
	} else
		fprintf(stderr, "http-gen: series %lld: %s\n", sid,
		    ctx.err.data ? ctx.err.data : "not finished");
	buf_release(&ctx.err);
	buf_release(&err);
	return rc == STAGE_OK ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct buf err = BUF_INIT(0);
	struct db_series_req sr = { .source = "upload" };
	struct series s;
	struct db *db;
	json_t *topo;
	long long now = (long long)time(NULL), kb, kp, i, nseries, ncomp;
	int64_t sid;
	char *conf, *path;
	FILE *f;

	if (argc != 4)
		return fprintf(stderr, "usage: http-gen DIR NSERIES NCOMP\n"), 2;
	nseries = atoll(argv[2]);
	ncomp = atoll(argv[3]);
	conf = xasprintf("[daemon]\ndata = %s\nthreads = 4\n[agent \"a1\"]\n"
	    "token_sha256 = %064d\n[lore]\nallow = http://127.0.0.1:9/\n"
	    "[sched]\nboots = 3\nboot_step = 3\nmax_boots = 3\n", argv[1], 0);
	path = xasprintf("%s/kperfci.conf", argv[1]);
	if (!(f = fopen(path, "w")) || fputs(conf, f) < 0 || fclose(f))
		return perror(path), 1;
	config_init(&app.cfg);
	if (config_parse(&app.cfg, path, conf, &err) < 0 ||
	    app_setup(1, &err) < 0)
		return fprintf(stderr, "http-gen: %s\n", err.data), 1;
	db = app_db();
	if (!db || db_migrate(db, app.schema_dir) < 0 || gen_pick(&s) < 0)
		return 1;
	db_exec(db, "PRAGMA synchronous=OFF");
	topo = json_pack("{s:i,s:i,s:i,s:s,s:i}", "sockets", 2, "nodes", 2,
	    "cpus", 4, "cpu_model", "Bench CPU", "memory_mb", 2048);
	db_agent_register(db, "a1", "cls", "qemu", "6.12.0", topo, now);
	json_decref(topo);
	kb = gen_kernel(db, "base");
	kp = gen_kernel(db, "patched");
	for (i = 0; i < nseries; i++) {
		if (db_series_insert(db, &sr, &sid) < 0 ||
		    db_series_store_picked(db, sid, &s, "queued", "fetched") < 0)
			return 1;
		if (i >= ncomp)
			db_series_set_state(db, sid, "fetched", "done", NULL);
	}
	for (i = 1; i <= ncomp; i++)
		if (gen_comparison(db, i, kb, kp, now) < 0)
			return 1;
	printf("http-gen: %lld series, %lld finished comparisons in %s\n",
	    nseries, ncomp, argv[1]);
	series_release(&s);
	app_db_close_thread();
	app_release();
	config_release(&app.cfg);
	free(conf);
	free(path);
	buf_release(&err);
	return 0;
}
