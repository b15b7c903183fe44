/*
 * t-settings: the typed settings (daemon/settings.c).  The embedded
 * etc/kperfci.conf gives the values documented there and in config.c's key
 * table; a file layered over it overrides them; checks across keys
 * ([build] tree, [tree] path/url, [track], [watch]) refuse a configuration
 * with a message naming the key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"
#include "daemon/settings.h"
#include "tests/unit/tap.h"

static void
test_defaults(void)
{
	struct buf err = BUF_INIT(0);
	struct config c;
	struct settings s;

	config_init(&c);
	ok(config_load_default(&c, &err) == 0, "embedded config parses");
	is_int(settings_load(&c, &s, &err), 0, "embedded config loads (%s)",
	    err.data ? err.data : "");
	is_str(s.daemon.listen, "127.0.0.1", "[daemon] listen");
	is_int(s.daemon.port, 8080, "[daemon] port");
	is_str(s.daemon.data, "var", "[daemon] data");
	is_int(s.daemon.threads, 4, "[daemon] threads");
	is_int(s.daemon.workers, 2, "[daemon] workers");
	is_int(s.daemon.max_body, 1 << 20, "[daemon] max_body = 1M");
	is_int(s.daemon.poll, 5, "[daemon] poll (table default)");
	is_int(s.http.max_inflight, 256LL << 20, "[http] max_inflight");
	is_int(s.http.max_connections, 1000, "[http] max_connections");
	is_int(s.http.per_ip_connections, 32, "[http] per_ip_connections");
	is_int(s.http.timeout, 30, "[http] timeout");
	is_int(s.http.cache, 64LL << 20, "[http] cache");
	is_int(s.http.submit_burst, 20, "[http] submit_burst");
	is_int(s.http.submit_per_hour, 60, "[http] submit_per_hour");
	is_int(s.http.upload_quota, 2048LL << 20, "[http] upload_quota");
	is_int(s.lore.nallow, 1, "one lore base");
	if (s.lore.nallow == 1)
		is_str(s.lore.allow[0], "https://lore.kernel.org/",
		    "[lore] allow");
	is_int(s.ntrees, 1, "one tree");
	ok(s.build.tree == &s.trees[0], "the build tree is the first tree");
	if (s.ntrees == 1) {
		is_str(s.trees[0].name, "linux-6.12", "[tree] name");
		is_str(s.trees[0].path, "var/trees/linux-6.12", "[tree] path");
		ok(s.trees[0].url == NULL, "no url");
		is_str(s.trees[0].branch, "master", "[tree] branch");
		is_str(s.trees[0].config, "tinyconfig", "[tree] config");
		is_int(s.trees[0].nfragments, 2, "two fragments");
		if (s.trees[0].nfragments == 2)
			is_str(s.trees[0].fragments[1],
			    "etc/kconfig/qemu.config", "fragments in order");
		is_int(s.trees[0].fetch_timeout, 3600, "fetch_timeout");
	}
	is_int(s.build.slots, 1, "[build] slots");
	is_int(s.build.jobs, 2, "[build] jobs");
	is_int(s.build.timeout, 7200, "[build] timeout");
	ok(s.build.cache == NULL, "[build] cache unset");
	is_int(s.build.pids_max, 512, "[build] pids_max");
	is_int(s.build.mem_max, 8LL << 30, "[build] mem_max");
	is_int(s.build.file_max, 4LL << 30, "[build] file_max");
	is_int(s.build.output_max, 32LL << 30, "[build] output_max");
	is_int(s.build.cache_max, 100LL << 30, "[build] cache_max");
	is_int(s.agents.n, 0, "no agents");
	is_int(s.agents.lease, 600, "[agents] lease");
	is_int(s.agents.max_attempts, 3, "[agents] max_attempts");
	ok(s.auth.admin_token_sha256 == NULL, "no admin token");
	is_int(s.auth.trust_loopback, 1, "[auth] trust_loopback");
	is_int(s.auth.nhosts + s.auth.nsubmitters, 0, "no hosts, submitters");
	is_int(s.sched.boots, 3, "[sched] boots");
	is_int(s.sched.boot_step, 3, "[sched] boot_step");
	is_int(s.sched.max_boots, 12, "[sched] max_boots");
	is_int(s.sched.replacements, 8, "[sched] replacements");
	ok(s.sched.matrix == NULL, "[sched] matrix: the default");
	is_int(s.nwatches + s.ntracks, 0, "no watches, no tracks");
	settings_release(&s);
	config_release(&c);
	buf_release(&err);
}

static void
test_layered(void)
{
	struct buf err = BUF_INIT(0);
	struct config c;
	struct settings s;
	const struct settings_track *t;

	config_init(&c);
	ok(config_load_default(&c, &err) == 0 &&
	    config_parse(&c, "site.conf", "[daemon]\nport = 9090\n"
	    "workers = 5\n[http]\ncache = 0\n[lore]\nallow = http://pi/\n"
	    "[tree \"b\"]\nurl = https://git.example/b.git\nbranch = next\n"
	    "[build]\ntree = b\nslots = 3\ncache = /c\n"
	    "[agent \"q1\"]\ntoken_sha256 = "
	    "0000000000000000000000000000000000000000000000000000000000000001\n"
	    "[agents]\nlease = 60\n[auth]\nhost = ci.example.org\n"
	    "trust_loopback = no\n[sched]\nboots = 6\nmax_boots = 4\n"
	    "[track \"n\"]\ntree = b\nevery = 6h\n"
	    "[watch \"mm\"]\nlore = http://pi/\nlist = linux-mm\n"
	    "path = mm/\npath = fs/dcache.c\n", &err) == 0,
	    "a file layered over the default (%s)", err.data ? err.data : "");
	is_int(settings_load(&c, &s, &err), 0, "loads (%s)",
	    err.data ? err.data : "");
	is_int(s.daemon.port, 9090, "port overridden");
	is_int(s.daemon.workers, 5, "workers overridden");
	is_int(s.daemon.threads, 4, "threads kept");
	is_int(s.http.cache, 0, "http cache off");
	is_int(s.lore.nallow, 2, "allow lines add up");
	is_int(s.ntrees, 2, "two trees");
	ok(s.build.tree && !strcmp(s.build.tree->name, "b"),
	    "[build] tree picks b");
	ok(s.build.tree && s.build.tree->url && !s.build.tree->path,
	    "b has a url and no path");
	is_int(s.build.slots, 3, "slots overridden");
	is_str(s.build.cache, "/c", "build cache set");
	is_int(s.build.jobs, 2, "jobs kept");
	is_int(s.agents.n, 1, "one agent");
	ok(settings_agent_token(&s, "q1") != NULL, "q1's token");
	ok(settings_agent_token(&s, "q2") == NULL, "no q2");
	is_int(s.agents.lease, 60, "lease overridden");
	is_int(s.auth.nhosts, 1, "one host");
	is_int(s.auth.trust_loopback, 0, "trust_loopback = no");
	is_int(s.sched.boots, 6, "sched boots");
	is_int(s.sched.max_boots, 6, "max_boots below boots is raised");
	t = settings_track(&s, "n");
	ok(t != NULL, "track n");
	if (t) {
		is_str(t->branch, "next", "a track's branch is its tree's");
		is_str(t->every, "6h", "every");
		ok(t->at == NULL && t->matrix == NULL, "no at, no matrix");
		is_int(t->priority, -100, "track priority default");
	}
	is_int(s.nwatches, 1, "one watch");
	if (s.nwatches == 1) {
		is_int(s.watches[0].npaths, 2, "two paths");
		is_int(s.watches[0].poll, 300, "watch poll default");
	}
	settings_release(&s);
	config_release(&c);
	buf_release(&err);
}

/* Loads text alone; the rc, messages in err. */
static int
load(const char *text, struct buf *err)
{
	struct config c;
	struct settings s;
	int rc;

	config_init(&c);
	buf_reset(err);
	rc = config_parse(&c, "t.conf", text, err);
	if (rc == 0) {
		rc = settings_load(&c, &s, err);
		if (rc == 0)
			settings_release(&s);
	}
	config_release(&c);
	return rc;
}

