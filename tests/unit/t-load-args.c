/* t-load-args: workload parameter checks, impossible requests, the
   workloads.conf parser and the shipped default matrix. */
#include <stdlib.h>
#include <string.h>

#include "agents/load/matrix.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"
#include "tests/unit/tap.h"

/* 2 nodes x 2 CPUs */
static struct load_cpu cpus[4] = {
	{ 0, 0, 0, 0, 0 }, { 1, 0, 0, 1, 0 }, { 2, 1, 1, 0, 0 }, { 3, 1, 1, 1, 0 },
};
static int n0[] = { 0, 1 }, n1[] = { 2, 3 };
static struct load_node nodes[2] = { { 0, n0, 2, 1 << 20 }, { 1, n1, 2, 1 << 20 } };
static struct load_topo topo = { cpus, 4, nodes, 2, 2, 4, "", "", 2 << 20 };

/* Configures name with "k=v" pairs; returns 0/-1, keeps the run in r. */
static int
conf(struct wl_run *r, const char *name, const char *const *kv)
{
	const char *keys[16], *vals[16];
	static char store[16][64];
	int n = 0;

	load_clear_error();
	for (; kv && kv[n]; n++) {
		char *eq;

		snprintf(store[n], sizeof(store[n]), "%s", kv[n]);
		eq = strchr(store[n], '=');
		*eq = '\0';
		keys[n] = store[n];
		vals[n] = eq + 1;
	}
	return wl_configure(r, wl_find(name), &topo, n, keys, vals);
}

static void
expect_err(const char *name, const char *const *kv, const char *needle,
    const char *what)
{
	struct wl_run r;
	int rc = conf(&r, name, kv);

	ok(rc < 0 && strstr(load_last_error(), needle), "%s: \"%s\"", what,
	    load_last_error());
	if (rc == 0)
		wl_run_release(&r);
}

static void
test_params(void)
{
	struct wl_run r;
	int i;

	for (i = 0; wl_table[i]; i++) {
		ok(conf(&r, wl_table[i]->name, NULL) == 0,
		    "%s: defaults are valid on a 2-node machine", wl_table[i]->name);
		wl_run_release(&r);
	}
	ok(wl_find("nope") == NULL, "unknown workload not found");

	ok(conf(&r, "fault-free", (const char *[]){ "tasks=node:1", "mode=anon", "seconds=0.5", NULL }) == 0,
	    "fault-free with node:1, anon");
	is_str(r.params, "mode=anon,ntasks=2,size=1M,tasks=node:1", "canonical params, sorted, defaults filled");
	ok(r.seconds == 0.5 && r.iterations == 5 && r.warmup == 1, "run options parsed and defaulted");
	wl_run_release(&r);

	ok(conf(&r, "page-fault", (const char *[]){ "variant=3", "iterations=7", "warmup=0", NULL }) == 0,
	    "page-fault variant 3");
	is_str(r.params, "dir=/tmp,mode=process,ntasks=4,tasks=all,thp=0,variant=3", "page-fault params");
	is_int(r.iterations, 7, "iterations");
	is_int(r.warmup, 0, "warmup 0 allowed");
	wl_run_release(&r);

	ok(conf(&r, "lock-profile", (const char *[]){ "target=fault-free", "mode=anon", NULL }) == 0,
	    "lock-profile takes its target's params");
	is_str(r.params, "depth=1,event=auto,freq=999,mode=anon,ntasks=4,pass=both,size=1M,target=fault-free,tasks=all,top=10",
	    "lock-profile params merge the target's");
	wl_run_release(&r);

	expect_err("page-fault", (const char *[]){ "tasks=5", NULL }, "more than the 4 online CPUs",
	    "more tasks than CPUs");
	expect_err("fault-free", (const char *[]){ "tasks=node:2", NULL }, "node 2 does not exist",
	    "a node that does not exist");
	expect_err("page-fault", (const char *[]){ "variant=4", NULL }, "--variant 4 is out of range",
	    "variant out of range");
	expect_err("page-fault", (const char *[]){ "variant=x", NULL }, "not an integer",
	    "variant not a number");
	expect_err("fault-free", (const char *[]){ "mode=file", NULL }, "not one of anon|shmem",
	    "bad enum");
	expect_err("fault-free", (const char *[]){ "size=12Q", NULL }, "not a size",
	    "bad size");
	expect_err("fault-free", (const char *[]){ "size=1", NULL }, "out of range",
	    "size too small");
	expect_err("fault-free", (const char *[]){ "color=red", NULL }, "unknown parameter --color",
	    "unknown parameter");
	expect_err("fault-free", (const char *[]){ "variant=1", NULL }, "unknown parameter --variant",
	    "another workload's parameter");
	expect_err("fault-free", (const char *[]){ "seconds=0", NULL }, "--seconds",
	    "zero seconds");
	expect_err("fault-free", (const char *[]){ "iterations=0", NULL }, "--iterations",
	    "zero iterations");
	expect_err("fault-free", (const char *[]){ "warmup=-1", NULL }, "--warmup",
	    "negative warmup");
	expect_err("page-fault", (const char *[]){ "dir=a,b", NULL }, "contains",
	    "comma in a string parameter (would break params)");
	ok(conf(&r, "swap-memhog", (const char *[]){ "groups=cpus", "size=mem/256", "limit=mem/512", NULL }) == 0,
	    "relative groups and sizes");
	is_str(r.params, "groups=4,limit=mem/512,ntasks=4,passes=2,size=mem/256,tasks=all,zram=1G",
	    "the row names counts resolved, relative sizes as written");
	is_str(wl_get(&r, "size"), "8M",
	    "the workload gets the size resolved against the 2 GiB topology");
	is_str(wl_get(&r, "limit"), "4M", "and the limit");
	is_str(wl_get(&r, "groups"), "4", "and the count against its 4 CPUs");
	wl_run_release(&r);
	expect_err("swap-memhog", (const char *[]){ "groups=cpus*2000", NULL }, "out of range",
	    "a relative count past the maximum");
	expect_err("file-read", (const char *[]){ "fs=xfs", NULL }, "not one of dir|ext2",
	    "file-read on an unknown file system");
	expect_err("file-read", (const char *[]){ "disk=1M", NULL }, "out of range",
	    "an ext2 disk too small");
	expect_err("root-refault", (const char *[]){ "file=5%cpus", NULL }, "not a size",
	    "a count unit for a size");
	expect_err("lock-profile", (const char *[]){ "target=nope", NULL }, "not a workload to profile",
	    "unknown profile target");
	expect_err("lock-profile", (const char *[]){ "target=lock-profile", NULL },
	    "not a workload to profile", "lock-profile cannot profile itself");
	expect_err("lock-profile", (const char *[]){ "target=page-fault", "mode=shmem", NULL },
	    "not one of process|thread", "target's params checked by the target's rules");
}

