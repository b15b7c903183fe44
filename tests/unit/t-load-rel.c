/* t-load-rel: machine-relative counts and sizes (rel.c), the topology
   JSON reader (topo_json.c), and the suites in etc/suites resolved on the
   seed authors' machines (tests/fixtures/topology): the sizes they ran. */
#include <stdlib.h>
#include <string.h>

#include "agents/load/matrix.h"
#include "agents/load/place.h"
#include "agents/load/rel.h"
#include "agents/load/topo.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"
#include "tests/unit/tap.h"

static struct load_topo sky, ice, guest;

static void
load_fixture(struct load_topo *t, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/tests/fixtures/topology/%s",
	    KPERFCI_SRCDIR, name);
	if (!ok(topo_load_json_file(t, path) == 0, "%s loads: %s", name,
	    load_last_error()))
		exit(1);
}

static long
count(const struct load_topo *t, const char *s)
{
	long v = -1;

	if (rel_count(t, s, &v) < 0)
		return -1;
	return v;
}

static long long
size(const struct load_topo *t, const char *s)
{
	unsigned long long v = 0;

	if (rel_size(t, s, &v) < 0)
		return -1;
	return (long long)v;
}

static void
test_topologies(void)
{
	is_int(sky.ncpus, 80, "Skylake: 80 CPUs");
	is_int(sky.nsockets, 2, "Skylake: 2 sockets");
	is_int(sky.ncores, 40, "Skylake: 40 cores");
	is_int(sky.nnodes, 2, "Skylake: 2 nodes");
	is_int(sky.nodes[0].ncpus, 40, "Skylake: 40 CPUs in node 0");
	is_int(ice.ncpus, 96, "Ice Lake: 96 threads");
	is_int(ice.ncores, 48, "Ice Lake: 48 cores");
	is_int(guest.ncpus, 4, "guest: 4 vCPUs");
	is_int(guest.nnodes, 2, "guest: 2 nodes");
}

static void
test_rel(void)
{
	char buf[32];

	is_int(count(&sky, "cpus"), 80, "cpus");
	is_int(count(&sky, "socket/2"), 20, "socket/2 is the seed's 20 threads");
	is_int(count(&sky, "node"), 40, "node");
	is_int(count(&sky, "cores"), 40, "cores");
	is_int(count(&sky, "cpus*2"), 160, "cpus*2");
	is_int(count(&guest, "socket/2"), 1, "socket/2 on the guest");
	is_int(count(&guest, "cpus/8"), 1, "rounds down to at least 1");
	is_int(count(&sky, "128"), 128, "a plain number");
	is_int(count(&sky, "sockets"), -1, "unknown unit refused");
	ok(strstr(load_last_error(), "\"sockets\""), "error quotes it: %s", load_last_error());
	is_int(count(&sky, "cpus/0"), -1, "division by 0 refused");
	is_int(count(&sky, "cpus/x"), -1, "cpus/x refused");
	is_int(count(&sky, "cpus/1.5"), -1, "fractional divisor refused");
	is_int(count(NULL, "cpus"), -1, "relative without a topology refused");
	ok(rel_count_check("cpus/2") == 0, "syntax check needs no topology");

	is_int(size(&ice, "mem/256"), 1LL << 30, "mem/256 on 256 GiB is 1 GiB");
	is_int(size(&sky, "5%mem"), 10307919872LL, "5 percent of 192 GiB, whole pages");
	is_int(size(&sky, "50%node"), 48LL << 30, "50 percent of a node");
	is_int(size(&sky, "node/8"), 12LL << 30, "node/8");
	is_int(size(&guest, "mem/256") % 4096, 0, "relative sizes are whole pages");
	is_int(size(&sky, "0.5%mem") > 0, 1, "a decimal percentage");
	is_int(size(&sky, "64K"), 65536, "plain sizes still work");
	is_int(size(&sky, "101%mem"), -1, "over 100 percent refused");
	is_int(size(&sky, "0%mem"), -1, "0 percent refused");
	is_int(size(&sky, "%mem"), -1, "no number refused");
	is_int(size(&sky, "mem*2"), -1, "mem*2 refused");
	is_int(size(&sky, "5%cpus"), -1, "a count unit is not a size");
	is_int(size(NULL, "5%mem"), -1, "relative size without a topology refused");
	rel_size_format(1ULL << 30, buf, sizeof(buf));
	is_str(buf, "1G", "1G");
	rel_size_format(7792ULL << 10, buf, sizeof(buf));
	is_str(buf, "7792K", "7792K");
	rel_size_format(4097, buf, sizeof(buf));
	is_str(buf, "4097", "bytes");
}

