/*
 * kperfci: the command-line client.  A thin wrapper around the daemon's
 * HTTP API (and, for `series show`, the series picker run offline).
 *
 *	kperfci [-s URL] [--token T] COMMAND [ARGS]
 *
 * Subcommands are rows of the dispatch table below; a command may be
 * several words ("series show").  Each area adds its row and the
 * prototype of its function.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/tree.h"
#include "lib/log.h"

/* Prototypes of commands living in other areas' files. */
int	cmd_stats_compare(int, char **);	/* cli/stats.c */
int	cmd_series_show(int, char **);	/* cli/series_show.c */
int	cmd_series_claims(int, char **);	/* cli/series_show.c */
int	cmd_mail_show(int, char **);	/* cli/mail.c */
int	cmd_track_list(int, char **);	/* cli/track.c */
int	cmd_track_show(int, char **);
int	cmd_track_run(int, char **);

static const struct command {
	const char *name;
	int	(*fn)(int, char **);
	const char *help;
} commands[] = {
	{ "submit", cmd_submit, "submit URL|--mbox FILE [--version N] "
	    "[--base REV] [--boots N] [--matrix FILE] [--no-follow | --wait]" },
	{ "status", cmd_status, "status [ID]" },
	{ "cancel", cmd_cancel, "cancel ID" },
	{ "rerun", cmd_rerun, "rerun ID" },
	{ "stats compare", cmd_stats_compare, "stats compare --base FILE --test FILE [--json] [--seed N] [--resamples N]" },
	{ "tree import", cmd_tree_import, "tree import --tarball FILE --name NAME [--dir DIR]" },
	{ "tree apply", cmd_tree_apply, "tree apply --tree REPO --mbox FILE [--base REV] [--branch B] [--ref REF]" },
	{ "build", cmd_build, "build --tree REPO --commit REV [--base REV] --cache DIR [--config TARGET|FILE] [--fragment FILE]... [--jobs N] [--timeout S] [--quiet]" },
	{ "series claims", cmd_series_claims, "series claims (--mbox FILE | --url URL --allow BASE) [--msgid ID] [--version N] [--json]" },
	{ "track list", cmd_track_list, "track list" },
	{ "mail show", cmd_mail_show, "mail show ID" },
	{ "track show", cmd_track_show, "track show NAME [--json]" },
	{ "track run", cmd_track_run, "track run NAME" },
	{ "series show", cmd_series_show, "series show (--mbox FILE | --url URL --allow BASE) [--msgid ID] [--version N] [--json] [--messages]" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: kperfci [-s URL] [--token T] COMMAND [ARGS]\n\n"
	    "  -s, --server URL   kperfcid to talk to (default $KPERFCI_SERVER"
	    " or\n                     http://127.0.0.1:8080)\n"
	    "  --token TOKEN      a submitter's or the admin's token (default "
	    "$KPERFCI_TOKEN;\n                     the environment keeps it "
	    "out of ps)\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  kperfci %s\n", commands[i].help);
}

/* Number of argv words `name` spans if they match it, else 0. */
static int
command_match(const char *name, int argc, char **argv)
{
	const char *p = name;
	int n = 0;
	size_t len;

	while (*p) {
		len = strcspn(p, " ");
		if (n >= argc || strlen(argv[n]) != len ||
		    strncmp(argv[n], p, len))
			return 0;
		n++;
		p += len;
		while (*p == ' ')
			p++;
	}
	return n;
}

int
main(int argc, char **argv)
{
	const struct command *best = NULL;
	const char *env = getenv("KPERFCI_SERVER");
	int i = 1, n, bestn = 0, rc;
	size_t k;

	log_init("kperfci", 1);
	if (env && *env)
		client_server = env;
	if ((env = getenv("KPERFCI_TOKEN")) && *env)
		client_token = env;
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "--server")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "kperfci: %s needs a URL\n",
				    argv[i]);
				return 2;
			}
			client_server = argv[i + 1];
			i += 2;
		} else if (!strncmp(argv[i], "--server=", 9)) {
			client_server = argv[i] + 9;
			i++;
		} else if (!strcmp(argv[i], "--token")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "kperfci: --token needs a "
				    "token\n");
				return 2;
			}
			client_token = argv[i + 1];
			i += 2;
		} else if (!strncmp(argv[i], "--token=", 8)) {
			client_token = argv[i] + 8;
			i++;
		} else if (!strcmp(argv[i], "-h") ||
		    !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "kperfci: unknown option %s\n",
			    argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	for (k = 0; k < NCOMMANDS; k++) {
		n = command_match(commands[k].name, argc - i, argv + i);
		if (n > bestn) {
			bestn = n;
			best = &commands[k];
		}
	}
	if (!best) {
		fprintf(stderr, "kperfci: unknown command \"%s\"\n", argv[i]);
		usage(stderr);
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	/* the command sees argv[0] = the last word of its name */
	rc = best->fn(argc - i - bestn + 1, argv + i + bestn - 1);
	curl_global_cleanup();
	return rc;
}
