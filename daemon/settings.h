/*
 * settings: the daemon's configuration as typed fields, read once at start
 * from the parsed kperfci.conf (config.h) and then only read by the
 * stages, handlers and workers (app.settings).
 *
 * settings_load applies the table's defaults (config.c) and runs the checks
 * that look at more than one key ([track] tree names a [tree], a [watch]
 * lore base is on the [lore] allowlist, [build] tree names a [tree], ...),
 * so `kperfcid -n` and start-up refuse what used to fail at first use.
 *
 * Strings point into the struct config the settings were loaded from: it
 * must outlive them.  Arrays are owned by the settings (settings_release).
 */
#ifndef KPERFCI_SETTINGS_H
#define KPERFCI_SETTINGS_H

#include <stddef.h>

#include "lib/buf.h"

struct config;

/* [tree "NAME"]: path and url as written (relative paths resolved by
   trees_conf); at least one of them is set. */
struct settings_tree {
	const char	*name, *url, *path, *branch, *config;
	const char	**fragments;
	size_t		 nfragments;
	int		 fetch_timeout;
};

/* [agent "NAME"], [submitter "NAME"]: a name and its token's sha256. */
struct settings_token {
	const char	*name, *token_sha256;
};

/* [agent "NAME"] power_cycle and its limits (daemon/power.c): argv is
   the command split on white space (owned by the settings, NULL-ended). */
struct settings_power {
	const char	*agent;
	char		**argv;
	int		 margin, max_per_hour, timeout;
};

/* [watch "NAME"] */
struct settings_watch {
	const char	*name, *lore, *list;
	const char	**paths;
	size_t		 npaths;
	long long	 poll, per_day, priority;
	long long	 author_share;	/* one author: per_day / this, up */
	const char	*reply;		/* yes regressions no */
	const char	*search;	/* auto yes no */
};

/* [track "NAME"]: branch is the track's, else its tree's, else "master";
   matrix NULL for the scheduler's default; at/every as written or NULL. */
struct settings_track {
	const char	*name, *tree, *branch, *matrix, *at, *every;
	int		 boots, max_boots, priority, first_parent;
	const char	*reply;		/* yes regressions no */
};

struct settings {
	struct {
		const char	*listen, *data, *db, *schema, *web;
		int		 port, threads, workers, poll;
		long long	 max_body;
	} daemon;
	struct {
		long long	 max_inflight, cache, upload_quota, min_rate;
		int		 max_connections, per_ip_connections, timeout;
		int		 per_prefix_connections, reserved_connections;
		int		 header_timeout, response_timeout;
		int		 submit_burst, submit_per_hour;
	} http;
	struct {
		const char	**allow;	/* lore bases */
		size_t		 nallow;
	} lore;
	struct settings_tree *trees;
	size_t		 ntrees;
	struct {
		/* the tree series are applied to: [build] tree, else the
		   first [tree], else NULL (series rest at fetched) */
		const struct settings_tree *tree;
		const char	*cache;		/* NULL: <data>/builds */
		int		 slots, jobs, timeout;
		long long	 pids_max, mem_max, file_max, output_max;
		long long	 cache_max;
	} build;
	struct {
		struct settings_token *list;	/* [agent "NAME"] */
		size_t		 n;
		int		 lease, max_attempts;
		struct settings_power *power;	/* agents with power_cycle */
		size_t		 npower;
	} agents;
	struct {
		const char	*admin_token_sha256;	/* NULL: none */
		const char	**hosts;
		size_t		 nhosts;
		int		 trust_loopback;
		const char	**proxies;	/* [auth] proxy addresses */
		size_t		 nproxies;
		struct settings_token *submitters;
		size_t		 nsubmitters;
	} auth;
	struct {
		int		 boots, boot_step, max_boots, replacements;
		int		 max_rows;	/* per comparison */
		const char	*matrix;	/* NULL: etc/workloads.conf */
	} sched;
	struct {
		const char	*send;		/* none outbox smtp sendmail */
		const char	*from, *relay, *auth_file, *sendmail;
		const char	*ca_file;	/* NULL: the system's CAs */
		const char	*outbox;	/* NULL: <data>/outbox.mbox */
		const char	*public_url;	/* NULL: http://listen:port/ */
		const char	*reply;		/* submissions' default */
		const char	**cc, **command_from;
		size_t		 ncc, ncommand_from;
		int		 starttls, cc_max, retry;
		int		 thread_poll;	/* s; 0: off */
		long long	 per_day_list, per_day_recipient;
	} mail;
	struct settings_watch *watches;
	size_t		 nwatches;
	struct settings_track *tracks;
	size_t		 ntracks;
	struct {
		const char	*origin;
		char		**submit;	/* argv (owned), NULL: none */
		int		 retries, timeout;
	} kcidb;
};

/*
 * Fills s from cfg (defaults from the key table).  0, or -1 with one line
 * per problem in err; s is then released.
 */
int	settings_load(const struct config *cfg, struct settings *s,
	    struct buf *err);
void	settings_release(struct settings *s);
/* Splits v on white space into a new NULL-ended argv (owned). */
char	**settings_argv(const char *v);
/* settings_lab.c: [kcidb] and [lava "NAME"], with their checks (one line
   per problem in err).  0 or -1. */
int	settings_lab(const struct config *c, struct settings *s,
	    struct buf *err);
void	settings_lab_release(struct settings *s);

const struct settings_tree *settings_tree(const struct settings *,
	    const char *name);
const struct settings_track *settings_track(const struct settings *,
	    const char *name);
/* The power control of agent name, NULL when it has none. */
const struct settings_power *settings_agent_power(const struct settings *,
	    const char *name);
/* The token sha256 of [agent "name"], NULL when there is no such agent. */
const char *settings_agent_token(const struct settings *, const char *name);

#endif
