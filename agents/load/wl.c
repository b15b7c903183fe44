/* wl: workload table, parameters, task groups, emission (see wl.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agents/load/cg.h"
#include "agents/load/place.h"
#include "agents/load/rel.h"
#include "agents/load/sample.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"

const struct wl_def *const wl_table[] = {
	&wl_fault_free,
	&wl_page_fault,
	&wl_swap_memhog,
	&wl_file_read,
	&wl_memcg_flush,
	&wl_root_refault,
	&wl_lock_profile,
	&wl_null,
	NULL,
};

#define WL_DEF_SECONDS		2.0
#define WL_DEF_ITERATIONS	5
#define WL_DEF_WARMUP		1

const struct wl_def *
wl_find(const char *name)
{
	int i;

	for (i = 0; wl_table[i]; i++)
		if (strcmp(wl_table[i]->name, name) == 0)
			return wl_table[i];
	return NULL;
}

static void
wl_list_param(FILE *f, const struct wl_param *p)
{
	fprintf(f, "    --%-12s %s (default %s", p->name, p->help, p->def);
	if (p->type == WL_ENUM)
		fprintf(f, "; one of %s", p->choices);
	else if (p->type == WL_INT)
		fprintf(f, "; %lld..%lld", p->min, p->max);
	else if (p->type == WL_COUNT)
		fprintf(f, "; %lld..%lld, or cpus, node, socket, cores, UNIT/D", p->min, p->max);
	else if (p->type == WL_SIZE)
		fprintf(f, "; or P%%mem, P%%node, mem/D, node/D");
	else if (p->type == WL_TASKS)
		fprintf(f, "; N, all, node, node:K, socket/2, cpus/2 or a fraction");
	fprintf(f, ")\n");
}

void
wl_list(FILE *f)
{
	const struct wl_param *p;
	int i;

	fprintf(f, "Run options for every workload: --seconds S (default %.0f), "
	    "--iterations N (default %d), --warmup N (default %d; warm-up "
	    "iterations are not emitted)\n\n", WL_DEF_SECONDS,
	    WL_DEF_ITERATIONS, WL_DEF_WARMUP);
	for (i = 0; wl_table[i]; i++) {
		fprintf(f, "%s%s\n  %s\n", wl_table[i]->name,
		    wl_table[i]->needs_cgroup ? " (needs cgroup v2)" : "",
		    wl_table[i]->desc);
		for (p = wl_table[i]->params; p->name; p++)
			wl_list_param(f, p);
		fprintf(f, "\n");
	}
}

static const struct wl_param *
wl_param_find(const struct wl_def *d, const char *key)
{
	const struct wl_param *p;

	for (p = d->params; p->name; p++)
		if (strcmp(p->name, key) == 0)
			return p;
	return NULL;
}

static int
wl_check_value(const struct wl_def *d, const struct wl_param *p,
    const char *v, const struct load_topo *t)
{
	unsigned long long sz;
	long lv;
	int *cpus, n;
	size_t len;
	const char *c;

	switch (p->type) {
	case WL_INT:
		if (load_parse_long(v, &lv) < 0)
			return load_err("%s: --%s \"%s\" is not an integer",
			    d->name, p->name, v);
		if (lv < p->min || lv > p->max)
			return load_err("%s: --%s %ld is out of range %lld..%lld",
			    d->name, p->name, lv, p->min, p->max);
		return 0;
	case WL_SIZE:
		if (!t && rel_is_relative(v))
			return rel_size_check(v) < 0 ? load_err("%s: --%s: %s",
			    d->name, p->name, load_last_error()) : 0;
		if (rel_size(t, v, &sz) < 0)
			return load_err("%s: --%s \"%s\" is not a size (like 4096, 64K, 128M, 1G, 5%%mem, node/8)",
			    d->name, p->name, v);
		if ((long long)sz < p->min || (long long)sz > p->max)
			return load_err("%s: --%s %s (%llu bytes) is out of range %lld..%lld bytes",
			    d->name, p->name, v, sz, p->min, p->max);
		return 0;
	case WL_COUNT:
		if (!t && rel_is_relative(v))
			return rel_count_check(v) < 0 ? load_err("%s: --%s: %s",
			    d->name, p->name, load_last_error()) : 0;
		if (rel_count(t, v, &lv) < 0)
			return load_err("%s: --%s: %s", d->name, p->name,
			    load_last_error());
		if (lv < p->min || lv > p->max)
			return load_err("%s: --%s %s (%ld) is out of range %lld..%lld",
			    d->name, p->name, v, lv, p->min, p->max);
		return 0;
	case WL_ENUM:
		len = strlen(v);
		for (c = p->choices; c && *c; ) {
			size_t l = strcspn(c, "|");

			if (l == len && strncmp(c, v, l) == 0 && len)
				return 0;
			c += l;
			if (*c == '|')
				c++;
		}
		return load_err("%s: --%s \"%s\" is not one of %s", d->name,
		    p->name, v, p->choices);
	case WL_TASKS:
		if (!t)
			return place_check(v);
		if (place_resolve(t, v, &cpus, &n) < 0)
			return -1;
		free(cpus);
		return 0;
	case WL_STR:
		if (!*v || strlen(v) > 1024 || strpbrk(v, ",=\n"))
			return load_err("%s: --%s \"%.64s\" is empty, too long or contains , = or a newline",
			    d->name, p->name, v);
		return 0;
	}
	return 0;
}

/* Replaces a checked relative size or count by its value on t. */
static void
wl_resolve(const struct wl_param *p, char **val, const struct load_topo *t)
{
	unsigned long long sz;
	char buf[32];
	long lv;

	if (!rel_is_relative(*val))
		return;
	if (p->type == WL_SIZE && rel_size(t, *val, &sz) == 0)
		rel_size_format(sz, buf, sizeof(buf));
	else if (p->type == WL_COUNT && rel_count(t, *val, &lv) == 0)
		snprintf(buf, sizeof(buf), "%ld", lv);
	else
		return;
	free(*val);
	*val = load_xstrdup(buf);
}

