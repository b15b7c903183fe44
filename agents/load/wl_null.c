/*
 * wl_null: the harness with no kernel work: pinned tasks only count, so
 * its timings show what starting, pinning, sampling and stopping tasks
 * cost by themselves (the benchmark reports it as the harness overhead).
 * Metrics: the wall time of one iteration beyond --seconds, and the
 * counting rate (a sanity check that tasks really ran).
 */
#include <stdlib.h>

#include "agents/load/util.h"
#include "agents/load/wl.h"

static void
null_task(struct wl_task *t)
{
	while (!*t->stop)
		wl_count(t, 1);
}

static int
null_run(struct wl_run *r)
{
	struct wl_tasks g;
	int *cpus, n, it;
	unsigned long long c0, c1;
	double t0, t1, t2;

	if (wl_get_tasks(r, "tasks", &cpus, &n) < 0)
		return -1;
	for (it = 0; it < r->warmup + r->iterations; it++) {
		t0 = load_now();
		if (wl_tasks_start(&g, cpus, n, 0, null_task, NULL) < 0) {
			free(cpus);
			return -1;
		}
		t1 = load_now();
		c0 = wl_tasks_sum(&g);
		wl_sleep(r->seconds);
		c1 = wl_tasks_sum(&g);
		t2 = load_now();
		if (wl_tasks_stop(&g) < 0) {
			free(cpus);
			return -1;
		}
		wl_emit(r, it, "overhead_usec",
		    (load_now() - t0 - (t2 - t1)) * 1e6, "us", 0);
		wl_emit(r, it, "counts_per_sec", (c1 - c0) / (t2 - t1), "1/s", 1);
	}
	free(cpus);
	return 0;
}

static const struct wl_param null_params[] = {
	{ "tasks", WL_TASKS, "all", "threads, one per CPU", 0, 0, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

const struct wl_def wl_null = {
	.name = "null",
	.desc = "no kernel work: measures the harness's own cost of starting, pinning and stopping tasks",
	.params = null_params,
	.run = null_run,
};
