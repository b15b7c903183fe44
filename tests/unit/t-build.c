/*
 * Unit tests for core/build.c and core/sandbox.c: cache key and config
 * hash, log parsing (progress, first error, tail), the sandbox argv, and
 * real builds of a tiny fake "kernel" (a Makefile project with the kbuild
 * targets we call) in bubblewrap: a full build, a cache hit, an incremental
 * patched build that recompiles only the changed file, a Makefile that
 * reaches for the network, one that writes outside its tree, one that hangs
 * (killed at the limit), and a good build after each of them.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/build.h"
#include "core/sandbox.h"
#include "core/tree.h"
#include "lib/buf.h"
#include "lib/run.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"
#include "tests/unit/testsh.h"

static char *dir, *repo, *cache;
/* Limits and hidden paths the next build() passes (escape tests). */
static struct build_opts extra;

static int
sh(const char *script)
{
	return testsh_run(repo, script, 0);
}

static char *
capture(const char *script)
{
	return testsh_capture(repo, script);
}

static void
test_hashes(void)
{
	struct buf err = BUF_INIT(4096), cc = BUF_INIT(4096);
	char *f1 = xasprintf("%s/a.config", dir), *f2 = xasprintf("%s/b.config", dir);
	const char *frags[2] = { f1, f2 };
	char h1[65], h2[65], h3[65], k1[65], k2[65];

	buf_write_file(f1, "CONFIG_A=y\n", 11);
	buf_write_file(f2, "CONFIG_B=y\n", 11);
	ok(build_config_hash("tinyconfig", frags, 2, h1, &err) == 0 &&
	    strlen(h1) == 64, "config hash of a target and two fragments");
	build_config_hash("tinyconfig", frags, 2, h2, &err);
	is_str(h2, h1, "config hash is stable");
	build_config_hash("defconfig", frags, 2, h2, &err);
	ok(strcmp(h1, h2) != 0, "another base target changes it");
	buf_write_file(f2, "CONFIG_B=n\n", 11);
	build_config_hash("tinyconfig", frags, 2, h3, &err);
	ok(strcmp(h1, h3) != 0, "a changed fragment changes it");
	frags[0] = f2;
	frags[1] = f1;
	build_config_hash("tinyconfig", frags, 2, h2, &err);
	ok(strcmp(h3, h2) != 0, "fragment order matters (later ones win)");
	buf_reset(&err);
	frags[0] = "/nonexistent/x.config";
	ok(build_config_hash("tinyconfig", frags, 1, h2, &err) == -1 &&
	    strstr(err.data, "/nonexistent/x.config"),
	    "a missing fragment is named");

	ok(build_compiler_id(&cc) == 0 && strstr(cc.data, "gcc"),
	    "compiler id");
	build_key("0123456789abcdef0123456789abcdef01234567", h1, cc.data, k1);
	build_key("0123456789abcdef0123456789abcdef01234568", h1, cc.data, k2);
	ok(strlen(k1) == 64 && strcmp(k1, k2) != 0, "key depends on the commit");
	build_key("0123456789abcdef0123456789abcdef01234567", h3, cc.data, k2);
	ok(strcmp(k1, k2) != 0, "key depends on the config hash");
	build_key("0123456789abcdef0123456789abcdef01234567", h1, "gcc 13", k2);
	ok(strcmp(k1, k2) != 0, "key depends on the compiler");
	free(f1);
	free(f2);
	buf_release(&err);
	buf_release(&cc);
}

