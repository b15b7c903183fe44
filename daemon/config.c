/*
 * config: the kperfci.conf parser and the one table of known keys (see
 * config.h).  Each area owns one block of rows in config_keys[]; nothing
 * else in the daemon knows the file format.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "daemon/config.h"
#include "lib/ini.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

/* ---- the value checks of the areas' rows ------------------------------
 * Every check of config_keys[] lives here, beside the table, as OpenBSD's
 * parse.y checks its values: the agent, auth, track and mail files read
 * typed settings and never lend config.c a check (nor does config.c
 * include them).  The parsers a reader needs again at run time (a track's
 * at and every, an address in "Name <a@b>", a reply mode) are exported in
 * config.h. */

/* sha256 of CONFIG_AGENT_EXAMPLE_TOKEN, the token etc/agent.conf ships. */
#define CONFIG_EXAMPLE_SHA256 \
    "e2186dbdb1bb4193608605e84f33208765b5693b55edd4f730a719a100eeea6f"

static int
check_token_sha256(const char *v, struct buf *err)
{
	if (!proto_valid_sha256(v)) {
		buf_addstr(err, "token_sha256 must be 64 lowercase hex digits "
		    "(sha256sum of the token)");
		return -1;
	}
	if (!strcmp(v, CONFIG_EXAMPLE_SHA256)) {
		buf_addstr(err, "token_sha256 is the sha256 of \""
		    CONFIG_AGENT_EXAMPLE_TOKEN "\", the example token etc/agent.conf "
		    "ships: give the agent a secret token (head -c 32 "
		    "/dev/urandom | base64) and put its sha256 here");
		return -1;
	}
	return 0;
}

static int
check_proxy(const char *v, struct buf *err)
{
	unsigned char a[16];

	if (inet_pton(AF_INET6, v, a) != 1 && inet_pton(AF_INET, v, a) != 1)
		return buf_addf(err, "proxy \"%s\" is not an IPv4 or IPv6 "
		    "address (give the address the proxy connects from)", v),
		    -1;
	return 0;
}

static int
check_host(const char *v, struct buf *err)
{
	if (!*v || strlen(v) > 253 || strspn(v, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != strlen(v))
		return buf_addf(err, "host \"%s\" is not a DNS name (give the "
		    "name without scheme or port)", v), -1;
	return 0;
}

int
config_parse_at(const char *v)
{
	int h, m;
	char end;

	if (strlen(v) != 5 || sscanf(v, "%2d:%2d%c", &h, &m, &end) != 2 ||
	    !isdigit((unsigned char)v[0]) || v[2] != ':' || h < 0 || h > 23 ||
	    m < 0 || m > 59)
		return -1;
	return h * 60 + m;
}

long
config_parse_every(const char *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || n < 1 || n > 100000 || *end == '\0' ||
	    end[1] != '\0')
		return -1;
	switch (*end) {
	case 'm': return n * 60;
	case 'h': return n * 3600;
	case 'd': return n * 86400;
	}
	return -1;
}

static int
check_at(const char *v, struct buf *err)
{
	if (config_parse_at(v) < 0)
		return buf_addf(err, "at = \"%s\" is not a local time HH:MM",
		    v), -1;
	return 0;
}

static int
check_every(const char *v, struct buf *err)
{
	if (config_parse_every(v) < 0)
		return buf_addf(err, "every = \"%s\" is not a number followed "
		    "by m, h or d (6h)", v), -1;
	return 0;
}

int
config_check_reply(const char *v, struct buf *err)
{
	if (strcmp(v, "yes") && strcmp(v, "regressions") && strcmp(v, "no"))
		return buf_addf(err, "reply \"%s\" is not yes, regressions or "
		    "no", v), -1;
	return 0;
}

static int
check_search(const char *v, struct buf *err)
{
	if (strcmp(v, "auto") && strcmp(v, "yes") && strcmp(v, "no"))
		return buf_addf(err, "search \"%s\" is not auto, yes or no", v),
		    -1;
	return 0;
}

