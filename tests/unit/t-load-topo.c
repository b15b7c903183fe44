/* t-load-topo: topology parsing from fake /sys and /proc trees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/load/topo.h"
#include "agents/load/util.h"
#include "tests/unit/tap.h"

static char root[256];

static void
mkdirs(const char *rel)
{
	char path[2048], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void
put(const char *rel, const char *content)
{
	char path[2048], dir[1024], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	slash = strrchr(dir, '/');
	*slash = '\0';
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	fputs(content, f);
	fclose(f);
}

static void
cpu(int id, int pkg, int core, const char *siblings)
{
	char rel[256], v[32];

	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/physical_package_id", id);
	snprintf(v, sizeof(v), "%d\n", pkg);
	put(rel, v);
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/core_id", id);
	snprintf(v, sizeof(v), "%d\n", core);
	put(rel, v);
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", id);
	put(rel, siblings);
}

static void
fresh(const char *name)
{
	char cmd[600];

	snprintf(root, sizeof(root), "%s/%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", root, root);
	if (system(cmd) != 0)
		abort();
}

static void
test_cpulist(void)
{
	int *v, n;

	ok(topo_parse_cpulist("0-3,8,10-11\n", &v, &n) == 0 && n == 7 &&
	    v[0] == 0 && v[3] == 3 && v[4] == 8 && v[6] == 11, "cpulist ranges");
	free(v);
	ok(topo_parse_cpulist("5,1-2,2", &v, &n) == 0 && n == 3 && v[0] == 1 &&
	    v[2] == 5, "cpulist sorted and deduplicated");
	free(v);
	ok(topo_parse_cpulist("", &v, &n) == 0 && n == 0, "empty cpulist");
	free(v);
	ok(topo_parse_cpulist("3-1", &v, &n) < 0, "reversed range refused");
	ok(strstr(load_last_error(), "3-1") != NULL, "error names the list");
	ok(topo_parse_cpulist("1,,2", &v, &n) < 0, "empty element refused");
	ok(topo_parse_cpulist("a", &v, &n) < 0, "letters refused");
	ok(topo_parse_cpulist("0-99999", &v, &n) < 0, "huge range refused");
}

static void
test_two_sockets(void)
{
	struct load_topo t;
	int i;

	fresh("t-load-topo-2s");
	put("sys/devices/system/cpu/online", "0-7\n");
	/* 2 sockets x 2 cores x 2 threads; siblings are n and n+4 */
	for (i = 0; i < 8; i++) {
		char sib[32];

		snprintf(sib, sizeof(sib), "%d,%d\n", i % 4, i % 4 + 4);
		cpu(i, (i % 4) / 2, i % 2, sib);
	}
	put("sys/devices/system/node/node0/cpulist", "0-1,4-5\n");
	put("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       1000 kB\nNode 0 MemFree: 5 kB\n");
	put("sys/devices/system/node/node1/cpulist", "2-3,6-7\n");
	put("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:       2000 kB\n");
	put("proc/cpuinfo", "processor\t: 0\nmodel name\t: Fake Xeon \"Q\"\nflags\t: x\n");
	put("proc/meminfo", "MemTotal:        3000 kB\nMemFree: 1 kB\n");
	ok(topo_load(&t, root) == 0, "2-socket tree loads");
	is_int(t.ncpus, 8, "8 CPUs");
	is_int(t.nnodes, 2, "2 nodes");
	is_int(t.nsockets, 2, "2 sockets");
	is_int(t.ncores, 4, "4 cores");
	is_int(t.mem_kb, 3000, "total memory");
	is_int(t.nodes[1].mem_kb, 2000, "node 1 memory");
	is_str(t.model, "Fake Xeon \"Q\"", "model name");
	is_int(topo_cpu(&t, 6)->node, 1, "CPU 6 on node 1");
	is_int(topo_cpu(&t, 6)->socket, 1, "CPU 6 on socket 1");
	is_int(topo_cpu(&t, 6)->thread, 1, "CPU 6 is an SMT sibling");
	is_int(topo_cpu(&t, 2)->thread, 0, "CPU 2 is a first thread");
	is_int(t.nodes[0].ncpus, 4, "node 0 has 4 CPUs");
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		topo_print_json(&t, f);
		fclose(f);
		ok(strstr(buf, "\"model\":\"Fake Xeon \\\"Q\\\"\"") != NULL,
		    "JSON escapes the model");
		ok(strstr(buf, "{\"id\":1,\"mem_kb\":2000,\"cpus\":[2,3,6,7]}") != NULL,
		    "JSON lists node 1");
		free(buf);
	}
	topo_release(&t);
}

static void
test_one_node_offline(void)
{
	struct load_topo t;

	fresh("t-load-topo-1n");
	put("sys/devices/system/cpu/online", "0,2-3\n");	/* CPU 1 offline */
	cpu(0, 0, 0, "0\n");
	cpu(2, 0, 2, "2\n");
	cpu(3, 0, 3, "3\n");
	put("sys/devices/system/node/node0/cpulist", "0-3\n");
	put("proc/meminfo", "MemTotal: 512 kB\n");
	ok(topo_load(&t, root) == 0, "1-node tree with an offline CPU loads");
	is_int(t.ncpus, 3, "3 online CPUs");
	ok(topo_cpu(&t, 1) == NULL, "offline CPU 1 left out");
	is_int(t.nodes[0].ncpus, 3, "node 0 lists only online CPUs");
	is_int(t.nsockets, 1, "1 socket");
	topo_release(&t);
}

static void
test_no_numa(void)
{
	struct load_topo t;

	fresh("t-load-topo-nonuma");
	put("sys/devices/system/cpu/online", "0-1\n");
	put("proc/meminfo", "MemTotal: 100 kB\n");
	ok(topo_load(&t, root) == 0, "tree without node dir or topology loads");
	is_int(t.nnodes, 1, "one node");
	is_int(t.nodes[0].ncpus, 2, "node 0 holds all CPUs");
	is_int(t.nodes[0].mem_kb, 100, "node 0 memory is the total");
	topo_release(&t);

	fresh("t-load-topo-bad");
	ok(topo_load(&t, root) < 0, "missing online file fails");
	ok(strstr(load_last_error(), "cpu/online") != NULL, "error names the file");
	put("sys/devices/system/cpu/online", "zero\n");
	ok(topo_load(&t, root) < 0, "garbage online list fails");
}

static void
test_live(void)
{
	struct load_topo t;

	ok(topo_load(&t, "") == 0 && t.ncpus >= 1 && t.nnodes >= 1,
	    "live machine loads");
	is_int(t.ncpus, sysconf(_SC_NPROCESSORS_ONLN), "live CPU count matches sysconf");
	topo_release(&t);
}

int
main(void)
{
	load_set_quiet(1);
	test_cpulist();
	test_two_sockets();
	test_one_node_offline();
	test_no_numa();
	test_live();
	return tap_done();
}