static int
wl_set_option(struct wl_run *r, const char *k, const char *v)
{
	long lv;
	double dv;

	if (strcmp(k, "seconds") == 0) {
		if (load_parse_double(v, &dv) < 0 || !(dv > 0) || dv > 3600)
			return load_err("--seconds \"%s\": want a number of seconds in (0, 3600]", v);
		r->seconds = dv;
		return 1;
	}
	if (strcmp(k, "iterations") == 0) {
		if (load_parse_long(v, &lv) < 0 || lv < 1 || lv > 10000)
			return load_err("--iterations \"%s\": want an integer in 1..10000", v);
		r->iterations = (int)lv;
		return 1;
	}
	if (strcmp(k, "warmup") == 0) {
		if (load_parse_long(v, &lv) < 0 || lv < 0 || lv > 1000)
			return load_err("--warmup \"%s\": want an integer in 0..1000", v);
		r->warmup = (int)lv;
		return 1;
	}
	return 0;
}

/*
 * lock-profile takes its target's parameters as well as its own: the
 * target is looked up first so the others can be checked against it.
 */
static const struct wl_def *
wl_profile_target(const struct wl_def *d, int n, const char *const *keys,
    const char *const *vals)
{
	const char *name = NULL;
	int i;

	if (d != &wl_lock_profile)
		return NULL;
	for (i = 0; i < n; i++)
		if (strcmp(keys[i], "target") == 0)
			name = vals[i];
	if (!name)
		name = wl_param_find(d, "target")->def;
	return wl_find(name);
}