static void
test_cross(void)
{
	struct buf err = BUF_INIT(0);

	is_int(load("[tree \"a\"]\npath = /x\n[build]\ntree = b\n", &err), -1,
	    "[build] tree naming no [tree]");
	ok(err.data && strstr(err.data, "[build] tree = \"b\" is not a "
	    "configured [tree]"), "names the key (%s)", err.data);
	is_int(load("[build]\ntree = b\n", &err), -1,
	    "[build] tree without any [tree]");
	ok(err.data && strstr(err.data, "(there is none)"), "says so (%s)",
	    err.data);
	is_int(load("[tree \"a\"]\nbranch = main\n", &err), -1,
	    "a [tree] with neither path nor url");
	ok(err.data && strstr(err.data, "[tree \"a\"] needs path = DIR or "
	    "url = URL"), "names the keys (%s)", err.data);
	is_int(load("[tree \"a\"]\npath = /x\n[track \"n\"]\ntree = z\n",
	    &err), -1, "[track] tree naming no [tree]");
	ok(err.data && strstr(err.data, "[track \"n\"]: tree \"z\""),
	    "names the track and tree (%s)", err.data);
	is_int(load("[lore]\nallow = http://a/\n[watch \"w\"]\n"
	    "lore = http://b/\nlist = l\npath = mm/\n", &err), -1,
	    "[watch] lore off the allowlist");
	ok(err.data && strstr(err.data, "[watch \"w\"] lore:"),
	    "names the key (%s)", err.data);
	is_int(load("[lore]\nallow = http://a/\n[watch \"w\"]\n"
	    "lore = http://a/\nlist = l\n", &err), -1, "[watch] without path");
	ok(err.data && strstr(err.data, "needs at least one path"),
	    "names the key (%s)", err.data);
	is_int(load("[tree \"a\"]\nurl = http://g/a.git\n[build]\ntree = a\n",
	    &err), 0, "a url-only tree named by [build] tree is fine");
	buf_release(&err);
}