static void
test_log_parsing(void)
{
	static const char log[] =
	    "  SYNC    include/config/auto.conf\n"
	    "  HOSTCC  scripts/basic/fixdep\n"
	    "  CC      init/main.o\n"
	    "  AS      arch/x86/entry/entry_64.o\n"
	    "mm/swap.c: In function 'folio_batch_move_lru':\n"
	    "mm/swap.c:210:9: error: 'x' undeclared (first use in this function)\n"
	    "mm/swap.c:211:9: error: second error\n"
	    "  CC      mm/util.o\n"
	    "make[3]: *** [scripts/Makefile.build:229: mm/swap.o] Error 1\n"
	    "make: *** [Makefile:224: __sub-make] Error 2\n";
	struct buf b = BUF_INIT(4096);

	is_int(build_count_steps(log, strlen(log)), 4, "compiler steps counted");
	is_int(build_count_steps("", 0), 0, "empty log: no steps");
	build_first_error(log, strlen(log), &b);
	is_str(b.data, "mm/swap.c:210:9: error: 'x' undeclared (first use in "
	    "this function)", "first compiler error");
	buf_reset(&b);
	build_first_error("make: *** No rule to make target 'foo'.  Stop.\n", 46,
	    &b);
	is_str(b.data, "make: *** No rule to make target 'foo'.  Stop.",
	    "make's error when no compiler error");
	buf_reset(&b);
	build_log_tail(log, strlen(log), 2, &b);
	is_str(b.data, "make[3]: *** [scripts/Makefile.build:229: mm/swap.o] "
	    "Error 1\nmake: *** [Makefile:224: __sub-make] Error 2\n",
	    "log tail: last two lines");
	buf_reset(&b);
	build_log_tail("one line", 8, 5, &b);
	is_str(b.data, "one line", "tail of a short log is the log");
	buf_release(&b);
}

static void
test_sandbox_argv(void)
{
	const char *const w[] = { "/data/b/k/linux/kbuild" };
	const char *const cmd[] = { "make", "-j2", NULL };
	const char *const bad[] = { "relative/path" };
	const char *const ro[] = { "/data/b/k" };
	const char *const hid[] = { "/data" };
	struct sandbox sb = { w, 1, ro, 1, "/data/b/k/linux", 0, hid, 1,
	    64, 1 << 20, 4096, 8192 };
	const char **argv = sandbox_argv(&sb, cmd);
	struct buf b = BUF_INIT(0);

	for (size_t i = 0; argv && argv[i]; i++)
		buf_addf(&b, "%s ", argv[i]);
	ok(argv && b.data && strstr(b.data, " -- bwrap "),
	    "sandbox runs bwrap");
	ok(b.data && strstr(b.data, "--unshare-net "), "no network");
	ok(b.data && !strstr(b.data, "--ro-bind / / ") &&
	    strstr(b.data, "--ro-bind /usr /usr ") &&
	    strstr(b.data, "--ro-bind /etc /etc "),
	    "only the system directories, read-only");
	ok(b.data && strstr(b.data, "--tmpfs /data --ro-bind /data/b/k "),
	    "hidden paths under tmpfs before the binds");
	ok(b.data && !strncmp(b.data, "prlimit --nproc=64 --as=1048576 "
	    "--fsize=4096 -- ", 48), "limits set first, by prlimit");
	ok(b.data && strstr(b.data, "--size 8192 --tmpfs /tmp "),
	    "the private /tmp is bounded");
	ok(b.data && strstr(b.data, "--ro-bind /data/b/k /data/b/k --bind "
	    "/data/b/k/linux/kbuild /data/b/k/linux/kbuild "),
	    "the build read-only, only its output writable");
	ok(b.data && strstr(b.data, "--uid 65534 --gid 65534 "),
	    "unprivileged uid/gid");
	if (geteuid() == 0)
		ok(b.data && strstr(b.data, "-- setpriv --reuid=65534 "
		    "--regid=65534 --clear-groups --inh-caps=-all -- bwrap "),
		    "as root: bwrap itself runs as 65534 with no capabilities");
	ok(b.data && strstr(b.data, "--die-with-parent "), "dies with parent");
	ok(b.data && strstr(b.data, "--chdir /data/b/k/linux -- make -j2 "),
	    "command after the options");
	free(argv);
	buf_release(&b);
	sb.writable = bad;
	ok(sandbox_argv(&sb, cmd) == NULL, "relative writable path refused");
}

/* The fake kernel: kbuild's interface (O=, tinyconfig, olddefconfig,
   merge_config.sh, bzImage, System.map) and real make dependencies. */
