/*
 * kperfci-load: the contention workloads, run by the agent inside the test
 * kernel (a bare busybox initramfs: static binary, PID 1's child) or by
 * hand on any Linux machine.
 *
 *   kperfci-load list
 *   kperfci-load topo [--json] [--root DIR]
 *   kperfci-load run NAME [--key value ...] [--seconds S] [--iterations N]
 *                         [--warmup N] [--json] [--out FILE]
 *   kperfci-load --matrix FILE [--check [--topology T.json]] [--out FILE]
 *
 * Output: JSON lines (sample.h).  Warm-up iterations are not emitted.  On
 * failure: one {"error":"..."} line on stdout, the message on stderr, exit
 * 1 (2 for a usage error).  --matrix runs every entry in order; a failing
 * entry emits its error line (with "workload" and "params") and the rest
 * still run; the exit status is 1 if any failed.  --check only validates,
 * printing one line per run with its parameters resolved against this
 * machine or, with --topology, against the machine a `topo --json` file
 * describes: {"run":NAME,"workload":W,"params":P,"seconds":S,
 * "iterations":N,"warmup":N}.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/matrix.h"
#include "agents/load/sample.h"
#include "agents/load/topo.h"
#include "agents/load/util.h"
#include "agents/load/wl.h"

#define MAX_ARGS	32

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: kperfci-load list\n"
	    "       kperfci-load topo [--json] [--root DIR]\n"
	    "       kperfci-load run NAME [--key value ...] [--seconds S] [--iterations N] [--warmup N] [--json] [--out FILE]\n"
	    "       kperfci-load --matrix FILE [--check [--topology T.json]] [--out FILE]\n");
}

static int
fail(int code)
{
	sample_emit_error(load_last_error(), NULL, NULL);
	return code;
}

static int
open_out(const char *path)
{
	FILE *f;

	if (!path)
		return 0;
	f = fopen(path, "a");
	if (!f)
		return load_err("cannot open --out %s: %s", path, strerror(errno));
	sample_set_output(f);
	return 0;
}

static int
cmd_topo(int argc, char **argv)
{
	struct load_topo t;
	const char *root = "";
	int i, json = 0;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
			root = argv[++i];
		else {
			load_err("topo: unknown argument \"%s\"", argv[i]);
			return fail(2);
		}
	}
	if (topo_load(&t, root) < 0)
		return fail(1);
	if (json) {
		topo_print_json(&t, stdout);
		printf("\n");
	} else {
		printf("model: %s\nkernel: %s\nmemory: %lld kB\nsockets: %d, cores: %d, threads: %d\n",
		    t.model, t.kernel, t.mem_kb, t.nsockets, t.ncores, t.ncpus);
		for (i = 0; i < t.nnodes; i++) {
			int k;

			printf("node %d (%lld kB):", t.nodes[i].id, t.nodes[i].mem_kb);
			for (k = 0; k < t.nodes[i].ncpus; k++)
				printf(" %d", t.nodes[i].cpus[k]);
			printf("\n");
		}
	}
	topo_release(&t);
	return 0;
}

/* --check: the run as it would be executed on this topology. */
static void
print_resolved(const char *run, const struct wl_run *r)
{
	struct sample_json j;

	sample_json_init(&j);
	sample_json_addf(&j, "{\"run\":");
	sample_json_str(&j, run);
	sample_json_addf(&j, ",\"workload\":");
	sample_json_str(&j, r->def->name);
	sample_json_addf(&j, ",\"params\":");
	sample_json_str(&j, r->params);
	sample_json_addf(&j, ",\"seconds\":");
	sample_json_num(&j, r->seconds);
	sample_json_addf(&j, ",\"iterations\":%d,\"warmup\":%d}",
	    r->iterations, r->warmup);
	sample_emit_raw(&j);
	sample_json_release(&j);
}

