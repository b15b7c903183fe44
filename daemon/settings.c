/*
 * settings: the one place that reads the parsed configuration by section
 * and key (see settings.h).  It fills the typed struct the rest of the
 * daemon reads, and owns the checks across keys and sections ([track],
 * [watch], [tree], [build]) that run before anything starts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/lore.h"
#include "daemon/config.h"
#include "daemon/settings.h"
#include "lib/xalloc.h"

/* Every value of a CONFIG_LIST key, in order; *n their number. */
static const char **
settings_list(const struct config *c, const char *section, const char *sub,
    const char *key, size_t *n)
{
	const char **v = NULL;
	const char *s;
	size_t i;

	for (i = 0; (s = config_list(c, section, sub, key, i)); i++) {
		v = xrealloc(v, (i + 1) * sizeof(*v));
		v[i] = s;
	}
	*n = i;
	return v;
}

/* Number of [section "NAME"] sections. */
static size_t
settings_nsubs(const struct config *c, const char *section)
{
	size_t n = 0;

	while (config_subsection(c, section, n))
		n++;
	return n;
}

static void
settings_daemon(const struct config *c, struct settings *s)
{
	s->daemon.listen = config_str(c, "daemon", NULL, "listen");
	s->daemon.port = (int)config_int(c, "daemon", NULL, "port");
	s->daemon.data = config_str(c, "daemon", NULL, "data");
	s->daemon.db = config_str(c, "daemon", NULL, "db");
	s->daemon.schema = config_str(c, "daemon", NULL, "schema");
	s->daemon.web = config_str(c, "daemon", NULL, "web");
	s->daemon.threads = (int)config_int(c, "daemon", NULL, "threads");
	s->daemon.workers = (int)config_int(c, "daemon", NULL, "workers");
	s->daemon.max_body = config_int(c, "daemon", NULL, "max_body");
	s->daemon.poll = (int)config_int(c, "daemon", NULL, "poll");

	s->http.max_inflight = config_int(c, "http", NULL, "max_inflight");
	s->http.max_connections = (int)config_int(c, "http", NULL,
	    "max_connections");
	s->http.per_ip_connections = (int)config_int(c, "http", NULL,
	    "per_ip_connections");
	s->http.timeout = (int)config_int(c, "http", NULL, "timeout");
	s->http.min_rate = config_int(c, "http", NULL, "min_rate");
	s->http.per_prefix_connections = (int)config_int(c, "http", NULL,
	    "per_prefix_connections");
	s->http.reserved_connections = (int)config_int(c, "http", NULL,
	    "reserved_connections");
	s->http.header_timeout = (int)config_int(c, "http", NULL,
	    "header_timeout");
	s->http.response_timeout = (int)config_int(c, "http", NULL,
	    "response_timeout");
	s->http.cache = config_int(c, "http", NULL, "cache");
	s->http.submit_burst = (int)config_int(c, "http", NULL,
	    "submit_burst");
	s->http.submit_per_hour = (int)config_int(c, "http", NULL,
	    "submit_per_hour");
	s->http.upload_quota = config_int(c, "http", NULL, "upload_quota");

	s->lore.allow = settings_list(c, "lore", NULL, "allow",
	    &s->lore.nallow);
}

static void
settings_trees(const struct config *c, struct settings *s)
{
	const char *b;

	s->ntrees = settings_nsubs(c, "tree");
	s->trees = xcalloc(s->ntrees + 1, sizeof(*s->trees));
	for (size_t i = 0; i < s->ntrees; i++) {
		struct settings_tree *t = &s->trees[i];

		t->name = config_subsection(c, "tree", i);
		t->url = config_str(c, "tree", t->name, "url");
		t->path = config_str(c, "tree", t->name, "path");
		t->branch = config_str(c, "tree", t->name, "branch");
		t->config = config_str(c, "tree", t->name, "config");
		t->fragments = settings_list(c, "tree", t->name, "fragment",
		    &t->nfragments);
		t->fetch_timeout = (int)config_int(c, "tree", t->name,
		    "fetch_timeout");
	}
	b = config_str(c, "build", NULL, "tree");
	s->build.tree = b ? settings_tree(s, b) : s->ntrees ? &s->trees[0] :
	    NULL;
	s->build.cache = config_str(c, "build", NULL, "cache");
	s->build.slots = (int)config_int(c, "build", NULL, "slots");
	s->build.jobs = (int)config_int(c, "build", NULL, "jobs");
	s->build.timeout = (int)config_int(c, "build", NULL, "timeout");
	s->build.pids_max = config_int(c, "build", NULL, "pids_max");
	s->build.mem_max = config_int(c, "build", NULL, "mem_max");
	s->build.file_max = config_int(c, "build", NULL, "file_max");
	s->build.output_max = config_int(c, "build", NULL, "output_max");
	s->build.cache_max = config_int(c, "build", NULL, "cache_max");
}

