/*
 * console: what a bare-metal machine's console left behind for the job
 * that just booted (kexec backend).
 *
 * A lab machine's serial console goes to a console server (conserver,
 * ipmitool sol, a BMC's log) that appends to a file; [kexec] console-log
 * names that file as this machine sees it (an NFS or 9p mount).  The agent
 * notes the file's size just before the kexec and, when it uploads (from
 * the job kernel, or back in the home kernel after a panic or a power
 * cycle), attaches what was written since: the job kernel's boot, its
 * splat.  pstore records ([kexec] pstore, /sys/fs/pstore: ramoops,
 * efi-pstore), the oops a dying kernel saved in memory that survives a
 * warm reboot, are appended and then removed, as systemd-pstore would.
 * The result is the upload's "console", like the qemu backend's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

/* Room kept for pstore records at the end of the console. */
#define CONSOLE_PSTORE_MAX	(128 * 1024)

long long
console_mark(const struct agent_conf *c)
{
	struct stat st;

	if (c->console_log == NULL || *c->console_log == '\0')
		return -1;
	if (stat(c->console_log, &st) == -1) {
		log_warn("console-log %s", c->console_log);
		return -1;
	}
	return (long long)st.st_size;
}

/* Appends the bytes of path from offset on, at most max (the last max
   bytes when there are more). */
static void
console_read_from(const char *path, long long offset, size_t max,
    struct buf *out)
{
	struct stat st;
	char chunk[65536];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		log_warn("%s", path);
		return;
	}
	if (fstat(fd, &st) == 0) {
		/* rotated or truncated since the mark: all of it */
		if (offset < 0 || offset > (long long)st.st_size)
			offset = 0;
		if ((long long)st.st_size - offset > (long long)max)
			offset = (long long)st.st_size - (long long)max;
	}
	if (lseek(fd, (off_t)offset, SEEK_SET) == -1)
		log_warn("%s", path);
	else
		while (max > 0 && (n = read(fd, chunk, max < sizeof(chunk) ?
		    max : sizeof(chunk))) > 0) {
			buf_add(out, chunk, (size_t)n);
			max -= (size_t)n;
		}
	close(fd);
}

/* Appends every pstore record in dir with a header line, then removes
   it (a record left there would be attached to the next job too). */
static void
console_pstore(const char *dir, struct buf *out)
{
	struct dirent *de;
	DIR *d;

	if (dir == NULL || *dir == '\0' || (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d))) {
		char *p;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		    out->len < PROTO_MAX_CONSOLE) {
			buf_addf(out, "\n==> pstore %s <==\n", de->d_name);
			console_read_from(p, 0, CONSOLE_PSTORE_MAX, out);
			if (unlink(p) == -1)
				log_warn("%s", p);
			else
				log_info("attached and removed %s", p);
		}
		free(p);
	}
	closedir(d);
}

/* JSON strings must be UTF-8 and a dying kernel's bytes may not be:
   printable ASCII, newlines and tabs are kept, the rest replaced. */
static void
console_clean(char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];

		if (ch == '\r')
			p[i] = ' ';
		else if (ch != '\n' && ch != '\t' && (ch < 0x20 || ch >= 0x7f))
			p[i] = '?';
	}
}

char *
console_attach(const struct agent_conf *c, long long mark, json_t *upload)
{
	struct buf con = BUF_INIT(0);
	const char *p;
	char *panic = NULL;
	size_t off = 0;

	if (c->console_log && *c->console_log && mark >= 0)
		console_read_from(c->console_log, mark, PROTO_MAX_CONSOLE -
		    CONSOLE_PSTORE_MAX, &con);
	console_pstore(c->pstore_dir, &con);
	if (con.len == 0) {
		buf_release(&con);
		return NULL;
	}
	if (con.len > PROTO_MAX_CONSOLE)
		off = con.len - PROTO_MAX_CONSOLE;
	console_clean(con.data, con.len);
	json_object_set_new(upload, PROTO_CONSOLE, json_stringn(con.data + off,
	    con.len - off));
	if ((p = memmem(con.data, con.len, "Kernel panic", 12))) {
		size_t n = strcspn(p, "\r\n");

		panic = xstrndup(p, n > 300 ? 300 : n);
	}
	buf_release(&con);
	return panic;
}
