/*
 * t-lava: agents/lava.c on what the real dispatcher wrote: two logs of
 * lava-run 2023.01 (Debian bookworm) booting the reference kernel under
 * TCG on the qemu device of tests/fixtures/lava/ (one passed; one where
 * the guest powered off before LAVA saw its kernel start: Infrastructure),
 * a server's job state, and the job definition's quoting.
 */
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "agents/lava.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

#define FIX KPERFCI_SRCDIR "/tests/fixtures/lava/"

int
main(void)
{
	struct buf b = BUF_INIT(0), y = BUF_INIT(0);
	struct lava_log l;
	struct lava_job_state s;
	struct agent_results ar;
	static const char st[] = "{\"id\": 4, \"state\": \"Finished\", "
	    "\"health\": \"Incomplete\", \"failure_comment\": \"x\"}";
	static const char infra[] = "{\"lvl\":\"results\",\"msg\":{"
	    "\"case\":\"job\",\"definition\":\"lava\",\"result\":\"fail\","
	    "\"error_type\":\"Infrastructure\"}}\n";
	const char *panic;

	buf_read_file(&b, FIX "lava-run-pass.log");
	lava_log_init(&l);
	lava_log_parse(&l, b.data, b.len);
	is_int(l.job_result, 1, "the passed job's result: pass");
	ok(l.ready && !l.panic, "the guest got ready, no panic");
	is_int(lava_log_outcome(&l), LAVA_RAN, "outcome: ran");
	agent_results_init(&ar);
	agent_results_parse(&ar, l.console.data, l.console.len);
	is_int((int)json_array_size(ar.samples), 1,
	    "the guest's sample read back from the console (\\\" undone)");
	ok(ar.topology != NULL && ar.done && ar.done_rc == 0,
	    "its topology and DONE marker");
	agent_results_release(&ar);
	lava_log_release(&l);
	buf_reset(&b);

	buf_read_file(&b, FIX "lava-run-infrastructure.log");
	lava_log_init(&l);
	lava_log_parse(&l, b.data, b.len);
	is_str(l.error_type, "Infrastructure", "error_type read");
	is_int(lava_log_outcome(&l), LAVA_RAN,
	    "an infrastructure error after the guest's END is still a run");
	lava_log_release(&l);

	lava_log_init(&l);
	lava_log_parse(&l, infra, strlen(infra));
	is_int(lava_log_outcome(&l), LAVA_RETRY,
	    "Infrastructure before the guest: retry");
	lava_log_release(&l);
	lava_log_init(&l);
	panic = "- {\"lvl\": \"target\", \"msg\": "
	    "\"KPERFCI READY\"}"
	    "\n- {\"lvl\": \"target\", \"msg\": \"Kernel panic - not syncing\"}"
	    "\ngarbage\n";
	lava_log_parse(&l, panic, strlen(panic));
	is_int(lava_log_outcome(&l), LAVA_BOOT_FAILED,
	    "a kernel panic (server YAML lines): boot-failed");
	is_int((int)l.junk, 1, "garbage counted");
	lava_log_release(&l);

	lava_state_parse(&s, st, strlen(st));
	ok(s.state == LAVA_ST_FINISHED && !strcmp(s.health, "Incomplete"),
	    "job state: Finished, Incomplete");
	lava_state_release(&s);
	lava_state_parse(&s, "[1]", 3);
	is_int(s.state, LAVA_ST_BAD, "garbage state: bad");
	lava_state_release(&s);

	ok(lava_job_yaml(&y, "kperfci-1.1", "qemu", "file:///k/bzImage",
	    "file:///i/it's.cpio", "console=ttyS0 panic=-1", 10) == 0 &&
	    strstr(y.data, "'file:///i/it''s.cpio'") &&
	    strstr(y.data, "prompts: ['KPERFCI END']"),
	    "job definition: quoted urls, the end prompt");
	buf_reset(&y);
	ok(lava_job_yaml(&y, "x\ny", "qemu", "a", "b", "c", 10) == -1,
	    "a name with a newline is refused");
	buf_release(&y);
	buf_release(&b);
	return tap_done();
}
