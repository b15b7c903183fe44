/*
 * sandbox: bubblewrap argv for untrusted builds (see sandbox.h).
 *
 * As root, bwrap is started through setpriv as the unprivileged uid/gid
 * 65534 with no capabilities and no supplementary groups, and creates an
 * unprivileged user namespace from there: inside, the build is nobody, and
 * outside it is nobody too, so it cannot read root's files (a uid-0 mapping
 * would make every root-owned 0600 file readable to the build).  Its
 * writable directories must therefore belong to SANDBOX_UID (build.c
 * chowns them).
 *
 * What the build sees: the system directories kbuild needs (/usr, /etc and
 * the merged-/usr links /bin, /sbin, /lib*) read-only, a fresh /dev and
 * /proc, private size-bounded tmpfs on /tmp and /var/tmp, and the paths the
 * caller binds.  Nothing else of the host exists inside: no /home, /root,
 * /run or /var (so no host Unix sockets, no store, no other build), and the
 * paths in hidden (the daemon's data directory, the cache) are covered by
 * an empty tmpfs even when they lie under a system directory.  The source
 * the build reads is hard-linked from the cache, so it must not be
 * writable: only the output directory is.
 *
 * Limits: prlimit runs first (as the daemon, so it may set them) and sets
 * RLIMIT_NPROC, RLIMIT_AS and RLIMIT_FSIZE; they are inherited through
 * setpriv and bwrap by every process of the build.  RLIMIT_NPROC counts the
 * tasks of uid 65534 (and, the kernel charging every user namespace level,
 * nobody's tasks on the host too), so a fork bomb stops at that count.
 * The host has cgroup v1 only here, so no cgroup limits are used.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sandbox.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/strvec.h"
#include "lib/xalloc.h"

#define SANDBOX_MAX_PATHS	16

/* The system directories bound read-only (or recreated as the symlink they
   are on a merged-/usr host); probed once. */
static struct sandbox_sysdir {
	const char *path;
	int	 kind;			/* 0 absent, 1 directory, 2 symlink */
	char	 target[64];
} sandbox_sysdirs[] = {
	{ "/usr", 0, "" }, { "/etc", 0, "" }, { "/bin", 0, "" },
	{ "/sbin", 0, "" }, { "/lib", 0, "" }, { "/lib32", 0, "" },
	{ "/lib64", 0, "" }, { "/libx32", 0, "" },
};
#define SANDBOX_NSYSDIRS (sizeof(sandbox_sysdirs) / sizeof(sandbox_sysdirs[0]))
static pthread_once_t sandbox_once = PTHREAD_ONCE_INIT;

static void
sandbox_probe(void)
{
	for (size_t i = 0; i < SANDBOX_NSYSDIRS; i++) {
		struct sandbox_sysdir *d = &sandbox_sysdirs[i];
		struct stat st;
		ssize_t n;

		if (lstat(d->path, &st) == -1)
			continue;
		if (S_ISDIR(st.st_mode))
			d->kind = 1;
		else if (S_ISLNK(st.st_mode) && (n = readlink(d->path,
		    d->target, sizeof(d->target) - 1)) > 0) {
			d->target[n] = '\0';
			d->kind = 2;
		}
	}
}

static int
sandbox_path_ok(const char *p)
{
	return p && p[0] == '/' && !strchr(p, '\n');
}

/* The argv is built in a strvec (lib/strvec.h: no fixed bound on its
   arguments or its formatted ones), then flattened into one allocation
   so that one free() releases all. */
struct sandbox_av {
	struct strvec sv;
};

static void
sandbox_push(struct sandbox_av *av, const char *s)
{
	strvec_push(&av->sv, s);
}

static void
sandbox_pushf(struct sandbox_av *av, const char *opt, long long v)
{
	strvec_pushf(&av->sv, "%s%lld", opt, v);
}

/* Copies the vector and every string it points to into one block. */
static const char **
sandbox_av_finish(struct sandbox_av *av)
{
	const char *const *in = strvec_argv(&av->sv);
	size_t n = av->sv.n, head = (n + 1) * sizeof(char *), len = 0;
	const char **v;
	char *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(in[i]) + 1;
	v = xmalloc(head + len);
	p = (char *)v + head;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(in[i]) + 1;

		memcpy(p, in[i], l);
		v[i] = p;
		p += l;
	}
	v[n] = NULL;
	strvec_clear(&av->sv);
	return v;
}

