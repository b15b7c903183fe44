/*
 * cg: fresh cgroup v2 groups for one run.  Everything lives under
 * <mount>/kperfci/ (mount is /sys/fs/cgroup): cg_setup() makes sure cgroup2
 * is mounted there (mounting it itself in a bare initramfs where nothing is
 * mounted yet), enables +memory in the root's and kperfci/'s
 * subtree_control, and remembers which group this process started in.
 * Groups are named "<name>-<pid>-<seq>", so two runs never share one.
 *
 * Threads of one process share one memcg: a threaded workload moves its
 * whole process (cgroup.procs) into the group, runs, and cg_leave() moves
 * it back before the group is removed.
 *
 * On a host whose /sys/fs/cgroup is cgroup v1 (like the development machine)
 * cg_setup() fails with a message that says cgroup v2 is not available.
 */
#ifndef KPERFCI_LOAD_CG_H
#define KPERFCI_LOAD_CG_H

#include <limits.h>
#include <sys/types.h>

struct cg {
	char	 path[PATH_MAX];
};

/* why: names the workload in the error message. */
int	 cg_setup(const char *why);
/* A new group under kperfci/ (parent NULL) or under parent. */
int	 cg_create(struct cg *, const struct cg *parent, const char *name);
/* Enables +memory for the group's children (for nested groups). */
int	 cg_enable_memory(struct cg *);
int	 cg_set(struct cg *, const char *file, const char *value);
/* Reads a numeric key from a flat-keyed file (memory.stat) or a single
   value file (memory.current) when key is NULL. */
int	 cg_get(struct cg *, const char *file, const char *key, long long *out);
int	 cg_add_proc(struct cg *, pid_t pid);	/* 0: this process */
/* Moves this process back to where it started. */
int	 cg_leave(void);
/* Removes the group (retrying briefly while exiting tasks drain). */
int	 cg_destroy(struct cg *);
/* The cgroup2 mount point in use ("/sys/fs/cgroup"). */
const char *cg_mount(void);

#endif