static const char fake_makefile[] =
    "O ?= .\n"
    "objs := $(patsubst %.c,$(O)/%.o,$(sort $(wildcard *.c)))\n"
    "tinyconfig:\n"
    "\techo CONFIG_TINY=y > $(O)/.config\n"
    "olddefconfig:\n"
    "\tsort -u $(O)/.config -o $(O)/.config\n"
    "$(O)/%.o: %.c\n"
    "\t@echo '  CC      $@'\n"
    "\tcp $< $@\n"
    "bzImage: $(objs) $(EXTRA)\n"
    "\tmkdir -p $(O)/arch/x86/boot\n"
    "\tcat $(objs) $(O)/.config > $(O)/arch/x86/boot/bzImage\n"
    "\tcp $(O)/.config $(O)/System.map\n"
    ".PHONY: tinyconfig olddefconfig bzImage\n";

static const char fake_merge[] =
    "#!/bin/sh\n"
    "# merge_config.sh -m -O DIR BASE FRAGMENTS...\n"
    "shift; shift; out=$1; shift; base=$1; shift\n"
    "cat \"$@\" >> \"$base\"\n";

static int
build(const char *rev, const char *base_rev, const char *base_key,
    int timeout, struct build_result *res)
{
	struct build_spec spec = { 0 };
	struct build_opts o = { 0 };
	char c[41], b[41];
	char *frag = xasprintf("%s/frag.config", dir);
	const char *frags[] = { frag };
	int rc;

	if (tree_resolve(repo, rev, c) != 0 ||
	    (base_rev && tree_resolve(repo, base_rev, b) != 0)) {
		free(frag);
		return -2;
	}
	spec.repo = repo;
	spec.commit = c;
	spec.config = "tinyconfig";
	spec.fragments = frags;
	spec.nfragments = 1;
	spec.base_commit = base_rev ? b : NULL;
	spec.base_key = base_key;
	o.cache_dir = cache;
	o.jobs = 2;
	o.timeout_sec = timeout;
	o.sandbox = 1;
	o.hide = extra.hide;
	o.nhide = extra.nhide;
	o.pids_max = extra.pids_max;
	o.mem_max = extra.mem_max;
	o.file_max = extra.file_max;
	o.output_max = extra.output_max;
	rc = build_run(&spec, &o, res);
	free(frag);
	return rc;
}

static char *
read_text(const char *path)
{
	struct buf b = BUF_INIT(1 << 20);

	if (buf_read_file(&b, path) != 0 || !b.data) {
		buf_release(&b);
		return xstrdup("");
	}
	return buf_detach(&b, NULL);
}

