/*
 * Unit tests for daemon/report.c: the result page section, the comparison
 * JSON and the text report, rendered from constructed models.  The rows
 * come from the real stats_compare over generated samples (a clear
 * regression, no change, hostile names, empty sides, one boot), or are
 * built by hand where stats would refuse the input (control bytes, NaN).
 * Last, report_load on a real store: a comparison made by the scheduler,
 * leased and uploaded the way agents do (one boot panics), read back
 * through report_load and the routes.
 */
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/agent.h"
#include "daemon/app.h"
#include "daemon/db.h"
#include "daemon/db_agent.h"
#include "daemon/http.h"
#include "daemon/pipeline.h"
#include "daemon/report.h"
#include "daemon/report_mail.h"
#include "daemon/sched.h"
#include "lib/buf.h"
#include "lib/proto.h"
#include "lib/run.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

/* A deterministic noise source (the test must not depend on rand()). */
static unsigned long long lcg = 12345;

static double
noise(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(lcg >> 11) / (double)(1ULL << 53)) - 0.5;
}

/* JSON lines: boots x iterations of (workload, params, metric) around mean
   with +-pct% noise. */
static void
gen(struct buf *b, const char *workload, const char *params,
    const char *metric, const char *unit, const char *better, int boots,
    int iters, double mean, double pct)
{
	int i, k;

	for (i = 1; i <= boots; i++) {
		double bm = mean * (1 + pct / 100 * noise());

		for (k = 1; k <= iters; k++)
			buf_addf(b, "{\"boot\":%d,\"workload\":\"%s\","
			    "\"params\":\"%s\",\"iteration\":%d,\"metric\":"
			    "\"%s\",\"value\":%.3f,\"unit\":\"%s\","
			    "\"better\":\"%s\"}\n", i, workload, params, k,
			    metric, bm * (1 + pct / 200 * noise()), unit,
			    better);
	}
}

static int
no_nonfinite(const char *s)
{
	return !strstr(s, "nan") && !strstr(s, "NaN") && !strstr(s, "inf");
}

static int
no_control(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') ||
		    *s == 0x7f)
			return 0;
	return 1;
}

static void
model(struct report *r)
{
	report_init(r);
	r->series_id = 7;
	r->series_state = xstrdup("done");
	r->series_final = 1;
	r->subject = xstrdup("[PATCH 0/1] mm/swap: calibration regression");
	r->author = xstrdup("kperfci calibration");
	r->source = xstrdup("http://127.0.0.1:1/test/x@y/");
	r->version = 1;
	r->tree = xstrdup("linux-6.12");
	r->base_commit = xstrdup("33a4cc079d3dc54287187c1e748798f838012c19");
	r->base_kind = xstrdup("base-commit");
	r->base_reason = xstrdup("the series' base-commit: footer");
	r->kernel[0].commit = xstrdup(r->base_commit);
	r->kernel[0].build_id = 1;
	r->kernel[0].build_state = xstrdup("done");
	r->kernel[1].build_id = 2;
	r->kernel[1].build_state = xstrdup("done");
	r->comparison_id = 3;
	r->state = xstrdup("done");
	r->hw_class = xstrdup("2s-2n-4c-abcd");
	r->topology = xstrdup("2 sockets, 2 NUMA nodes, 4 CPUs");
	r->matrix = xstrdup("[run \"ff\"]\nworkload = fault-free\n");
	r->side[0].planned = r->side[1].planned = 6;
	r->side[0].done = r->side[1].done = 6;
}

static void
add_job(struct report *r, int side, int boot, const char *state,
    const char *reason)
{
	struct report_job *j;

	r->jobs = xrealloc(r->jobs, (r->njobs + 1) * sizeof(*r->jobs));
	j = &r->jobs[r->njobs++];
	memset(j, 0, sizeof(*j));
	j->id = (long long)r->njobs;
	j->side = side;
	j->boot = boot;
	j->state = xstrdup(state);
	j->reason = reason ? xstrdup(reason) : NULL;
	j->agent = xstrdup("qemu-1");
	j->console = xasprintf("/api/v1/jobs/%lld/console?attempt=1", j->id);
}

static void
render(const struct report *r, struct buf *html, struct buf *text,
    char **json)
{
	json_t *j;

	buf_reset(html);
	buf_reset(text);
	report_html(r, html);
	report_text(r, "http://127.0.0.1:8080", text);
	if (getenv("T_REPORT_SHOW"))	/* for a person looking at them */
		fprintf(stderr, "%s\n----\n%s\n====\n", text->data,
		    html->data);
	j = report_json(r);
	*json = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
}