static int
check_send(const char *v, struct buf *err)
{
	if (strcmp(v, "none") && strcmp(v, "outbox") && strcmp(v, "smtp") &&
	    strcmp(v, "sendmail"))
		return buf_addf(err, "send \"%s\" is not none, outbox, smtp or "
		    "sendmail", v), -1;
	return 0;
}

/* The addr-spec of "Name <a@b>" or "a@b" into out; 0 or -1. */
int
config_addr_spec(const char *v, char *out, size_t sz)
{
	const char *lt = strrchr(v, '<'), *gt, *at;
	size_t n;

	if (lt) {
		gt = strchr(lt, '>');
		if (!gt || gt[1])
			return -1;
		v = lt + 1;
		n = (size_t)(gt - v);
	} else
		n = strlen(v);
	if (!n || n >= sz)
		return -1;
	memcpy(out, v, n);
	out[n] = '\0';
	at = strchr(out, '@');
	if (!at || at == out || !at[1] || strchr(at + 1, '@'))
		return -1;
	for (const char *p = out; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f ||
		    strchr("<>()[],;:\\\"", *p))
			return -1;
	return 0;
}

static int
check_from(const char *v, struct buf *err)
{
	char a[256];

	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < 0x20)
			return buf_addstr(err, "from has a control byte"), -1;
	if (config_addr_spec(v, a, sizeof(a)) < 0)
		return buf_addf(err, "from \"%s\" is not an address (\"Name "
		    "<user@host>\")", v), -1;
	return 0;
}

static int
check_relay(const char *v, struct buf *err)
{
	const char *c = strrchr(v, ':');
	char *end;
	long p;

	if (!*v)
		return 0;
	if (!c || c == v)
		return buf_addf(err, "relay \"%s\" is not HOST:PORT", v), -1;
	p = strtol(c + 1, &end, 10);
	if (*end || p < 1 || p > 65535)
		return buf_addf(err, "relay \"%s\": port not in 1..65535", v),
		    -1;
	return 0;
}