int
wl_configure(struct wl_run *r, const struct wl_def *d,
    const struct load_topo *t, int n, const char *const *keys,
    const char *const *vals)
{
	const struct wl_def *tgt;
	const struct wl_param *p;
	int i, j, rc;

	memset(r, 0, sizeof(*r));
	r->def = d;
	r->topo = t;
	r->seconds = WL_DEF_SECONDS;
	r->iterations = WL_DEF_ITERATIONS;
	r->warmup = WL_DEF_WARMUP;
	tgt = wl_profile_target(d, n, keys, vals);
	if (d == &wl_lock_profile) {
		const char *name = NULL;

		for (i = 0; i < n; i++)
			if (strcmp(keys[i], "target") == 0)
				name = vals[i];
		if (!tgt || tgt == &wl_lock_profile)
			return load_err("lock-profile: --target \"%s\" is not a workload to profile (see kperfci-load list)",
			    name ? name : "?");
	}
	/* defaults first (the target's, then the workload's own) */
	for (j = 0; j < 2; j++) {
		const struct wl_def *src = j == 0 ? tgt : d;

		if (!src)
			continue;
		for (p = src->params; p->name; p++) {
			for (i = 0; i < r->nparams; i++)
				if (strcmp(r->keys[i], p->name) == 0)
					break;
			if (i < r->nparams) {
				free(r->vals[i]);
			} else {
				if (r->nparams == WL_MAX_PARAMS)
					return load_err("too many parameters");
				r->keys[r->nparams++] = p->name;
			}
			r->vals[i] = load_xstrdup(p->def);
		}
	}
	for (i = 0; i < n; i++) {
		rc = wl_set_option(r, keys[i], vals[i]);
		if (rc < 0)
			goto fail;
		if (rc > 0)
			continue;
		p = wl_param_find(d, keys[i]);
		if (!p && tgt)
			p = wl_param_find(tgt, keys[i]);
		if (!p) {
			load_err("%s: unknown parameter --%s (see kperfci-load list)",
			    d->name, keys[i]);
			goto fail;
		}
		if (wl_check_value(d, p, vals[i], t) < 0)
			goto fail;
		for (j = 0; j < r->nparams; j++)
			if (strcmp(r->keys[j], p->name) == 0) {
				free(r->vals[j]);
				r->vals[j] = load_xstrdup(vals[i]);
			}
	}
	/* defaults are checked too: "node:1" on a 1-node machine fails here */
	for (i = 0; i < r->nparams; i++) {
		p = wl_param_find(d, r->keys[i]);
		if (!p && tgt)
			p = wl_param_find(tgt, r->keys[i]);
		if (p && wl_check_value(d, p, r->vals[i], t) < 0)
			goto fail;
		/* A relative size is named in the row as written: the
		   machine's memory differs by a few pages between the two
		   kernels of a comparison (each reserves its own image and
		   memmap), and "mem/256" resolved on each would split one row
		   into two halves, each missing a side.  A count (CPUs) is the
		   same under both and is named resolved. */
		if (p && t && p->type == WL_SIZE && rel_is_relative(r->vals[i]))
			r->shown[i] = load_xstrdup(r->vals[i]);
		if (p && t)
			wl_resolve(p, &r->vals[i], t);
	}
	/* tasks=node / all / 0.5 are resolved on the agent; ntasks= says to
	   what, so results from different task counts form a scaling curve.
	   Without a topology (the daemon's check) there is nothing to say. */
	for (i = 0; t && i < r->nparams; i++) {
		int *cpus = NULL, ncpus = 0;

		if (strcmp(r->keys[i], "tasks") != 0 ||
		    strspn(r->vals[i], "0123456789") == strlen(r->vals[i]))
			continue;
		if (r->nparams < WL_MAX_PARAMS &&
		    place_resolve(t, r->vals[i], &cpus, &ncpus) == 0) {
			char num[16];

			snprintf(num, sizeof(num), "%d", ncpus);
			r->keys[r->nparams] = "ntasks";
			r->vals[r->nparams++] = load_xstrdup(num);
		}
		free(cpus);
		break;
	}
	{
		const char *shown[WL_MAX_PARAMS];

		for (i = 0; i < r->nparams; i++)
			shown[i] = r->shown[i] ? r->shown[i] : r->vals[i];
		r->params = sample_params(r->keys, shown, r->nparams);
	}
	return 0;
fail:
	wl_run_release(r);
	return -1;
}

void
wl_run_release(struct wl_run *r)
{
	int i;

	for (i = 0; i < r->nparams; i++) {
		free(r->vals[i]);
		free(r->shown[i]);
	}
	free(r->params);
	memset(r, 0, sizeof(*r));
}

int
wl_execute(struct wl_run *r)
{
	if (r->def->needs_cgroup && cg_setup(r->def->name) < 0)
		return -1;
	fflush(NULL);	/* forked tasks must not repeat buffered output */
	return r->def->run(r);
}

const char *
wl_get(const struct wl_run *r, const char *key)
{
	int i;

	for (i = 0; i < r->nparams; i++)
		if (strcmp(r->keys[i], key) == 0)
			return r->vals[i];
	return NULL;
}

long long
wl_get_int(const struct wl_run *r, const char *key)
{
	const char *v = wl_get(r, key);

	return v ? strtoll(v, NULL, 10) : 0;
}

unsigned long long
wl_get_size(const struct wl_run *r, const char *key)
{
	unsigned long long v = 0;

	load_parse_size(wl_get(r, key), &v);
	return v;
}

int
wl_get_tasks(const struct wl_run *r, const char *key, int **cpus, int *n)
{
	return place_resolve(r->topo, wl_get(r, key), cpus, n);
}