/* Runs one configured entry; prints the error line itself on failure. */
static int
run_one(const struct load_topo *t, const char *run, const char *name, int n,
    const char *const *keys, const char *const *vals, int check_only)
{
	const struct wl_def *d = wl_find(name);
	struct wl_run r;
	int rc;

	load_clear_error();
	if (!d) {
		load_err("unknown workload \"%s\" (see kperfci-load list)", name);
		sample_emit_error(load_last_error(), name, NULL);
		return -1;
	}
	if (wl_configure(&r, d, t, n, keys, vals) < 0) {
		sample_emit_error(load_last_error(), name, NULL);
		return -1;
	}
	if (check_only)
		print_resolved(run ? run : name, &r);
	rc = check_only ? 0 : wl_execute(&r);
	if (rc < 0)
		sample_emit_error(load_last_error(), name, r.params);
	wl_run_release(&r);
	return rc;
}

static int
cmd_run(int argc, char **argv)
{
	const char *keys[MAX_ARGS], *vals[MAX_ARGS], *out = NULL;
	struct load_topo t;
	int i, n = 0, rc;

	if (argc < 1) {
		load_err("run: which workload? (see kperfci-load list)");
		usage(stderr);
		return fail(2);
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--json") == 0)
			continue;	/* output is always JSON lines */
		if (strncmp(a, "--", 2) || !a[2]) {
			load_err("run: expected --key value, got \"%s\"", a);
			return fail(2);
		}
		if (i + 1 >= argc) {
			load_err("run: %s needs a value", a);
			return fail(2);
		}
		if (strcmp(a, "--out") == 0) {
			out = argv[++i];
			continue;
		}
		if (n == MAX_ARGS) {
			load_err("run: too many arguments");
			return fail(2);
		}
		/* lock-profile's --workload is its --target */
		keys[n] = strcmp(argv[0], "lock-profile") == 0 &&
		    strcmp(a + 2, "workload") == 0 ? "target" : a + 2;
		vals[n++] = argv[++i];
	}
	if (open_out(out) < 0)
		return fail(1);
	if (topo_load(&t, "") < 0)
		return fail(1);
	rc = run_one(&t, NULL, argv[0], n, keys, vals, 0);
	topo_release(&t);
	return rc < 0 ? 1 : 0;
}

static int
cmd_matrix(const char *file, int check_only, const char *topology)
{
	struct load_topo t;
	struct matrix m;
	int i, failed = 0;

	if (matrix_load(&m, file) < 0)
		return fail(2);
	if (topology ? topo_load_json_file(&t, topology) < 0 :
	    topo_load(&t, "") < 0) {
		matrix_release(&m);
		return fail(1);
	}
	for (i = 0; i < m.n; i++) {
		struct matrix_entry *e = &m.e[i];

		if (!check_only)
			fprintf(stderr, "kperfci-load: [%d/%d] %s (%s)\n", i + 1,
			    m.n, e->name, e->workload);
		if (run_one(&t, e->name, e->workload, e->n,
		    (const char *const *)e->keys,
		    (const char *const *)e->vals, check_only) < 0)
			failed++;
	}
	topo_release(&t);
	matrix_release(&m);
	return failed ? 1 : 0;
}

int
main(int argc, char **argv)
{
	const char *matrix = NULL, *out = NULL, *topology = NULL;
	int i, check = 0;

	if (argc < 2) {
		usage(stderr);
		load_err("no command");
		return fail(2);
	}
	if (strcmp(argv[1], "list") == 0) {
		wl_list(stdout);
		return 0;
	}
	if (strcmp(argv[1], "topo") == 0)
		return cmd_topo(argc - 2, argv + 2);
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--matrix") == 0 && i + 1 < argc)
			matrix = argv[++i];
		else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--check") == 0)
			check = 1;
		else if (strcmp(argv[i], "--topology") == 0 && i + 1 < argc)
			topology = argv[++i];
		else {
			usage(stderr);
			load_err("unknown command or argument \"%s\"", argv[i]);
			return fail(2);
		}
	}
	if (!matrix) {
		usage(stderr);
		load_err("nothing to do: give a command or --matrix FILE");
		return fail(2);
	}
	if (topology && !check) {
		usage(stderr);
		load_err("--topology describes another machine: it goes with --check only");
		return fail(2);
	}
	if (open_out(out) < 0)
		return fail(1);
	return cmd_matrix(matrix, check, topology);
}
