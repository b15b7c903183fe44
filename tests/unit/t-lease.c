/*
 * t-lease: job leases on the daemon's real store (a temp file, migrated
 * from schema/): priority order, expiry and re-queue to another agent,
 * heartbeats, idempotent uploads keyed by (job, attempt), max attempts,
 * and the hardware class.  Time is passed in, so expiry needs no sleep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/agent.h"
#include "daemon/db.h"
#include "daemon/db_agent.h"
#include "lib/proto.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-lease.XXXXXX";

#define SHA1 "1111111111111111111111111111111111111111111111111111111111111111"

static json_t *
topo(const char *model)
{
	return json_pack("{s:i,s:i,s:i,s:i,s:s,s:i,s:[s,s]}", "sockets", 2,
	    "nodes", 2, "cpus", 4, "cores", 4, "cpu_model", model,
	    "memory_mb", 2048, "node_cpus", "0-1", "2-3");
}

static json_t *
upload(const char *agent, int attempt, const char *status, int nsamples)
{
	json_t *u = json_pack("{s:s,s:i,s:s,s:[]}", "agent", agent, "attempt",
	    attempt, "status", status, "samples");

	for (int i = 0; i < nsamples; i++)
		json_array_append_new(json_object_get(u, "samples"), json_pack(
		    "{s:s,s:s,s:i,s:s,s:f,s:s,s:s}", "workload", "fault-free",
		    "params", "mode=anon", "iteration", i, "metric",
		    "pages_per_sec", "value", 100.0 + i, "unit", "pages/s",
		    "better", "higher"));
	return u;
}

static const char *
job_state(struct db *db, long long id)
{
	static char st[32];
	json_t *j;

	if (db_job_get(db, id, &j) != 0)
		return "?";
	snprintf(st, sizeof(st), "%s", json_string_value(json_object_get(j,
	    "state")));
	json_decref(j);
	return st;
}

int
main(void)
{
	struct db *db;
	struct db_job_new nj = { 0 };
	long long kid, kid2, j1, j2, j3, t = 1000000;
	json_t *job, *u, *s, *p, *t1;
	struct buf err = BUF_INIT(1024);
	char *path, *class;
	int n;

	if (mkdtemp(dir) == NULL)
		return 1;
	path = xasprintf("%s/k.db", dir);
	db = db_open(path);
	ok(db != NULL, "store opened");
	is_int(db_migrate(db, KPERFCI_SRCDIR "/schema"), 0, "migrated");

	t1 = topo("Intel(R) Xeon(R) Gold 6140");
	class = agent_class(t1);
	ok(strncmp(class, "2s-2n-4c-", 9) == 0 && strlen(class) == 17,
	    "class %s", class);
	is_int(db_agent_register(db, "a1", class, "qemu", "6.1", t1, t), 0,
	    "agent a1 registered");
	is_int(db_agent_register(db, "a2", class, "qemu", "6.1", t1, t), 0,
	    "agent a2 registered");
	is_int(db_agent_register(db, "a1", class, "qemu", "6.2", t1, t), 0,
	    "registering again updates");
	json_decref(t1);
	t1 = topo("AMD EPYC");
	{
		char *c2 = agent_class(t1);

		ok(strcmp(c2, class) != 0, "another CPU model, another class");
		free(c2);
	}
	json_decref(t1);

	is_int(db_kernel_insert(db, SHA1, 100, "kernels/" SHA1 ".bzImage",
	    NULL, "t", &kid), 0, "kernel recorded");
	is_int(db_kernel_insert(db, SHA1, 100, "kernels/" SHA1 ".bzImage",
	    NULL, "t", &kid2), 0, "same kernel again");
	is_int(kid2, kid, "deduplicated by sha256");

	nj.kernel_id = 999;
	nj.matrix = "m";
	is_int(db_job_insert(db, &nj, t, &j1), 1, "job for unknown kernel: 1");
	nj.kernel_id = kid;
	nj.max_attempts = 2;
	is_int(db_job_insert(db, &nj, t, &j1), 0, "job 1 (priority 0)");
	nj.priority = 5;
	is_int(db_job_insert(db, &nj, t, &j2), 0, "job 2 (priority 5)");
	nj.priority = 0;
	nj.class = "other-class";
	is_int(db_job_insert(db, &nj, t, &j3), 0, "job 3 for another class");

	is_int(db_job_lease(db, "a1", class, t, 60, &job), 0, "a1 leases");
	is_int(json_integer_value(json_object_get(job, "id")), j2,
	    "highest priority first");
	is_int(json_integer_value(json_object_get(job, "attempt")), 1,
	    "attempt 1");
	ok(proto_check_job(job, &err) == 0, "lease answer is a valid proto "
	    "job %s", err.data ? err.data : "");
	json_decref(job);
	is_str(job_state(db, j2), "leased", "job 2 leased");

	is_int(db_job_lease(db, "a2", class, t, 60, &job), 0, "a2 leases");
	is_int(json_integer_value(json_object_get(job, "id")), j1,
	    "then the oldest");
	json_decref(job);
	is_int(db_job_lease(db, "x9", class, t, 60, &job), 1,
	    "nothing left for this class (job 3 wants another)");

	/* a1 heartbeats, a2 goes silent. */
	is_int(db_job_heartbeat(db, j2, 1, "a1", "running", t + 50, 60), 0,
	    "heartbeat extends a1's lease");
	is_int(db_job_heartbeat(db, j2, 1, "a2", "running", t + 50, 60), 1,
	    "heartbeat by a non-holder refused");
	is_int(db_job_heartbeat(db, j2, 2, "a1", "running", t + 50, 60), 1,
	    "heartbeat for another attempt refused");
	is_int(db_job_expire(db, t + 61, &n), 0, "expiry pass");
	is_int(n, 1, "one lease expired (a2's)");
	is_str(job_state(db, j1), "queued", "job 1 back in the queue");
	is_str(job_state(db, j2), "leased", "job 2 kept (heartbeat)");

	/* The silent agent comes back and uploads late. */
	u = upload("a2", 1, "done", 3);
	is_int(db_job_store(db, j1, u, NULL, t + 62, 0), DB_NOT_HOLDER,
	    "late upload of an expired attempt refused");
	json_decref(u);

	is_int(db_job_lease(db, "a3", class, t + 62, 60, &job), 0,
	    "another agent leases the re-queued job");
	is_int(json_integer_value(json_object_get(job, "id")), j1, "job 1");
	is_int(json_integer_value(json_object_get(job, "attempt")), 2,
	    "as attempt 2");
	json_decref(job);

	u = upload("a3", 2, "done", 3);
	is_int(db_job_store(db, j1, u, "console/job-1-2.log", t + 70, 0),
	    DB_STORED, "attempt 2 stored");
	is_int(db_job_store(db, j1, u, NULL, t + 71, 0), DB_DUPLICATE,
	    "the same upload again: duplicate");
	json_decref(u);
	u = upload("a3", 1, "done", 0);
	is_int(db_job_store(db, 4242, u, NULL, t, 0), DB_UNKNOWN_JOB,
	    "upload for an unknown job");
	json_decref(u);
	is_str(job_state(db, j1), "done", "job 1 done");
	db_job_results(db, j1, &s, &p);
	is_int(json_array_size(s), 3, "three samples, not six");
	is_int(json_integer_value(json_object_get(json_array_get(s, 0),
	    "attempt")), 2, "from attempt 2");
	json_decref(s);
	json_decref(p);
	{
		char *c = NULL;

		is_int(db_job_console(db, j1, 2, &c), 0, "console recorded");
		is_str(c, "console/job-1-2.log", "console path");
		free(c);
		is_int(db_job_console(db, j1, 1, &c), 1,
		    "expired attempt has no console");
	}

	/* A boot failure is a result: stored, not re-queued. */
	u = upload("a1", 1, "boot-failed", 0);
	json_object_set_new(u, "reason", json_string("Kernel panic - not "
	    "syncing: VFS"));
	is_int(db_job_store(db, j2, u, NULL, t + 80, 0), DB_STORED,
	    "boot-failed stored");
	json_decref(u);
	is_str(job_state(db, j2), "boot-failed", "job 2 boot-failed");
	is_int(db_job_lease(db, "a1", class, t + 81, 60, &job), 1,
	    "a boot-failed job is not offered again");

	/* Past max_attempts (2) a job fails instead of looping. */
	nj.class = NULL;
	nj.max_attempts = 2;
	is_int(db_job_insert(db, &nj, t, &j3), 0, "job 4");
	is_int(db_job_lease(db, "a1", class, t + 100, 10, &job), 0, "lease 1");
	json_decref(job);
	db_job_expire(db, t + 111, &n);
	is_str(job_state(db, j3), "queued", "first expiry: re-queued");
	is_int(db_job_lease(db, "a1", class, t + 112, 10, &job), 0, "lease 2");
	json_decref(job);
	/* The same agent asking again has given up its job. */
	is_int(db_job_lease(db, "a1", class, t + 113, 10, &job), 1,
	    "asking again releases the held job; no other job");
	{
		json_t *j;

		db_job_get(db, j3, &j);
		is_str(json_string_value(json_object_get(j, "state")),
		    "failed", "second expiry: failed");
		ok(strstr(json_string_value(json_object_get(j, "reason")),
		    "expired 2 times") != NULL, "reason says why: %s",
		    json_string_value(json_object_get(j, "reason")));
		is_int(json_array_size(json_object_get(j, "attempts_detail")),
		    2, "two attempts recorded");
		json_decref(j);
	}

	{
		json_t *agents;

		db_agent_list_at(db, t + 200, 60, &agents);
		is_int(json_array_size(agents), 2, "two agents listed");
		is_str(json_string_value(json_object_get(json_array_get(agents,
		    0), "kernel_release")), "6.2", "re-registration updated");
		is_str(json_string_value(json_object_get(json_array_get(agents,
		    1), "state")), "offline", "a2, silent for 200 s: offline");
		json_decref(agents);
	}

	free(class);
	db_close(db);
	free(path);
	buf_release(&err);
	path = xasprintf("rm -rf %s", dir);
	if (system(path) != 0)
		printf("# could not remove %s\n", dir);
	free(path);
	return tap_done();
}
