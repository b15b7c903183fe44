/* t-load-sample: JSON line encoding, escaping and canonical params. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/sample.h"
#include "agents/load/util.h"
#include "tests/unit/tap.h"

static char *
enc(const char *s)
{
	static char out[512];
	struct sample_json j;

	sample_json_init(&j);
	sample_json_str(&j, s);
	snprintf(out, sizeof(out), "%s", j.data);
	sample_json_release(&j);
	return out;
}

static char *
num(double v)
{
	static char out[64];
	struct sample_json j;

	sample_json_init(&j);
	sample_json_num(&j, v);
	snprintf(out, sizeof(out), "%s", j.data);
	sample_json_release(&j);
	return out;
}

int
main(void)
{
	const char *k[] = { "tasks", "mode", "a" }, *v[] = { "4", "shmem", "x" };
	char *p, *buf = NULL;
	size_t len = 0;
	FILE *f;

	is_str(enc("plain"), "\"plain\"", "plain string");
	is_str(enc("a\"b\\c"), "\"a\\\"b\\\\c\"", "quote and backslash");
	is_str(enc("l1\nl2\tx\r"), "\"l1\\nl2\\tx\\r\"", "newline, tab, CR");
	is_str(enc("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"", "control characters");
	is_str(enc("caf\xc3\xa9"), "\"caf\xc3\xa9\"", "valid UTF-8 passes");
	is_str(enc("bad\xff\xc3"), "\"bad\\ufffd\\ufffd\"", "invalid UTF-8 replaced");
	is_str(enc("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"", "UTF-16 surrogate refused");
	is_str(enc("\xc0\xaf"), "\"\\ufffd\\ufffd\"", "overlong encoding refused");
	is_str(enc(""), "\"\"", "empty string");
	is_str(num(3), "3.0", "integral value keeps a decimal point");
	is_str(num(123456.7), "123456.7", "fraction");
	is_str(num(1.0 / 0.0), "null", "infinity is null");
	is_str(num(0.0 / 0.0), "null", "NaN is null");

	p = sample_params(k, v, 3);
	is_str(p, "a=x,mode=shmem,tasks=4", "params sorted by key");
	free(p);
	p = sample_params(k, v, 0);
	is_str(p, "", "no params");
	free(p);

	f = open_memstream(&buf, &len);
	sample_set_output(f);
	sample_emit("fault-free", "mode=shmem,tasks=4", 3, "pages_per_sec",
	    123456.7, "pages/s", 1);
	sample_emit_error("bad \"x\"\n", NULL, NULL);
	sample_emit_error("e", "w", "k=v");
	fflush(f);
	is_str(buf,
	    "{\"workload\":\"fault-free\",\"params\":\"mode=shmem,tasks=4\",\"iteration\":3,"
	    "\"metric\":\"pages_per_sec\",\"value\":123456.7,\"unit\":\"pages/s\",\"better\":\"higher\"}\n"
	    "{\"error\":\"bad \\\"x\\\"\\n\"}\n"
	    "{\"error\":\"e\",\"workload\":\"w\",\"params\":\"k=v\"}\n",
	    "sample and error lines in the documented shape");
	sample_set_output(NULL);
	fclose(f);
	free(buf);
	return tap_done();
}