static int
sandbox_check(const struct sandbox *sb)
{
	struct { const char *const *p; size_t n; const char *what; } l[] = {
		{ sb->readonly, sb->nreadonly, "read-only" },
		{ sb->writable, sb->nwritable, "writable" },
		{ sb->hidden, sb->nhidden, "hidden" },
	};

	if (sb->nwritable + sb->nreadonly + sb->nhidden > SANDBOX_MAX_PATHS)
		return error("sandbox: too many paths");
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < l[k].n; i++)
			if (!sandbox_path_ok(l[k].p[i]))
				return error("sandbox: %s path \"%s\" is not "
				    "absolute", l[k].what, l[k].p[i] ?
				    l[k].p[i] : "(null)");
	if (sb->dir && !sandbox_path_ok(sb->dir))
		return error("sandbox: working directory \"%s\" is not "
		    "absolute", sb->dir);
	return 0;
}

const char **
sandbox_argv(const struct sandbox *sb, const char *const *cmd)
{
	static const char *const head[] = {
		"bwrap", "--die-with-parent", "--new-session",
		"--unshare-user", "--unshare-ipc", "--unshare-pid",
		"--unshare-uts", "--unshare-cgroup-try",
		"--uid", "65534", "--gid", "65534",
	};
	struct sandbox_av av;

	if (sandbox_check(sb) != 0)
		return NULL;
	pthread_once(&sandbox_once, sandbox_probe);
	memset(&av, 0, sizeof(av));
	if (sb->nproc > 0 || sb->as > 0 || sb->fsize > 0) {
		sandbox_push(&av, "prlimit");
		if (sb->nproc > 0)
			sandbox_pushf(&av, "--nproc=", sb->nproc);
		if (sb->as > 0)
			sandbox_pushf(&av, "--as=", sb->as);
		if (sb->fsize > 0)
			sandbox_pushf(&av, "--fsize=", sb->fsize);
		sandbox_push(&av, "--");
	}
	if (geteuid() == 0) {
		sandbox_push(&av, "setpriv");
		sandbox_push(&av, "--reuid=" SANDBOX_UID_STR);
		sandbox_push(&av, "--regid=" SANDBOX_UID_STR);
		sandbox_push(&av, "--clear-groups");
		sandbox_push(&av, "--inh-caps=-all");
		sandbox_push(&av, "--");
	}
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		sandbox_push(&av, head[i]);
	for (size_t i = 0; i < SANDBOX_NSYSDIRS; i++) {
		const struct sandbox_sysdir *d = &sandbox_sysdirs[i];

		if (d->kind == 1) {
			sandbox_push(&av, "--ro-bind");
			sandbox_push(&av, d->path);
			sandbox_push(&av, d->path);
		} else if (d->kind == 2) {
			sandbox_push(&av, "--symlink");
			sandbox_push(&av, d->target);
			sandbox_push(&av, d->path);
		}
	}
	sandbox_push(&av, "--dev");
	sandbox_push(&av, "/dev");
	sandbox_push(&av, "--proc");
	sandbox_push(&av, "/proc");
	for (size_t i = 0; i < 2; i++) {
		if (sb->tmp > 0) {
			sandbox_push(&av, "--size");
			sandbox_pushf(&av, "", sb->tmp);
		}
		sandbox_push(&av, "--tmpfs");
		sandbox_push(&av, i ? "/var/tmp" : "/tmp");
	}
	if (!sb->allow_net)
		sandbox_push(&av, "--unshare-net");
	for (size_t i = 0; i < sb->nhidden; i++) {
		sandbox_push(&av, "--tmpfs");
		sandbox_push(&av, sb->hidden[i]);
	}
	for (size_t i = 0; i < sb->nreadonly; i++) {
		sandbox_push(&av, "--ro-bind");
		sandbox_push(&av, sb->readonly[i]);
		sandbox_push(&av, sb->readonly[i]);
	}
	for (size_t i = 0; i < sb->nwritable; i++) {
		sandbox_push(&av, "--bind");
		sandbox_push(&av, sb->writable[i]);
		sandbox_push(&av, sb->writable[i]);
	}
	if (sb->dir) {
		sandbox_push(&av, "--chdir");
		sandbox_push(&av, sb->dir);
	}
	sandbox_push(&av, "--");
	for (size_t i = 0; cmd[i]; i++)
		sandbox_push(&av, cmd[i]);
	return sandbox_av_finish(&av);
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
