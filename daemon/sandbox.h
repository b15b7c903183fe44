/*
 * sandbox: runs untrusted build commands (a kernel Makefile from a patch can
 * run anything) under bubblewrap: no network, the whole file system
 * read-only except the directories named writable, a private /tmp, the
 * unprivileged uid/gid 65534 (also outside: as root, through setpriv) in
 * a user namespace with no capabilities,
 * its own pid namespace, killed with its parent.  The wall-clock limit is
 * run.h's timeout, which kills the whole process group.
 */
#ifndef KPERFCI_SANDBOX_H
#define KPERFCI_SANDBOX_H

#include <stddef.h>

/* The unprivileged uid and gid builds run as (outside and inside). */
#define SANDBOX_UID	65534
#define SANDBOX_UID_STR	"65534"

struct sandbox {
	const char *const *writable;	/* absolute paths bound read-write */
	size_t	 nwritable;
	const char *const *readonly;	/* bound read-only again after the
					   private /tmp, so a build under /tmp
					   still sees them; before writable */
	size_t	 nreadonly;
	const char *dir;		/* working directory inside */
	int	 allow_net;		/* 0 in every build */
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