static void
test_fake_builds(void)
{
	struct build_result base, again, patched, bad;
	char *s, *p, *cmd, sum[65];
	int lfd, port, rc;
	/* Outside /tmp and /var/tmp, which the sandbox replaces by tmpfs (the
	   source tree itself may be under /tmp, as in a CI clone), in a
	   directory anyone may write to, so that the only thing stopping the
	   write is the sandbox's read-only bind. */
	char *escdir = xasprintf("/var/cache/kperfci-t-build.%d", (int)getpid());
	char *escape = xasprintf("%s/escaped", escdir);
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);

	if (!sandbox_works()) {
		ok(0, "bubblewrap works here");
		return;
	}
	p = xasprintf("%s/frag.config", dir);
	buf_write_file(p, "CONFIG_FRAG=y\n", 14);
	free(p);
	sh("mkdir -p scripts/kconfig");
	buf_write_file("Makefile", fake_makefile, sizeof(fake_makefile) - 1);
	buf_write_file("scripts/kconfig/merge_config.sh", fake_merge,
	    sizeof(fake_merge) - 1);
	ok(sh("chmod +x scripts/kconfig/merge_config.sh && echo one > one.c "
	    "&& echo two > two.c && git add -A && git commit -qm base") == 0,
	    "fake kernel repository");

	ok(build("HEAD", NULL, NULL, 60, &base) == 0 && !base.cache_hit,
	    "full build in the sandbox (%s)", base.error);
	p = xasprintf("%s/bzImage", base.dir);
	s = read_text(p);
	is_str(s, "one\ntwo\nCONFIG_FRAG=y\nCONFIG_TINY=y\n",
	    "bzImage built from the sources with the merged config");
	free(s);
	ok(sha256_file(p, sum) == 0 && !strcmp(sum, base.sha256),
	    "sha256 recorded");
	free(p);
	is_int(base.cc_lines, 2, "two compiler steps in the full build");

	ok(build("HEAD", NULL, NULL, 60, &again) == 0 && again.cache_hit &&
	    !strcmp(again.key, base.key) && !strcmp(again.sha256, base.sha256),
	    "second build of the same key is a cache hit");

	sh("sleep 1; echo ONE > one.c; git commit -qam 'change one'");
	p = capture("git rev-parse HEAD^");
	rc = build("HEAD", p, base.key, 60, &patched);
	free(p);
	ok(rc == 0 &&
	    !patched.cache_hit && strcmp(patched.key, base.key),
	    "patched build from the base build (%s)", patched.error);
	is_int(patched.cc_lines, 1, "only the changed file recompiled");
	p = xasprintf("%s/bzImage", patched.dir);
	s = read_text(p);
	is_str(s, "ONE\ntwo\nCONFIG_FRAG=y\nCONFIG_TINY=y\n",
	    "patched bzImage has the change");
	free(s);
	free(p);
	p = xasprintf("%s/src", cache);
	cmd = xasprintf("cat %s/*/one.c", p);
	s = capture(cmd);
	is_str(s, "one", "the cached base source is untouched");
	free(s);
	free(cmd);
	free(p);

	/* A Makefile reaching a server on loopback: the sandbox has its own
	   network namespace, so the connection is refused. */
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(lfd, (struct sockaddr *)&sa, sizeof(sa));
	listen(lfd, 4);
	getsockname(lfd, (struct sockaddr *)&sa, &sl);
	port = ntohs(sa.sin_port);
	cmd = xasprintf("git checkout -q -b net master && sed -i '1i EXTRA := net' Makefile && printf '"
	    "net:\\n\\tpython3 -c \"import socket; socket.create_connection("
	    "(\\047127.0.0.1\\047, %d), 3)\"\\n\\techo reached the network\\n' "
	    ">> Makefile && git commit -qam net", port);
	ok(sh(cmd) == 0, "fixture: a Makefile that connects to port %d", port);
	free(cmd);
	s = capture("git rev-parse net");
	ok(build("net", NULL, NULL, 60, &bad) == -1 &&
	    (strstr(bad.log_tail, "onnection refused") ||
	    strstr(bad.log_tail, "unreachable")),
	    "network access fails in the sandbox: %s", bad.error);
	free(s);
	close(lfd);

	cmd = xasprintf("mkdir -p %s && chmod 1777 %s", escdir, escdir);
	ok(sh(cmd) == 0, "fixture: %s is world-writable", escdir);
	free(cmd);
	cmd = xasprintf("git checkout -q -b escape master && sed -i '1i EXTRA := esc' Makefile && printf '"
	    "esc:\\n\\ttouch %s\\n' >> Makefile && git commit -qam esc",
	    escape);
	sh(cmd);
	free(cmd);
	ok(build("escape", NULL, NULL, 60, &bad) == -1 &&
	    (strstr(bad.log_tail, "Read-only file system") ||
	    strstr(bad.log_tail, "No such file or directory")),
	    "writing outside the build fails: %s", bad.error);
	ok(access(escape, F_OK) == -1, "nothing was written outside");
	rmdir(escdir);
	free(escdir);
	sh("git checkout -q -b secret master && sed -i '1i EXTRA := sec' "
	    "Makefile && printf 'sec:\\n\\tcat /etc/shadow\\n' >> Makefile && "
	    "git commit -qam sec");
	rc = build("secret", NULL, NULL, 60, &bad);
	ok(rc == -1 && strstr(bad.log_tail, "Permission denied"),
	    "root-only files are not readable in the sandbox");
	free(escape);

	sh("git checkout -q -b srcwrite master && sed -i '1i EXTRA := sw' Makefile && printf '"
	    "sw:\\n\\techo evil > one.c\\n' >> Makefile && git commit -qam sw");
	ok(build("srcwrite", NULL, NULL, 60, &bad) == -1,
	    "writing into the (shared) source tree fails: %s", bad.error);
	cmd = xasprintf("cat %s/src/*/one.c | sort | tr '\\n' ' '", cache);
	s = capture(cmd);
	ok(strstr(s, "evil") == NULL, "cached sources intact (%s)", s);
	free(s);
	free(cmd);

	sh("git checkout -q -b hang master && sed -i '1i EXTRA := hang' Makefile && printf '"
	    "hang:\\n\\tsleep 600\\n' >> Makefile && git commit -qam hang");
	ok(build("hang", NULL, NULL, 3, &bad) == -1 &&
	    strstr(bad.error, "timed out after"),
	    "a hanging build is killed at the limit: %s", bad.error);
	ok(access(bad.dir, F_OK) == 0 && !strstr(bad.dir, "done"),
	    "failed build leaves no done marker");

	sh("git checkout -q master && echo three > three.c && git add three.c "
	    "&& git commit -qm three");
	ok(build("master", NULL, NULL, 60, &again) == 0 && !again.cache_hit,
	    "the next build after the failures works (%s)", again.error);
}

