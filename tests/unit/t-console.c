/*
 * t-console: what the kexec backend attaches as a real machine's console
 * (agents/console.c): the part of the console server's log written after
 * the mark, the pstore records (attached once, then removed), the panic
 * line, bytes a dying kernel sent that are not UTF-8, a log rotated since
 * the mark, and nothing at all when there is neither.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/buf.h"
#include "lib/proto.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static char tmp[] = "/tmp/t-console.XXXXXX";

static void
put(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const char *
console(const json_t *up)
{
	const char *s = json_string_value(json_object_get(up, PROTO_CONSOLE));

	return s ? s : "";
}

int
main(void)
{
	struct agent_conf c;
	char *log, *ps, *rec, *panic, *cmd;
	long long mark;
	json_t *up;

	if (mkdtemp(tmp) == NULL)
		return 1;
	agent_conf_defaults(&c);
	log = xasprintf("%s/serial.log", tmp);
	ps = xasprintf("%s/pstore", tmp);
	rec = xasprintf("%s/dmesg-ramoops-0", ps);
	free(c.console_log);
	c.console_log = xstrdup(log);
	free(c.pstore_dir);
	c.pstore_dir = xstrdup(ps);

	/* no log yet, no pstore: nothing */
	is_int(console_mark(&c), -1, "no console log: no mark");
	up = json_object();
	ok(console_attach(&c, -1, up) == NULL && !json_object_get(up,
	    PROTO_CONSOLE), "nothing to attach: no console field");
	json_decref(up);

	/* the home kernel's boot, then the mark, then the job kernel's */
	put(log, "[    0.0] Linux version home\nlogin:\n", "w");
	mark = console_mark(&c);
	is_int(mark, 36, "the mark is the log's size");
	put(log, "[    0.0] Linux version job\n[    1.2] Kernel panic - not "
	    "syncing: VFS: Unable to mount root fs\x01\xff\n", "a");
	mkdir(ps, 0755);
	put(rec, "Oops#1 Part1\nRIP: mount_root\n", "w");
	up = json_object();
	panic = console_attach(&c, mark, up);
	is_str(panic ? panic : "", "Kernel panic - not syncing: VFS: Unable to "
	    "mount root fs??", "the panic line (bytes not UTF-8 replaced)");
	ok(strstr(console(up), "Linux version job") &&
	    !strstr(console(up), "Linux version home"),
	    "only what the job kernel wrote");
	ok(strstr(console(up), "\n==> pstore dmesg-ramoops-0 <==\nOops#1 Part1\n"),
	    "the pstore record, with its name");
	ok(access(rec, F_OK) == -1, "the pstore record is removed");
	free(panic);
	json_decref(up);

	/* rotated since the mark (smaller now): all of it */
	put(log, "rotated\n", "w");
	up = json_object();
	free(console_attach(&c, mark, up));
	is_str(console(up), "rotated\n", "a log smaller than the mark: all of it");
	json_decref(up);

	/* pstore off, log past the console limit: its last PROTO_MAX_CONSOLE
	   bytes at most */
	free(c.pstore_dir);
	c.pstore_dir = xstrdup("");
	{
		FILE *f = fopen(log, "w");

		for (int i = 0; f && i < 40000; i++)
			fputs("0123456789012345678901234567890123456789\n", f);
		if (f)
			fputs("the end\n", f);
		if (f)
			fclose(f);
	}
	up = json_object();
	free(console_attach(&c, 0, up));
	ok(strlen(console(up)) <= PROTO_MAX_CONSOLE &&
	    strstr(console(up), "the end\n"), "a long log: its end, within "
	    "PROTO_MAX_CONSOLE");
	json_decref(up);

	agent_conf_release(&c);
	free(log);
	free(ps);
	free(rec);
	cmd = xasprintf("rm -rf %s", tmp);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmp);
	free(cmd);
	return tap_done();
}
