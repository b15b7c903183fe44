/*
 * hosttopo: this machine's topology as the agent registers it (kexec
 * agents run on the machine itself): sockets from physical_package_id,
 * NUMA nodes and their CPU lists, physical cores, CPU model, memory.
 * root prefixes every path so tests read a sample tree.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

static int
read_line(const char *root, const char *rel, char *out, size_t n)
{
	char *path = xasprintf("%s%s", root, rel);
	FILE *f = fopen(path, "r");
	int rc = -1;

	free(path);
	if (f == NULL)
		return -1;
	if (fgets(out, (int)n, f)) {
		out[strcspn(out, "\n")] = '\0';
		rc = 0;
	}
	fclose(f);
	return rc;
}

json_t *
hosttopo_read(const char *root, struct buf *err)
{
	char line[4096], *path;
	long pkgs[4096], cores[16384];
	int npkg = 0, ncore = 0, ncpu = 0, nnode = 0;
	long long mem_kb = 0;
	json_t *t, *nodes = json_array();
	struct dirent *de;
	DIR *d;
	FILE *f;

	path = xasprintf("%s/sys/devices/system/cpu", root);
	d = opendir(path);
	free(path);
	if (d == NULL) {
		buf_addf(err, "%s/sys/devices/system/cpu: cannot read", root);
		json_decref(nodes);
		return NULL;
	}
	while ((de = readdir(d))) {
		char rel[512], *end;
		long cpu = strtol(de->d_name + 3, &end, 10), pkg, core;
		int i;

		if (strncmp(de->d_name, "cpu", 3) || end == de->d_name + 3 || *end)
			continue;
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/%s/"
		    "topology/physical_package_id", de->d_name);
		if (read_line(root, rel, line, sizeof(line)) == -1)
			continue;	/* offline */
		ncpu++;
		pkg = atol(line);
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/%s/"
		    "topology/core_id", de->d_name);
		core = read_line(root, rel, line, sizeof(line)) == 0 ?
		    atol(line) : cpu;
		for (i = 0; i < npkg && pkgs[i] != pkg; i++)
			;
		if (i == npkg && npkg < 4096)
			pkgs[npkg++] = pkg;
		/* A core is (package, core_id). */
		for (i = 0; i < ncore && cores[i] != pkg * 100000 + core; i++)
			;
		if (i == ncore && ncore < 16384)
			cores[ncore++] = pkg * 100000 + core;
	}
	closedir(d);
	for (int n = 0; n < 4096; n++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/"
		    "cpulist", n);
		if (read_line(root, rel, line, sizeof(line)) == -1)
			break;
		nnode++;
		json_array_append_new(nodes, json_string(line));
	}
	if (nnode == 0) {
		/* No NUMA in this kernel: one node with every CPU. */
		nnode = 1;
		if (read_line(root, "/sys/devices/system/cpu/online", line,
		    sizeof(line)) == 0)
			json_array_append_new(nodes, json_string(line));
	}
	path = xasprintf("%s/proc/meminfo", root);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemTotal: %lld kB", &mem_kb) == 1)
				break;
		fclose(f);
	}
	free(path);
	t = json_object();
	path = xasprintf("%s/proc/cpuinfo", root);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "model name", 10) == 0 &&
			    strchr(line, ':')) {
				char *m = strchr(line, ':') + 1;

				m += strspn(m, " \t");
				m[strcspn(m, "\n")] = '\0';
				json_object_set_new(t, PROTO_CPU_MODEL,
				    json_stringn(m, strnlen(m, 200)));
				break;
			}
		fclose(f);
	}
	free(path);
	if (json_object_get(t, PROTO_CPU_MODEL) == NULL)
		json_object_set_new(t, PROTO_CPU_MODEL, json_string("unknown"));
	if (ncpu == 0) {
		buf_addf(err, "%s/sys/devices/system/cpu: no CPU with a "
		    "topology", root);
		json_decref(t);
		json_decref(nodes);
		return NULL;
	}
	json_object_set_new(t, PROTO_SOCKETS, json_integer(npkg));
	json_object_set_new(t, PROTO_NODES, json_integer(nnode));
	json_object_set_new(t, PROTO_CPUS, json_integer(ncpu));
	json_object_set_new(t, PROTO_CORES, json_integer(ncore));
	json_object_set_new(t, PROTO_THREADS, json_integer(ncore ?
	    (ncpu + ncore - 1) / ncore : 1));
	json_object_set_new(t, PROTO_MEMORY_MB, json_integer(mem_kb / 1024));
	json_object_set_new(t, PROTO_NODE_CPUS, nodes);
	return t;
}
