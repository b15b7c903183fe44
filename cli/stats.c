/*
 * cli/stats: `kperfci stats compare`, the offline comparison of two sample
 * files (the agents' JSON-lines upload format).  It prints exactly what the
 * daemon shows for a comparison: the same core/stats.c, the same
 * defaults; only the seed and the resample count can be changed.  Two
 * files are one look holding all of alpha, unless --look K says they are
 * the K-th look of the daemon's default plan (then the look's share).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "core/stats.h"
#include "lib/log.h"

static void
stats_cli_usage(FILE *f)
{
	fprintf(f, "usage: kperfci stats compare --base FILE --test FILE "
	    "[--json] [--seed N] [--resamples N] [--look K]\n");
}

static int
stats_cli_number(const char *opt, const char *s, unsigned long max,
    unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (!*s || *end || errno || *s == '-' || *out > max)
		return error("%s: \"%s\" is not a number in 0..%lu", opt, s,
		    max);
	return 0;
}

static int
stats_cli_load(struct stats_set *set, const char *path, const char *side)
{
	char err[640], failed[128];

	if (stats_load_file(set, path, err, sizeof(err)))
		return error("%s", err);
	if (set->nsamples == 0)
		return error("%s: %s (%zu error lines)", path,
		    stats_failed_verdict(failed, sizeof(failed), side,
		    "reported no samples"), set->nerror);
	return 0;
}

int
cmd_stats_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "test", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "seed", required_argument, NULL, 's' },
		{ "resamples", required_argument, NULL, 'r' },
		{ "look", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *base_path = NULL, *test_path = NULL;
	struct stats_set base, test;
	struct stats_result res;
	struct stats_opts o;
	unsigned long v;
	int c, json = 0, rc = 1, have_result = 0;

	stats_set_init(&base);
	stats_set_init(&test);
	stats_opts_init(&o);
	optind = 0;		/* GNU: rescan from argv[1] */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			base_path = optarg;
			break;
		case 't':
			test_path = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 's':
			if (stats_cli_number("--seed", optarg, 0xffffffffUL, &v))
				return 2;
			o.seed = v;
			break;
		case 'r':
			if (stats_cli_number("--resamples", optarg, 1000000, &v))
				return 2;
			if (v < 100) {
				error("--resamples: at least 100");
				return 2;
			}
			o.resamples = (int)v;
			break;
		case 'l':
			if (stats_cli_number("--look", optarg, 100, &v))
				return 2;
			if (v < 1 || (int)v > stats_planned_looks(o.boots,
			    o.max_boots, o.boot_step)) {
				error("--look: 1..%d (the daemon's default plan)",
				    stats_planned_looks(o.boots, o.max_boots,
				    o.boot_step));
				return 2;
			}
			o.look = (int)v;
			break;
		case 'h':
			stats_cli_usage(stdout);
			return 0;
		default:
			stats_cli_usage(stderr);
			return 2;
		}
	}
	if (!base_path || !test_path || optind != argc) {
		stats_cli_usage(stderr);
		return 2;
	}
	if (stats_cli_load(&base, base_path, "base") ||
	    stats_cli_load(&test, test_path, "test"))
		goto out;
	stats_compare(&base, &test, &o, &res);
	have_result = 1;
	if (json) {
		json_t *j = stats_result_to_json(&res);

		if (!j || json_dumpf(j, stdout, JSON_INDENT(2)) != 0) {
			json_decref(j);
			error("cannot write JSON");
			goto out;
		}
		json_decref(j);
		putchar('\n');
	} else {
		printf("base: %s (%zu samples; skipped %zu lock-profile, %zu "
		    "error lines)\n", base_path, base.nsamples,
		    base.nlock_profile, base.nerror);
		printf("test: %s (%zu samples; skipped %zu lock-profile, %zu "
		    "error lines)\n\n", test_path, test.nsamples,
		    test.nlock_profile, test.nerror);
		stats_result_print_table(stdout, &res);
	}
	if (fflush(stdout) != 0) {
		error("cannot write output");
		goto out;
	}
	rc = 0;
out:
	if (have_result)
		stats_result_release(&res);
	stats_set_release(&base);
	stats_set_release(&test);
	return rc;
}
