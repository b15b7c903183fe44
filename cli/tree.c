/*
 * cli/tree: `kperfci tree import` (Debian linux-source tarball -> git tree
 * with a reproducible commit id) and `kperfci build` (one cached kernel
 * build through the same code the daemon uses).  See cli/tree.h.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/term.h"
#include "cli/tree.h"
#include "core/build.h"
#include "core/mime.h"
#include "core/series.h"
#include "core/tree.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xalloc.h"

static int
tree_usage(void)
{
	term_eprintf("usage: kperfci tree import --tarball FILE --name NAME "
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
		term_eprintf("kperfci tree import: invalid tree name \"%s\"\n",
		    name);
		return 2;
	}
	if (!dir)
		dir = def = xasprintf("var/trees/%s", name);
	if (tree_import_tarball(tarball, dir, commit, &err) != 0) {
		term_eprintf("kperfci tree import: %s\n", err.data);
		goto out;
	}
	printf("%s %s\n", commit, dir);
	rc = 0;
out:
	buf_release(&err);
	free(def);
	return rc;
}

#define TREE_CLI_MBOX_MAX	(64u << 20)

int
cmd_tree_apply(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "mbox", required_argument, NULL, 'm' },
		{ "base", required_argument, NULL, 'b' },
		{ "branch", required_argument, NULL, 'B' },
		{ "ref", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	const char *repo = NULL, *mboxpath = NULL, *base = NULL, *ref = NULL;
	const char *branch = "master";
	struct buf data = BUF_INIT(TREE_CLI_MBOX_MAX), err = BUF_INIT(1 << 20);
	struct buf why = BUF_INIT(4096);
	struct msg_list msgs = { 0 };
	struct series s;
	struct tree_applied a = { 0 };
	enum tree_base_kind kind;
	char commit[41];
	int c, rc = 1;

	memset(&s, 0, sizeof(s));
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't': repo = optarg; break;
		case 'm': mboxpath = optarg; break;
		case 'b': base = optarg; break;
		case 'B': branch = optarg; break;
		case 'r': ref = optarg; break;
		default: goto usage;
		}
	}
	if (!repo || !mboxpath || optind != argc)
		goto usage;
	if (buf_read_file(&data, mboxpath) != 0) {
		term_eprintf("kperfci tree apply: %s: %s\n", mboxpath,
		    data.overflow ? "too large" : strerror(errno));
		goto out;
	}
	if (msg_parse_mbox(data.data ? data.data : "", data.len, &msgs, NULL,
	    NULL, &err) < 0) {
		term_eprintf("kperfci tree apply: %s\n", err.data);
		goto out;
	}
	buf_release(&data);
	buf_reset(&err);
	if (series_pick(msgs.v, msgs.n, NULL, 0, &s, &err) < 0) {
		term_eprintf("kperfci tree apply: %s\n", err.data);
		goto out;
	}
	if (tree_choose_base(repo, branch, s.base_commit, base, commit, &kind,
	    &why) != 0) {
		term_eprintf("kperfci tree apply: %s\n", why.data);
		goto out;
	}
	term_eprintf("base %s (%s): %s\n", commit, tree_base_kind_name(kind),
	    why.data);
	if (tree_apply(repo, commit, s.patches, s.npatches, ref, &a,
	    &err) != 0) {
		term_eprintf("kperfci tree apply: %s\n", err.data);
		goto out;
	}
	for (size_t i = 0; i < a.npaths; i++)
		term_eprintf("patch %d/%d applied by %s\n",
		    s.patches[i].counter, s.patches[i].total, a.paths[i]);
	printf("%s %s\n", a.commit, commit);
	rc = 0;
	goto out;
usage:
	term_eprintf("usage: kperfci tree apply --tree REPO --mbox FILE "
	    "[--base REV] [--branch B] [--ref REF]\n");
	rc = 2;
out:
	tree_applied_release(&a);
	series_release(&s);
	msg_list_release(&msgs);
	buf_release(&data);
	buf_release(&err);
	buf_release(&why);
	return rc;
}

int
cmd_tree(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return cmd_tree_import(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "apply"))
		return cmd_tree_apply(argc - 1, argv + 1);
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
		term_eprintf("build: %s %d%%\n", build_state_name(s), pct);
	else
		term_eprintf("build: %s\n", build_state_name(s));
}

static int
build_usage(void)
{
	term_eprintf("usage: kperfci build --tree REPO --commit REV "
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
		term_eprintf("kperfci build: cache %s: %m\n", cache);
		goto out;
	}
	bo.cache_dir = cache_abs;
	if (!quiet)
		bo.progress = build_progress;
	if (tree_resolve(repo, rev, commit) != 0) {
		term_eprintf("kperfci build: %s is not a commit in %s\n",
		    rev, repo);
		goto out;
	}
	spec.repo = repo;
	spec.config = config;
	spec.fragments = frags;
	spec.nfragments = nfrags;
	if (base) {
		if (tree_resolve(repo, base, base_commit) != 0) {
			term_eprintf("kperfci build: base %s is not a commit "
			    "in %s\n", base, repo);
			goto out;
		}
		spec.commit = base_commit;
		if (build_run(&spec, &bo, &base_res) != 0) {
			term_eprintf("kperfci build: base: %s\n%s",
			    base_res.error, base_res.log_tail);
			goto out;
		}
		build_print("base", &base_res);
		spec.base_commit = base_commit;
		spec.base_key = base_res.key;
	}
	spec.commit = commit;
	if (build_run(&spec, &bo, &res) != 0) {
		term_eprintf("kperfci build: %s\n%s", res.error, res.log_tail);
		goto out;
	}
	build_print(base ? "patched" : "build", &res);
	rc = 0;
out:
	free(frags);
	return rc;
}