static void
test_matrix(void)
{
	struct matrix m;
	const char *good =
	    "# c\n[defaults]\nseconds = 1\n iterations=3 \n\n"
	    "[run \"a\"]\nworkload = fault-free\nmode = anon\n"
	    "[run \"b\"]\nworkload = page-fault\nseconds = 2\n";
	char path[512];
	int i, k;

	ok(matrix_parse(&m, good, strlen(good), "x.conf") == 0, "matrix parses");
	is_int(m.n, 2, "two runs");
	is_str(m.e[0].name, "a", "first name");
	is_str(m.e[0].workload, "fault-free", "first workload");
	is_int(m.e[0].n, 3, "a: mode + 2 defaults");
	for (i = 0, k = -1; i < m.e[1].n; i++)
		if (strcmp(m.e[1].keys[i], "seconds") == 0)
			k = i;
	ok(k >= 0 && strcmp(m.e[1].vals[k], "2") == 0, "a run's own key beats [defaults]");
	matrix_release(&m);

#define BAD(text, needle, what) do {					\
	const char *t_ = (text);					\
	ok(matrix_parse(&m, t_, strlen(t_), "w.conf") < 0 &&		\
	    strstr(load_last_error(), needle), "%s: %s", what,		\
	    load_last_error());						\
} while (0)
	BAD("x = 1\n", "w.conf:1: key \"x\" outside a section", "key outside a section");
	BAD("[run a]\n", "w.conf:1: malformed section header", "unquoted run name");
	BAD("[run \"a\"\n", "w.conf:1:", "unterminated header");
	BAD("[frob]\n", "w.conf:1:", "unknown section");
	BAD("[run \"a\"]\nworkload = x\n[run \"a\"]\nworkload = y\n", "w.conf:3: run \"a\" is defined twice",
	    "duplicate run");
	BAD("[run \"a\"]\nmode = x\n", "w.conf:1: run \"a\" names no workload", "missing workload");
	BAD("[run \"a\"]\nworkload = x\nmode\n", "w.conf:3: expected key = value", "no equals sign");
	BAD("[run \"a\"]\nworkload = x\nmode =\n", "w.conf:3: key \"mode\" has no value", "empty value");
	BAD("[run \"a\"]\nworkload = x\nmode = 1\nmode = 2\n", "w.conf:4: key \"mode\" is set twice",
	    "duplicate key");
	BAD("[run \"a b\"]\nworkload = x\n", "w.conf:1: run name", "space in a run name");
	BAD("[defaults]\nworkload = x\n", "w.conf:2: workload belongs in a [run]", "workload in defaults");
	BAD("[run \"a\"]\nworkload = x\n[defaults]\n", "w.conf:3: [defaults] must come before",
	    "late defaults");
	ok(matrix_parse(&m, "a\0b", 3, "w.conf") < 0, "NUL byte refused");

	/* the shipped matrix: every run is valid on a 2-node, 4-CPU machine */
	snprintf(path, sizeof(path), "%s/etc/workloads.conf", KPERFCI_SRCDIR);
	ok(matrix_load(&m, path) == 0, "etc/workloads.conf parses");
	ok(m.n >= 8, "it has the default runs (%d)", m.n);
	for (i = 0, k = 0; i < m.n; i++) {
		struct wl_run r;
		const struct wl_def *d = wl_find(m.e[i].workload);

		if (!d || wl_configure(&r, d, &topo, m.e[i].n,
		    (const char *const *)m.e[i].keys,
		    (const char *const *)m.e[i].vals) < 0) {
			ok(0, "run %s is valid: %s", m.e[i].name, load_last_error());
			continue;
		}
		k += d == &wl_lock_profile;
		wl_run_release(&r);
	}
	ok(k == 1, "the matrix has a lock-profile entry");
	matrix_release(&m);
}

int
main(void)
{
	load_set_quiet(1);
	test_params();
	test_matrix();
	return tap_done();
}