static void
test_place(void)
{
	int *v, n;

	ok(place_resolve(&sky, "socket/2", &v, &n) == 0 && n == 20, "tasks=socket/2: 20 tasks");
	ok(v[0] == 0 && v[19] == 19, "one per core of socket 0, no SMT siblings");
	free(v);
	ok(place_resolve(&guest, "cpus*2", &v, &n) < 0 &&
	    strstr(load_last_error(), "more than the 4 online CPUs"), "more tasks than CPUs: %s",
	    load_last_error());
}

/* Finds run NAME of a suite resolved on t; returns its params, or with
   key the value the workload gets for that parameter. */
static char *
resolved_key(const char *suite, const char *run, const struct load_topo *t,
    const char *key)
{
	static char out[512];
	struct matrix m;
	char path[512];
	int i;

	snprintf(path, sizeof(path), "%s/etc/suites/%s.conf", KPERFCI_SRCDIR, suite);
	out[0] = '\0';
	if (matrix_load(&m, path) < 0)
		return out;
	for (i = 0; i < m.n; i++) {
		struct wl_run r;

		if (strcmp(m.e[i].name, run))
			continue;
		if (wl_configure(&r, wl_find(m.e[i].workload), t, m.e[i].n,
		    (const char *const *)m.e[i].keys,
		    (const char *const *)m.e[i].vals) == 0) {
			snprintf(out, sizeof(out), "%s", key ?
			    (wl_get(&r, key) ? wl_get(&r, key) : "") :
			    r.params);
			wl_run_release(&r);
		} else {
			snprintf(out, sizeof(out), "error: %s", load_last_error());
		}
	}
	matrix_release(&m);
	return out;
}

#define resolved(s, r, t) resolved_key(s, r, t, NULL)
#define HAS(hay, needle, what) ok(strstr(hay, needle) != NULL, "%s: %s in %s", what, needle, hay)

static void
test_suites(void)
{
	static const char *const suites[] = { "lru-lock", "list-lru", "large-folio", "memcg-flush" };
	const struct load_topo *tops[] = { &sky, &ice, &guest };
	unsigned s, k;

	/* every run of every suite is valid on every fixture */
	for (s = 0; s < 4; s++) {
		struct matrix m;
		char path[512];
		int i;

		snprintf(path, sizeof(path), "%s/etc/suites/%s.conf", KPERFCI_SRCDIR, suites[s]);
		if (!ok(matrix_load(&m, path) == 0, "%s.conf parses", suites[s]))
			continue;
		for (k = 0; k < 3; k++)
			for (i = 0; i < m.n; i++)
				ok(strncmp(resolved(suites[s], m.e[i].name, tops[k]), "error", 5) != 0,
				    "%s/%s on %s", suites[s], m.e[i].name, tops[k]->model);
		matrix_release(&m);
	}
	/* seeds/000: 20 and 80 threads on the Skylake */
	HAS(resolved("lru-lock", "shmem-half-socket", &sky), "ntasks=20,", "000 shmem 20 threads");
	HAS(resolved("lru-lock", "shmem-all", &sky), "ntasks=80,", "000 shmem 80 threads");
	HAS(resolved("lru-lock", "anon-half-socket", &sky), "ntasks=20,", "000 anon 20 threads");
	HAS(resolved("lru-lock", "anon-all", &sky), "ntasks=80,", "000 anon 80 threads");
	HAS(resolved("lru-lock", "shmem-all", &guest), "ntasks=4,", "guest: all 4 vCPUs");
	/* seeds/004: 96 processes with order-2 (16 kB) folios on the Ice Lake */
	HAS(resolved("large-folio", "page-fault1-mthp16", &ice), "ntasks=96,", "004 96 processes");
	HAS(resolved("large-folio", "page-fault1-mthp16", &ice), "thp=16,", "004 order-2 folios");
	HAS(resolved("large-folio", "page-fault1-mthp16", &ice), "mode=process", "004 processes");
	HAS(resolved("large-folio", "lock-profile-mthp16", &ice), "ntasks=96,", "004 profile at 96");
	/* seeds/001: as many cgroups as CPUs, GiB memhogs */
	HAS(resolved("list-lru", "swap-memhog-cpus", &ice), "groups=96,", "001 a cgroup per CPU");
	is_str(resolved_key("list-lru", "swap-memhog-cpus", &ice, "size"), "1G",
	    "001 1 GiB memhogs");
	/* the row names the size as written: the two kernels of one machine
	   leave it a few pages apart (a resolved size split the row) */
	HAS(resolved("list-lru", "swap-memhog-cpus", &ice), "size=mem/256,",
	    "001 row named by the relative size");
	HAS(resolved("list-lru", "swap-memhog-cpus", &sky), "groups=80,", "001 on 80 CPUs");
	HAS(resolved("list-lru", "file-read-ext2-cpus", &ice), "groups=96,", "001 readers per CPU");
	HAS(resolved("list-lru", "file-read-ext2-cpus", &ice), "fs=ext2", "001 on a block fs");
	HAS(resolved("list-lru", "swap-memhog-cpus", &guest), "groups=4,", "guest: 4 memhogs");
	/* seeds/002: idle and 128 memcgs */
	HAS(resolved("memcg-flush", "flush-idle", &sky), "groups=0,", "002 idle");
	HAS(resolved("memcg-flush", "flush-128-memcgs", &sky), "groups=128,", "002 128 memcgs");
	HAS(resolved("memcg-flush", "root-refault", &guest), "file=", "002 root refaults");
}