static struct settings_token *
settings_tokens(const struct config *c, const char *section, size_t *n)
{
	struct settings_token *v;

	*n = settings_nsubs(c, section);
	v = xcalloc(*n + 1, sizeof(*v));
	for (size_t i = 0; i < *n; i++) {
		v[i].name = config_subsection(c, section, i);
		v[i].token_sha256 = config_str(c, section, v[i].name,
		    "token_sha256");
	}
	return v;
}

/* Splits v on white space into a new NULL-ended argv (no quoting: a
   command that needs it belongs in a script). */
char **
settings_argv(const char *v)
{
	char **argv = xcalloc(strlen(v) / 2 + 2, sizeof(*argv));
	size_t n = 0;

	while (*v) {
		size_t len;

		v += strspn(v, " \t");
		if ((len = strcspn(v, " \t")) == 0)
			break;
		argv[n++] = xstrndup(v, len);
		v += len;
	}
	return argv;
}

static void
settings_power(const struct config *c, struct settings *s)
{
	s->agents.power = xcalloc(s->agents.n + 1, sizeof(*s->agents.power));
	for (size_t i = 0; i < s->agents.n; i++) {
		const char *name = s->agents.list[i].name;
		const char *cmd = config_str(c, "agent", name, "power_cycle");
		struct settings_power *p;

		if (cmd == NULL || cmd[strspn(cmd, " \t")] == '\0')
			continue;
		p = &s->agents.power[s->agents.npower++];
		p->agent = name;
		p->argv = settings_argv(cmd);
		p->margin = (int)config_int(c, "agent", name, "power_margin");
		p->max_per_hour = (int)config_int(c, "agent", name,
		    "power_max_per_hour");
		p->timeout = (int)config_int(c, "agent", name, "power_timeout");
	}
}

static void
settings_access(const struct config *c, struct settings *s)
{
	s->agents.list = settings_tokens(c, "agent", &s->agents.n);
	settings_power(c, s);
	s->agents.lease = (int)config_int(c, "agents", NULL, "lease");
	s->agents.max_attempts = (int)config_int(c, "agents", NULL,
	    "max_attempts");

	s->auth.admin_token_sha256 = config_str(c, "auth", NULL,
	    "admin_token_sha256");
	s->auth.hosts = settings_list(c, "auth", NULL, "host",
	    &s->auth.nhosts);
	s->auth.trust_loopback = config_bool(c, "auth", NULL,
	    "trust_loopback");
	s->auth.proxies = settings_list(c, "auth", NULL, "proxy",
	    &s->auth.nproxies);
	s->auth.submitters = settings_tokens(c, "submitter",
	    &s->auth.nsubmitters);
}

