/*
 * Unit tests for daemon/report_exercise.c and its hooks in report.c: a
 * series whose changed functions never ran is "not exercised" in the
 * headline, every row, the JSON and the text, never "no change"; a
 * significant difference there is "suspicious", not a regression; an
 * exercised series keeps the statistics' verdicts; inlined functions do not
 * count; the environment (THP, mTHP, cmdline, accelerator, fail:runs) and
 * the emulated mark reach all three renderings.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/report.h"
#include "lib/buf.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static unsigned long long lcg = 777;

static double
noise(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(lcg >> 11) / (double)(1ULL << 53)) - 0.5;
}

static void
gen(struct buf *b, double mean)
{
	for (int i = 1; i <= 6; i++)
		for (int k = 1; k <= 3; k++)
			buf_addf(b, "{\"boot\":%d,\"workload\":\"fault-free\","
			    "\"params\":\"mode=shmem\",\"iteration\":%d,"
			    "\"metric\":\"pages_per_sec\",\"value\":%.3f,"
			    "\"unit\":\"pages/s\",\"better\":\"higher\"}\n", i,
			    k, mean * (1 + 0.01 * noise()));
}

static json_t *
changes(void)
{
	return json_loads("{\"files\":[\"mm/mincore.c\"],\"suites\":[{\"suite\":"
	    "\"all\",\"why\":[\"mm/mincore.c\"]}],\"matrix_source\":"
	    "\"etc/workloads.conf (all)\",\"functions\":["
	    "{\"name\":\"sys_mincore\",\"file\":\"mm/mincore.c\",\"symbol\":"
	    "\"__x64_sys_mincore\",\"status\":\"probed\",\"added\":false,"
	    "\"note\":\"system call\"},"
	    "{\"name\":\"mincore_page\",\"file\":\"mm/mincore.c\",\"symbol\":"
	    "\"mincore_page\",\"status\":\"inlined\",\"added\":false,"
	    "\"note\":\"not in System.map\"}]}", 0, NULL);
}

/* Attempts: 6 per side, hits as given, TCG with icount, one splat. */
static json_t *
attempts(long long hits)
{
	json_t *a = json_array();

	for (int i = 0; i < 12; i++)
		json_array_append_new(a, json_pack("{s:s,s:i,s:s,s:[{s:s,s:I}],"
		    "s:{s:s,s:s,s:s,s:s},s:i,s:s}", "side", i % 2 ? "patched" :
		    "base", "boot", i / 2 + 1, "status", "done", "probe_hits",
		    "function", "__x64_sys_mincore", "hits", (json_int_t)hits,
		    "environment", "thp_enabled", "always [madvise] never",
		    "mthp", "16kB:never 64kB:always", "cmdline",
		    "console=ttyS0 panic=-1", "accel",
		    "tcg, icount shift=3,sleep=off", "splats", i == 3 ? 1 : 0,
		    "splat", i == 3 ? "WARNING: CPU: 1 PID: 1 at mm/x.c:1" :
		    ""));
	return a;
}

static void
model(struct report *r, double base, double patched, long long hits)
{
	struct buf bs = BUF_INIT(0), ts = BUF_INIT(0), err = BUF_INIT(256);
	json_t *c = changes(), *a = attempts(hits);

	report_init(r);
	r->series_id = 9;
	r->series_state = xstrdup("done");
	r->series_final = 1;
	r->comparison_id = 4;
	r->state = xstrdup("done");
	r->kernel[0].build_id = 11;
	r->kernel[1].build_id = 12;
	r->side[0].planned = r->side[1].planned = 6;
	r->side[0].done = r->side[1].done = 6;
	gen(&bs, base);
	gen(&ts, patched);
	report_compute(r, bs.data, bs.len, ts.data, ts.len, NULL, &err);
	report_exercise_set(r, c, a);
	json_decref(c);
	json_decref(a);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
}