void
wl_emit(const struct wl_run *r, int iter, const char *metric, double value,
    const char *unit, int higher)
{
	if (r->quiet || iter < r->warmup)
		return;
	sample_emit(r->def->name, r->params, iter - r->warmup + 1, metric,
	    value, unit, higher);
}

/* ---- task groups ------------------------------------------------------- */

/* One cache line per counter so tasks do not share lines. */
struct wl_slot {
	volatile unsigned long long count;
	char	 pad[56];
};

struct wl_shared {
	volatile int	 go;
	volatile int	 stop;
	volatile int	 ready;
	volatile int	 failed;
	char		 errmsg[512];
	struct wl_slot	 slot[];
};

static void
wl_task_body(struct wl_task *t)
{
	struct wl_shared *sh = t->group->sh;

	if (load_pin_cpu(t->cpu) < 0) {
		wl_task_fail(t, "%s", load_last_error());
		__atomic_add_fetch(&sh->ready, 1, __ATOMIC_SEQ_CST);
		return;
	}
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_SEQ_CST);
	while (!sh->go && !sh->stop)
		usleep(200);
	if (!sh->stop)
		t->group->fn(t);
}

static void *
wl_thread_main(void *arg)
{
	wl_task_body(arg);
	return NULL;
}

void
wl_task_fail(struct wl_task *t, const char *fmt, ...)
{
	struct wl_shared *sh = t->group->sh;
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (__atomic_exchange_n(&sh->failed, 1, __ATOMIC_SEQ_CST) == 0)
		snprintf(sh->errmsg, sizeof(sh->errmsg), "task %d (CPU %d): %s",
		    t->idx, t->cpu, msg);
	sh->stop = 1;
}

int
wl_tasks_failed(struct wl_tasks *g)
{
	return g->sh->failed;
}

int
wl_tasks_start(struct wl_tasks *g, const int *cpus, int n, int procs,
    void (*fn)(struct wl_task *), void *arg)
{
	size_t shsize = sizeof(struct wl_shared) + n * sizeof(struct wl_slot);
	double t0;
	int i;

	memset(g, 0, sizeof(*g));
	g->sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g->sh == MAP_FAILED) {
		g->sh = NULL;
		return load_err("cannot map task counters: %s", strerror(errno));
	}
	g->n = n;
	g->procs = procs;
	g->tasks = load_xcalloc(n, sizeof(*g->tasks));
	g->fn = fn;
	if (procs)
		g->pids = load_xcalloc(n, sizeof(pid_t));
	else
		g->threads = load_xcalloc(n, sizeof(pthread_t));
	fflush(NULL);
	for (i = 0; i < n; i++) {
		struct wl_task *t = &g->tasks[i];

		t->idx = i;
		t->cpu = cpus[i];
		t->count = &g->sh->slot[i].count;
		t->stop = &g->sh->stop;
		t->arg = arg;
		t->group = g;
		if (procs) {
			pid_t pid = fork();

			if (pid < 0) {
				load_err("cannot fork task %d: %s", i, strerror(errno));
				g->n = i;
				wl_tasks_stop(g);
				return -1;
			}
			if (pid == 0) {
				wl_task_body(t);
				_exit(0);
			}
			g->pids[i] = pid;
		} else if (pthread_create(&g->threads[i], NULL, wl_thread_main, t)) {
			load_err("cannot start thread %d", i);
			g->n = i;
			wl_tasks_stop(g);
			return -1;
		}
	}
	t0 = load_now();
	while (g->sh->ready < n) {
		if (load_now() - t0 > 60) {
			/* a task died before it could report (killed, OOM) */
			load_err("only %d of %d tasks started within 60 s",
			    g->sh->ready, n);
			wl_tasks_stop(g);
			return -1;
		}
		usleep(500);
	}
	if (g->sh->failed) {
		wl_tasks_stop(g);
		return -1;
	}
	g->sh->go = 1;
	return 0;
}

unsigned long long
wl_tasks_count(struct wl_tasks *g, int idx)
{
	return __atomic_load_n(&g->sh->slot[idx].count, __ATOMIC_RELAXED);
}

unsigned long long
wl_tasks_sum(struct wl_tasks *g)
{
	unsigned long long s = 0;
	int i;

	for (i = 0; i < g->n; i++)
		s += wl_tasks_count(g, i);
	return s;
}

