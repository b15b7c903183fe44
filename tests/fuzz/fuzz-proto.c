/*
 * fuzz-proto: everything the agent protocol parses from outside -- the
 * messages both sides check against lib/proto.h, the text a guest prints on
 * its results port (agent_results_parse) and agent.conf.  The first byte
 * picks the parser; the rest is the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "lib/proto.h"
#include "lib/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT(1 << 16);
	struct agent_results r;
	struct agent_conf c;
	char *text;
	json_t *o;

	if (size < 1)
		return 0;
	text = xstrndup((const char *)data + 1, size - 1);
	switch (data[0] % 3) {
	case 0:
		o = json_loadb((const char *)data + 1, size - 1, 0, NULL);
		if (o) {
			proto_check_register(o, &err);
			buf_reset(&err);
			proto_check_job(o, &err);
			buf_reset(&err);
			proto_check_heartbeat(o, &err);
			buf_reset(&err);
			proto_check_release(o, &err);
			buf_reset(&err);
			proto_check_upload(o, &err);
			json_decref(o);
		}
		break;
	case 1:
		agent_results_init(&r);
		agent_results_parse(&r, (const char *)data + 1, size - 1);
		if (r.topology) {
			buf_reset(&err);
			proto_check(r.topology, proto_topology, "", &err);
		}
		/* What the agent uploads from any guest output (probe hits,
		   environment) must pass the daemon's checks. */
		o = json_pack("{s:s,s:i,s:s,s:[]}", PROTO_AGENT, "f",
		    PROTO_ATTEMPT, 1, PROTO_STATUS, PROTO_ST_DONE,
		    PROTO_SAMPLES);
		{
			json_t *pr = json_pack("[sss]", "folio_batch_move_lru",
			    "b", "__x64_sys_mincore");

			probe_upload(pr, &r, "tcg", o);
			buf_reset(&err);
			if (proto_check_upload(o, &err) != 0)
				abort();
			json_decref(pr);
		}
		json_decref(o);
		agent_results_release(&r);
		break;
	case 2:
		agent_conf_defaults(&c);
		agent_conf_parse(&c, "fuzz", text, &err);
		agent_conf_release(&c);
		break;
	}
	free(text);
	buf_release(&err);
	return 0;
}
