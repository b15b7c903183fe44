/* topo: parses /sys and /proc into struct load_topo (see topo.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/sample.h"
#include "agents/load/topo.h"
#include "agents/load/util.h"

#define TOPO_MAX_CPU	8192

static int
topo_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int
topo_parse_cpulist(const char *s, int **out, int *n)
{
	int *v = NULL, nv = 0, cap = 0, i, j;
	const char *p = s;
	long a, b;
	char *end;

	*out = NULL;
	*n = 0;
	while (*p && *p != '\n') {
		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			b = strtol(p, &end, 10);
			p = end;
		}
		if (a < 0 || b < a || b >= TOPO_MAX_CPU)
			goto bad;
		for (; a <= b; a++) {
			if (nv == cap) {
				cap = cap ? cap * 2 : 16;
				v = load_xrealloc(v, cap * sizeof(*v));
			}
			v[nv++] = (int)a;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), topo_cmp_int);
	for (i = j = 0; i < nv; i++)
		if (j == 0 || v[j - 1] != v[i])
			v[j++] = v[i];
	*out = v;
	*n = j;
	return 0;
bad:
	free(v);
	return load_err("bad CPU list \"%.64s\"", s);
}

static int
topo_read_int(const char *path, int *out)
{
	char buf[64];
	long v;

	if (load_read_small(path, buf, sizeof(buf)) < 0 ||
	    load_parse_long(buf, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

/* Reads "<key> ... : value" or "Node N MemTotal: X kB" style lines. */
static long long
topo_meminfo_kb(const char *path)
{
	char *text, *line;
	long long kb = 0;

	text = load_read_all(path, 1 << 20, NULL);
	if (!text)
		return 0;
	line = strstr(text, "MemTotal:");
	if (line)
		kb = strtoll(line + strlen("MemTotal:"), NULL, 10);
	free(text);
	return kb;
}

static void
topo_read_model(struct load_topo *t, const char *root)
{
	char path[PATH_MAX], *text, *p, *e;
	size_t n;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	text = load_read_all(path, 4 << 20, NULL);
	if (!text)
		return;
	p = strstr(text, "model name");
	if (p && (p = strchr(p, ':'))) {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		e = strchr(p, '\n');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n >= sizeof(t->model))
			n = sizeof(t->model) - 1;
		memcpy(t->model, p, n);
		t->model[n] = '\0';
	}
	free(text);
}

static int
topo_add_node(struct load_topo *t, int id, const char *root, const char *cpulist)
{
	struct load_node *nd;
	char path[PATH_MAX], list[4096];
	int *cpus, n, i, k;

	if (!cpulist) {
		snprintf(path, sizeof(path),
		    "%s/sys/devices/system/node/node%d/cpulist", root, id);
		if (load_read_small(path, list, sizeof(list)) < 0)
			return load_err("cannot read %s: %s", path,
			    strerror(errno));
		cpulist = list;
	}
	if (topo_parse_cpulist(cpulist, &cpus, &n) < 0)
		return -1;
	/* keep only online CPUs */
	for (i = k = 0; i < n; i++)
		if (topo_cpu(t, cpus[i]))
			cpus[k++] = cpus[i];
	t->nodes = load_xrealloc(t->nodes, (t->nnodes + 1) * sizeof(*t->nodes));
	nd = &t->nodes[t->nnodes++];
	nd->id = id;
	nd->cpus = cpus;
	nd->ncpus = k;
	snprintf(path, sizeof(path), "%s/sys/devices/system/node/node%d/meminfo",
	    root, id);
	nd->mem_kb = topo_meminfo_kb(path);
	for (i = 0; i < k; i++) {
		struct load_cpu *c = (struct load_cpu *)topo_cpu(t, cpus[i]);
		c->node = id;
	}
	return 0;
}

static int
topo_load_nodes(struct load_topo *t, const char *root)
{
	char path[PATH_MAX];
	struct dirent *de;
	int *ids = NULL, nids = 0, i, v;
	char *end;
	DIR *d;

	snprintf(path, sizeof(path), "%s/sys/devices/system/node", root);
	d = opendir(path);
	if (!d)
		return topo_add_node(t, 0, root, "");	/* no NUMA: filled below */
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "node", 4) || !isdigit((unsigned char)de->d_name[4]))
			continue;
		v = (int)strtol(de->d_name + 4, &end, 10);
		if (*end)
			continue;
		ids = load_xrealloc(ids, (nids + 1) * sizeof(*ids));
		ids[nids++] = v;
	}
	closedir(d);
	if (nids)
		qsort(ids, nids, sizeof(*ids), topo_cmp_int);
	for (i = 0; i < nids; i++)
		if (topo_add_node(t, ids[i], root, NULL) < 0) {
			free(ids);
			return -1;
		}
	free(ids);
	if (nids == 0)
		return topo_add_node(t, 0, root, "");
	return 0;
}

