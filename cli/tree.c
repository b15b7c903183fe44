/*
 * cli/tree: `kperfci tree import` (Debian linux-source tarball -> git tree
 * with a reproducible commit id) and `kperfci build` (one cached kernel
 * build through the same code the daemon uses).  See cli/tree.h.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/tree.h"
#include "daemon/build.h"
#include "daemon/tree.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xalloc.h"

static int
tree_usage(void)
{
	fprintf(stderr, "usage: kperfci tree import --tarball FILE --name NAME "
	    "[--dir DIR]\n");
	return 2;
}

int
cmd_tree_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tarball", required_argument, NULL, 't' },
		{ "name", required_argument, NULL, 'n' },
		{ "dir", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	const char *tarball = NULL, *name = NULL, *dir = NULL;
	struct buf err = BUF_INIT(1 << 20);
	char commit[41], *def = NULL;
	int c, rc = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't': tarball = optarg; break;
		case 'n': name = optarg; break;
		case 'd': dir = optarg; break;
		default: return tree_usage();
		}
	}
	if (!tarball || !name || optind != argc)
		return tree_usage();
	if (!*name || strchr(name, '/') || name[0] == '.') {
		fprintf(stderr, "kperfci tree import: invalid tree name \"%s\"\n",
		    name);
		return 2;
	}
	if (!dir)
		dir = def = xasprintf("var/trees/%s", name);
	if (def) {
		/* the default lives under ./var: make its parents */
		char *p = xstrdup(def);

		for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
		free(p);
	}
	if (tree_import_tarball(tarball, dir, commit, &err) != 0) {
		fprintf(stderr, "kperfci tree import: %s\n", err.data);
		goto out;
	}
	printf("%s %s\n", commit, dir);
	rc = 0;
out:
	buf_release(&err);
	free(def);
	return rc;
}

int
cmd_tree(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return cmd_tree_import(argc - 1, argv + 1);
	return tree_usage();
}

static void
build_progress(void *arg, enum build_state s, int pct)
{
	static int last_state = -1, last_pct = -2;

	if ((int)s == last_state && pct == last_pct)
		return;
	last_state = (int)s;
	last_pct = pct;
	if (pct >= 0)
		fprintf(stderr, "build: %s %d%%\n", build_state_name(s), pct);
	else
		fprintf(stderr, "build: %s\n", build_state_name(s));
}

static int
build_usage(void)
{
	fprintf(stderr, "usage: kperfci build --tree REPO --commit REV "
	    "[--base REV] --cache DIR [--config TARGET|FILE] "
	    "[--fragment FILE]... [--jobs N] [--timeout SECONDS] "
	    "[--quiet]\n");
	return 2;
}

static void
build_print(const char *what, const struct build_result *r)
{
	printf("%s key=%s hit=%d seconds=%.1f sha256=%s dir=%s\n", what,
	    r->key, r->cache_hit, r->seconds, r->sha256, r->dir);
}

int
cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "commit", required_argument, NULL, 'c' },
		{ "base", required_argument, NULL, 'b' },
		{ "cache", required_argument, NULL, 'C' },
		{ "config", required_argument, NULL, 'k' },
		{ "fragment", required_argument, NULL, 'f' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 }
	};
	const char *repo = NULL, *rev = NULL, *base = NULL, *cache = NULL;
	const char *config = "tinyconfig";
	const char **frags = xcalloc((size_t)argc + 1, sizeof(*frags));
	size_t nfrags = 0;
	struct build_opts bo = { 0 };
	struct build_spec spec = { 0 };
	struct build_result base_res, res;
	char commit[41], base_commit[41], cache_abs[PATH_MAX];
	int c, rc = 1, quiet = 0;

	bo.jobs = 2;
	bo.timeout_sec = 3 * 3600;
	bo.sandbox = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't': repo = optarg; break;
		case 'c': rev = optarg; break;
		case 'b': base = optarg; break;
		case 'C': cache = optarg; break;
		case 'k': config = optarg; break;
		case 'f': frags[nfrags++] = optarg; break;
		case 'j': bo.jobs = atoi(optarg); break;
		case 'T': bo.timeout_sec = atoi(optarg); break;
		case 'q': quiet = 1; break;
		default: rc = build_usage(); goto out;
		}
	}
	if (!repo || !rev || !cache || optind != argc || bo.jobs < 1 ||
	    bo.timeout_sec < 1) {
		rc = build_usage();
		goto out;
	}
	mkdir(cache, 0755);
	if (!realpath(cache, cache_abs)) {
		fprintf(stderr, "kperfci build: cache %s: %m\n", cache);
		goto out;
	}
	bo.cache_dir = cache_abs;
	if (!quiet)
		bo.progress = build_progress;
	if (tree_resolve(repo, rev, commit) != 0) {
		fprintf(stderr, "kperfci build: %s is not a commit in %s\n",
		    rev, repo);
		goto out;
	}
	spec.repo = repo;
	spec.config = config;
	spec.fragments = frags;
	spec.nfragments = nfrags;
	if (base) {
		if (tree_resolve(repo, base, base_commit) != 0) {
			fprintf(stderr, "kperfci build: base %s is not a commit "
			    "in %s\n", base, repo);
			goto out;
		}
		spec.commit = base_commit;
		if (build_run(&spec, &bo, &base_res) != 0) {
			fprintf(stderr, "kperfci build: base: %s\n%s",
			    base_res.error, base_res.log_tail);
			goto out;
		}
		build_print("base", &base_res);
		spec.base_commit = base_commit;
		spec.base_key = base_res.key;
	}
	spec.commit = commit;
	if (build_run(&spec, &bo, &res) != 0) {
		fprintf(stderr, "kperfci build: %s\n%s", res.error, res.log_tail);
		goto out;
	}
	build_print(base ? "patched" : "build", &res);
	rc = 0;
out:
	free(frags);
	return rc;
}