static void
settings_runs(const struct config *c, struct settings *s)
{
	const char *m;

	s->sched.boots = (int)config_int(c, "sched", NULL, "boots");
	s->sched.boot_step = (int)config_int(c, "sched", NULL, "boot_step");
	s->sched.max_boots = (int)config_int(c, "sched", NULL, "max_boots");
	if (s->sched.max_boots < s->sched.boots)
		s->sched.max_boots = s->sched.boots;
	s->sched.replacements = (int)config_int(c, "sched", NULL,
	    "replacements");
	s->sched.max_rows = (int)config_int(c, "sched", NULL, "max_rows");
	m = config_str(c, "sched", NULL, "matrix");
	s->sched.matrix = m && *m ? m : NULL;

	s->nwatches = settings_nsubs(c, "watch");
	s->watches = xcalloc(s->nwatches + 1, sizeof(*s->watches));
	for (size_t i = 0; i < s->nwatches; i++) {
		struct settings_watch *w = &s->watches[i];

		w->name = config_subsection(c, "watch", i);
		w->lore = config_str(c, "watch", w->name, "lore");
		w->list = config_str(c, "watch", w->name, "list");
		w->paths = settings_list(c, "watch", w->name, "path",
		    &w->npaths);
		w->poll = config_int(c, "watch", w->name, "poll");
		w->per_day = config_int(c, "watch", w->name, "per_day");
		w->author_share = config_int(c, "watch", w->name,
		    "author_share");
		w->priority = config_int(c, "watch", w->name, "priority");
		w->reply = config_str(c, "watch", w->name, "reply");
		w->search = config_str(c, "watch", w->name, "search");
	}

	s->ntracks = settings_nsubs(c, "track");
	s->tracks = xcalloc(s->ntracks + 1, sizeof(*s->tracks));
	for (size_t i = 0; i < s->ntracks; i++) {
		struct settings_track *t = &s->tracks[i];
		const struct settings_tree *tree;

		t->name = config_subsection(c, "track", i);
		t->tree = config_str(c, "track", t->name, "tree");
		tree = t->tree ? settings_tree(s, t->tree) : NULL;
		t->branch = config_str(c, "track", t->name, "branch");
		if (!t->branch)
			t->branch = tree ? tree->branch : "master";
		m = config_str(c, "track", t->name, "matrix");
		t->matrix = m && *m ? m : NULL;
		t->at = config_str(c, "track", t->name, "at");
		t->every = config_str(c, "track", t->name, "every");
		t->boots = (int)config_int(c, "track", t->name, "boots");
		t->max_boots = (int)config_int(c, "track", t->name,
		    "max_boots");
		if (t->max_boots < t->boots)
			t->max_boots = t->boots;
		t->priority = (int)config_int(c, "track", t->name, "priority");
		t->reply = config_str(c, "track", t->name, "reply");
		t->first_parent = config_bool(c, "track", t->name,
		    "first_parent");
	}
}

/* ---- checks across keys ---------------------------------------------- */

/* The entry of [section "sub"] key (its last one; sub NULL: [section]),
   else the section's first entry: "file:line" for messages,
   "(configuration)" without. */
static void
settings_where(const struct config *c, const char *section, const char *sub,
    const char *key, struct buf *out)
{
	const struct config_entry *first = NULL, *last = NULL;

	for (size_t i = 0; i < c->n; i++) {
		const struct config_entry *e = &c->entries[i];

		if (strcmp(e->key->section, section) || (!e->sub) != (!sub) ||
		    (sub && strcmp(e->sub, sub)))
			continue;
		if (!first)
			first = e;
		if (key && !strcmp(e->key->key, key))
			last = e;
	}
	if (!last)
		last = first;
	if (last)
		buf_addf(out, "%s:%d", last->file, last->line);
	else
		buf_addstr(out, "(configuration)");
}

/* [track]: its tree a configured [tree], its matrix readable, at or
   every but not both. */
static int
settings_check_tracks(const struct config *c, const struct settings *s,
    struct buf *err)
{
	int rc = 0;

	for (size_t i = 0; i < s->ntracks; i++) {
		const struct settings_track *t = &s->tracks[i];

		if (!t->tree || !settings_tree(s, t->tree)) {
			settings_where(c, "track", t->name, "tree", err);
			if (!t->tree)
				buf_addf(err, ": [track \"%s\"] needs tree = "
				    "NAME of a [tree]\n", t->name);
			else
				buf_addf(err, ": [track \"%s\"]: tree \"%s\" "
				    "is not a configured [tree]\n", t->name,
				    t->tree);
			rc = -1;
		}
		if (t->matrix && access(t->matrix, R_OK) != 0) {
			settings_where(c, "track", t->name, "matrix", err);
			buf_addf(err, ": [track \"%s\"]: matrix %s: %s\n",
			    t->name, t->matrix, strerror(errno));
			rc = -1;
		}
		if (t->at && t->every) {
			settings_where(c, "track", t->name, "every", err);
			buf_addf(err, ": [track \"%s\"]: set at or every, not "
			    "both\n", t->name);
			rc = -1;
		}
	}
	return rc;
}