int
topo_load(struct load_topo *t, const char *root)
{
	char path[PATH_MAX], list[4096];
	int *online = NULL, n, i, j, *sib, nsib;
	int *keys = NULL, nkeys;

	if (!root)
		root = "";
	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
	if (load_read_small(path, list, sizeof(list)) < 0)
		return load_err("cannot read %s: %s", path, strerror(errno));
	if (topo_parse_cpulist(list, &online, &n) < 0)
		return -1;
	if (n == 0) {
		free(online);
		return load_err("%s lists no CPU", path);
	}
	t->cpus = load_xcalloc(n, sizeof(*t->cpus));
	t->ncpus = n;
	for (i = 0; i < n; i++) {
		struct load_cpu *c = &t->cpus[i];
		char base[PATH_MAX - 64];

		c->id = online[i];
		c->node = -1;
		snprintf(base, sizeof(base), "%s/sys/devices/system/cpu/cpu%d/topology",
		    root, c->id);
		snprintf(path, sizeof(path), "%s/physical_package_id", base);
		if (topo_read_int(path, &c->socket) < 0 || c->socket < 0)
			c->socket = 0;
		snprintf(path, sizeof(path), "%s/core_id", base);
		if (topo_read_int(path, &c->core) < 0)
			c->core = c->id;
		snprintf(path, sizeof(path), "%s/thread_siblings_list", base);
		c->thread = 0;
		if (load_read_small(path, list, sizeof(list)) == 0 &&
		    topo_parse_cpulist(list, &sib, &nsib) == 0) {
			for (j = 0; j < nsib && sib[j] != c->id; j++)
				;
			c->thread = j < nsib ? j : 0;
			free(sib);
		}
	}
	free(online);

	if (topo_load_nodes(t, root) < 0)
		goto fail;
	/* CPUs no node claimed (or a kernel without NUMA) belong to node 0 */
	for (i = 0; i < t->ncpus; i++) {
		struct load_node *nd;

		if (t->cpus[i].node >= 0)
			continue;
		nd = (struct load_node *)topo_node(t, 0);
		if (!nd) {
			load_err("CPU %d is in no NUMA node", t->cpus[i].id);
			goto fail;
		}
		nd->cpus = load_xrealloc(nd->cpus, (nd->ncpus + 1) * sizeof(int));
		nd->cpus[nd->ncpus++] = t->cpus[i].id;
		qsort(nd->cpus, nd->ncpus, sizeof(int), topo_cmp_int);
		t->cpus[i].node = 0;
	}

	/* sockets and cores: count distinct ids / (socket, core) pairs */
	keys = load_xcalloc(t->ncpus, sizeof(int));
	for (i = 0; i < t->ncpus; i++)
		keys[i] = t->cpus[i].socket;
	qsort(keys, t->ncpus, sizeof(int), topo_cmp_int);
	for (i = 0, nkeys = 0; i < t->ncpus; i++)
		nkeys += i == 0 || keys[i] != keys[i - 1];
	t->nsockets = nkeys;
	for (i = 0, t->ncores = 0; i < t->ncpus; i++)
		t->ncores += t->cpus[i].thread == 0;
	free(keys);

	topo_read_model(t, root);
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	t->mem_kb = topo_meminfo_kb(path);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/osrelease", root);
	load_read_small(path, t->kernel, sizeof(t->kernel));
	if (t->nnodes == 1 && t->nodes[0].mem_kb == 0)
		t->nodes[0].mem_kb = t->mem_kb;
	return 0;
fail:
	topo_release(t);
	return -1;
}

void
topo_release(struct load_topo *t)
{
	int i;

	for (i = 0; i < t->nnodes; i++)
		free(t->nodes[i].cpus);
	free(t->nodes);
	free(t->cpus);
	memset(t, 0, sizeof(*t));
}

const struct load_node *
topo_node(const struct load_topo *t, int id)
{
	int i;

	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == id)
			return &t->nodes[i];
	return NULL;
}

const struct load_cpu *
topo_cpu(const struct load_topo *t, int id)
{
	int i;

	for (i = 0; i < t->ncpus; i++)
		if (t->cpus[i].id == id)
			return &t->cpus[i];
	return NULL;
}

void
topo_print_json(const struct load_topo *t, FILE *f)
{
	struct sample_json j;
	int i, k;

	sample_json_init(&j);
	sample_json_addf(&j, "{\"model\":");
	sample_json_str(&j, t->model);
	sample_json_addf(&j, ",\"kernel\":");
	sample_json_str(&j, t->kernel);
	sample_json_addf(&j, ",\"mem_kb\":%lld,\"sockets\":%d,\"cores\":%d,"
	    "\"threads\":%d,\"nodes\":[", t->mem_kb, t->nsockets, t->ncores,
	    t->ncpus);
	for (i = 0; i < t->nnodes; i++) {
		const struct load_node *nd = &t->nodes[i];

		sample_json_addf(&j, "%s{\"id\":%d,\"mem_kb\":%lld,\"cpus\":[",
		    i ? "," : "", nd->id, nd->mem_kb);
		for (k = 0; k < nd->ncpus; k++)
			sample_json_addf(&j, "%s%d", k ? "," : "", nd->cpus[k]);
		sample_json_addf(&j, "]}");
	}
	sample_json_addf(&j, "],\"cpus\":[");
	for (i = 0; i < t->ncpus; i++) {
		const struct load_cpu *c = &t->cpus[i];

		sample_json_addf(&j, "%s{\"cpu\":%d,\"node\":%d,\"socket\":%d,"
		    "\"core\":%d,\"thread\":%d}", i ? "," : "", c->id, c->node,
		    c->socket, c->core, c->thread);
	}
	sample_json_addf(&j, "]}");
	fwrite(j.data, 1, j.len, f);
	sample_json_release(&j);
}