static int
check_public_url(const char *v, struct buf *err)
{
	if (*v && strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
		return buf_addf(err, "public_url \"%s\" is not an http(s) URL",
		    v), -1;
	return 0;
}

static int
check_port(const char *v, struct buf *err)
{
	long p = strtol(v, NULL, 10);

	if (p < 0 || p > 65535)
		return buf_addf(err, "port %s is not in 0..65535", v), -1;
	return 0;
}

/* A KCIDB origin: [a-z0-9_]+ (kcidb-io's pattern). */
static int
kcidb_check_origin(const char *v, struct buf *err)
{
	if (*v == '\0' || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
	    strlen(v))
		return buf_addstr(err, "a KCIDB origin is lower-case letters, "
		    "digits and '_'"), -1;
	return 0;
}

static int
check_positive(const char *v, struct buf *err)
{
	if (strtoll(v, NULL, 10) < 1)
		return buf_addf(err, "%s must be at least 1", v), -1;
	return 0;
}

/* A comparison's rows: an int, and a page of a million rows is already
   far past what a matrix makes. */
static int
check_max_rows(const char *v, struct buf *err)
{
	long long n = strtoll(v, NULL, 10);

	if (n < 1 || n > 1000000)
		return buf_addf(err, "max_rows %s is not in 1..1000000", v), -1;
	return 0;
}

/* Attempt numbers are ints in the store and bounded in lib/proto.h. */
static int
check_attempts(const char *v, struct buf *err)
{
	long long n = strtoll(v, NULL, 10);

	if (n < 1 || n > 100)
		return buf_addf(err, "max_attempts %s is not in 1..100", v), -1;
	return 0;
}

static int
check_listen(const char *v, struct buf *err)
{
	unsigned char addr[16];

	if (inet_pton(AF_INET, v, addr) != 1 &&
	    inet_pton(AF_INET6, v, addr) != 1)
		return buf_addf(err, "listen address \"%s\" is not an IPv4 or "
		    "IPv6 address", v), -1;
	return 0;
}

static int
check_http_url(const char *v, struct buf *err)
{
	if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
		return buf_addf(err, "\"%s\" is not an http(s) URL", v), -1;
	return 0;
}

const struct config_key config_keys[] = {
	/* ---- [daemon] (daemon core) ---- */
	{ "daemon", "listen", CONFIG_STR, "127.0.0.1", check_listen, 0 },
	{ "daemon", "port", CONFIG_INT, "8080", check_port, 0 },
	/* Relative paths are taken from the directory kperfcid starts in. */
	{ "daemon", "data", CONFIG_STR, "var", NULL, 0 },
	/* Empty: <data>/kperfci.db */
	{ "daemon", "db", CONFIG_STR, "", NULL, 0 },
	/* Empty: KPERFCI_SRCDIR/schema, then PREFIX/share/kperfci/schema */
	{ "daemon", "schema", CONFIG_STR, "", NULL, 0 },
	/* Empty: KPERFCI_SRCDIR/web */
	{ "daemon", "web", CONFIG_STR, "", NULL, 0 },
	{ "daemon", "threads", CONFIG_INT, "4", check_positive, 0 },
	{ "daemon", "workers", CONFIG_INT, "2", check_positive, 0 },
	{ "daemon", "max_body", CONFIG_SIZE, "1M", check_positive, 0 },
	/* Seconds between scans for work the pipeline may have missed. */
	{ "daemon", "poll", CONFIG_INT, "5", check_positive, 0 },

	/* ---- [http] (daemon/http.c, daemon/limits.c) ---- */
	/* Request body bytes being received at once, over all clients
	   (bodies past 64 KiB are streamed to <data>/tmp, not memory). */
	{ "http", "max_inflight", CONFIG_SIZE, "256M", check_positive, 0 },
	/* Open connections, in all and from one address; seconds a
	   connection may sit idle before it is closed. */
	{ "http", "max_connections", CONFIG_INT, "1000", check_positive, 0 },
	{ "http", "per_ip_connections", CONFIG_INT, "32", check_positive, 0 },
	{ "http", "timeout", CONFIG_INT, "30", check_positive, 0 },
	{ "http", "min_rate", CONFIG_SIZE, "16K", check_positive, 0 },
	{ "http", "per_prefix_connections", CONFIG_INT, "64", check_positive, 0 },
	{ "http", "reserved_connections", CONFIG_INT, "64", check_positive, 0 },
	{ "http", "header_timeout", CONFIG_INT, "10", check_positive, 0 },
	/* Seconds a client may take to read an answer once it is queued
	   (a reader taking a byte now and then holds its slot no longer). */
	{ "http", "response_timeout", CONFIG_INT, "300", check_positive, 0 },
	/* Bytes of GET responses kept until the store changes (0: off). */
	{ "http", "cache", CONFIG_SIZE, "64M", NULL, 0 },
	/* Submissions (POST /api/v1/series, the form) per submitter: a
	   burst, then so many per hour; the bytes one submitter's series
	   may keep (their mail, and their runs' results, console logs and
	   patched builds: daemon/limits.h). */
	{ "http", "submit_burst", CONFIG_INT, "20", check_positive, 0 },
	{ "http", "submit_per_hour", CONFIG_INT, "60", check_positive, 0 },
	{ "http", "upload_quota", CONFIG_SIZE, "2G", check_positive, 0 },

	/* ---- [lore] (daemon core) ---- */
	/* The lore client's timeouts and size cap are the LORE_* constants
	   in lore.h; only the allowlist is configuration. */
	{ "lore", "allow", CONFIG_LIST, NULL, check_http_url, 0 },

	/* ---- [watch "NAME"] (daemon/watch.c: watched lists) ---- */
	/* A lore base on the [lore] allowlist and a list there; its
	   new.atom is polled every poll seconds.  A series is submitted
	   when it changes one of the paths (a name ending in '/' is a
	   directory), at most per_day a day, with this priority (lower
	   runs first; interactive submissions carry 0). */
	{ "watch", "lore", CONFIG_STR, NULL, check_http_url, 1 },
	{ "watch", "list", CONFIG_STR, NULL, NULL, 1 },
	{ "watch", "path", CONFIG_LIST, NULL, NULL, 1 },
	{ "watch", "poll", CONFIG_INT, "300", check_positive, 1 },
	{ "watch", "per_day", CONFIG_INT, "20", check_positive, 1 },
	/* One author may have at most per_day / author_share of them,
	   rounded up (3: a third); 1 turns the shares off. */
	{ "watch", "author_share", CONFIG_INT, "3", check_positive, 1 },
	{ "watch", "priority", CONFIG_INT, "5", NULL, 1 },
	/* Which series of this watch get a reply in their thread ([mail]):
	   yes, regressions (only a regression's verdict), no; and whether
	   to find series with the lore's search (every message since the
	   last poll touching a watched path) rather than the Atom feed,
	   which only shows the newest entries (auto: search, and the feed
	   where the lore answers no search). */
	{ "watch", "reply", CONFIG_STR, "no", config_check_reply, 1 },
	{ "watch", "search", CONFIG_STR, "auto", check_search, 1 },

	/* ---- [tree "NAME"], [build] (trees and builds) ---- */
	/* A git URL fetched with the git CLI into path (default
	   <data>/trees/NAME.git), or just a local repository path. */
	{ "tree", "url", CONFIG_STR, NULL, NULL, 1 },
	{ "tree", "path", CONFIG_STR, NULL, NULL, 1 },
	{ "tree", "branch", CONFIG_STR, "master", NULL, 1 },
	/* Base kernel config: a make target (tinyconfig, defconfig) or a
	   file; fragments merged over it, relative to the share directory. */
	{ "tree", "config", CONFIG_STR, "tinyconfig", NULL, 1 },
	{ "tree", "fragment", CONFIG_LIST, NULL, NULL, 1 },
	{ "tree", "fetch_timeout", CONFIG_INT, "3600", check_positive, 1 },
	/* The tree series are applied to (default: the first [tree]). */
	{ "build", "tree", CONFIG_STR, NULL, NULL, 0 },
	/* Concurrent builds, make -jN each, wall-clock limit in seconds. */
	{ "build", "slots", CONFIG_INT, "1", check_positive, 0 },
	{ "build", "jobs", CONFIG_INT, "2", check_positive, 0 },
	{ "build", "timeout", CONFIG_INT, "7200", check_positive, 0 },
	/* Build cache (default <data>/builds). */
	{ "build", "cache", CONFIG_STR, NULL, NULL, 0 },
	/* What one sandboxed build may spend (build.h BUILD_DEFAULT_*):
	   tasks of the build user, address space per process, one file,
	   the whole build directory. */
	{ "build", "pids_max", CONFIG_INT, "512", check_positive, 0 },
	{ "build", "mem_max", CONFIG_SIZE, "8G", check_positive, 0 },
	{ "build", "file_max", CONFIG_SIZE, "4G", check_positive, 0 },
	{ "build", "output_max", CONFIG_SIZE, "32G", check_positive, 0 },
	/* Size budget of the build cache, collected after each build
	   (build.h build_cache_gc); 0: no budget. */
	{ "build", "cache_max", CONFIG_SIZE, "100G", NULL, 0 },

	/* ---- [agent "NAME"], [agents] (agents) ---- */
	/* sha256sum of the agent's bearer token (the token itself is never
	   stored); an agent without a section cannot register. */
	{ "agent", "token_sha256", CONFIG_STR, NULL, check_token_sha256, 1 },
	/* Power control of a machine that can hang (a kexec agent): an argv,
	   split on white space, never given to a shell ("ipmitool -H bmc1
	   -U ci -f /etc/kperfci/bmc.pw chassis power cycle").  Run by the
	   lease timer (daemon/power.c) when the agent misses a lease by
	   power_margin seconds, at most power_max_per_hour times an hour,
	   killed after power_timeout seconds. */
	{ "agent", "power_cycle", CONFIG_STR, NULL, NULL, 1 },
	{ "agent", "power_margin", CONFIG_INT, "120", check_positive, 1 },
	{ "agent", "power_max_per_hour", CONFIG_INT, "2", check_positive, 1 },
	{ "agent", "power_timeout", CONFIG_INT, "60", check_positive, 1 },
	/* Seconds a lease lasts without a heartbeat. */
	{ "agents", "lease", CONFIG_INT, "600", check_positive, 0 },
	/* Expired leases before a job fails instead of going back to the queue. */
	{ "agents", "max_attempts", CONFIG_INT, "3", check_attempts, 0 },

	/* ---- [auth], [submitter "NAME"] (auth.c; doc/security.md) ---- */
	/* sha256sum of the admin token, needed for POST /api/v1/kernels and
	   /api/v1/jobs and for managing others' series.  Unset: loopback
	   requests are admin and nothing else is. */
	{ "auth", "admin_token_sha256", CONFIG_STR, NULL,
	    check_token_sha256, 0 },
	/* DNS names this server answers to besides addresses and localhost
	   (a Host not listed is refused: DNS rebinding). */
	{ "auth", "host", CONFIG_LIST, NULL, check_host, 0 },
	/* Loopback clients submit without a token (off behind a reverse
	   proxy on this host that does not send X-Forwarded-For). */
	{ "auth", "trust_loopback", CONFIG_BOOL, "true", NULL, 0 },
	/* Addresses of reverse proxies in front of this server: a request
	   from one is throttled and limited as the last X-Forwarded-For hop
	   (the address the proxy saw), not as the proxy. */
	{ "auth", "proxy", CONFIG_LIST, NULL, check_proxy, 0 },
	/* sha256sum of a submitter's token: needed to submit from anything
	   but loopback.  "local" and "admin" are reserved names. */
	{ "submitter", "token_sha256", CONFIG_STR, NULL,
	    check_token_sha256, 1 },

	/* ---- [sched] (scheduler) ---- */
	/* Boots per side for a comparison's first look, extra boots per side
	   per further look while a metric is inconclusive, and the most per
	   side (stats.h STATS_DEFAULT_BOOTS, _BOOT_STEP, _MAX_BOOTS). */
	{ "sched", "boots", CONFIG_INT, "3", check_positive, 0 },
	{ "sched", "boot_step", CONFIG_INT, "3", check_positive, 0 },
	{ "sched", "max_boots", CONFIG_INT, "12", check_positive, 0 },
	/* Jobs failed for infrastructure reasons replaced per comparison. */
	{ "sched", "replacements", CONFIG_INT, "8", NULL, 0 },
	/* The default workload matrix (empty: etc/workloads.conf). */
	{ "sched", "matrix", CONFIG_STR, "", NULL, 0 },
	/* Distinct (workload, params, metric) rows one comparison may hold
	   over all its boots' uploads (the shipped matrices and suites make
	   tens): an upload that would pass it is refused whole (400), so a
	   comparison's statistics and page stay bounded and cacheable. */
	{ "sched", "max_rows", CONFIG_INT, "1024", check_max_rows, 0 },

	/* ---- [track "NAME"] (nightly runs: track.h) ---- */
	{ "track", "tree", CONFIG_STR, NULL, NULL, 1 },
	{ "track", "branch", CONFIG_STR, NULL, NULL, 1 },
	{ "track", "at", CONFIG_STR, NULL, check_at, 1 },
	{ "track", "every", CONFIG_STR, NULL, check_every, 1 },
	{ "track", "matrix", CONFIG_STR, "", NULL, 1 },
	{ "track", "boots", CONFIG_INT, "3", check_positive, 1 },
	{ "track", "max_boots", CONFIG_INT, "9", check_positive, 1 },
	{ "track", "priority", CONFIG_INT, "-100", NULL, 1 },
	{ "track", "first_parent", CONFIG_BOOL, "true", NULL, 1 },
	/* A found regression mailed to the commit's author in its Link:
	   thread ([mail]): yes or regressions (the same here), or no. */
	{ "track", "reply", CONFIG_STR, "no", config_check_reply, 1 },

	/* ---- [mail] (daemon/mail.c: replies in the thread) ---- */
	/* How mail leaves: none (off), outbox (an mbox file, for trying it
	   out), smtp (relay = host:port, STARTTLS unless starttls = false,
	   AUTH "user:password" read from auth_file) or sendmail (a
	   sendmail-compatible command, split on blanks, run without a
	   shell; -f FROM -- RCPT... is appended, the message on stdin). */
	{ "mail", "send", CONFIG_STR, "none", check_send, 0 },
	{ "mail", "from", CONFIG_STR, "kperfci <kperfci@localhost>",
	    check_from, 0 },
	{ "mail", "relay", CONFIG_STR, "", check_relay, 0 },
	{ "mail", "starttls", CONFIG_BOOL, "true", NULL, 0 },
	{ "mail", "auth_file", CONFIG_STR, "", NULL, 0 },
	/* The CAs (PEM) the relay's certificate is verified by; empty: the
	   system's.  The certificate and the relay's name are always
	   verified: there is no key to turn that off. */
	{ "mail", "ca_file", CONFIG_STR, "", NULL, 0 },
	{ "mail", "sendmail", CONFIG_STR, "/usr/sbin/sendmail -oi", NULL, 0 },
	/* Empty: <data>/outbox.mbox */
	{ "mail", "outbox", CONFIG_STR, "", NULL, 0 },
	/* The absolute base of links in mail (empty: http://listen:port/). */
	{ "mail", "public_url", CONFIG_STR, "", check_public_url, 0 },
	/* A submission's reply when it does not say (POST ?reply=). */
	{ "mail", "reply", CONFIG_STR, "no", config_check_reply, 0 },
	/* Who is Cc'd: the thread's own To and Cc, only those matching a cc
	   entry (an address or @domain) when any is given, at most cc_max.
	   Nobody outside the thread's From/To/Cc is ever mailed. */
	{ "mail", "cc", CONFIG_LIST, NULL, NULL, 0 },
	{ "mail", "cc_max", CONFIG_INT, "8", check_positive, 0 },
	/* Mails a day (results, regressions, answers to commands) to one
	   list and to one address, the list's own address among them; the
	   rest is not sent ("skipped", with the cap as the reason). */
	{ "mail", "per_day_list", CONFIG_INT, "50", check_positive, 0 },
	{ "mail", "per_day_recipient", CONFIG_INT, "10", check_positive, 0 },
	/* Seconds before the first retry of a relay that is down (doubling,
	   at most six hours). */
	{ "mail", "retry", CONFIG_INT, "60", check_positive, 0 },
	/* Seconds between reads of the threads of series submitted by lore
	   URL, for "#kperfci" commands (mail_threads.c); 0: never.  Only
	   while mail is sent (send is not none). */
	{ "mail", "thread_poll", CONFIG_INT, "300", NULL, 0 },
	/* Who may command by reply (#kperfci test ...): "author" (the
	   series' author), addresses, @domains.  Mail is not authenticated:
	   doc/mail.md. */
	{ "mail", "command_from", CONFIG_LIST, NULL, NULL, 0 },

	/* ---- [kcidb] (daemon/kcidb.c: results in KCIDB I/O form) ---- */
	/* The origin of every id ([a-z0-9_]+), and a command handed each new
	   export once, the JSON on stdin: an argv split on white space, run
	   without a shell ("kcidb-submit -p PROJECT -t TOPIC"); a non-zero
	   exit is retried with backoff, retries times in all, each killed
	   after timeout seconds.  Empty: exports are only served
	   (GET /api/v1/kcidb). */
	{ "kcidb", "origin", CONFIG_STR, "kperfci", kcidb_check_origin, 0 },
	{ "kcidb", "submit", CONFIG_STR, "", NULL, 0 },
	{ "kcidb", "retries", CONFIG_INT, "8", check_positive, 0 },
	{ "kcidb", "timeout", CONFIG_INT, "300", check_positive, 0 },
};
const size_t config_nkeys = sizeof(config_keys) / sizeof(config_keys[0]);

void
config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
}

