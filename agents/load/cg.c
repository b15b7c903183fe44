/* cg: cgroup v2 groups under <mount>/kperfci (see cg.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "agents/load/cg.h"
#include "agents/load/util.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC		0x01021994
#endif

static const char *cg_mnt = "/sys/fs/cgroup";
static char cg_home[PATH_MAX];		/* where this process started */
static int cg_ready;
static unsigned cg_seq;

const char *
cg_mount(void)
{
	return cg_mnt;
}

static int
cg_is_v2(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* An empty directory (or one only sysfs made) is a place we may mount on;
   anything else (v1 hierarchies, a tmpfs full of controllers) is not. */
static int
cg_try_mount(const char *why)
{
	struct statfs sf;
	char probe[PATH_MAX];

	if (statfs(cg_mnt, &sf) < 0)
		return load_err("cgroup v2 is not available: %s does not exist (%s needs a memory cgroup)",
		    cg_mnt, why);
	snprintf(probe, sizeof(probe), "%s/memory", cg_mnt);
	if (sf.f_type == TMPFS_MAGIC || access(probe, F_OK) == 0)
		return load_err("cgroup v2 is not available: %s is a cgroup v1 hierarchy (%s needs a cgroup v2 memory controller)",
		    cg_mnt, why);
	if (mount("cgroup2", cg_mnt, "cgroup2", 0, NULL) < 0)
		return load_err("cgroup v2 is not available: cannot mount cgroup2 on %s: %s (%s needs a memory cgroup)",
		    cg_mnt, strerror(errno), why);
	return 0;
}

static int
cg_find_home(void)
{
	char line[PATH_MAX - 64], *text, *p;

	text = load_read_all("/proc/self/cgroup", 1 << 16, NULL);
	if (!text)
		return load_err("cannot read /proc/self/cgroup: %s", strerror(errno));
	p = strstr(text, "0::");
	if (!p || (p != text && p[-1] != '\n')) {
		free(text);
		return load_err("cgroup v2 is not available: this process is in no cgroup v2 group");
	}
	p += 3;
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
	snprintf(cg_home, sizeof(cg_home), "%s%s", cg_mnt,
	    strcmp(line, "/") == 0 ? "" : line);
	free(text);
	return 0;
}

static int
cg_enable_in(const char *dir, const char *why)
{
	char path[PATH_MAX], ctl[512];

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if (load_read_small(path, ctl, sizeof(ctl)) == 0 && strstr(ctl, "memory"))
		return 0;
	if (load_write_str(path, "+memory") < 0) {
		snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
		if (load_read_small(path, ctl, sizeof(ctl)) == 0 &&
		    !strstr(ctl, "memory"))
			return load_err("cgroup v2 has no memory controller in %s (%s needs one; is CONFIG_MEMCG set, or is memory bound to a v1 hierarchy?)",
			    dir, why);
		return load_err("cannot enable +memory in %s/cgroup.subtree_control: %s",
		    dir, strerror(errno));
	}
	return 0;
}

int
cg_setup(const char *why)
{
	char top[PATH_MAX];

	if (cg_ready)
		return 0;
	if (!cg_is_v2(cg_mnt) && cg_try_mount(why) < 0)
		return -1;
	if (cg_find_home() < 0)
		return -1;
	if (cg_enable_in(cg_mnt, why) < 0)
		return -1;
	snprintf(top, sizeof(top), "%s/kperfci", cg_mnt);
	if (mkdir(top, 0755) < 0 && errno != EEXIST)
		return load_err("cannot create %s: %s", top, strerror(errno));
	if (cg_enable_in(top, why) < 0)
		return -1;
	cg_ready = 1;
	return 0;
}

int
cg_create(struct cg *c, const struct cg *parent, const char *name)
{
	char base[PATH_MAX];

	if (parent)
		snprintf(base, sizeof(base), "%s", parent->path);
	else
		snprintf(base, sizeof(base), "%s/kperfci", cg_mnt);
	snprintf(c->path, sizeof(c->path), "%.3900s/%.64s-%d-%u", base, name,
	    (int)getpid(), cg_seq++);
	if (mkdir(c->path, 0755) < 0)
		return load_err("cannot create cgroup %s: %s", c->path,
		    strerror(errno));
	return 0;
}

int
cg_enable_memory(struct cg *c)
{
	return cg_enable_in(c->path, "a nested memory cgroup");
}

int
cg_set(struct cg *c, const char *file, const char *value)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", c->path, file);
	if (load_write_str(path, value) < 0)
		return load_err("cannot write \"%s\" to %s: %s", value, path,
		    strerror(errno));
	return 0;
}

int
cg_get(struct cg *c, const char *file, const char *key, long long *out)
{
	char path[PATH_MAX + 64], *text, *p;
	size_t klen;

	snprintf(path, sizeof(path), "%s/%s", c->path, file);
	text = load_read_all(path, 1 << 20, NULL);
	if (!text)
		return load_err("cannot read %s: %s", path, strerror(errno));
	p = text;
	if (key) {
		klen = strlen(key);
		for (;;) {
			if (strncmp(p, key, klen) == 0 && p[klen] == ' ')
				break;
			p = strchr(p, '\n');
			if (!p) {
				free(text);
				return load_err("%s has no key %s", path, key);
			}
			p++;
		}
		p += klen + 1;
	}
	*out = strtoll(p, NULL, 10);
	free(text);
	return 0;
}

static int
cg_write_pid(const char *dir, pid_t pid)
{
	char path[PATH_MAX + 32], num[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(num, sizeof(num), "%d", (int)(pid ? pid : getpid()));
	if (load_write_str(path, num) < 0)
		return load_err("cannot move pid %s into %s: %s", num, dir,
		    strerror(errno));
	return 0;
}

int
cg_add_proc(struct cg *c, pid_t pid)
{
	return cg_write_pid(c->path, pid);
}

int
cg_leave(void)
{
	return cg_write_pid(cg_home[0] ? cg_home : cg_mnt, 0);
}

int
cg_destroy(struct cg *c)
{
	int i;

	if (!c->path[0])
		return 0;
	/* tasks that just exited may still be counted for a moment */
	for (i = 0; i < 200; i++) {
		if (rmdir(c->path) == 0 || errno == ENOENT) {
			c->path[0] = '\0';
			return 0;
		}
		if (errno != EBUSY)
			break;
		usleep(10000);
	}
	return load_err("cannot remove cgroup %s: %s", c->path, strerror(errno));
}
