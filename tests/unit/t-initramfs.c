/*
 * t-initramfs: our cpio "newc" writer, read back by GNU cpio (the real
 * reader next to the kernel's own): names, types, modes, device numbers,
 * file contents and symlink targets; alignment and the trailer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/run.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-initramfs.XXXXXX";

int
main(void)
{
	struct initramfs fs;
	struct buf out = BUF_INIT(1 << 20), got = BUF_INIT(1 << 20);
	char *arch, *x, *host, *lnk;
	char target[64];
	ssize_t n;
	struct stat st;

	if (mkdtemp(dir) == NULL)
		return 1;
	arch = xasprintf("%s/a.cpio", dir);
	x = xasprintf("%s/x", dir);
	host = xasprintf("%s/hostfile", dir);
	buf_write_file(host, "host bytes\n", 11);
	chmod(host, 0750);

	initramfs_init(&fs);
	initramfs_dir(&fs, "/bin", 0755);
	initramfs_dir(&fs, "dev", 0755);
	initramfs_chardev(&fs, "dev/console", 0600, 5, 1);
	initramfs_file(&fs, "init", 0755, "#!/bin/sh\necho hi\n", 18);
	initramfs_file(&fs, "empty", 0644, "", 0);
	initramfs_file(&fs, "odd", 0600, "abc", 3);	/* needs padding */
	initramfs_copy(&fs, "bin/tool", host, 0);
	initramfs_symlink(&fs, "bin/sh", "tool");
	ok(initramfs_finish(&fs) == 0, "archive finished");
	ok(fs.out.len % 512 == 0, "padded to 512 bytes (%zu)", fs.out.len);
	ok(memcmp(fs.out.data, "070701", 6) == 0, "newc magic");
	ok(memmem(fs.out.data, fs.out.len, "TRAILER!!!", 11) != NULL,
	    "trailer present");
	buf_write_file(arch, fs.out.data, fs.out.len);

	{
		const char *argv[] = { "cpio", "-itv", "--quiet", NULL };
		struct run r = { .argv = argv, .stdin_path = arch,
		    .timeout_sec = 30 };

		ok(run_capture(&r, &out) == 0, "cpio -t reads it (%s)",
		    run_status(&r));
	}
	ok(out.data && strstr(out.data, "drwxr-xr-x"), "directory listed");
	ok(out.data && strstr(out.data, "crw-------") &&
	    strstr(out.data, "5,") && strstr(out.data, "dev/console"),
	    "char device 5,1 listed");
	ok(out.data && strstr(out.data, "-rwxr-x---") &&
	    strstr(out.data, "bin/tool"), "copied file keeps its host mode");
	ok(out.data && strstr(out.data, "bin/sh -> tool"), "symlink listed");
	ok(out.data && !strstr(out.data, " /bin"), "names are relative");

	mkdir(x, 0755);
	{
		const char *argv[] = { "cpio", "-id", "--quiet",
		    "--no-absolute-filenames", "init", "empty", "odd", "bin/*",
		    NULL };
		struct run r = { .argv = argv, .stdin_path = arch, .dir = x,
		    .timeout_sec = 30 };

		ok(run_cmd(&r) == 0, "cpio -i extracts (%s)", run_status(&r));
	}
	lnk = xasprintf("%s/init", x);
	ok(buf_read_file(&got, lnk) == 0 && strcmp(got.data,
	    "#!/bin/sh\necho hi\n") == 0, "init content");
	ok(stat(lnk, &st) == 0 && (st.st_mode & 0777) == 0755, "init mode");
	free(lnk);
	buf_reset(&got);
	lnk = xasprintf("%s/odd", x);
	ok(buf_read_file(&got, lnk) == 0 && got.len == 3 &&
	    memcmp(got.data, "abc", 3) == 0, "unaligned file content");
	free(lnk);
	buf_reset(&got);
	lnk = xasprintf("%s/bin/tool", x);
	ok(buf_read_file(&got, lnk) == 0 && strcmp(got.data, "host bytes\n")
	    == 0, "copied file content");
	free(lnk);
	lnk = xasprintf("%s/bin/sh", x);
	n = readlink(lnk, target, sizeof(target) - 1);
	ok(n == 4 && memcmp(target, "tool", 4) == 0, "symlink target");
	free(lnk);
	lnk = xasprintf("%s/empty", x);
	ok(stat(lnk, &st) == 0 && st.st_size == 0, "empty file");
	free(lnk);

	initramfs_release(&fs);
	initramfs_init(&fs);
	ok(initramfs_file(&fs, "/", 0644, "", 0) == -1, "empty name refused");
	ok(initramfs_copy(&fs, "x", "/nonexistent/file", 0) == -1,
	    "missing host file refused");
	ok(initramfs_finish(&fs) == -1, "an archive with errors fails");
	initramfs_release(&fs);

	buf_release(&out);
	buf_release(&got);
	free(host);
	free(arch);
	lnk = xasprintf("rm -rf %s", dir);
	if (system(lnk) != 0)
		printf("# could not remove %s\n", dir);
	free(lnk);
	free(x);
	return tap_done();
}