/* A branch whose bzImage recipe ends with one more (hostile) line. */
static void
hostile_branch(const char *name, const char *line)
{
	const char *phony = strstr(fake_makefile, ".PHONY");
	char *mk = xasprintf("%.*s\t%s\n%s", (int)(phony - fake_makefile),
	    fake_makefile, line, phony);
	char *cmd = xasprintf("git checkout -q -b %s master", name);

	sh(cmd);
	buf_write_file("Makefile", mk, strlen(mk));
	free(cmd);
	cmd = xasprintf("git commit -qam %s && git checkout -q master", name);
	sh(cmd);
	free(cmd);
	free(mk);
}

/*
 * What a hostile patch tries once it runs in the build: artifacts that are
 * symlinks out of the build (the daemon copies and serves them), the
 * daemon's store, a host Unix socket, a fork bomb, a file or a build
 * directory that fills the disk.  Each must fail and leave nothing behind.
 */
static void
test_escapes(void)
{
	struct build_result bad, good;
	char *secret = xasprintf("%s/secret", dir);
	char *secdir = xasprintf("%s/secdir", dir);
	char *vdir = xasprintf("/var/cache/kperfci-t-build-esc.%d",
	    (int)getpid());
	char *store = xasprintf("%s/kperfci.db", vdir);
	char *sock = xasprintf("/run/kperfci-t-build.%d.sock", (int)getpid());
	const char *hide[] = { vdir };
	char *line, *p, *s;
	struct sockaddr_un su;
	int ufd;

	if (!sandbox_works())
		return;
	/* Readable by the daemon (root or the test's user), not by the
	   build user. */
	buf_write_file(secret, "TOP-SECRET\n", 11);
	chmod(secret, 0600);
	p = xasprintf("mkdir -p %s/x86/boot && printf 'HdrS-SECRET' > "
	    "%s/x86/boot/bzImage && chmod 700 %s", secdir, secdir, secdir);
	sh(p);
	free(p);

	line = xasprintf("ln -sf %s $(O)/System.map", secret);
	hostile_branch("symmap", line);
	free(line);
	ok(build("symmap", NULL, NULL, 60, &bad) == -1 &&
	    strstr(bad.error, "System.map"),
	    "System.map left as a symlink out of the build is refused: %s",
	    bad.error);
	p = xasprintf("%s/System.map", bad.dir);
	s = read_text(p);
	ok(!strstr(s, "TOP-SECRET"), "the file it pointed to was not copied");
	free(s);
	free(p);

	line = xasprintf("rm -rf $(O)/arch && ln -s %s $(O)/arch", secdir);
	hostile_branch("symdir", line);
	free(line);
	ok(build("symdir", NULL, NULL, 60, &bad) == -1 &&
	    strstr(bad.error, "bzImage"),
	    "bzImage reached through a symlinked directory is refused: %s",
	    bad.error);
	p = xasprintf("%s/bzImage", bad.dir);
	s = read_text(p);
	ok(!strstr(s, "SECRET"), "the file it pointed to was not copied");
	free(s);
	free(p);

	/* The daemon's store (0644, as sqlite made it before) outside /tmp,
	   which the sandbox always replaces. */
	p = xasprintf("mkdir -p %s && chmod 755 %s", vdir, vdir);
	sh(p);
	free(p);
	buf_write_file(store, "SQLite format 3 STORE-SECRET\n", 29);
	chmod(store, 0644);
	line = xasprintf("cat %s", store);
	hostile_branch("store", line);
	free(line);
	extra.hide = hide;
	extra.nhide = 1;
	ok(build("store", NULL, NULL, 60, &bad) == -1 &&
	    !strstr(bad.log_tail, "STORE-SECRET"),
	    "the daemon's data directory is not visible in the sandbox: %s",
	    bad.error);
	extra.hide = NULL;
	extra.nhide = 0;

	/* A host Unix socket anyone may connect to. */
	ufd = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&su, 0, sizeof(su));
	su.sun_family = AF_UNIX;
	snprintf(su.sun_path, sizeof(su.sun_path), "%s", sock);
	unlink(sock);
	ok(bind(ufd, (struct sockaddr *)&su, sizeof(su)) == 0 &&
	    listen(ufd, 4) == 0 && chmod(sock, 0777) == 0,
	    "fixture: a host Unix socket at %s", sock);
	line = xasprintf("python3 -c \"import socket; s = socket.socket("
	    "socket.AF_UNIX); s.connect('%s'); print('CONN' + 'ECTED')\"", sock);
	hostile_branch("unixsock", line);
	free(line);
	ok(build("unixsock", NULL, NULL, 60, &bad) == -1 &&
	    !strstr(bad.log_tail, "CONNECTED"),
	    "a host Unix socket cannot be reached: %s", bad.error);
	close(ufd);
	unlink(sock);

	hostile_branch("bomb", "i=0; while [ $$i -lt 400 ]; do sleep 5 & "
	    "i=$$((i+1)); done; echo SPAWNED-$$((1+1))");
	extra.pids_max = 64;
	ok(build("bomb", NULL, NULL, 60, &bad) == -1 &&
	    !strstr(bad.log_tail, "SPAWNED-2") &&
	    (strstr(bad.log_tail, "fork") || strstr(bad.log_tail,
	    "Resource temporarily unavailable")),
	    "a fork bomb hits the task limit: %s", bad.error);
	extra.pids_max = 0;

	hostile_branch("bigfile", "head -c 4194304 /dev/zero > $(O)/big");
	extra.file_max = 1 << 20;
	ok(build("bigfile", NULL, NULL, 60, &bad) == -1,
	    "a file over the size limit fails the build: %s", bad.error);
	p = xasprintf("%s/linux/kbuild/big", bad.dir);
	{
		struct stat st;

		ok(stat(p, &st) == -1 || st.st_size <= (1 << 20),
		    "the file stopped at the limit (%lld bytes)",
		    stat(p, &st) == 0 ? (long long)st.st_size : -1LL);
	}
	free(p);
	extra.file_max = 0;

	hostile_branch("fill", "for i in $$(seq 100); do head -c 1048576 "
	    "/dev/zero > $(O)/f$$i; sleep 0.1; done");
	extra.output_max = 3 << 20;
	ok(build("fill", NULL, NULL, 60, &bad) == -1 &&
	    strstr(bad.error, "output"),
	    "a build filling its directory is stopped: %s", bad.error);
	p = xasprintf("du -sk %s/linux/kbuild | cut -f1", bad.dir);
	s = capture(p);
	ok(atoll(s) < 40 * 1024, "it stopped well before the end (%s KiB)", s);
	free(s);
	free(p);
	hostile_branch("tmpfill", "head -c 4194304 /dev/zero > /tmp/big");
	ok(build("tmpfill", NULL, NULL, 60, &bad) == -1,
	    "the private /tmp is bounded too: %s", bad.error);
	extra.output_max = 0;

	/* a build that prints without end: stopped, and its log kept to
	   its head and tail (issue 18, finding 9: 350 MB were kept and
	   served) */
	hostile_branch("chatty", "for i in $$(seq 90); do head -c 1048576 "
	    "/dev/zero | tr '\\0' x | fold -w 128; sleep 0.05; done");
	ok(build("chatty", NULL, NULL, 120, &bad) == -1 &&
	    strstr(bad.error, "build log over its limit"),
	    "a build printing 90 MiB is stopped: %s", bad.error);
	p = xasprintf("%s/build.log", bad.dir);
	{
		struct stat st;
		char *g = xasprintf("grep -c 'bytes of this log cut here' %s",
		    p);

		s = capture(g);
		ok(stat(p, &st) == 0 && st.st_size <= (9 << 20) &&
		    atoi(s) == 1, "its log is kept to its first and last MiB "
		    "(%lld bytes, saying so)",
		    stat(p, &st) == 0 ? (long long)st.st_size : -1LL);
		free(s);
		free(g);
	}
	free(p);

	sh("echo four > four.c && git add four.c && git commit -qm four");
	ok(build("master", NULL, NULL, 60, &good) == 0,
	    "a good build after the escapes works (%s)", good.error);

	p = xasprintf("rm -rf %s", vdir);
	sh(p);
	free(p);
	free(secret);
	free(secdir);
	free(vdir);
	free(store);
	free(sock);
}

