/* Unit tests for lib/buf.c and lib/run.c. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/run.h"
#include "tests/unit/tap.h"

static void
test_buf_limit(void)
{
	struct buf b = BUF_INIT(8);

	ok(buf_addstr(&b, "1234") == 0, "append under the limit");
	ok(buf_addstr(&b, "5678") == 0, "append up to the limit");
	ok(buf_addstr(&b, "9") == -1, "append past the limit fails");
	ok(b.overflow, "overflow is flagged");
	is_str(b.data, "12345678", "content unchanged by failed append");
	buf_release(&b);
	ok(buf_addf(&b, "%d-%s", 42, "x") == 0 && strcmp(b.data, "42-x") == 0,
	    "buf_addf formats");
	buf_release(&b);
}

#define WF_THREADS 8
#define WF_ROUNDS 200

static char wf_path[256];
static char wf_data[8192];

static void *
wf_writer(void *arg)
{
	intptr_t fails = 0;

	(void)arg;
	for (int i = 0; i < WF_ROUNDS; i++)
		fails += buf_write_file(wf_path, wf_data, sizeof(wf_data)) != 0;
	return (void *)fails;
}

/* Threads of one process writing one path (two series publishing the same
   kernel): each write succeeds, and the file is always one whole copy. */
static void
test_write_file_threads(void)
{
	char dir[] = "/tmp/t-buf.XXXXXX";
	pthread_t th[WF_THREADS];
	intptr_t fails = 0;
	struct buf b = BUF_INIT(1 << 20);
	struct stat st;
	struct dirent *e;
	DIR *d;
	int left = 0;
	void *r;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(wf_path, sizeof(wf_path), "%s/kernel", dir);
	for (size_t i = 0; i < sizeof(wf_data); i++)
		wf_data[i] = (char)('a' + i % 26);
	for (int i = 0; i < WF_THREADS; i++)
		pthread_create(&th[i], NULL, wf_writer, NULL);
	for (int i = 0; i < WF_THREADS; i++) {
		pthread_join(th[i], &r);
		fails += (intptr_t)r;
	}
	is_int((int)fails, 0, "%d threads x %d writes of one path: none fails",
	    WF_THREADS, WF_ROUNDS);
	ok(buf_read_file(&b, wf_path) == 0 && b.len == sizeof(wf_data) &&
	    memcmp(b.data, wf_data, b.len) == 0, "the file is one whole copy");
	ok(stat(wf_path, &st) == 0 && (st.st_mode & 0777) == 0644,
	    "mode 0644 (a sandboxed build reads what the daemon writes)");
	if ((d = opendir(dir))) {
		while ((e = readdir(d)))
			left += e->d_name[0] != '.';
		closedir(d);
	}
	is_int(left, 1, "no temporary file is left behind");
	ok(buf_write_file("/nonexistent/dir/x", "x", 1) == -1 &&
	    errno == ENOENT, "a missing directory: -1 with errno ENOENT");
	buf_release(&b);
	unlink(wf_path);
	rmdir(dir);
}

static void
test_run(void)
{
	const char *echo[] = { "sh", "-c", "echo hello; echo err >&2", NULL };
	const char *slow[] = { "sleep", "30", NULL };
	const char *fail[] = { "false", NULL };
	const char *nosuch[] = { "/nonexistent/prog", NULL };
	struct run r = { 0 };
	struct buf out = BUF_INIT(1024);

	r.argv = echo;
	ok(run_capture(&r, &out) == 0, "run_capture succeeds");
	is_str(out.data, "hello\n", "stdout captured, stderr not");
	buf_release(&out);

	memset(&r, 0, sizeof(r));
	r.argv = slow;
	r.timeout_sec = 1;
	ok(run_cmd(&r) == -1 && r.timed_out, "timeout kills the child");
	is_str(run_status(&r), "timed out after 1 s", "status says timeout");

	memset(&r, 0, sizeof(r));
	r.argv = fail;
	ok(run_cmd(&r) == -1 && r.exit_code == 1, "exit code recorded");

	memset(&r, 0, sizeof(r));
	r.argv = nosuch;
	ok(run_cmd(&r) == -1 && r.exit_code == 127, "missing program: 127");
}

int
main(void)
{
	test_buf_limit();
	test_write_file_threads();
	test_run();
	return tap_done();
}