int
wl_tasks_stop(struct wl_tasks *g)
{
	int i, st, rc = 0;

	if (!g->sh)
		return 0;
	g->sh->stop = 1;
	for (i = 0; i < g->n; i++) {
		if (g->procs) {
			/* process tasks hold nothing to clean up (files are
			   unlinked, counters live here): do not wait for them
			   to finish a 128 MiB pass, as will-it-scale does not */
			if (!g->sh->failed)
				kill(g->pids[i], SIGKILL);
			while (waitpid(g->pids[i], &st, 0) < 0 && errno == EINTR)
				;
		} else {
			pthread_join(g->threads[i], NULL);
		}
	}
	if (g->sh->failed)
		rc = load_err("%s", g->sh->errmsg);
	munmap(g->sh, sizeof(struct wl_shared) + g->n * sizeof(struct wl_slot));
	free(g->tasks);
	free(g->threads);
	free(g->pids);
	memset(g, 0, sizeof(*g));
	return rc;
}

void
wl_sleep(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

pid_t
wl_fork(int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		load_err("cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		_exit(fn(arg) < 0 ? 1 : 0);
	return pid;
}

int
wl_wait(pid_t pid, const char *what)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return load_err("waiting for %s: %s", what, strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		return load_err("%s was killed by signal %d", what, WTERMSIG(st));
	return load_err("%s failed (exit %d)", what, WEXITSTATUS(st));
}

/* ---- gated process groups --------------------------------------------- */

int
wl_gate_start(struct wl_gate *g, int n, const char *name,
    const char *memory_max, const int *cpus, int ncpus,
    int (*child)(int, void *), void *arg)
{
	char cgname[64], c;
	int i, fds[2];

	g->n = n;
	g->cgs = load_xcalloc(n, sizeof(*g->cgs));
	g->pids = load_xcalloc(n, sizeof(*g->pids));
	g->wfd = load_xcalloc(n, sizeof(*g->wfd));
	for (i = 0; i < n; i++)
		g->wfd[i] = -1;
	for (i = 0; i < n; i++) {
		snprintf(cgname, sizeof(cgname), "%.40s%d", name, i);
		if (cg_create(&g->cgs[i], NULL, cgname) < 0 || (memory_max &&
		    cg_set(&g->cgs[i], "memory.max", memory_max) < 0))
			return -1;
		if (pipe2(fds, O_CLOEXEC) < 0)
			return load_err("pipe: %s", strerror(errno));
		fflush(NULL);
		g->pids[i] = fork();
		if (g->pids[i] == 0) {
			close(fds[1]);
			load_pin_cpu(cpus[i % ncpus]);
			/* the parent moves us into the group, then opens */
			if (read(fds[0], &c, 1) != 1)
				_exit(3);
			_exit(child(i, arg) < 0 ? 1 : 0);
		}
		close(fds[0]);
		g->wfd[i] = fds[1];
		if (g->pids[i] < 0)
			return load_err("fork: %s", strerror(errno));
		if (cg_add_proc(&g->cgs[i], g->pids[i]) < 0)
			return -1;
	}
	return 0;
}

int
wl_gate_open(struct wl_gate *g)
{
	for (int i = 0; i < g->n; i++) {
		if (write(g->wfd[i], "g", 1) != 1)
			return load_err("cannot start child %d: %s", i,
			    strerror(errno));
		close(g->wfd[i]);
		g->wfd[i] = -1;
	}
	return 0;
}

int
wl_gate_wait(struct wl_gate *g, const char *what, const char *hint)
{
	char w[256];
	int rc = 0;

	for (int i = 0; i < g->n; i++) {
		snprintf(w, sizeof(w), "%s %d%s", what, i, hint ? hint : "");
		if (wl_wait(g->pids[i], w) < 0)
			rc = -1;
		g->pids[i] = 0;
	}
	return rc;
}

int
wl_gate_release(struct wl_gate *g)
{
	int rc = 0;

	for (int i = 0; i < g->n; i++) {
		if (g->wfd[i] >= 0)
			close(g->wfd[i]);	/* a child held at the gate exits */
		if (g->pids[i] > 0)
			wl_wait(g->pids[i], "gated child");
		if (g->cgs[i].path[0] && cg_destroy(&g->cgs[i]) < 0)
			rc = -1;
	}
	free(g->cgs);
	free(g->pids);
	free(g->wfd);
	memset(g, 0, sizeof(*g));
	return rc;
}
