/* Unit tests for lib/buf.c and lib/run.c. */
#include <stdlib.h>
#include <string.h>

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
	test_run();
	return tap_done();
}