void
config_release(struct config *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->entries[i].sub);
		free(c->entries[i].value);
		free(c->entries[i].file);
	}
	for (i = 0; i < c->nsubs; i++)
		free(c->subs[i]);
	free(c->entries);
	free(c->subs);
	config_init(c);
}

static int
config_section_known(const char *section, int *sub)
{
	size_t i;

	for (i = 0; i < config_nkeys; i++)
		if (strcmp(config_keys[i].section, section) == 0) {
			*sub = config_keys[i].sub;
			return 1;
		}
	return 0;
}

static const struct config_key *
config_find_key(const char *section, const char *key)
{
	size_t i;

	for (i = 0; i < config_nkeys; i++)
		if (strcmp(config_keys[i].section, section) == 0 &&
		    strcmp(config_keys[i].key, key) == 0)
			return &config_keys[i];
	return NULL;
}

static int
config_parse_size(const char *v, long long *out)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || n < 0)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K': n <<= 10; end++; break;
	case 'M': n <<= 20; end++; break;
	case 'G': n <<= 30; end++; break;
	}
	if (*end == 'i' || *end == 'B')
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end)
		return -1;
	*out = n;
	return 0;
}

static int
config_parse_bool(const char *v)
{
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "on") || !strcmp(v, "1"))
		return 1;
	if (!strcasecmp(v, "false") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "off") || !strcmp(v, "0"))
		return 0;
	return -1;
}