/* A synthetic cache: two exports, four builds of 300 KiB trees each. */
static const char gc_c1[] = "1111111111111111111111111111111111111111";
static const char gc_c2[] = "2222222222222222222222222222222222222222";

static char *
gc_key(int i)
{
	return xasprintf("%064d", i);
}

static void
gc_make_build(const char *gc, int i, const char *src, int age)
{
	char *k = gc_key(i);
	char *cmd = xasprintf("d=%s/b/%s && mkdir -p $d/linux/kbuild && "
	    "cp -al %s/src/%s/. $d/linux/ && "
	    "head -c 307200 /dev/urandom > $d/linux/kbuild/vmlinux.o && "
	    "echo bz > $d/bzImage && echo map > $d/System.map && "
	    "echo cfg > $d/config && echo log > $d/build.log && "
	    "printf %%s %s > $d/source && echo sha > $d/done && "
	    "touch -d @$(($(date +%%s) - %d)) $d/done", gc, k, gc, src, src,
	    age);

	sh(cmd);
	free(cmd);
	free(k);
}

static int
gc_has(const char *gc, int i, const char *what)
{
	char *k = gc_key(i), *p = xasprintf("%s/b/%s%s%s", gc, k, what ? "/" :
	    "", what ? what : "");
	int r = access(p, F_OK) == 0;

	free(p);
	free(k);
	return r;
}

