/*
 * fuzz-lava: LAVA's answers as the LAVA backend reads them (agents/lava.c,
 * agents/lava_run.c): a job log (lava-run's output, the server's logs/
 * YAML lines), a job state object (api/v0.2/jobs/ID/), and a submission's
 * answer or error message (POST api/v0.2/jobs/).  The first byte picks
 * which (bit 0: a log; else bit 1: a submission's answer); for a log,
 * bit 1 also reads the console LAVA kept the way lava_run.c does
 * (agent_results_parse: the guest's markers and samples) and turns it
 * into an upload (guest_upload), as for a job.
 */
#include <stddef.h>
#include <stdint.h>

#include "agents/agent.h"
#include "agents/lava.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_console(const struct lava_log *l)
{
	static struct agent_conf c;
	static int conf_done;
	struct agent_results ar;
	struct guest_run g;
	json_t *job = json_pack("{s:i,s:i}", "id", 1, "attempt", 1);
	json_t *up = json_object();

	if (!conf_done) {
		agent_conf_defaults(&c);
		conf_done = 1;
	}
	guest_init(&g, &c, job, "lava-run", NULL);
	agent_results_init(&ar);
	agent_results_parse(&ar, l->console.data ? l->console.data : "",
	    l->console.len);
	guest_upload(&g, job, "fuzz", &ar, &l->console, up);
	agent_results_release(&ar);
	json_decref(up);
	json_decref(job);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1) {
		struct lava_log l;

		lava_log_init(&l);
		lava_log_parse(&l, (const char *)data + 1, size - 1);
		(void)lava_log_outcome(&l);
		if (data[0] & 2)
			fuzz_console(&l);
		lava_log_release(&l);
	} else if (data[0] & 2) {
		char msg[256];

		(void)lava_submit_parse((const char *)data + 1, size - 1);
		lava_message_parse((const char *)data + 1, size - 1, msg,
		    sizeof(msg));
	} else {
		struct lava_job_state s;

		lava_state_parse(&s, (const char *)data + 1, size - 1);
		lava_state_release(&s);
	}
	return 0;
}
