/* t-load-place: task counts to pinned CPU lists on hand-built topologies. */
#include <stdlib.h>
#include <string.h>

#include "agents/load/place.h"
#include "agents/load/util.h"
#include "tests/unit/tap.h"

/* 2 nodes x 2 cores x 2 threads: node0 = 0,1,4,5  node1 = 2,3,6,7 */
static struct load_cpu cpus[8];
static int n0[] = { 0, 1, 4, 5 }, n1[] = { 2, 3, 6, 7 };
static struct load_node nodes[2] = {
	{ 0, n0, 4, 0 },
	{ 1, n1, 4, 0 },
};
static struct load_topo topo = { cpus, 8, nodes, 2, 2, 4, "", "", 0 };

static char *
show(const char *spec)
{
	static char out[128];
	int *v, n, i;

	if (place_resolve(&topo, spec, &v, &n) < 0) {
		snprintf(out, sizeof(out), "error");
		return out;
	}
	out[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%d",
		    i ? "," : "", v[i]);
	free(v);
	return out;
}

int
main(void)
{
	int i;

	load_set_quiet(1);
	for (i = 0; i < 8; i++) {
		cpus[i].id = i;
		cpus[i].node = (i % 4) / 2;
		cpus[i].socket = cpus[i].node;
		cpus[i].core = i % 2;
		cpus[i].thread = i / 4;
	}
	is_str(show("all"), "0,1,4,5,2,3,6,7", "all: node 0 first, cores before siblings");
	is_str(show("2"), "0,1", "2 tasks: one per core of node 0");
	is_str(show("3"), "0,1,4", "3 tasks: node 0 fills before node 1");
	is_str(show("5"), "0,1,4,5,2", "5 tasks spill into node 1");
	is_str(show("node"), "0,1,4,5", "node: first node");
	is_str(show("node:1"), "2,3,6,7", "node:1");
	is_str(show("node1"), "2,3,6,7", "node1");
	is_str(show("0.5"), "0,1,4,5", "half the CPUs is one node");
	is_str(show("0.01"), "0", "tiny fraction is at least one task");
	is_str(show("1.0"), "0,1,4,5,2,3,6,7", "fraction 1.0 is all");
	is_str(show("8"), "0,1,4,5,2,3,6,7", "8 tasks");

	is_str(show("9"), "error", "9 tasks on 8 CPUs refused");
	ok(strstr(load_last_error(), "9") && strstr(load_last_error(), "8 online CPUs"),
	    "error says how many CPUs there are: %s", load_last_error());
	is_str(show("node:2"), "error", "node 2 refused");
	ok(strstr(load_last_error(), "node 2 does not exist"), "error names the node: %s",
	    load_last_error());
	is_str(show("0"), "error", "0 tasks refused");
	is_str(show("-1"), "error", "negative refused");
	is_str(show("1.5"), "error", "fraction above 1 refused");
	is_str(show("0.0"), "error", "fraction 0 refused");
	is_str(show("lots"), "error", "words refused");
	ok(strstr(load_last_error(), "\"lots\""), "error quotes the spec");
	is_str(show(""), "error", "empty refused");
	is_str(show("node:x"), "error", "bad node refused");
	ok(place_check("node:7") == 0, "syntax check does not need the topology");
	ok(place_check("4x") < 0, "syntax check refuses 4x");

	/* a node without online CPUs */
	nodes[1].ncpus = 0;
	is_str(show("node:1"), "error", "node without online CPUs refused");
	ok(strstr(load_last_error(), "no online CPU"), "error says why");
	nodes[1].ncpus = 4;
	return tap_done();
}