static void
test_json_errors(void)
{
	const char *good = "{\"mem_kb\":2,\"model\":\"x\\u0041\",\"cpus\":[{\"cpu\":0,"
	    "\"node\":0,\"socket\":0}],\"nodes\":[{\"id\":0,\"mem_kb\":2,\"extra\":[true,null]}]}";
	struct load_topo t;

#define JBAD(text, needle, what) do {					\
	const char *t_ = (text);					\
	ok(topo_load_json(&t, t_, strlen(t_), "t.json") < 0 &&		\
	    strstr(load_last_error(), needle), "%s: %s", what,		\
	    load_last_error());						\
} while (0)
	JBAD("", "t.json: bad JSON", "empty");
	JBAD("[]", "must be a JSON object", "not an object");
	JBAD("{\"mem_kb\":1}", "\"cpus\" must be an array", "no cpus");
	JBAD("{\"mem_kb\":1,\"cpus\":[{\"cpu\":0,\"node\":0,\"socket\":0}],\"nodes\":[]}",
	    "\"nodes\" must be an array", "no nodes");
	JBAD("{\"mem_kb\":1,\"cpus\":[{\"cpu\":0,\"node\":1,\"socket\":0}],\"nodes\":[{\"id\":0}]}",
	    "node 1 is not in \"nodes\"", "a CPU in a missing node");
	JBAD("{\"mem_kb\":1,\"cpus\":[{\"cpu\":0,\"node\":0,\"socket\":0},{\"cpu\":0,\"node\":0,\"socket\":0}],\"nodes\":[{\"id\":0}]}",
	    "listed twice", "a CPU twice");
	JBAD("{\"mem_kb\":-5,\"cpus\":[],\"nodes\":[]}", "\"mem_kb\" must be an integer", "negative memory");
	JBAD("{\"mem_kb\":1.5}", "\"mem_kb\" must be an integer", "fractional memory");
	JBAD("{\"mem_kb\":1} x", "trailing text", "trailing text");
	JBAD("{\"mem_kb\":1,\"cpus\":[{\"cpu\":\"0\"}]}", "\"cpu\" must be an integer", "a string for a number");
	JBAD("{\"a\":\"\\q\"}", "bad escape", "bad escape");
	JBAD("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	    "nested too deeply", "deep nesting");
	ok(topo_load_json(&t, good, strlen(good), "t.json") == 0, "a minimal topology with an unknown key: %s", load_last_error());
	is_str(t.model, "xA", "\\u escape");
	topo_release(&t);
}

int
main(void)
{
	load_set_quiet(1);
	load_fixture(&sky, "skylake-2s80.json");
	load_fixture(&ice, "icelake-2s96.json");
	load_fixture(&guest, "qemu-2s4.json");
	test_topologies();
	test_rel();
	test_place();
	test_suites();
	test_json_errors();
	topo_release(&sky);
	topo_release(&ice);
	topo_release(&guest);
	return tap_done();
}
