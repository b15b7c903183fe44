/*
 * sandbox: bubblewrap argv for untrusted builds (see sandbox.h).
 *
 * As root, bwrap is started through setpriv as the unprivileged uid/gid
 * 65534 with no capabilities and no supplementary groups, and creates an
 * unprivileged user namespace from there: inside, the build is nobody, and
 * outside it is nobody too, so it cannot read root's files (a uid-0 mapping
 * would make every root-owned 0600 file readable to the build).  Its
 * writable directories must therefore belong to SANDBOX_UID (build.c
 * chowns them).  The read-only bind of / plus --bind of the output keeps
 * writes inside the build's own directories: the kernel source the build
 * reads is hard-linked from the cache, so it must not be writable.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/sandbox.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/xalloc.h"

#define SANDBOX_MAX_PATHS	16

static int
sandbox_path_ok(const char *p)
{
	return p && p[0] == '/' && !strchr(p, '\n');
}

const char **
sandbox_argv(const struct sandbox *sb, const char *const *cmd)
{
	static const char *const head[] = {
		"bwrap", "--die-with-parent", "--new-session",
		"--unshare-user", "--unshare-ipc", "--unshare-pid",
		"--unshare-uts", "--unshare-cgroup-try",
		"--uid", "65534", "--gid", "65534",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--tmpfs", "/tmp", "--tmpfs", "/var/tmp",
	};
	size_t n = 0, ncmd = 0, nh = sizeof(head) / sizeof(head[0]);
	const char **argv;

	for (; cmd[ncmd]; ncmd++)
		;
	if (sb->nwritable + sb->nreadonly > SANDBOX_MAX_PATHS) {
		error("sandbox: too many paths");
		return NULL;
	}
	for (size_t i = 0; i < sb->nreadonly; i++)
		if (!sandbox_path_ok(sb->readonly[i])) {
			error("sandbox: read-only path \"%s\" is not absolute",
			    sb->readonly[i] ? sb->readonly[i] : "(null)");
			return NULL;
		}
	for (size_t i = 0; i < sb->nwritable; i++)
		if (!sandbox_path_ok(sb->writable[i])) {
			error("sandbox: writable path \"%s\" is not absolute",
			    sb->writable[i] ? sb->writable[i] : "(null)");
			return NULL;
		}
	if (sb->dir && !sandbox_path_ok(sb->dir)) {
		error("sandbox: working directory \"%s\" is not absolute",
		    sb->dir);
		return NULL;
	}
	argv = xcalloc(nh + 3 * (sb->nwritable + sb->nreadonly) + 12 + ncmd + 1,
	    sizeof(*argv));
	if (geteuid() == 0) {
		argv[n++] = "setpriv";
		argv[n++] = "--reuid=" SANDBOX_UID_STR;
		argv[n++] = "--regid=" SANDBOX_UID_STR;
		argv[n++] = "--clear-groups";
		argv[n++] = "--inh-caps=-all";
		argv[n++] = "--";
	}
	for (size_t i = 0; i < nh; i++)
		argv[n++] = head[i];
	if (!sb->allow_net)
		argv[n++] = "--unshare-net";
	for (size_t i = 0; i < sb->nreadonly; i++) {
		argv[n++] = "--ro-bind";
		argv[n++] = sb->readonly[i];
		argv[n++] = sb->readonly[i];
	}
	for (size_t i = 0; i < sb->nwritable; i++) {
		argv[n++] = "--bind";
		argv[n++] = sb->writable[i];
		argv[n++] = sb->writable[i];
	}
	if (sb->dir) {
		argv[n++] = "--chdir";
		argv[n++] = sb->dir;
	}
	argv[n++] = "--";
	for (size_t i = 0; i < ncmd; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	return argv;
}

int
sandbox_works(void)
{
	static int cached = -1;
	const char *const cmd[] = { "true", NULL };
	struct sandbox sb = { 0 };
	struct run r = { 0 };
	const char **argv;

	if (cached != -1)
		return cached;
	if (!(argv = sandbox_argv(&sb, cmd)))
		return 0;
	r.argv = argv;
	r.timeout_sec = 20;
	cached = run_cmd(&r) == 0;
	if (!cached)
		log_warnx("sandbox: bwrap does not work here (%s)",
		    run_status(&r));
	free(argv);
	return cached;
}