/* [mail]: the keys of daemon/mail.c. */
static void
settings_mail(const struct config *c, struct settings *s)
{
	const char *v;

	s->mail.send = config_str(c, "mail", NULL, "send");
	s->mail.from = config_str(c, "mail", NULL, "from");
	v = config_str(c, "mail", NULL, "relay");
	s->mail.relay = v && *v ? v : NULL;
	v = config_str(c, "mail", NULL, "auth_file");
	s->mail.auth_file = v && *v ? v : NULL;
	v = config_str(c, "mail", NULL, "ca_file");
	s->mail.ca_file = v && *v ? v : NULL;
	s->mail.sendmail = config_str(c, "mail", NULL, "sendmail");
	v = config_str(c, "mail", NULL, "outbox");
	s->mail.outbox = v && *v ? v : NULL;
	v = config_str(c, "mail", NULL, "public_url");
	s->mail.public_url = v && *v ? v : NULL;
	s->mail.reply = config_str(c, "mail", NULL, "reply");
	s->mail.cc = settings_list(c, "mail", NULL, "cc", &s->mail.ncc);
	s->mail.command_from = settings_list(c, "mail", NULL, "command_from",
	    &s->mail.ncommand_from);
	s->mail.starttls = config_bool(c, "mail", NULL, "starttls");
	s->mail.cc_max = (int)config_int(c, "mail", NULL, "cc_max");
	s->mail.retry = (int)config_int(c, "mail", NULL, "retry");
	s->mail.thread_poll = (int)config_int(c, "mail", NULL,
	    "thread_poll");
	s->mail.per_day_list = config_int(c, "mail", NULL, "per_day_list");
	s->mail.per_day_recipient = config_int(c, "mail", NULL,
	    "per_day_recipient");
}

/* "file:line" of [mail] key, else "(configuration)". */
static void
settings_mail_where(const struct config *c, const char *key, struct buf *out)
{
	const struct config_entry *last = NULL;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->entries[i].key->section, "mail") &&
		    !strcmp(c->entries[i].key->key, key))
			last = &c->entries[i];
	if (last)
		buf_addf(out, "%s:%d", last->file, last->line);
	else
		buf_addstr(out, "(configuration)");
}

/* [mail]: smtp needs a relay, sendmail a command. */
static int
settings_mail_check(const struct config *c, const struct settings *s,
    struct buf *err)
{
	if (!strcmp(s->mail.send, "smtp") && !s->mail.relay) {
		settings_mail_where(c, "send", err);
		buf_addstr(err, ": [mail] send = smtp needs relay = HOST:PORT\n");
		return -1;
	}
	if (!strcmp(s->mail.send, "sendmail") && !strspn(s->mail.sendmail,
	    "/.abcdefghijklmnopqrstuvwxyz")) {
		settings_mail_where(c, "sendmail", err);
		buf_addstr(err, ": [mail] sendmail must name a command\n");
		return -1;
	}
	return 0;
}

/* [watch]: a lore base on the [lore] allowlist, a list, some paths. */
static int
settings_check_watches(const struct config *c, const struct settings *s,
    struct buf *err)
{
	int rc = 0;

	for (size_t i = 0; i < s->nwatches; i++) {
		const struct settings_watch *w = &s->watches[i];
		struct buf why = BUF_INIT(1024);

		if (!w->lore || !*w->lore) {
			settings_where(c, "watch", w->name, NULL, err);
			buf_addf(err, ": [watch \"%s\"] needs lore = URL\n",
			    w->name);
			rc = -1;
		} else if (lore_check_allowed(w->lore, s->lore.allow,
		    s->lore.nallow, &why) < 0) {
			settings_where(c, "watch", w->name, "lore", err);
			buf_addf(err, ": [watch \"%s\"] lore: %s\n", w->name,
			    why.data);
			rc = -1;
		}
		if (!w->list || !*w->list || strchr(w->list, '/')) {
			settings_where(c, "watch", w->name, "list", err);
			buf_addf(err, ": [watch \"%s\"] needs list = NAME (one "
			    "path segment)\n", w->name);
			rc = -1;
		}
		if (!w->npaths) {
			settings_where(c, "watch", w->name, NULL, err);
			buf_addf(err, ": [watch \"%s\"] needs at least one "
			    "path = (mm/, fs/dcache.c, ...)\n", w->name);
			rc = -1;
		}
		buf_release(&why);
	}
	return rc;
}

/* [tree]: a path or a url; [build] tree: a configured [tree].  These
   used to fail the first series' apply stage. */