static void
test_cache_gc(void)
{
	char *gc = xasprintf("%s/gc-cache", dir), *p, *k1, *k2, *k3;
	const char *keep[3];
	struct build_gc_stats gs;
	long long budget;
	int lfd, rc;

	p = xasprintf("mkdir -p %s/src/%s %s/src/%s %s/b && "
	    "for c in %s %s; do for f in a b c; do head -c 102400 "
	    "/dev/urandom > %s/src/$c/$f; done; done", gc, gc_c1, gc, gc_c2,
	    gc, gc_c1, gc_c2, gc);
	ok(sh(p) == 0, "fixture: a cache with two exported sources");
	free(p);
	gc_make_build(gc, 1, gc_c1, 400);	/* kept, old */
	gc_make_build(gc, 2, gc_c2, 300);	/* no result: removed whole */
	gc_make_build(gc, 3, gc_c1, 100);	/* kept, recent */
	gc_make_build(gc, 4, gc_c1, 500);	/* oldest, but in use */
	k1 = gc_key(1);
	k2 = gc_key(2);
	k3 = gc_key(3);
	keep[0] = k1;
	keep[1] = k3;
	keep[2] = "ffff";
	p = xasprintf("%s/b/%s.lock", gc, "0000000000000000000000000000000000"
	    "000000000000000000000000000004");
	lfd = open(p, O_RDWR | O_CREAT, 0644);
	ok(lfd != -1 && flock(lfd, LOCK_EX) == 0, "fixture: build 4 is locked "
	    "by another process");
	free(p);

	rc = build_cache_gc(gc, 1LL << 40, keep, 3, &gs);
	ok(rc == 0 && gs.before > 6 * 307200 && gs.after == gs.before &&
	    gs.trees_evicted + gs.builds_removed == 0,
	    "under its budget nothing goes (%lld bytes)", gs.before);
	budget = gs.before - 700 * 1024;
	ok(build_cache_gc(gc, budget, keep, 3, &gs) == 0,
	    "collect down to %lld bytes", budget);
	ok(gs.after <= budget && gs.after < gs.before,
	    "the cache is under its budget (%lld -> %lld)", gs.before,
	    gs.after);
	is_int(gs.busy, 1, "the build in use is skipped");
	ok(gc_has(gc, 4, "linux/kbuild/vmlinux.o") && gc_has(gc, 4, "done"),
	    "and left whole");
	ok(!gc_has(gc, 1, "linux") && !gc_has(gc, 1, "done") &&
	    gc_has(gc, 1, "bzImage") && gc_has(gc, 1, "System.map") &&
	    gc_has(gc, 1, "config") && gc_has(gc, 1, "build.log"),
	    "the least recently used build a result references loses its "
	    "tree, keeps bzImage, System.map, config, build.log");
	ok(!gc_has(gc, 2, NULL), "an unreferenced build is removed whole");
	ok(gc_has(gc, 3, "linux/kbuild/vmlinux.o") && gc_has(gc, 3, "done"),
	    "the most recently used build is untouched");
	p = xasprintf("%s/src/%s/a", gc, gc_c1);
	ok(access(p, F_OK) == 0, "a source the remaining trees link stays");
	free(p);
	p = xasprintf("%s/src/%s", gc, gc_c2);
	ok(access(p, F_OK) == -1, "one no tree links any more is removed");
	free(p);
	is_int(gs.trees_evicted * 10 + gs.builds_removed, 11,
	    "one tree evicted, one build removed");

	close(lfd);
	ok(build_cache_gc(gc, 0, keep, 3, &gs) == 0 && gs.busy == 0,
	    "collect everything");
	ok(gc_has(gc, 3, "bzImage") && !gc_has(gc, 3, "linux") &&
	    gc_has(gc, 1, "bzImage") && !gc_has(gc, 4, NULL),
	    "only the referenced artifacts are left");
	p = xasprintf("ls %s/src | wc -l", gc);
	{
		char *n = capture(p);

		is_str(n, "0", "no source is left");
		free(n);
	}
	free(p);
	ok(gs.after < 16 * 4096, "the cache is down to the artifacts (%lld "
	    "bytes)", gs.after);

	/* Real builds leave size records, so collection reads them instead
	   of walking every tree; they agree with a walk. */
	p = xasprintf("ls %s/b/*/size %s/src/*.size | wc -l", cache, cache);
	{
		char *n = capture(p);

		ok(atoi(n) >= 3, "builds and exports carry size records (%s)",
		    n);
		free(n);
	}
	free(p);
	rc = build_cache_gc(cache, 1LL << 40, NULL, 0, &gs);
	p = xasprintf("du -s -B1 %s | cut -f1", cache);
	{
		char *n = capture(p);

		ok(rc == 0 && gs.before * 2 > atoll(n) && gs.before <
		    2 * atoll(n), "the recorded total (%lld) agrees with du "
		    "(%s, every inode once)", gs.before, n);
		free(n);
	}
	free(p);
	free(k1);
	free(k2);
	free(k3);
	free(gc);
}

int
main(void)
{
	char tmpl[] = "/tmp/t-build.XXXXXX";

	if (!mkdtemp(tmpl) || chmod(tmpl, 0755) == -1)
		return 1;	/* the build user must reach the cache */
	dir = tmpl;
	repo = xasprintf("%s/repo", dir);
	cache = xasprintf("%s/cache", dir);
	mkdir(repo, 0755);
	sh("git init -q -b master");
	if (chdir(repo) == -1)
		return 1;

	test_hashes();
	test_log_parsing();
	test_sandbox_argv();
	test_fake_builds();
	test_escapes();
	test_cache_gc();

	{
		char *cmd = xasprintf("rm -rf %s", dir);

		if (chdir("/") == 0)
			sh(cmd);
		free(cmd);
	}
	free(repo);
	free(cache);
	return tap_done();
}