/* 0 when v is a valid value of k's type, else -1 with a sentence. */
static int
config_check_value(const struct config_key *k, const char *v, struct buf *err)
{
	long long n;
	char *end;

	switch (k->type) {
	case CONFIG_INT:
		errno = 0;
		n = strtoll(v, &end, 10);
		(void)n;
		if (errno || end == v || *end)
			return buf_addf(err, "%s must be an integer, not \"%s\"",
			    k->key, v), -1;
		break;
	case CONFIG_SIZE:
		if (config_parse_size(v, &n) < 0)
			return buf_addf(err, "%s must be a size like 512K, 64M "
			    "or 1G, not \"%s\"", k->key, v), -1;
		break;
	case CONFIG_BOOL:
		if (config_parse_bool(v) < 0)
			return buf_addf(err, "%s must be true or false, not "
			    "\"%s\"", k->key, v), -1;
		break;
	default:
		break;
	}
	return k->check ? k->check(v, err) : 0;
}

static void
config_add_sub(struct config *c, const char *section, const char *sub)
{
	size_t i, ls = strlen(section);
	char *pair;

	for (i = 0; i < c->nsubs; i++)
		if (!strcmp(c->subs[i], section) &&
		    !strcmp(c->subs[i] + ls + 1, sub))
			return;
	pair = xmalloc(ls + strlen(sub) + 2);
	memcpy(pair, section, ls + 1);
	strcpy(pair + ls + 1, sub);
	c->subs = xrealloc(c->subs, (c->nsubs + 1) * sizeof(*c->subs));
	c->subs[c->nsubs++] = pair;
}