static int
settings_check_trees(const struct config *c, const struct settings *s,
    struct buf *err)
{
	const char *b = config_str(c, "build", NULL, "tree");
	int rc = 0;

	for (size_t i = 0; i < s->ntrees; i++)
		if (!s->trees[i].path && !s->trees[i].url) {
			buf_addf(err, "[tree \"%s\"] needs path = DIR or "
			    "url = URL\n", s->trees[i].name);
			rc = -1;
		}
	if (b && !s->build.tree) {
		buf_addf(err, "[build] tree = \"%s\" is not a configured "
		    "[tree]%s\n", b, s->ntrees ? "" : " (there is none)");
		rc = -1;
	}
	return rc;
}

/* [http]: the reserved slots and the per-address and per-prefix caps
   fit under max_connections (they used to be halved or ignored
   silently). */
static int
settings_check_http(const struct config *c, const struct settings *s,
    struct buf *err)
{
	const __typeof__(s->http) *h = &s->http;
	int rc = 0;

	if (h->reserved_connections >= h->max_connections) {
		settings_where(c, "http", NULL, "reserved_connections", err);
		buf_addf(err, ": [http] reserved_connections %d must be less "
		    "than max_connections %d (the slots kept for known "
		    "clients)\n", h->reserved_connections, h->max_connections);
		rc = -1;
	}
	if (h->per_ip_connections > h->per_prefix_connections) {
		settings_where(c, "http", NULL, "per_ip_connections", err);
		buf_addf(err, ": [http] per_ip_connections %d is more than "
		    "per_prefix_connections %d (an address is in its "
		    "prefix)\n", h->per_ip_connections,
		    h->per_prefix_connections);
		rc = -1;
	}
	return rc;
}

int
settings_load(const struct config *c, struct settings *s, struct buf *err)
{
	int rc = 0;

	memset(s, 0, sizeof(*s));
	settings_daemon(c, s);
	settings_trees(c, s);
	settings_access(c, s);
	settings_runs(c, s);
	settings_mail(c, s);
	if (settings_mail_check(c, s, err) < 0 ||
	    settings_check_trees(c, s, err) < 0)
		rc = -1;
	if (settings_check_tracks(c, s, err) < 0)
		rc = -1;
	if (settings_check_http(c, s, err) < 0)
		rc = -1;
	if (settings_check_watches(c, s, err) < 0)
		rc = -1;
	if (settings_lab(c, s, err) < 0)
		rc = -1;
	if (rc < 0)
		settings_release(s);
	return rc;
}

void
settings_release(struct settings *s)
{
	settings_lab_release(s);
	free(s->lore.allow);
	for (size_t i = 0; i < s->ntrees; i++)
		free(s->trees[i].fragments);
	free(s->trees);
	free(s->agents.list);
	for (size_t i = 0; i < s->agents.npower; i++) {
		for (char **a = s->agents.power[i].argv; *a; a++)
			free(*a);
		free(s->agents.power[i].argv);
	}
	free(s->agents.power);
	free(s->auth.hosts);
	free(s->auth.proxies);
	free(s->auth.submitters);
	for (size_t i = 0; i < s->nwatches; i++)
		free(s->watches[i].paths);
	free(s->watches);
	free(s->tracks);
	free(s->mail.cc);
	free(s->mail.command_from);
	memset(s, 0, sizeof(*s));
}

const struct settings_tree *
settings_tree(const struct settings *s, const char *name)
{
	for (size_t i = 0; i < s->ntrees; i++)
		if (!strcmp(s->trees[i].name, name))
			return &s->trees[i];
	return NULL;
}

const struct settings_track *
settings_track(const struct settings *s, const char *name)
{
	for (size_t i = 0; i < s->ntracks; i++)
		if (!strcmp(s->tracks[i].name, name))
			return &s->tracks[i];
	return NULL;
}

const char *
settings_agent_token(const struct settings *s, const char *name)
{
	for (size_t i = 0; i < s->agents.n; i++)
		if (!strcmp(s->agents.list[i].name, name))
			return s->agents.list[i].token_sha256;
	return NULL;
}

const struct settings_power *
settings_agent_power(const struct settings *s, const char *name)
{
	for (size_t i = 0; i < s->agents.npower; i++)
		if (!strcmp(s->agents.power[i].agent, name))
			return &s->agents.power[i];
	return NULL;
}