/* The [http] keys of the connection budget: garbage and values that do
   not fit together are refused, with the file and line. */
static void
test_http(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "[http]\nmin_rate = fast\n", "t.conf:2: min_rate must be a "
		    "size" },
		{ "[http]\nmin_rate = 0\n", "t.conf:2: 0 must be at least 1" },
		{ "[http]\nheader_timeout = -3\n", "t.conf:2:" },
		{ "[http]\nheader_timeout = 10s\n", "t.conf:2: header_timeout "
		    "must be an integer" },
		{ "[http]\nper_prefix_connections = 0\n", "t.conf:2: 0 must be "
		    "at least 1" },
		{ "[http]\nresponse_timeout = 0\n", "t.conf:2: 0 must be at "
		    "least 1" },
		{ "[http]\nresponse_timeout = soon\n", "t.conf:2: "
		    "response_timeout must be an integer" },
		{ "[http]\nreserved_connections = many\n", "t.conf:2: "
		    "reserved_connections must be an integer" },
		{ "[http]\nmax_connections = 100\nreserved_connections = 100\n",
		    "t.conf:3: [http] reserved_connections 100 must be less "
		    "than max_connections 100" },
		{ "[http]\nper_prefix_connections = 8\nper_ip_connections = 9\n",
		    "t.conf:3: [http] per_ip_connections 9 is more than "
		    "per_prefix_connections 8" },
	};
	struct buf err = BUF_INIT(0);
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		is_int(load(bad[i].text, &err), -1, "[http] garbage %zu refused",
		    i);
		ok(err.data && strstr(err.data, bad[i].want), "names it: %s "
		    "(%s)", bad[i].want, err.data ? err.data : "");
	}
	is_int(load("[http]\nmin_rate = 4K\nheader_timeout = 5\n"
	    "per_prefix_connections = 32\nreserved_connections = 8\n", &err),
	    0, "sane [http] values load (%s)", err.data ? err.data : "");
	buf_release(&err);
}

int
main(void)
{
	test_defaults();
	test_layered();
	test_cross();
	test_http();
	return tap_done();
}
