/*
 * sandbox: runs untrusted build commands (a kernel Makefile from a patch can
 * run anything) under bubblewrap: no network, only the system directories
 * (/usr, /etc, /bin, /lib...) read-only plus the paths named here, a
 * private bounded /tmp, nothing else of the host (no /home, /root, /run,
 * /var: no host sockets, no store), the unprivileged uid/gid 65534 (also
 * outside: as root, through setpriv) in a user namespace with no
 * capabilities, its own pid namespace, killed with its parent, and
 * rlimits on tasks, memory and file size.  The wall-clock limit is run.h's
 * timeout, which kills the whole process group.
 */
#ifndef KPERFCI_SANDBOX_H
#define KPERFCI_SANDBOX_H

#include <stddef.h>

/* The unprivileged uid and gid builds run as (outside and inside). */
#define SANDBOX_UID	65534
#define SANDBOX_UID_STR	"65534"
/* Most paths hidden under tmpfs in one sandbox. */
#define SANDBOX_MAX_HIDDEN	8

struct sandbox {
	const char *const *writable;	/* absolute paths bound read-write */
	size_t	 nwritable;
	const char *const *readonly;	/* bound read-only again after the
					   private /tmp, so a build under /tmp
					   still sees them; before writable */
	size_t	 nreadonly;
	const char *dir;		/* working directory inside */
	int	 allow_net;		/* 0 in every build */
	const char *const *hidden;	/* covered by an empty tmpfs before
					   the binds (the daemon's data
					   directory, the build cache) */
	size_t	 nhidden;
	/* Resource limits set (prlimit) before the sandbox starts; 0: none.
	   nproc is RLIMIT_NPROC (tasks of the build user), as RLIMIT_AS
	   (bytes per process), fsize RLIMIT_FSIZE (bytes per file written,
	   logs included), tmp the size of the private /tmp and /var/tmp. */
	long long nproc, as, fsize, tmp;
};

/*
 * Returns a NULL-terminated argv that runs cmd inside the sandbox; the
 * array is malloc'd (free it), its strings are borrowed from sb and cmd.
 * NULL when a path is not absolute or holds a newline.
 */
const char **sandbox_argv(const struct sandbox *sb, const char *const *cmd);

/* 1 when bwrap is installed and can create the sandbox here; cached. */
int	sandbox_works(void);

#endif