static void
test_regression(void)
{
	struct buf bs = BUF_INIT(0), ts = BUF_INIT(0), err = BUF_INIT(0);
	struct buf html = BUF_INIT(0), text = BUF_INIT(0);
	struct report r;
	char v[128], *json;
	json_t *j, *rows, *row;
	size_t i;
	int found = 0;

	model(&r);
	gen(&bs, "fault-free", "mode=shmem,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 100000, 2);
	gen(&ts, "fault-free", "mode=shmem,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 61800, 2);
	gen(&bs, "fault-free", "mode=shmem,tasks=4", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 150000, 2);
	gen(&ts, "fault-free", "mode=shmem,tasks=4", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 90000, 2);
	gen(&bs, "memcg-flush", "groups=16", "p99_us", "us", "lower", 6, 3,
	    50, 2);
	gen(&ts, "memcg-flush", "groups=16", "p99_us", "us", "lower", 6, 3,
	    50, 2);
	ok(report_compute(&r, bs.data, bs.len, ts.data, ts.len, NULL,
	    &err) == 0, "compute over generated samples");
	is_int(r.result.n, 3, "three rows");
	is_str(report_verdict(&r, v, sizeof(v)), "regression",
	    "overall verdict: regression");
	ok(!report_is_live(&r), "a done comparison is not live");
	render(&r, &html, &text, &json);

	/* the page */
	ok(strstr(html.data, "<section id=\"result\"") != NULL, "a section");
	ok(strstr(html.data, "<table class=\"result\"") != NULL, "the table");
	ok(strstr(html.data, "Verdict: <strong>regression</strong>") != NULL,
	    "the verdict on top");
	ok(strstr(html.data, "<svg") != NULL, "charts");
	ok(strstr(html.data, "scaling: pages_per_sec</text>") != NULL &&
	    strstr(html.data, "svg-subtitle\" x=\"6\" y=\"27\" "
	    "font-size=\"10\" fill=\"#666\">mode=shmem</text>") != NULL,
	    "a scaling curve over tasks=2,4, params without tasks as subtitle");
	ok(strstr(html.data, "class=\"v-regression sig\"") != NULL,
	    "the regression row is marked significant");
	ok(strstr(html.data, "/builds/1") && strstr(html.data, "/builds/2"),
	    "links to both builds");
	ok(strstr(html.data, "kperfci submit &#39;http://127.0.0.1:1/test/"
	    "x@y/&#39; --wait") != NULL, "one-command reproduction");
	ok(strstr(html.data, "kperfci-load --matrix") != NULL,
	    "single-run reproduction");
	ok(strstr(html.data, "workload = fault-free") != NULL, "the matrix");
	ok(!strstr(html.data, "refreshes itself"), "no refresh note when done");
	/* significant rows first: fault-free before memcg-flush */
	ok(strstr(html.data, ">fault-free<") < strstr(html.data,
	    ">memcg-flush<"), "the workload with a regression comes first");
	ok(no_nonfinite(html.data), "no nan in the page");

	/* the text */
	ok(strstr(text.data, "Significant changes:") != NULL,
	    "text: significant changes section");
	ok(strstr(text.data, "% regression of fault-free.pages_per_sec "
	    "(mode=shmem,tasks=2)") != NULL, "text: the regression line");
	ok(strstr(text.data, "-38.") != NULL, "text: about -38%");
	ok(strstr(text.data, "class:    2s-2n-4c-abcd") != NULL,
	    "text: the machine");
	ok(strstr(text.data, "chosen by base-commit") != NULL,
	    "text: why this base");
	ok(strstr(text.data, "mean ±%stddev") != NULL, "text: the table");
	ok(strstr(text.data, "kperfci -s 'http://127.0.0.1:8080' submit") !=
	    NULL, "text: reproduction with the server");
	ok(no_nonfinite(text.data) && no_control(text.data),
	    "text: no nan, no control bytes");

	/* the JSON agrees */
	ok(json != NULL, "JSON dumps (no NaN inside)");
	j = json ? json_loads(json, 0, NULL) : NULL;
	is_str(json_string_value(json_object_get(j, "verdict")), "regression",
	    "JSON verdict");
	rows = json_object_get(j, "rows");
	is_int(json_array_size(rows), 3, "JSON rows");
	json_array_foreach(rows, i, row)
		if (!strcmp(json_string_value(json_object_get(row, "verdict")),
		    "regression"))
			found++;
	is_int(found, 2, "JSON: both fault-free rows are regressions");
	is_int(json_array_size(json_object_get(j, "charts")), 4,
	    "JSON charts: three boot charts and one scaling curve");
	is_int(json_integer_value(json_object_get(json_object_get(
	    json_object_get(j, "progress"), "patched"), "done")), 6,
	    "JSON progress");
	json_decref(j);
	free(json);
	report_release(&r);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
	buf_release(&html);
	buf_release(&text);
}

/* kperfci-load resolves tasks=node / all on the agent and says to what in
   ntasks=: those rows form a scaling curve too. */
static void
test_scaling_ntasks(void)
{
	struct buf bs = BUF_INIT(0), ts = BUF_INIT(0), err = BUF_INIT(0);
	struct buf html = BUF_INIT(0), text = BUF_INIT(0);
	struct report r;
	char *json;
	json_t *j;

	model(&r);
	gen(&bs, "fault-free", "mode=shmem,ntasks=2,tasks=node",
	    "pages_per_sec", "pages/s", "higher", 4, 3, 100000, 2);
	gen(&ts, "fault-free", "mode=shmem,ntasks=2,tasks=node",
	    "pages_per_sec", "pages/s", "higher", 4, 3, 100000, 2);
	gen(&bs, "fault-free", "mode=shmem,ntasks=4,tasks=all",
	    "pages_per_sec", "pages/s", "higher", 4, 3, 150000, 2);
	gen(&ts, "fault-free", "mode=shmem,ntasks=4,tasks=all",
	    "pages_per_sec", "pages/s", "higher", 4, 3, 150000, 2);
	ok(report_compute(&r, bs.data, bs.len, ts.data, ts.len, NULL,
	    &err) == 0, "ntasks: compute");
	render(&r, &html, &text, &json);
	ok(strstr(html.data, "scaling: pages_per_sec</text>") != NULL,
	    "ntasks: tasks=node and tasks=all rows make a scaling curve");
	j = json ? json_loads(json, 0, NULL) : NULL;
	is_int(json_array_size(json_object_get(j, "charts")), 3,
	    "ntasks: two boot charts and one scaling curve");
	json_decref(j);
	free(json);
	report_release(&r);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
	buf_release(&html);
	buf_release(&text);
}

static void
test_no_change_live(void)
{
	struct buf bs = BUF_INIT(0), ts = BUF_INIT(0), err = BUF_INIT(0);
	struct buf html = BUF_INIT(0), text = BUF_INIT(0);
	struct report r;
	char v[128], *json;

	model(&r);
	free(r.state);
	r.state = xstrdup("running");
	r.series_final = 0;
	r.side[1].done = 3;
	r.side[1].running = 1;
	r.agent = xstrdup("qemu-<1>");
	gen(&bs, "fault-free", "mode=anon,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 100000, 1);
	gen(&ts, "fault-free", "mode=anon,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 100000, 1);
	ok(report_compute(&r, bs.data, bs.len, ts.data, ts.len, NULL,
	    &err) == 0, "compute A/A");
	is_str(report_verdict(&r, v, sizeof(v)), "running",
	    "no verdict before the comparison is done");
	ok(report_is_live(&r), "running: live");
	is_int(r.result.count[STATS_NO_CHANGE], 1, "the interim row: no change");
	render(&r, &html, &text, &json);
	ok(strstr(html.data, "refreshes itself") != NULL, "live note");
	ok(strstr(html.data, "<progress") != NULL, "progress bars");
	ok(strstr(html.data, "3/6 boots done") != NULL, "boots done/planned");
	ok(strstr(html.data, "current agent: qemu-&lt;1&gt;") != NULL,
	    "current agent, escaped");
	ok(strstr(text.data, "patched  3/6 boots done, 1 running") != NULL,
	    "text progress");
	ok(json && strstr(json, "\"live\":true"), "JSON live");
	free(json);
	report_release(&r);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
	buf_release(&html);
	buf_release(&text);
}

/*
 * The reproduction line of report.txt run by a real shell with `kperfci`
 * replaced by printf: the submitted URL must come out as one argument,
 * byte for byte, and nothing in it may run.
 */
static void
test_repro_quoting(void)
{
	const char *url = "http://127.0.0.1:1/test/$(touch t-report-pwned)"
	    ";touch t-report-pwned2;`id`'x'@y/";
	struct buf html = BUF_INIT(0), text = BUF_INIT(0), out = BUF_INIT(0);
	struct report r;
	char *json, *line, *end, *cmd;
	FILE *f;
	size_t n;

	model(&r);
	free(r.source);
	r.source = xstrdup(url);
	render(&r, &html, &text, &json);
	line = strstr(text.data, "kperfci -s ");
	ok(line != NULL, "report.txt has the reproduction line");
	if (!line)
		goto out;
	end = strchr(line, '\n');
	cmd = xasprintf("cd /tmp && printf '%%s\\n' %.*s", (int)(end - line) -
	    (int)strlen("kperfci "), line + strlen("kperfci "));
	unlink("/tmp/t-report-pwned");
	unlink("/tmp/t-report-pwned2");
	f = popen(cmd, "r");
	line = xmalloc(4096);
	while (f && (n = fread(line, 1, 4096, f)) > 0)
		buf_add(&out, line, n);
	free(line);
	if (f)
		pclose(f);
	ok(out.data && strstr(out.data, url) && strstr(out.data, "\nsubmit\n")
	    && strstr(out.data, "\n--wait\n"), "the shell sees the URL as one "
	    "word, unchanged (%s)", out.data ? out.data : "");
	ok(access("/tmp/t-report-pwned", F_OK) != 0 &&
	    access("/tmp/t-report-pwned2", F_OK) != 0,
	    "and runs nothing in it");
	ok(strstr(html.data, "&#39;http://127.0.0.1:1/test/$(touch") != NULL,
	    "the page shows the same quoted line");
	{
		char v[128];

		free(r.series_state);
		r.series_state = xstrdup("cancelled");
		free(r.series_error);
		r.series_error = xstrdup("cancelled by alice");
		is_str(report_verdict(&r, v, sizeof(v)), "cancelled by alice",
		    "a cancelled series' verdict says who cancelled it");
		ok(!report_is_live(&r), "and it is not live");
	}
	free(cmd);
out:
	free(json);
	report_release(&r);
	buf_release(&html);
	buf_release(&text);
	buf_release(&out);
}

static void
test_hostile_names(void)
{
	struct buf bs = BUF_INIT(0), ts = BUF_INIT(0), err = BUF_INIT(0);
	struct buf html = BUF_INIT(0), text = BUF_INIT(0);
	struct report r;
	char *json;

	model(&r);
	free(r.subject);
	r.subject = xstrdup("<script>alert(1)</script>\x1b[2J");
	gen(&bs, "<img src=x onerror=alert(1)>", "a=\\\"'<b>",
	    "m</td><script>", "x&y", "higher", 3, 2, 10, 1);
	gen(&ts, "<img src=x onerror=alert(1)>", "a=\\\"'<b>",
	    "m</td><script>", "x&y", "higher", 3, 2, 10, 1);
	ok(report_compute(&r, bs.data, bs.len, ts.data, ts.len, NULL,
	    &err) == 0, "stats accepts printable hostile names");
	render(&r, &html, &text, &json);
	ok(!strstr(html.data, "<img"), "no raw <img>");
	ok(!strstr(html.data, "<script"), "no raw <script>");
	ok(!strstr(html.data, "<b>"), "no raw <b>");
	ok(strstr(html.data, "&lt;img src=x onerror=alert(1)&gt;") != NULL,
	    "workload shown escaped");
	ok(strstr(html.data, "m&lt;/td&gt;&lt;script&gt;") != NULL,
	    "metric shown escaped");
	ok(no_control(text.data), "text: the subject's escape sequence is "
	    "neutralised");
	ok(strstr(text.data, "<script>alert(1)</script>?[2J") != NULL,
	    "text: shown as plain text with ? for the control byte");
	ok(json != NULL, "JSON dumps");
	free(json);
	report_release(&r);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
	buf_release(&html);
	buf_release(&text);
}

static void
test_empty_side_and_one_boot(void)
{
	struct buf bs = BUF_INIT(0), ts = BUF_INIT(0), err = BUF_INIT(0);
	struct buf html = BUF_INIT(0), text = BUF_INIT(0);
	struct report r;
	char v[128], *json;

	/* one metric only on the base side, one boot each for another */
	model(&r);
	gen(&bs, "fault-free", "mode=shmem,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 1, 3, 1000, 2);
	gen(&ts, "fault-free", "mode=shmem,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 1, 3, 1000, 2);
	gen(&bs, "swap-memhog", "", "sys_seconds", "s", "lower", 2, 2, 3, 2);
	ok(report_compute(&r, bs.data, bs.len, ts.data, ts.len, NULL,
	    &err) == 0, "compute with a metric on one side");
	render(&r, &html, &text, &json);
	ok(strstr(html.data, "missing on the patched side") != NULL,
	    "page: missing metric named per side");
	ok(strstr(text.data, "missing on the patched side") != NULL,
	    "text: missing metric named per side");
	ok(no_nonfinite(html.data) && no_nonfinite(text.data),
	    "one boot and a missing side: no nan");
	ok(json && strstr(json, "\"verdict\":\"missing\""), "JSON: missing");
	free(json);
	report_release(&r);

	/* nothing at all on the patched side */
	model(&r);
	ok(report_compute(&r, bs.data, bs.len, NULL, 0, NULL, &err) == 0,
	    "compute with an empty patched side");
	render(&r, &html, &text, &json);
	report_verdict(&r, v, sizeof(v));
	ok(strcmp(v, "regression") && strcmp(v, "no change"),
	    "an empty side is neither a regression nor no change");
	ok(no_nonfinite(html.data) && no_nonfinite(text.data),
	    "empty side: no nan");
	ok(strstr(html.data, "missing on the patched side") != NULL,
	    "every row says the patched side is missing");
	free(json);
	report_release(&r);

	/* resting before the end: nothing more will happen by itself */
	model(&r);
	free(r.state);
	r.state = NULL;
	r.comparison_id = 0;
	free(r.series_state);
	r.series_state = xstrdup("built");
	r.series_rest = xstrdup("no agent is configured");
	render(&r, &html, &text, &json);
	is_str(report_verdict(&r, v, sizeof(v)),
	    "waiting: no agent is configured", "a resting series: waiting");
	ok(!report_is_live(&r), "a resting series is not live");
	ok(json && strstr(json, "\"rest\":\"no agent is configured\""),
	    "JSON: the reason it rests");
	ok(json && strstr(json, "\"live\":false"), "JSON: not live");
	ok(!strstr(text.data, "boots done"), "text: no boots before a "
	    "comparison exists");
	free(json);
	report_release(&r);

	/* no result at all yet */
	model(&r);
	free(r.state);
	r.state = xstrdup("running");
	r.series_final = 0;
	render(&r, &html, &text, &json);
	is_str(report_verdict(&r, v, sizeof(v)), "running", "no rows: running");
	ok(strstr(html.data, "No samples yet") != NULL, "page says so");
	ok(json && strstr(json, "\"rows\":[]"), "JSON: empty rows");
	free(json);
	report_release(&r);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
	buf_release(&html);
	buf_release(&text);
}

/* Rows made by hand: NaN everywhere stats could leave one, control bytes. */
static void
test_nan_guard(void)
{
	struct buf html = BUF_INIT(0), text = BUF_INIT(0), tab = BUF_INIT(0);
	struct stats_row *row;
	struct report r;
	char *json;

	model(&r);
	stats_opts_init(&r.result.opts);
	r.result.rows = xcalloc(1, sizeof(*row));
	r.result.n = 1;
	row = &r.result.rows[0];
	row->workload = xstrdup("w\x1b]0;x\a");
	row->params = xstrdup("");
	row->metric = xstrdup("m\r\n");
	row->unit = xstrdup("u");
	row->better = STATS_HIGHER;
	row->base.present = row->test.present = 1;
	row->base.nboots = row->test.nboots = 2;
	row->base.mean = NAN;
	row->base.pct_stddev = NAN;
	row->test.mean = 5;
	row->test.pct_stddev = INFINITY;
	row->base.boot_ids = xcalloc(2, sizeof(long));
	row->base.boot_means = xcalloc(2, sizeof(double));
	row->test.boot_ids = xcalloc(2, sizeof(long));
	row->test.boot_means = xcalloc(2, sizeof(double));
	row->base.boot_means[0] = NAN;
	row->base.boot_means[1] = 3;
	row->test.boot_means[0] = INFINITY;
	row->test.boot_means[1] = 4;
	row->pct_change = NAN;
	row->ci_lo = NAN;
	row->ci_hi = 3;
	row->p_value = NAN;
	row->alpha_look = NAN;
	row->verdict = STATS_INVALID;
	snprintf(row->reason, sizeof(row->reason), "base mean is 0");
	r.result.count[STATS_INVALID] = 1;
	r.have_result = 1;
	render(&r, &html, &text, &json);
	report_table_text(&r.result, &tab);
	ok(no_nonfinite(html.data), "page: no nan/inf");
	ok(no_nonfinite(text.data), "text: no nan/inf");
	ok(no_nonfinite(tab.data), "table: no nan/inf");
	ok(no_control(text.data) && no_control(tab.data),
	    "text: no control bytes from names");
	ok(json != NULL, "JSON dumps with NaN rows (null instead)");
	ok(json && no_nonfinite(json), "JSON: no nan");
	ok(strstr(html.data, "invalid") != NULL, "the row says invalid");
	free(json);
	report_release(&r);
	buf_release(&html);
	buf_release(&text);
	buf_release(&tab);
}

/* An inconclusive primary row says what it would take, on the page and in
   report.txt. */
static void
test_boots_needed(void)
{
	struct buf html = BUF_INIT(0), text = BUF_INIT(0), tab = BUF_INIT(0);
	struct stats_row *row;
	struct report r;
	char *json;

	model(&r);
	stats_opts_init(&r.result.opts);
	r.result.rows = xcalloc(1, sizeof(*row));
	r.result.n = 1;
	row = &r.result.rows[0];
	row->workload = xstrdup("fault-free");
	row->params = xstrdup("mode=anon");
	row->metric = xstrdup("pages_per_sec");
	row->unit = xstrdup("pages/s");
	row->better = STATS_HIGHER;
	row->primary = 1;
	row->base.present = row->test.present = 1;
	row->base.nboots = row->test.nboots = 3;
	row->base.mean = 1000;
	row->test.mean = 990;
	row->base.pct_stddev = row->test.pct_stddev = 2;
	row->base.boot_ids = xcalloc(3, sizeof(long));
	row->base.boot_means = xcalloc(3, sizeof(double));
	row->test.boot_ids = xcalloc(3, sizeof(long));
	row->test.boot_means = xcalloc(3, sizeof(double));
	for (int i = 0; i < 3; i++) {
		row->base.boot_ids[i] = row->test.boot_ids[i] = i + 1;
		row->base.boot_means[i] = 1000 + 10 * i;
		row->test.boot_means[i] = 990 - 10 * i;
	}
	row->pct_change = -1;
	row->ci_lo = -4;
	row->ci_hi = 2;
	row->p_value = 0.4;
	row->alpha_look = 0.01;
	row->verdict = STATS_INCONCLUSIVE;
	row->boots_needed = 14;
	row->boots_needed_cv = 2.1;
	row->boots_needed_class = 1;
	snprintf(row->reason, sizeof(row->reason), "CI wider than the "
	    "no-change band");
	r.result.count[STATS_INCONCLUSIVE] = 1;
	r.have_result = 1;
	render(&r, &html, &text, &json);
	report_table_text(&r.result, &tab);
	ok(strstr(tab.data, "needs ~14 boots a side (per-boot spread 2.1 %, "
	    "the class's)") != NULL, "report.txt: what the row would take");
	ok(strstr(html.data, "<span class=\"boots-needed\">needs ~14 boots "
	    "a side (per-boot spread 2.1 %, the class&#39;s)") != NULL ||
	    strstr(html.data, "<span class=\"boots-needed\">needs ~14 boots "
	    "a side (per-boot spread 2.1 %, the class") != NULL,
	    "the page too");
	ok(json && strstr(json, "\"boots_needed\":14") != NULL,
	    "and the JSON");
	row->verdict = STATS_NO_CHANGE;
	buf_reset(&tab);
	report_table_text(&r.result, &tab);
	ok(strstr(tab.data, "boots a side") == NULL, "a decided row says "
	    "nothing of it");
	free(json);
	report_release(&r);
	buf_release(&html);
	buf_release(&text);
	buf_release(&tab);
}

static void
test_all_failed(void)
{
	struct buf bs = BUF_INIT(0), err = BUF_INIT(0);
	struct buf html = BUF_INIT(0), text = BUF_INIT(0);
	struct report r;
	char v[128], *json;
	int b;

	model(&r);
	free(r.state);
	r.state = xstrdup("failed");
	r.error = xstrdup("no patched boot produced samples");
	r.side[1].done = 0;
	r.side[1].failed = 6;
	for (b = 1; b <= 6; b++) {
		add_job(&r, 0, b, "done", NULL);
		add_job(&r, 1, b, "boot-failed", "Kernel panic - not syncing: "
		    "calibration");
	}
	gen(&bs, "fault-free", "mode=shmem,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 1000, 2);
	ok(report_compute(&r, bs.data, bs.len, NULL, 0, NULL, &err) == 0,
	    "compute with no patched samples");
	is_str(report_verdict(&r, v, sizeof(v)),
	    "failed: every patched boot panicked", "the failed verdict");
	ok(!report_is_live(&r), "a failed comparison is not live");
	render(&r, &html, &text, &json);
	ok(strstr(html.data, "failed: every patched boot panicked") != NULL,
	    "page: the verdict");
	ok(strstr(html.data, "Every patched boot panicked. Console logs: "
	    "<a href=\"/api/v1/jobs/2/console?attempt=1\">boot 1</a>") != NULL,
	    "page: console log links of the failed side");
	ok(strstr(html.data, "<details class=\"jobs\" open>") != NULL,
	    "page: the boots list is open when boots failed");
	ok(strstr(text.data, "every patched boot panicked; console logs:\n"
	    "    http://127.0.0.1:8080/api/v1/jobs/2/console?attempt=1") !=
	    NULL, "text: console links");
	ok(json && strstr(json, "\"verdict\":\"failed: every patched boot "
	    "panicked\""), "JSON: the verdict");
	{
		json_t *j = json_loads(json, 0, NULL);

		is_int(json_array_size(json_object_get(j, "failed_boots")), 6,
		    "JSON: six failed boots");
		json_decref(j);
	}
	free(json);

	/* hung boots are said so, and mixed reasons are just "failed" */
	for (b = 0; b < (int)r.njobs; b++)
		if (r.jobs[b].side == 1) {
			free(r.jobs[b].reason);
			r.jobs[b].reason = xstrdup("boot timed out after 300 s");
		}
	is_str(report_verdict(&r, v, sizeof(v)),
	    "failed: every patched boot hung", "hung boots");
	free(r.jobs[1].reason);
	r.jobs[1].reason = xstrdup("oops");
	is_str(report_verdict(&r, v, sizeof(v)),
	    "failed: every patched boot failed", "mixed reasons");
	report_release(&r);
	buf_release(&bs);
	buf_release(&err);
	buf_release(&html);
	buf_release(&text);
}

static void
test_profiles(void)
{
	struct buf html = BUF_INIT(0), text = BUF_INIT(0);
	struct report r;
	json_t *base, *patched, *j, *locks, *l0;
	char *json;

	model(&r);
	base = json_loads("[{\"type\":\"lock-profile\",\"params\":\"mode=shmem"
	    "\",\"locks\":[{\"lock\":\"lru_lock\",\"symbol\":"
	    "\"native_queued_spin_lock_slowpath\",\"share\":0.5,\"callers\":"
	    "[{\"symbol\":\"folio_batch_move_lru\",\"share\":0.4}]}]},"
	    "{\"type\":\"lock-profile\",\"params\":\"mode=shmem\",\"locks\":"
	    "[{\"lock\":\"lru_lock\",\"symbol\":"
	    "\"native_queued_spin_lock_slowpath\",\"share\":0.3,\"callers\":"
	    "[]},{\"lock\":\"<x>\",\"symbol\":\"s\",\"share\":7},"
	    "{\"lock\":\"zone_lock\",\"symbol\":\"s\",\"share\":0.02}]}]",
	    0, NULL);
	patched = json_loads("[{\"type\":\"lock-profile\",\"params\":"
	    "\"mode=shmem\",\"locks\":[{\"lock\":\"lru_lock\",\"symbol\":"
	    "\"native_queued_spin_lock_slowpath\",\"share\":0.1}]}]", 0, NULL);
	ok(base && patched, "profile fixtures parse");
	report_set_profiles(&r, base, patched);
	is_int(r.nprofiles, 1, "one profile (one params)");
	is_int(r.profiles[0].nlocks, 2, "two locks (the share 7 is refused)");
	is_str(r.profiles[0].locks[0].lock, "lru_lock", "largest first");
	ok(fabs(r.profiles[0].locks[0].share[0] - 0.4) < 1e-9,
	    "base share is the mean over base profiles");
	ok(fabs(r.profiles[0].locks[0].share[1] - 0.1) < 1e-9,
	    "patched share");
	ok(fabs(r.profiles[0].locks[0].callers[0].share[0] - 0.2) < 1e-9,
	    "a caller's share is averaged over all profiles of the side");
	render(&r, &html, &text, &json);
	ok(strstr(html.data, "<table class=\"locks\">") != NULL,
	    "page: lock table");
	ok(strstr(html.data, "<td class=\"num\">40.0%</td><td class=\"num\">"
	    "10.0%</td>") != NULL, "page: base vs patched shares");
	ok(strstr(html.data, "folio_batch_move_lru") != NULL, "page: callers");
	ok(strstr(text.data, " 40.0%    10.0%  lru_lock") != NULL,
	    "text: lock shares");
	j = json ? json_loads(json, 0, NULL) : NULL;
	locks = json_object_get(json_array_get(json_object_get(j,
	    "lock_profiles"), 0), "locks");
	l0 = json_array_get(locks, 1);
	is_str(json_string_value(json_object_get(l0, "lock")), "zone_lock",
	    "JSON: second lock");
	ok(json_is_real(json_object_get(l0, "base")) &&
	    json_is_real(json_object_get(l0, "patched")),
	    "JSON: a lock absent on one side has share 0 there");
	json_decref(j);
	free(json);
	json_decref(base);
	json_decref(patched);
	report_release(&r);
	buf_release(&html);
	buf_release(&text);
}

/* Profiles with many distinct names (the hash index, its growth and
   probing) sum and average exactly as a linear search did. */
static json_t *
many_names(size_t n, size_t off, double share)
{
	json_t *locks = json_array(), *o;
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(locks, json_pack("{s:s%,s:s,s:f,s:[{s:s%,"
		    "s:f}]}", "lock", "lk", (size_t)0, "symbol", "s", "share",
		    share, "callers", "symbol", "c", (size_t)0, "share", share));
	/* json_pack's s% takes a length: rename after */
	json_array_foreach(locks, i, o) {
		char name[32], cname[32];

		snprintf(name, sizeof(name), "lock%zu", i + off);
		snprintf(cname, sizeof(cname), "caller%zu", (i + off) % 7);
		json_object_set_new(o, "lock", json_string(name));
		json_object_set_new(json_array_get(json_object_get(o,
		    "callers"), 0), "symbol", json_string(cname));
	}
	return json_pack("[{s:s,s:s,s:o}]", "type", "lock-profile", "params",
	    "p", "locks", locks);
}

static void
test_profiles_many(void)
{
	struct report r;
	json_t *base = json_array(), *patched, *one;
	size_t i, found = 0;
	int good = 1;

	model(&r);
	/* two base profiles overlapping in 5000 of their 15000 names */
	one = many_names(15000, 0, 0.00002);
	json_array_extend(base, one);
	json_decref(one);
	one = many_names(15000, 10000, 0.00004);
	json_array_extend(base, one);
	json_decref(one);
	patched = many_names(100, 0, 0.0001);
	report_set_profiles(&r, base, patched);
	is_int(r.nprofiles, 1, "many names: one profile");
	is_int(r.profiles[0].nlocks, 25000, "25000 distinct locks");
	for (i = 0; i < r.profiles[0].nlocks; i++) {
		const struct report_lock *l = &r.profiles[0].locks[i];
		int n = atoi(l->lock + 4);
		double want = (n < 10000 ? 0.00002 : n < 15000 ? 0.00006 :
		    0.00004) / 2;

		if (strncmp(l->lock, "lock", 4) || fabs(l->share[0] - want) >
		    1e-12 || l->ncallers != 1)
			good = 0;
		if (n == 12345)
			found = 1;
	}
	ok(good && found, "each lock's base share is the mean over both "
	    "profiles, callers merged by name");
	ok(r.profiles[0].lock_ix == NULL, "the index is dropped once sorted");
	json_decref(base);
	json_decref(patched);
	report_release(&r);
}

/* The contention pass's rows: a lock table of their own, every metric
   with the statistics of the results table, outside the overall verdict. */
static void
test_contention(void)
{
	struct buf bs = BUF_INIT(0), ts = BUF_INIT(0), err = BUF_INIT(0);
	struct buf html = BUF_INIT(0), text = BUF_INIT(0);
	static const char *const metrics[][2] = { { "wait_share", "%" },
	    { "wait_total", "ms" }, { "wait_count", "waits" },
	    { "wait_max", "us" } };
	const char *lru = "lock=lru_lock,mode=shmem,"
	    "target=fault-free,tasks=4";
	const char *all = "lock=(all),mode=shmem,target=fault-free,tasks=4";
	const char *zone = "lock=zone lock?@rmqueue_bulk,mode=shmem,"
	    "target=fault-free,tasks=4";
	struct report r;
	char v[128], *json;
	json_t *j, *a, *l;
	size_t i, k;
	int m;

	model(&r);
	gen(&bs, "fault-free", "mode=shmem,tasks=4", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 100000, 1);
	gen(&ts, "fault-free", "mode=shmem,tasks=4", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 100000, 1);
	for (m = 0; m < 4; m++) {
		gen(&bs, "lock-profile", lru, metrics[m][0], metrics[m][1],
		    "lower", 6, 1, 10, 2);
		gen(&ts, "lock-profile", lru, metrics[m][0], metrics[m][1],
		    "lower", 6, 1, 40, 2);
		gen(&bs, "lock-profile", all, metrics[m][0], metrics[m][1],
		    "lower", 6, 1, 12, 2);
		gen(&ts, "lock-profile", all, metrics[m][0], metrics[m][1],
		    "lower", 6, 1, 42, 2);
		gen(&bs, "lock-profile", zone, metrics[m][0], metrics[m][1],
		    "lower", 6, 1, 1, 2);
	}
	ok(report_compute(&r, bs.data, bs.len, ts.data, ts.len, NULL,
	    &err) == 0, "compute with contention rows");
	is_int(r.result.n, 1, "the results table keeps fault-free alone");
	is_int(r.contention.n, 12, "12 contention rows (3 locks x 4 metrics)");
	is_int(r.nlocks, 3, "three locks");
	is_str(r.locks[0].lock, "(all)", "(all) first");
	is_str(r.locks[1].lock, "lru_lock", "then by wait share");
	is_str(r.locks[1].run, "mode=shmem,target=fault-free,tasks=4",
	    "the run's params without lock=");
	ok(r.locks[1].m[REPORT_WAIT_SHARE] &&
	    r.locks[1].m[REPORT_WAIT_SHARE]->verdict == STATS_REGRESSION,
	    "lru_lock's wait share: regression");
	ok(r.locks[1].m[REPORT_WAIT_MAX] &&
	    !strcmp(r.locks[1].m[REPORT_WAIT_MAX]->unit, "us"),
	    "every metric of the lock is there");
	ok(r.locks[2].m[REPORT_WAIT_SHARE] &&
	    r.locks[2].m[REPORT_WAIT_SHARE]->verdict == STATS_MISSING,
	    "a lock on one side only: missing");
	is_int(r.result.count[STATS_REGRESSION], 0,
	    "no regression counted in the results");
	is_str(report_verdict(&r, v, sizeof(v)), "no change",
	    "the overall verdict is about the results, not the lock table");
	ok(report_row_is_contention(r.locks[0].m[0]), "row predicate");
	render(&r, &html, &text, &json);
	ok(strstr(text.data, "Lock contention (mode=shmem,target=fault-free,"
	    "tasks=4)") != NULL, "text: a lock contention table");
	ok(strstr(text.data, "  lru_lock\n") != NULL,
	    "text: the lock's name");
	ok(strstr(text.data, "wait share (%)  regression") != NULL,
	    "text: wait share row with its verdict");
	ok(strstr(text.data, "waits (waits)  regression") != NULL,
	    "text: count row");
	ok(strstr(text.data, "wait_share lock=") == NULL,
	    "text: not in the results table");
	ok(strstr(html.data, "<h3>Lock contention</h3>") != NULL &&
	    strstr(html.data, "<table class=\"result contention\">") != NULL,
	    "page: the lock contention table");
	ok(strstr(html.data, "zone lock?@rmqueue_bulk") != NULL,
	    "page: every lock");
	ok(strstr(text.data, "wait share (%)  no waits on the patched side")
	    != NULL, "text: a lock absent on one side had no waits there");
	j = json ? json_loads(json, 0, NULL) : NULL;
	a = json_object_get(j, "lock_contention");
	is_int(json_array_size(a), 3, "JSON: three locks");
	l = json_array_get(a, 1);
	is_str(json_string_value(json_object_get(l, "lock")),
	    "lru_lock", "JSON: lock name");
	is_str(json_string_value(json_object_get(json_object_get(l,
	    "wait_share"), "verdict")), "regression", "JSON: verdict");
	ok(json_real_value(json_object_get(json_object_get(l, "wait_total"),
	    "pct_change")) > 100, "JSON: %%change");
	ok(json_is_array(json_object_get(json_object_get(l, "wait_max"),
	    "ci95")), "JSON: CI");
	for (i = k = 0; i < json_array_size(json_object_get(j, "rows")); i++)
		k += !strcmp(json_string_value(json_object_get(json_array_get(
		    json_object_get(j, "rows"), i), "workload")),
		    "lock-profile");
	is_int(k, 0, "JSON: lock rows are not in rows");
	ok(no_nonfinite(json ? json : "nan"), "JSON: no NaN");
	ok(strstr(text.data, "Contended-lock changes:\n    +") &&
	    strstr(text.data, "% regression of lru_lock's wait share, "
	    "significant (mode=shmem,target=fault-free,tasks=4)\n"),
	    "text: lru_lock named as a significant contended-lock regression");
	{
		struct report_mail mm = { .public_url = "http://ci/" };
		struct buf mail = BUF_INIT(0);

		report_mail_body(&r, &mm, &mail);
		ok(mail.data && strstr(mail.data, "\nContended locks "
		    "(lock:contention_begin/end)\n  +") &&
		    strstr(mail.data, "% regression of lru_lock's wait share,"),
		    "mail: the significant contended-lock change, by name");
		buf_release(&mail);
	}
	ok(strstr(text.data, "zone lock?@rmqueue_bulk") && !strstr(text.data,
	    "zone lock?@rmqueue_bulk waits on the patched side only"),
	    "text: a lock gone on the patched side is no change to list");
	ok(!strstr(text.data, "regression of (all)"),
	    "text: (all) is not a lock");
	ok(strstr(html.data, "<ul class=\"lock-changes\">\n<li class=\"v-"
	    "regression\">") && strstr(html.data, "regression of lru_lock&#39;s "
	    "wait share, significant"),
	    "page: the same, above the lock tables");
	ok(!strstr(text.data, "cannot show") && !strstr(html.data,
	    "lock-blind"), "4 CPUs, topology unknown per node: no "
	    "\"cannot show\" sentence");
	is_int(json_is_true(json_object_get(json_object_get(j,
	    "lock_visibility"), "locks_can_show")), 1,
	    "JSON: locks can show");
	json_decref(j);
	free(json);
	/* the same table from a machine with 2 CPUs per node */
	r.cpus = 4;
	r.cpus_per_node = 2;
	render(&r, &html, &text, &json);
	ok(strstr(text.data, "\nLock contention\n  A per-node lock cannot "
	    "show in this table: the machine has at most 2 CPUs per NUMA "
	    "node") != NULL, "text: 2 CPUs per node: the per-node locks "
	    "cannot show, said first");
	ok(strstr(text.data, "fires only from a lock's third") != NULL,
	    "text: and why");
	ok(strstr(html.data, "<p class=\"lock-blind\"><strong>Cannot show"
	    "</strong>: A per-node lock cannot show") != NULL,
	    "page: the same sentence");
	j = json ? json_loads(json, 0, NULL) : NULL;
	ok(json_is_false(json_object_get(json_object_get(j,
	    "lock_visibility"), "locks_can_show")) && json_integer_value(
	    json_object_get(json_object_get(j, "lock_visibility"),
	    "cpus_per_node")) == 2, "JSON: cannot show, 2 CPUs per node");
	ok(strstr(json_string_value(json_object_get(json_object_get(j,
	    "lock_visibility"), "note")) ? json_string_value(json_object_get(
	    json_object_get(j, "lock_visibility"), "note")) : "",
	    "cannot show") != NULL, "JSON: the sentence");
	json_decref(j);
	free(json);
	r.cpus = 2;
	r.cpus_per_node = 1;
	render(&r, &html, &text, &json);
	ok(strstr(text.data, "No lock can show in this table") != NULL,
	    "text: 2 CPUs in all: no lock can show");
	free(json);
	r.cpus = 8;
	r.cpus_per_node = 4;
	render(&r, &html, &text, &json);
	ok(!strstr(text.data, "cannot show") && !strstr(text.data,
	    "No lock can show"), "4 CPUs per node: no such sentence");
	free(json);
	report_release(&r);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
	buf_release(&html);
	buf_release(&text);
}

/* A lock-profile pass whose table stayed empty on a 2-vCPU-per-node
   machine: the words say why, instead of an empty table. */
static void
test_contention_empty(void)
{
	struct buf bs = BUF_INIT(0), ts = BUF_INIT(0), err = BUF_INIT(0);
	struct buf html = BUF_INIT(0), text = BUF_INIT(0);
	struct report r;
	char *json;

	model(&r);
	free(r.matrix);
	r.matrix = xstrdup("[run \"lp\"]\nworkload = lock-profile\n"
	    "target = fault-free\n");
	r.cpus = 4;
	r.cpus_per_node = 2;
	gen(&bs, "fault-free", "mode=shmem,tasks=4", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 100000, 1);
	gen(&ts, "fault-free", "mode=shmem,tasks=4", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 100000, 1);
	ok(report_compute(&r, bs.data, bs.len, ts.data, ts.len, NULL,
	    &err) == 0, "compute without contention rows");
	is_int(r.nlocks, 0, "no lock waited");
	render(&r, &html, &text, &json);
	ok(strstr(text.data, "\nLock contention\n  A per-node lock cannot "
	    "show") && strstr(text.data, "  No lock waited on either side.\n"),
	    "text: no empty table: the reason, and that nothing waited");
	ok(strstr(html.data, "<h3>Lock contention</h3>\n<p class=\"lock-blind"
	    "\">") && !strstr(html.data, "class=\"result contention\""),
	    "page: the reason, no table");
	free(json);
	free(r.matrix);
	r.matrix = xstrdup("[run \"ff\"]\nworkload = fault-free\n");
	render(&r, &html, &text, &json);
	ok(!strstr(text.data, "Lock contention"),
	    "no lock-profile run: no lock section at all");
	free(json);
	report_release(&r);
	/* a lock that waits on the patched side only (nothing waited on the
	   base: no rows there), at 4 CPUs per node */
	model(&r);
	r.cpus = 8;
	r.cpus_per_node = 4;
	for (int m = 0; m < 4; m++) {
		static const char *const mt[] = { "wait_share", "wait_total",
		    "wait_count", "wait_max" };

		gen(&ts, "lock-profile", "lock=split_queue_lock,target=page-"
		    "fault,tasks=8", mt[m], "%", "lower", 3, 1, 8, 2);
		gen(&ts, "lock-profile", "lock=(all),target=page-fault,"
		    "tasks=8", mt[m], "%", "lower", 3, 1, 9, 2);
		gen(&ts, "lock-profile", "lock=rcu_state,target=page-fault,"
		    "tasks=8", mt[m], "%", "lower", 1, 1, 1, 2);
	}
	ok(report_compute(&r, bs.data, bs.len, ts.data, ts.len, NULL,
	    &err) == 0, "compute with a lock on the patched side only");
	render(&r, &html, &text, &json);
	ok(strstr(text.data, "Contended-lock changes:\n    split_queue_lock "
	    "waits on the patched side only: ") && strstr(text.data,
	    "wait share in each of 3 boots, no waits in any base boot (target="
	    "page-fault,tasks=8)\n"), "text: a lock new on the patched side "
	    "is listed, with no %%change to give");
	ok(!strstr(text.data, "rcu_state waits on the patched side"),
	    "one that waited in one patched boot of three is not");
	ok(strstr(html.data, "split_queue_lock waits on the patched side only"),
	    "page: the same");
	free(json);
	report_release(&r);
	buf_release(&bs);
	buf_release(&ts);
	buf_release(&err);
	buf_release(&html);
	buf_release(&text);
}

static void
test_bad_samples(void)
{
	struct buf err = BUF_INIT(0);
	struct report r;
	const char *bad = "{\"boot\":1,\"workload\":\"w\",\"params\":\"\","
	    "\"iteration\":1,\"metric\":\"m\",\"value\":-1,\"unit\":\"u\","
	    "\"better\":\"higher\"}\n";

	model(&r);
	ok(report_compute(&r, "", 0, bad, strlen(bad), NULL, &err) == -1,
	    "a negative value is refused");
	ok(err.data && strstr(err.data, "patched samples: line 1") != NULL,
	    "the error names the side and the line");
	ok(!r.have_result, "no result from bad samples");
	report_release(&r);
	buf_release(&err);
}


/* ---- report_load on a real store ----------------------------------------- */

static char dir[] = "/tmp/t-report.XXXXXX";

static long long
fake_kernel(struct db *db, const char *tag)
{
	struct buf err = BUF_INIT(1024);
	char img[0x400];
	long long id = 0;

	memset(img, 0, sizeof(img));
	memcpy(img + 0x202, "HdrS", 4);
	snprintf(img + 0x300, 0x100, "%s", tag);
	if (agent_kernel_add(db, img, sizeof(img), tag, &id, &err) < 0)
		printf("# kernel: %s\n", err.data);
	buf_release(&err);
	return id;
}

/* Leases the next job as agent a1 and uploads: "done" with samples around
   mean and a lock profile, or a boot failure.  Returns the job's side. */
static char *
lease_upload(struct db *db, long long now, double base_mean,
    double patched_mean, int fail_patched_boot)
{
	json_t *j = NULL, *row = NULL, *up, *samples;
	const char *side;
	char *out = NULL;
	long long id;
	int attempt, boot, it, failed;

	if (db_job_lease(db, "a1", "cls", now, 600, &j) != 0)
		return NULL;
	id = json_integer_value(json_object_get(j, PROTO_ID));
	attempt = (int)json_integer_value(json_object_get(j, PROTO_ATTEMPT));
	db_job_get(db, id, &row);
	side = json_string_value(json_object_get(row, "side"));
	boot = (int)json_integer_value(json_object_get(row, "boot"));
	out = xstrdup(side ? side : "?");
	failed = !strcmp(out, "patched") && boot == fail_patched_boot;
	samples = json_array();
	for (it = 0; !failed && it < 3; it++)
		json_array_append_new(samples, json_pack("{s:s,s:s,s:i,s:s,"
		    "s:f,s:s,s:s}", "workload", "fault-free", "params",
		    "mode=shmem,tasks=2", "iteration", it, "metric",
		    "pages_per_sec", "value", (!strcmp(out, "base") ?
		    base_mean : patched_mean) * (1 + 0.001 * (boot + it)),
		    "unit", "pages/s", "better", "higher"));
	if (!failed)	/* the contention pass: one lock's wait share */
		json_array_append_new(samples, json_pack("{s:s,s:s,s:i,s:s,"
		    "s:f,s:s,s:s}", "workload", "lock-profile", "params",
		    "lock=lru_lock?@folio_batch_move_lru,mode=shmem",
		    "iteration", 1, "metric", "wait_share", "value",
		    (!strcmp(out, "base") ? 1.0 : 8.0) * (1 + 0.01 * boot),
		    "unit", "%", "better", "lower"));
	up = json_pack("{s:s,s:i,s:s,s:o,s:[{s:s,s:s,s:s,s:[{s:s,s:s,s:f,"
	    "s:[]}]}]}", PROTO_AGENT, "a1", PROTO_ATTEMPT, attempt,
	    PROTO_STATUS, failed ? "boot-failed" : "done", PROTO_SAMPLES,
	    samples, PROTO_PROFILES, "type", "lock-profile", "workload",
	    "lock-profile", "params", "mode=shmem", "locks", "lock",
	    "lru_lock", "symbol", "_raw_spin_lock", "share",
	    !strcmp(out, "base") ? 0.1 : 0.5, "callers");
	if (failed)
		json_object_set_new(up, PROTO_REASON, json_string(
		    "Kernel panic - not syncing: test"));
	if (db_job_store(db, id, up, failed ? "console/x.log" : NULL, now, 0) !=
	    DB_STORED)
		printf("# job %lld not stored\n", id);
	json_decref(up);
	json_decref(row);
	json_decref(j);
	return out;
}

static int
get(const char *path, struct buf *body)
{
	struct http_req r;
	struct http_resp resp;
	int st;

	const char *q = strchr(path, '?');
	char *p = xstrndup(path, q ? (size_t)(q - path) : strlen(path));

	/* the server splits the query off; so does this */
	http_req_init(&r, "GET", p, 1 << 20);
	if (q && strchr(q, '=')) {
		char *k = xstrndup(q + 1, strchr(q, '=') - q - 1);

		http_req_add_query(&r, k, strchr(q, '=') + 1);
		free(k);
	}
	free(p);
	r.db = app_db();
	http_resp_init(&resp);
	http_route_dispatch(NULL, &r, &resp);
	st = resp.status;
	buf_reset(body);
	buf_addstr(body, resp.body.data ? resp.body.data : "");
	http_resp_release(&resp);
	http_req_release(&r);
	return st;
}

/* GETs of a series' comparison JSON, page and report.txt. */
static void
get_all(long long sid, struct buf out[3])
{
	char path[96];

	snprintf(path, sizeof(path), "/api/v1/series/%lld/comparison", sid);
	get(path, &out[0]);
	snprintf(path, sizeof(path), "/series/%lld", sid);
	get(path, &out[1]);
	snprintf(path, sizeof(path), "/series/%lld/report.txt", sid);
	get(path, &out[2]);
}

/*
 * A finished comparison is served from the store: after its samples are
 * changed underneath, every rendering stays byte for byte what it was, and
 * the statistics never run again.
 */
static void
test_stored_once(struct db *db, long long sid)
{
	struct buf a[3] = { BUF_INIT(0), BUF_INIT(0), BUF_INIT(0) };
	struct buf b[3] = { BUF_INIT(0), BUF_INIT(0), BUF_INIT(0) };
	unsigned long n0 = report_computations();
	int i;

	get_all(sid, a);
	ok(a[0].len > 100 && strstr(a[0].data, "\"rows\"") &&
	    strstr(a[1].data, "<svg") && strstr(a[2].data, "pages_per_sec"),
	    "a finished comparison: JSON, page and report.txt");
	is_int(db_exec(db, "UPDATE samples SET value = value * 3 + 7; "
	    "DELETE FROM lock_profiles"), 0, "its samples and profiles are "
	    "changed underneath");
	report_cache_clear();
	get_all(sid, b);
	for (i = 0; i < 3; i++)
		ok(a[i].len == b[i].len && !memcmp(a[i].data, b[i].data,
		    a[i].len), "%s served identically from the store",
		    i == 0 ? "the JSON" : i == 1 ? "the page" : "report.txt");
	is_int(report_computations(), n0, "and the statistics never ran "
	    "again");
	for (i = 0; i < 3; i++) {
		buf_release(&a[i]);
		buf_release(&b[i]);
	}
}

/*
 * A live comparison is computed once per new upload: GETs between uploads
 * read the cached result; an upload makes the next GET recompute.
 */
static void
test_live_recompute(struct db *db, long long now)
{
	struct db_series_req sr = { .source = "upload" };
	struct buf err = BUF_INIT(0), body = BUF_INIT(0);
	unsigned long n0;
	int64_t sid = 0;
	long long cid;
	char path[96], *side;
	json_t *j;
	int i;

	db_series_insert(db, &sr, &sid);
	db_series_set_state(db, sid, "queued", "built", NULL);
	ok(sched_create(db, sid, fake_kernel(db, "base2"),
	    fake_kernel(db, "patched2"), "built", "running", &err) == 0,
	    "a second comparison");
	for (i = 0; i < 2; i++)
		free(lease_upload(db, now, 1000, 900, 0));
	snprintf(path, sizeof(path), "/api/v1/series/%lld/comparison",
	    (long long)sid);
	n0 = report_computations();
	is_int(get(path, &body), 200, "a live comparison after 2 uploads");
	ok(strstr(body.data, "\"running\"") != NULL, "it is running");
	is_int(report_computations(), n0 + 1, "computed once");
	for (i = 0; i < 3; i++)
		get(path, &body);
	snprintf(path, sizeof(path), "/series/%lld", (long long)sid);
	get(path, &body);
	snprintf(path, sizeof(path), "/api/v1/series/%lld/comparison",
	    (long long)sid);
	is_int(report_computations(), n0 + 1, "not again for 4 more GETs "
	    "without an upload");
	side = lease_upload(db, now, 1000, 900, 0);
	ok(side != NULL, "a third upload (%s)", side ? side : "none");
	free(side);
	get(path, &body);
	is_int(report_computations(), n0 + 2, "the next GET recomputes");
	j = json_loads(body.data, 0, NULL);
	ok(json_integer_value(json_object_get(json_object_get(
	    json_object_get(j, "progress"), "base"), "done")) +
	    json_integer_value(json_object_get(json_object_get(
	    json_object_get(j, "progress"), "patched"), "done")) == 3,
	    "and shows 3 boots done");
	json_decref(j);
	get(path, &body);
	is_int(report_computations(), n0 + 2, "and only once");

	/* a request never waits for another thread's computation: while
	   one computes (held here), views get the last upload's result,
	   marked stale, or none, and are not cached */
	j = json_loads(body.data, 0, NULL);
	cid = json_integer_value(json_object_get(j, "comparison"));
	json_decref(j);
	ok(cid > 0, "the comparison's id (%lld)", cid);
	side = lease_upload(db, now, 1000, 900, 0);
	free(side);
	report_busy_hold(cid, 1);
	is_int(get(path, &body), 200, "a GET while another thread computes");
	ok(strstr(body.data, "\"computing\": true") &&
	    strstr(body.data, "\"stale\": true") &&
	    strstr(body.data, "\"rows\""), "answers at once: the last "
	    "upload's rows, marked computing and stale");
	is_int(report_computations(), n0 + 2, "without computing");
	snprintf(path, sizeof(path), "/series/%lld", (long long)sid);
	get(path, &body);
	ok(strstr(body.data, "statistics of an earlier upload") != NULL,
	    "the page says so");
	report_cache_clear();
	snprintf(path, sizeof(path), "/api/v1/series/%lld/comparison",
	    (long long)sid);
	is_int(get(path, &body), 200, "nothing cached: a GET still answers");
	ok(strstr(body.data, "\"computing\": true") &&
	    !strstr(body.data, "\"stale\""), "computing, no result");
	report_busy_hold(cid, 0);
	get(path, &body);
	is_int(report_computations(), n0 + 3, "once free, the next GET "
	    "computes the newest");
	ok(!strstr(body.data, "\"computing\""), "and it is not marked");
	buf_release(&err);
	buf_release(&body);
}

/* stats_result_from_json undoes stats_result_to_json exactly. */
static void
test_result_json_roundtrip(void)
{
	struct buf b = BUF_INIT(0), t = BUF_INIT(0);
	struct stats_set base, test;
	struct stats_result r, back;
	char e[256], *s1, *s2;
	json_t *j;

	stats_set_init(&base);
	stats_set_init(&test);
	gen(&b, "fault-free", "mode=shmem,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 1000, 2);
	gen(&b, "memcg-flush", "memcgs=8", "flush_p99_us", "us", "lower", 6,
	    3, 50, 5);
	gen(&t, "fault-free", "mode=shmem,tasks=2", "pages_per_sec",
	    "pages/s", "higher", 6, 3, 800, 2);
	gen(&t, "only-test", "", "x", "s", "lower", 1, 2, 3, 1);
	stats_load_jsonl(&base, b.data, b.len, e, sizeof(e));
	stats_load_jsonl(&test, t.data, t.len, e, sizeof(e));
	stats_compare(&base, &test, NULL, &r);
	j = stats_result_to_json(&r);
	s1 = json_dumps(j, JSON_COMPACT);
	ok(stats_result_from_json(j, &back, e, sizeof(e)) == 0,
	    "a result reads back from its JSON");
	json_decref(j);
	j = stats_result_to_json(&back);
	s2 = json_dumps(j, JSON_COMPACT);
	ok(r.n == 3 && back.n == r.n && !strcmp(s1, s2), "and writes the "
	    "same JSON again (%zu rows, missing and NaN fields included)",
	    back.n);
	json_decref(j);
	stats_result_release(&back);
	j = json_loads("{\"counts\":{},\"rows\":[{\"workload\":\"w\"}]}",
	    0, NULL);
	ok(stats_result_from_json(j, &back, e, sizeof(e)) < 0 &&
	    strstr(e, "row 1"), "a damaged stored result is refused: %s", e);
	json_decref(j);
	free(s1);
	free(s2);
	stats_result_release(&r);
	stats_set_release(&base);
	stats_set_release(&test);
	buf_release(&b);
	buf_release(&t);
}

static void
test_store(void)
{
	struct buf err = BUF_INIT(0), body = BUF_INIT(0);
	struct db_series_req sr = { .source = "upload" };
	struct stage_ctx ctx;
	volatile int stop = 0;
	struct report r;
	struct db *db;
	json_t *topo, *j;
	long long now = (long long)time(NULL), kb, kp;
	int64_t sid = 0;
	size_t i, nfailed = 0;
	char path[96], *side;
	int n, rc;

	free(app.db_path);
	app.db_path = xasprintf("%s/t.db", dir);
	db = app_db();
	ok(db && db_migrate(db, app.schema_dir) == 0, "a fresh store");
	/* node_cpus as an agent registers it: node 1 has the fewest */
	topo = json_pack("{s:i,s:i,s:i,s:s,s:i,s:[s,s]}", "sockets", 2,
	    "nodes", 2, "cpus", 4, "cpu_model", "Test <CPU>", "memory_mb",
	    2048, "node_cpus", "0,2-3", "1");
	db_agent_register(db, "a1", "cls", "qemu", "6.12.0", topo, now);
	json_decref(topo);
	db_series_insert(db, &sr, &sid);
	db_series_set_state(db, sid, "queued", "built", NULL);
	is_int(report_load(db, sid, 1, &r), 0, "load before a comparison");
	is_int(r.comparison_id, 0, "no comparison yet");
	report_release(&r);
	kb = fake_kernel(db, "base");
	kp = fake_kernel(db, "patched");
	ok(sched_create(db, sid, kb, kp, "built", "running", &err) == 0,
	    "the scheduler creates the comparison %s", err.data ? err.data :
	    "");
	/* one agent runs every job: patched boot 2 panics */
	for (n = 0; (side = lease_upload(db, now, 1000, 800, 2)); n++)
		free(side);
	is_int(n, 6, "six jobs leased and uploaded (3 per side)");
	memset(&ctx, 0, sizeof(ctx));
	ctx.db = db;
	ctx.series_id = sid;
	ctx.from = "running";
	ctx.to = "done";
	ctx.stop = &stop;
	buf_init(&ctx.err, 4096);
	rc = stage_sched_wait(&ctx);
	ok(rc == STAGE_OK, "the comparison finishes (%d %s)", rc,
	    ctx.err.data ? ctx.err.data : "");
	db_series_set_state(db, sid, "running", "done", NULL);
	buf_release(&ctx.err);

	is_int(report_load(db, sid, 1, &r), 0, "report_load");
	ok(r.comparison_id > 0, "the comparison is found");
	is_str(r.state, "done", "its state");
	is_str(r.hw_class, "cls", "the hardware class");
	ok(r.topology && strstr(r.topology, "2 sockets, 2 NUMA nodes, 4 CPUs, "
	    "2048 MiB, Test <CPU> (qemu agent)"), "the topology line: %s",
	    r.topology ? r.topology : "(null)");
	is_int(r.cpus, 4, "the machine's CPUs");
	is_int(r.cpus_per_node, 1, "the fewest CPUs on one node, from "
	    "node_cpus (\"0,2-3\", \"1\")");
	ok(report_lock_blind(&r) != NULL, "so a per-node lock cannot show");
	is_int(r.side[0].done, 3, "base: 3 boots done");
	is_int(r.side[1].done, 2, "patched: 2 boots done");
	is_int(r.side[1].failed, 1, "patched: 1 boot failed");
	is_int(r.njobs, 6, "six jobs");
	for (i = 0; i < r.njobs; i++)
		if (r.jobs[i].state && !strcmp(r.jobs[i].state,
		    "boot-failed")) {
			nfailed++;
			ok(r.jobs[i].side == REPORT_PATCHED &&
			    r.jobs[i].boot == 2, "the failed job is patched "
			    "boot 2");
			snprintf(path, sizeof(path), "/api/v1/jobs/%lld/console"
			    "?attempt=1", r.jobs[i].id);
			is_str(r.jobs[i].console, path, "its console link");
			ok(r.jobs[i].reason && strstr(r.jobs[i].reason,
			    "panic"), "its reason");
		}
	is_int(nfailed, 1, "one failed job");
	ok(r.have_result && r.result.n == 1, "one row");
	if (r.have_result && r.result.n == 1) {
		is_int(r.result.rows[0].base.nboots, 3, "base boots in the row");
		is_int(r.result.rows[0].test.nboots, 2, "patched boots in the "
		    "row (the panicked one has no samples)");
		ok(r.result.rows[0].pct_change < -19 &&
		    r.result.rows[0].pct_change > -21, "about -20%%");
	}
	is_int(r.nlocks, 1, "stored and read back: one lock in the "
	    "contention table");
	if (r.nlocks == 1) {
		is_str(r.locks[0].lock, "lru_lock?@folio_batch_move_lru",
		    "its name");
		ok(r.locks[0].m[REPORT_WAIT_SHARE] &&
		    r.locks[0].m[REPORT_WAIT_SHARE]->pct_change > 600,
		    "its wait share's %%change");
	}
	is_int(r.nprofiles, 1, "one lock profile");
	if (r.nprofiles == 1) {
		is_int(r.profiles[0].nprofiles[0], 3, "3 base profiles");
		is_int(r.profiles[0].nprofiles[1], 2, "2 patched profiles");
		ok(fabs(r.profiles[0].locks[0].share[1] - 0.5) < 1e-9,
		    "patched lru_lock share");
	}
	ok(!report_is_live(&r), "done: not live");
	report_release(&r);

	is_int(report_load(db, sid, 0, &r), 0, "report_load without result");
	ok(!r.have_result && r.nprofiles == 0 && r.side[1].failed == 1,
	    "progress only");
	report_release(&r);
	is_int(report_load(db, sid + 100, 1, &r), 1, "an unknown series: 1");
	report_release(&r);

	/* through the routes */
	snprintf(path, sizeof(path), "/api/v1/series/%lld/comparison",
	    (long long)sid);
	is_int(get(path, &body), 200, "GET comparison: 200");
	j = json_loads(body.data, 0, NULL);
	is_int(json_array_size(json_object_get(j, "rows")), 1, "JSON rows");
	is_int(json_array_size(json_object_get(j, "failed_boots")), 1,
	    "JSON failed boots");
	json_decref(j);
	snprintf(path, sizeof(path), "/api/v1/series/%lld/comparison?result=0",
	    (long long)sid);
	is_int(get(path, &body), 200, "GET comparison?result=0: 200");
	j = json_loads(body.data, 0, NULL);
	ok(json_array_size(json_object_get(j, "rows")) == 0 &&
	    json_integer_value(json_object_get(json_object_get(
	    json_object_get(j, "progress"), "patched"), "failed")) == 1,
	    "?result=0: progress without rows");
	json_decref(j);
	snprintf(path, sizeof(path), "/series/%lld", (long long)sid);
	is_int(get(path, &body), 200, "GET the series page: 200");
	ok(strstr(body.data, "<section id=\"result\"") != NULL &&
	    strstr(body.data, "<svg class=\"chart\"") != NULL,
	    "the page has the result section with a chart");
	ok(strstr(body.data, "Test &lt;CPU&gt;") != NULL,
	    "the agent's CPU model, escaped");
	snprintf(path, sizeof(path), "/series/%lld/report.txt",
	    (long long)sid);
	is_int(get(path, &body), 200, "GET report.txt: 200");
	ok(strstr(body.data, "1 failed") != NULL, "report.txt: the failed "
	    "boot");
	is_int(get("/api/v1/series/x/comparison", &body), 400, "a bad id: 400");
	test_stored_once(db, sid);
	test_live_recompute(db, now);
	buf_release(&err);
	buf_release(&body);
}

int
main(void)
{
	struct buf err = BUF_INIT(0);
	const char *rm[] = { "rm", "-rf", dir, NULL };
	struct run rr = { .argv = rm, .timeout_sec = 30 };
	char *conf;

	test_regression();
	test_scaling_ntasks();
	test_no_change_live();
	test_hostile_names();
	test_repro_quoting();
	test_empty_side_and_one_boot();
	test_nan_guard();
	test_boots_needed();
	test_all_failed();
	test_profiles();
	test_profiles_many();
	test_contention();
	test_contention_empty();
	test_bad_samples();
	test_result_json_roundtrip();

	if (!mkdtemp(dir))
		return 1;
	conf = xasprintf("[daemon]\ndata = %s\n[agent \"a1\"]\n"
	    "token_sha256 = %064d\n[lore]\nallow = http://127.0.0.1:9/\n"
	    "[sched]\nboots = 3\nboot_step = 3\nmax_boots = 3\n", dir, 0);
	config_init(&app.cfg);
	ok(config_parse(&app.cfg, "test", conf, &err) == 0, "config: %s",
	    err.data ? err.data : "");
	ok(app_setup(1, &err) == 0, "paths");
	test_store();
	app_db_close_thread();
	app_release();
	config_release(&app.cfg);
	free(conf);
	buf_release(&err);
	run_cmd(&rr);
	return tap_done();
}