/* The longest subsection name ([tree "NAME"]) kept. */
#define CONFIG_MAX_SUB	127

/* lib/ini.h callbacks: the table's checks on what the tokenizer read. */
struct config_ctx {
	struct config	*c;
	struct buf	*err;
	struct buf	 why;
};

__attribute__((format(printf, 3, 4)))
static int
config_err(struct config_ctx *x, const struct ini_item *it,
    const char *fmt, ...)
{
	va_list ap;

	buf_addf(x->err, "%s:%d: ", it->file, it->line);
	va_start(ap, fmt);
	buf_vaddf(x->err, fmt, ap);
	va_end(ap);
	buf_addch(x->err, '\n');
	return -1;
}

static void
config_ini_error(void *ctx, const char *sentence)
{
	struct config_ctx *x = ctx;

	buf_addf(x->err, "%s\n", sentence);
}

static int
config_ini_section(void *ctx, const struct ini_item *it)
{
	struct config_ctx *x = ctx;
	const char *s = it->section;
	int wantsub;

	if (!config_section_known(s, &wantsub))
		return config_err(x, it, "unknown section [%s]", s);
	if (wantsub && !it->sub)
		return config_err(x, it, "section [%s] needs a name: "
		    "[%s \"NAME\"]", s, s);
	if (!wantsub && it->sub)
		return config_err(x, it, "section [%s] takes no name", s);
	if (it->sub && strlen(it->sub) > CONFIG_MAX_SUB)
		return config_err(x, it, "bad subsection name in [%s \"%.32s"
		    "...\"]: longer than %d bytes", s, it->sub,
		    CONFIG_MAX_SUB);
	if (it->sub)
		config_add_sub(x->c, s, it->sub);
	return 0;
}