static void
test_not_exercised(void)
{
	struct report r;
	struct buf html = BUF_INIT(0), txt = BUF_INIT(0);
	char v[128];
	json_t *j;
	char *js;

	model(&r, 1000, 1000, 0);
	is_int(r.ex.state, REPORT_EX_NOT_EXERCISED, "0 calls of the one "
	    "countable function: not exercised");
	is_int(r.ex.ncountable, 1, "the inlined function does not count");
	is_str(report_verdict(&r, v, sizeof(v)), "not exercised",
	    "the headline is not exercised, not no change");
	is_str(report_row_verdict(&r, &r.result.rows[0]), "not exercised",
	    "and so is the row");
	j = report_json(&r);
	is_str(json_string_value(json_object_get(j, "verdict")),
	    "not exercised", "JSON verdict");
	is_str(json_string_value(json_object_get(json_array_get(
	    json_object_get(j, "rows"), 0), "verdict")), "not exercised",
	    "JSON row verdict");
	is_str(json_string_value(json_object_get(json_array_get(
	    json_object_get(j, "rows"), 0), "stats_verdict")), "no change",
	    "JSON keeps the statistics' verdict apart");
	is_str(json_string_value(json_object_get(j, "exercised")),
	    "not exercised", "JSON exercised");
	ok(json_integer_value(json_object_get(json_object_get(json_array_get(
	    json_object_get(json_object_get(j, "changes"), "functions"), 0),
	    "patched"), "hits")) == 0 && json_is_null(json_object_get(
	    json_object_get(json_array_get(json_object_get(json_object_get(j,
	    "changes"), "functions"), 1), "patched"), "hits")),
	    "JSON: 0 hits for the probed function, null for the inlined one");
	ok(json_is_true(json_object_get(json_object_get(j, "environment"),
	    "emulated")), "JSON: emulated");
	is_int(json_integer_value(json_object_get(json_object_get(
	    json_object_get(json_object_get(j, "environment"), "splats"),
	    "patched"), "fail")), 1, "JSON: patched fail:runs 1:6");
	js = json_dumps(j, 0);
	ok(strstr(js, "no change\"") == NULL || strstr(js,
	    "\"stats_verdict\": \"no change\""), "JSON says no change only "
	    "as the statistics' verdict");
	free(js);
	json_decref(j);
	report_text(&r, NULL, &txt);
	ok(strstr(txt.data, "kperfci result for series 9: not exercised\n") !=
	    NULL, "text headline");
	ok(strstr(txt.data, "no change") == NULL, "the text never says no "
	    "change");
	ok(strstr(txt.data, "sys_mincore (mm/mincore.c): probed; base 0 in 6 "
	    "boots, patched 0 in 6 boots") != NULL, "text: the function and "
	    "its calls per side");
	ok(strstr(txt.data, "mincore_page (mm/mincore.c): inlined: not "
	    "countable") != NULL, "text: the inlined function");
	ok(strstr(txt.data, "mm/mincore.c -> all") != NULL, "text: which "
	    "suites ran and why");
	ok(strstr(txt.data, "THP:      always [madvise] never") &&
	    strstr(txt.data, "mTHP:     16kB:never 64kB:always") &&
	    strstr(txt.data, "cmdline:  console=ttyS0 panic=-1") &&
	    strstr(txt.data, "config:   patched /api/v1/builds/12/config"),
	    "text: THP, mTHP, cmdline, config link");
	ok(strstr(txt.data, "patched   WARN/BUG/lockdep fail:runs 1:6  first: "
	    "WARNING: CPU: 1") != NULL, "text: fail:runs with the first splat");
	ok(strstr(txt.data, "emulated: TCG with icount") != NULL &&
	    strstr(txt.data, "[emulated]") != NULL, "text: the emulated mark");
	report_html(&r, &html);
	ok(strstr(html.data, "Verdict: <strong>not exercised</strong>") !=
	    NULL, "page headline");
	ok(strstr(html.data, "verdict-notexercised") != NULL, "page class");
	ok(strstr(html.data, "Not exercised: none of the 1 changed function")
	    != NULL, "page explains the verdict");
	ok(strstr(html.data, "inlined: not countable") != NULL,
	    "page says how inlined functions are handled");
	ok(strstr(html.data, "no change") == NULL, "the page never says no "
	    "change");
	report_release(&r);
	buf_release(&html);
	buf_release(&txt);
}

static void
test_suspicious(void)
{
	struct report r;
	struct buf txt = BUF_INIT(0);
	char v[128];

	model(&r, 1000, 900, 0);
	ok(r.result.rows[0].verdict == STATS_REGRESSION, "the statistics see "
	    "a -10%% difference");
	is_str(report_verdict(&r, v, sizeof(v)), "not exercised",
	    "but nothing changed ran: not a regression");
	report_text(&r, NULL, &txt);
	ok(strstr(txt.data, "Suspicious (significant, but none of the "
	    "changed functions ran)") != NULL, "listed as suspicious");
	ok(strstr(txt.data, "% regression of") == NULL,
	    "not called a regression");
	report_release(&r);
	buf_release(&txt);
}

static void
test_exercised(void)
{
	struct report r;
	char v[128];
	json_t *j;

	model(&r, 1000, 900, 4096);
	is_int(r.ex.state, REPORT_EX_EXERCISED, "calls counted: exercised");
	is_str(report_verdict(&r, v, sizeof(v)), "regression",
	    "the statistics' verdict stands");
	j = report_json(&r);
	is_str(json_string_value(json_object_get(j, "exercised")),
	    "exercised", "JSON exercised");
	is_int(json_integer_value(json_object_get(json_object_get(
	    json_array_get(json_object_get(json_object_get(j, "changes"),
	    "functions"), 0), "patched"), "hits")), 6 * 4096,
	    "JSON: patched hits summed over boots");
	json_decref(j);
	report_release(&r);
}

static void
test_uncountable(void)
{
	struct report r;
	json_t *c = json_loads("{\"functions\":[{\"name\":\"f\",\"file\":"
	    "\"mm/internal.h\",\"symbol\":\"f\",\"status\":\"inlined\"}]}", 0,
	    NULL), *a = json_array();
	char v[128];

	report_init(&r);
	r.series_state = xstrdup("done");
	r.series_final = 1;
	r.state = xstrdup("done");
	report_exercise_set(&r, c, a);
	is_int(r.ex.state, REPORT_EX_UNCOUNTABLE, "only inlined: not countable");
	ok(strcmp(report_verdict(&r, v, sizeof(v)), "not exercised"),
	    "not countable is not not-exercised");
	json_decref(c);
	json_decref(a);
	report_release(&r);
}

int
main(void)
{
	test_not_exercised();
	test_suspicious();
	test_exercised();
	test_uncountable();
	return tap_done();
}
