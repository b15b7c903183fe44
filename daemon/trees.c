/*
 * trees: the configured trees (see trees.h).  A service: the apply and
 * build stages, the nightly runs and bisects, and the exercise plan all
 * read a [tree] through here, so a tree means the same thing to each.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/app.h"
#include "daemon/trees.h"
#include "core/tree.h"
#include "lib/xalloc.h"

const char *
trees_series_name(void)
{
	const struct settings_tree *t = app.settings.build.tree;

	return t ? t->name : NULL;
}

/* Relative paths of the config: path and url-less repositories from the
   current directory (like [daemon] data), fragments from the share
   directory (the parent of the schema directory: the source tree or
   PREFIX/share/kperfci). */
static char *
trees_abs(const char *base, const char *p)
{
	if (p[0] == '/')
		return xstrdup(p);
	return xasprintf("%s/%s", base, p);
}

int
trees_conf(const char *name, struct tree_conf *tc,
    struct buf *err)
{
	const struct settings_tree *st = settings_tree(&app.settings, name);
	const char *url, *path, *f;
	char cwd[PATH_MAX], *share, *tmp;
	size_t n = 0;

	memset(tc, 0, sizeof(*tc));
	if (!st) {
		buf_addf(err, "tree \"%s\" is not a configured [tree]", name);
		return -1;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		buf_addf(err, "getcwd: %s", strerror(errno));
		return -1;
	}
	tmp = xstrdup(app.schema_dir ? app.schema_dir : KPERFCI_SRCDIR "/schema");
	share = xstrdup(dirname(tmp));
	free(tmp);
	url = st->url;
	path = st->path;
	tc->name = xstrdup(name);
	tc->url = url ? xstrdup(url) : NULL;
	if (path)
		tc->path = trees_abs(cwd, path);
	else if (url)
		tc->path = xasprintf("%s/trees/%s.git", app.data_dir, name);
	else {
		buf_addf(err, "[tree \"%s\"] needs a path or a url", name);
		free(share);
		tree_conf_release(tc);
		return -1;
	}
	tc->branch = xstrdup(st->branch);
	f = st->config;
	tc->config = strchr(f, '/') ? trees_abs(share, f) : xstrdup(f);
	n = st->nfragments;
	tc->fragments = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		tc->fragments[i] = trees_abs(share, st->fragments[i]);
	tc->nfragments = n;
	free(share);
	return 0;
}