static int
config_ini_key(void *ctx, const struct ini_item *it)
{
	struct config_ctx *x = ctx;
	struct config *c = x->c;
	const struct config_key *k = config_find_key(it->section, it->key);
	struct config_entry *e;

	if (!k)
		return config_err(x, it, "unknown key \"%s\" in [%s]", it->key,
		    it->section);
	buf_reset(&x->why);
	if (config_check_value(k, it->value, &x->why) < 0)
		return config_err(x, it, "%s", x->why.data);
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 32;
		c->entries = xrealloc(c->entries, c->cap * sizeof(*c->entries));
	}
	e = &c->entries[c->n++];
	e->key = k;
	e->sub = it->sub ? xstrdup(it->sub) : NULL;
	e->value = xstrdup(it->value);
	e->file = xstrdup(it->file);
	e->line = it->line;
	return 0;
}

/* Every bad line is reported, not only the first. */
static int
config_parse_len(struct config *c, const char *name, const char *text,
    size_t len, struct buf *err)
{
	static const struct ini_ops ops = {
		config_ini_section, config_ini_key, config_ini_error, 0,
	};
	struct config_ctx x = { c, err, BUF_INIT(512) };
	int rc;

	rc = ini_parse(&ops, &x, name, text, len);
	buf_release(&x.why);
	return rc;
}

int
config_parse(struct config *c, const char *name, const char *text,
    struct buf *err)
{
	return config_parse_len(c, name, text, strlen(text), err);
}

int
config_load(struct config *c, const char *path, struct buf *err)
{
	struct buf text = BUF_INIT(1 << 20);
	int rc;

	if (buf_read_file(&text, path) < 0) {
		buf_addf(err, "%s: %s\n", path, text.overflow ?
		    "larger than 1 MiB" : strerror(errno));
		buf_release(&text);
		return -1;
	}
	rc = config_parse_len(c, path, text.data ? text.data : "", text.len,
	    err);
	buf_release(&text);
	return rc;
}

int
config_load_default(struct config *c, struct buf *err)
{
	return config_parse(c, "(embedded etc/kperfci.conf)",
	    config_default_text, err);
}

static const struct config_key *
config_key_or_die(const char *section, const char *key)
{
	const struct config_key *k = config_find_key(section, key);

	if (!k)
		fatalx("config: no key \"%s\" in [%s] in the table", key,
		    section);
	return k;
}

static int
config_sub_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

const char *
config_str(const struct config *c, const char *section, const char *sub,
    const char *key)
{
	const struct config_key *k = config_key_or_die(section, key);
	size_t i;

	for (i = c->n; i-- > 0;)
		if (c->entries[i].key == k &&
		    config_sub_eq(c->entries[i].sub, sub))
			return c->entries[i].value;
	return k->def;
}

long long
config_int(const struct config *c, const char *section, const char *sub,
    const char *key)
{
	const char *v = config_str(c, section, sub, key);
	long long n = 0;

	if (!v)
		return 0;
	if (config_key_or_die(section, key)->type == CONFIG_SIZE) {
		if (config_parse_size(v, &n) < 0)
			fatalx("config: bad default for %s.%s", section, key);
		return n;
	}
	return strtoll(v, NULL, 10);
}

int
config_bool(const struct config *c, const char *section, const char *sub,
    const char *key)
{
	const char *v = config_str(c, section, sub, key);

	return v ? config_parse_bool(v) == 1 : 0;
}

const char *
config_list(const struct config *c, const char *section, const char *sub,
    const char *key, size_t idx)
{
	const struct config_key *k = config_key_or_die(section, key);
	size_t i, seen = 0;

	for (i = 0; i < c->n; i++)
		if (c->entries[i].key == k &&
		    config_sub_eq(c->entries[i].sub, sub) && seen++ == idx)
			return c->entries[i].value;
	return NULL;
}

const char *
config_subsection(const struct config *c, const char *section, size_t idx)
{
	size_t i, seen = 0;

	for (i = 0; i < c->nsubs; i++)
		if (!strcmp(c->subs[i], section) && seen++ == idx)
			return c->subs[i] + strlen(section) + 1;
	return NULL;
}
