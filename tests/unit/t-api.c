/*
 * Unit tests for the series API and pages, called without a server:
 * POST/GET through the real route tables on a real store, the fetch stage
 * run synchronously on real fixture mboxes, and the HTML escaping of what
 * a mail sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/app.h"
#include "daemon/auth.h"
#include "daemon/db.h"
#include "daemon/http.h"
#include "daemon/http_cache.h"
#include "daemon/limits.h"
#include "daemon/pipeline.h"
#include "lib/buf.h"
#include "lib/run.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-api.XXXXXX";
/* The client address call() gives requests (NULL: an in-process call). */
static const char *call_peer;

struct res {
	int	 status;
	char	*body;
	char	*location;
};

static struct res
call(const char *method, const char *path, const char *ctype,
    const char *body, size_t len)
{
	struct http_req r;
	struct http_resp resp;
	struct res out = { 0, NULL, NULL };
	const char *q;
	size_t i;

	http_req_init(&r, method, path, 64u << 20);
	if ((q = strchr(path, '?'))) {
		/* the server splits the query off; do the same for tests */
		char *k = xstrdup(q + 1), *v = strchr(k, '=');

		r.path[q - path] = '\0';
		if (v)
			*v++ = '\0';
		http_req_add_query(&r, k, v ? v : "");
		free(k);
	}
	if (ctype)
		http_req_add_header(&r, "Content-Type", ctype);
	if (body)
		buf_add(&r.body, body, len);
	r.db = app_db();
	/* trusted loopback submitters (daemon/auth.h), told apart by
	   address for the limits; by default the admin, whom they spare */
	r.peer = call_peer ? call_peer : "127.0.0.1";
	if (!call_peer)
		http_req_add_header(&r, "Authorization", "Bearer t-api-admin");
	http_resp_init(&resp);
	http_route_dispatch(NULL, &r, &resp);
	out.status = resp.status;
	out.body = xstrdup(resp.body.data ? resp.body.data : "");
	for (i = 0; i < resp.nheaders; i++)
		if (!strcmp(resp.headers[i].name, "Location"))
			out.location = xstrdup(resp.headers[i].value);
	http_resp_release(&resp);
	http_req_release(&r);
	return out;
}

static void
res_free(struct res *r)
{
	free(r->body);
	free(r->location);
}

static struct res
post_json(const char *json)
{
	return call("POST", "/api/v1/series", "application/json", json,
	    strlen(json));
}

static struct res
post_file(const char *name)
{
	struct buf data = BUF_INIT(0);
	char *path = xasprintf("%s/tests/fixtures/threads/%s", KPERFCI_SRCDIR,
	    name);
	struct res r;

	if (buf_read_file(&data, path) < 0)
		printf("# cannot read %s\n", path);
	r = call("POST", "/api/v1/series", "application/mbox", data.data,
	    data.len);
	buf_release(&data);
	free(path);
	return r;
}

static long long
json_id(const char *body)
{
	json_t *j = json_loads(body, 0, NULL);
	long long id = j ? json_integer_value(json_object_get(j, "id")) : 0;

	json_decref(j);
	return id;
}

static char *
json_field(const char *body, const char *field)
{
	json_t *j = json_loads(body, 0, NULL), *v;
	char *s = NULL;

	v = j ? json_object_get(j, field) : NULL;
	if (json_is_string(v))
		s = xstrdup(json_string_value(v));
	json_decref(j);
	return s;
}

static long long
series_count(void)
{
	struct res r = call("GET", "/api/v1/series?limit=500", NULL, NULL, 0);
	json_t *j = json_loads(r.body, 0, NULL);
	long long n = j ? (long long)json_array_size(json_object_get(j,
	    "series")) : -1;

	json_decref(j);
	res_free(&r);
	return n;
}

/* Random bytes declared application/mbox: a 400, and nothing stored. */
static void
test_not_mail(void)
{
	size_t n = 60u << 20, i;
	char *junk = xmalloc(n);
	unsigned x = 12345;
	long long before = series_count();
	struct res r;

	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (char)(x >> 16);
	}
	r = call("POST", "/api/v1/series", "application/mbox", junk, n);
	is_int(r.status, 400, "60 MB of random bytes as mbox: 400");
	ok(strstr(r.body, "not mail") != NULL, "says it is not mail (%s)",
	    r.body);
	res_free(&r);
	is_int(series_count(), before, "and nothing reached the store");
	r = call("POST", "/api/v1/series", "application/mbox",
	    "Subject: hi\nFrom: a@b\n\nbody\n",
	    strlen("Subject: hi\nFrom: a@b\n\nbody\n"));
	is_int(r.status, 202, "a bare RFC 5322 message is mail");
	res_free(&r);
	free(junk);
}

/* ?limit: 1..500; anything else a 400 saying so. */
static void
test_limit(void)
{
	static const char *const bad[] = { "0", "501", "10000", "1x", "",
	    "-5" };
	struct res r;
	size_t i;
	char path[64];
	json_t *j;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "/api/v1/series?limit=%s", bad[i]);
		r = call("GET", path, NULL, NULL, 0);
		is_int(r.status, 400, "limit=%s refused", bad[i]);
		ok(strstr(r.body, "between 1 and 500") != NULL, "naming the "
		    "bounds");
		res_free(&r);
	}
	r = call("GET", "/api/v1/series?limit=500", NULL, NULL, 0);
	is_int(r.status, 200, "limit=500 is the most");
	res_free(&r);
	r = call("GET", "/api/v1/series?limit=1", NULL, NULL, 0);
	j = json_loads(r.body, 0, NULL);
	ok(r.status == 200 && j && json_array_size(json_object_get(j,
	    "series")) == 1, "limit=1 gives one series");
	json_decref(j);
	res_free(&r);
}

/* A submitter past its burst gets a 429 naming the limit; others not. */
static void
test_rate_limit(void)
{
	const char *body = "{\"url\": \"http://127.0.0.1:9/linux-mm/"
	    "rate@example.org/\"}";
	struct res r;
	int i, accepted = 0;

	limits_reset();
	call_peer = "127.0.0.7";
	for (i = 0; i < 25; i++) {
		r = post_json(body);
		if (r.status == 202)
			accepted++;
		else if (r.status == 429) {
			ok(strstr(r.body, "rate limit") &&
			    strstr(r.body, "submit_burst") &&
			    strstr(r.body, "127.0.0.7"), "429 names the limit "
			    "and the submitter (%s)", r.body);
			res_free(&r);
			break;
		}
		res_free(&r);
	}
	is_int(accepted, 20, "the burst (20) is accepted, then 429");
	call_peer = "127.0.0.8";
	r = post_json(body);
	is_int(r.status, 202, "another submitter is not limited");
	res_free(&r);
	call_peer = NULL;
	r = post_json(body);
	is_int(r.status, 202, "nor a third");
	res_free(&r);
}

/* Uploads past [http] upload_quota (here 1K): 429 naming the quota. */
static void
test_quota(void)
{
	struct buf m = BUF_INIT(0);
	struct res r;
	int i;

	limits_reset();
	call_peer = "127.0.0.9";
	buf_addstr(&m, "From: a@example.org\nSubject: [PATCH] q\n\n");
	while (m.len < 600)
		buf_addstr(&m, "padding padding padding padding\n");
	for (i = 0; i < 2; i++) {
		r = call("POST", "/api/v1/series", "application/mbox", m.data,
		    m.len);
		if (i == 0)
			is_int(r.status, 202, "a first 600-byte upload fits");
		else {
			is_int(r.status, 429, "a second passes the quota: 429");
			ok(strstr(r.body, "storage quota") &&
			    strstr(r.body, "upload_quota (1024 bytes)"),
			    "naming it (%s)", r.body);
		}
		res_free(&r);
	}
	call_peer = NULL;
	buf_release(&m);
}

/*
 * The quota counts what a submitter's runs keep, not only their mail: a
 * submitter whose series' comparison stored samples past the quota is
 * refused the next submission, and the refusal says what they hold.
 */
static void
test_quota_results(void)
{
	const char *m = "From: a@example.org\nSubject: [PATCH] r\n\nsmall\n";
	struct res r;
	char *sql;
	long long id;

	limits_reset();
	call_peer = "127.0.0.10";
	r = call("POST", "/api/v1/series", "application/mbox", m, strlen(m));
	is_int(r.status, 202, "a small upload fits the 1K quota");
	id = json_id(r.body);
	res_free(&r);
	/* its run: a comparison, one job, 20 samples of about 100 bytes */
	sql = xasprintf("INSERT INTO kernels (id, sha256, size, path, created) "
	    "VALUES (9001, 'quota-k', 0, 'kernels/x', 0); "
	    "INSERT INTO comparisons (id, series_id, base_kernel, "
	    "patched_kernel, matrix, priority, boots, boot_step, max_boots, "
	    "looks, planned, max_replacements, created, updated) VALUES "
	    "(9001, %lld, 9001, 9001, '', 0, 1, 1, 1, 1, 1, 0, 0, 0); "
	    "INSERT INTO jobs (id, kernel_id, matrix, comparison_id, created, "
	    "updated) VALUES (9001, 9001, '', 9001, 0, 0); "
	    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
	    "WHERE i < 20) INSERT INTO samples (job_id, attempt, workload, "
	    "params, iteration, metric, value, unit, better) SELECT 9001, 1, "
	    "'will-it-scale', printf('threads=%%d,%%070d', i, 0), i, "
	    "'ops', 1.0, 'ops/s', 'higher' FROM n;", id);
	is_int(db_exec(app_db(), sql), 0, "its run's samples stored");
	free(sql);
	r = call("POST", "/api/v1/series", "application/mbox", m, strlen(m));
	is_int(r.status, 429, "past the quota by its results: the next "
	    "upload is refused");
	ok(strstr(r.body, "storage quota") && strstr(r.body, "results ") &&
	    strstr(r.body, "upload_quota (1024 bytes)"),
	    "naming the quota and what the series keep (%s)", r.body);
	res_free(&r);
	call_peer = NULL;
}

/* GET /api/v1/series with the decoded query pairs given (name, value,
   name, value, ..., NULL): the cache's misses before and after. */
static unsigned long
get_pairs(const char *const *kv)
{
	struct http_req r;
	struct http_resp resp;
	unsigned long h, m;

	http_req_init(&r, "GET", "/api/v1/series", 1 << 20);
	for (; *kv; kv += 2)
		http_req_add_query(&r, kv[0], kv[1]);
	r.db = app_db();
	r.peer = "127.0.0.1";
	http_resp_init(&resp);
	http_route_dispatch(NULL, &r, &resp);
	http_cache_stats(&h, &m);
	http_resp_release(&resp);
	http_req_release(&r);
	return m;
}

/* ?x=%26limit%3D1 (one pair, x = "&limit=1") and ?x=&limit=1 (two) are
   different requests: the second must not be answered from the first's
   entry (issue 18, finding 9). */
static void
test_cache_key_escaping(void)
{
	static const char *const one[] = { "x", "&limit=1", NULL };
	static const char *const two[] = { "x", "", "limit", "1", NULL };
	unsigned long m1, m2, m3;

	m1 = get_pairs(one);
	m2 = get_pairs(two);
	m3 = get_pairs(two);
	ok(m2 == m1 + 1, "the cache keys on escaped pairs: ?x=&limit=1 is not "
	    "the entry of ?x=%%26limit%%3D1");
	ok(m3 == m2, "and is an entry of its own");
}

/* A parameter the answer ignores makes no entry of its own: ?junk=N per
   request would render a comparison's page again each time. */
static void
test_cache_undeclared(void)
{
	static const char *const j1[] = { "limit", "2", "junk", "1", NULL };
	static const char *const j2[] = { "junk", "2", "limit", "2", NULL };
	static const char *const l3[] = { "limit", "3", "junk", "3", NULL };
	unsigned long m1, m2, m3;

	m1 = get_pairs(j1);
	m2 = get_pairs(j2);
	ok(m2 == m1, "?limit=2&junk=1 then ?junk=2&limit=2: one entry "
	    "(junk is not a parameter of the list)");
	m3 = get_pairs(l3);
	ok(m3 == m2 + 1, "while ?limit=3 is another");
}

/*
 * The response cache: a repeated GET of the list is answered from it, and
 * any change to the store (here a new series) retires it at once.
 */
static void
test_response_cache(void)
{
	unsigned long h0, m0, h1, m1;
	struct res a, b, c;
	long long id;

	a = call("GET", "/api/v1/series?limit=5", NULL, NULL, 0);
	http_cache_stats(&h0, &m0);
	b = call("GET", "/api/v1/series?limit=5", NULL, NULL, 0);
	http_cache_stats(&h1, &m1);
	ok(h1 == h0 + 1 && m1 == m0, "a repeated GET is a cache hit");
	is_str(b.body, a.body, "with the same answer");
	res_free(&b);
	b = post_json("{\"url\": \"http://127.0.0.1:9/linux-mm/"
	    "cache@example.org/\"}");
	id = json_id(b.body);
	c = call("GET", "/api/v1/series?limit=5", NULL, NULL, 0);
	http_cache_stats(&h1, &m1);
	ok(m1 == m0 + 1, "after a new series the next GET is a miss");
	ok(id > 0 && strstr(c.body, "\"queued\"") && strcmp(c.body, a.body),
	    "and lists it (nothing stale served)");
	res_free(&a);
	res_free(&b);
	res_free(&c);
	test_cache_key_escaping();
	test_cache_undeclared();
}

static void
test_submit_url(void)
{
	struct res r;

	r = post_json("{\"url\": \"http://127.0.0.1:9/linux-mm/"
	    "20240101.abc@example.org/\", \"version\": 2, \"base\": \"v6.12\"}");
	is_int(r.status, 202, "allowlisted URL accepted");
	ok(strstr(r.body, "\"state\": \"queued\"") && json_id(r.body) > 0,
	    "202 carries id and queued");
	res_free(&r);
	r = post_json("{\"url\": \"https://evil.example.com/linux-mm/a@b/\"}");
	is_int(r.status, 400, "off-list host refused");
	ok(strstr(r.body, "http://127.0.0.1:9/") != NULL,
	    "400 names the allowed base");
	res_free(&r);
	r = post_json("{\"url\": \"http://127.0.0.1:9/linux-mm/a%20b@x/\"}");
	is_int(r.status, 400, "message-id with a space refused");
	ok(strstr(r.body, "space") != NULL, "says space");
	res_free(&r);
	r = post_json("{\"url\": \"file:///etc/passwd\"}");
	is_int(r.status, 400, "non-http scheme refused");
	res_free(&r);
	r = post_json("{\"version\": 2}");
	is_int(r.status, 400, "missing url");
	ok(strstr(r.body, "missing field \\\"url\\\"") != NULL, "names url");
	res_free(&r);
	r = post_json("{\"url\": \"http://127.0.0.1:9/l/a@b/\", "
	    "\"version\": \"two\"}");
	is_int(r.status, 400, "version of the wrong type");
	ok(strstr(r.body, "version") != NULL, "names version");
	res_free(&r);
	r = post_json("{\"url\": \"http://127.0.0.1:9/l/a@b/\", "
	    "\"base\": \"v1 v2\"}");
	is_int(r.status, 400, "base with a space refused");
	res_free(&r);
	r = post_json("{not json");
	is_int(r.status, 400, "invalid JSON");
	ok(strstr(r.body, "invalid JSON") != NULL, "says invalid JSON");
	res_free(&r);
}

static void
test_get(void)
{
	struct res r;

	r = call("GET", "/api/v1/series/99999", NULL, NULL, 0);
	is_int(r.status, 404, "unknown id 404");
	ok(strstr(r.body, "no series 99999") != NULL, "404 names the id");
	res_free(&r);
	r = call("GET", "/api/v1/series/abc", NULL, NULL, 0);
	is_int(r.status, 400, "non-numeric id 400");
	res_free(&r);
	r = call("GET", "/api/v1/series", NULL, NULL, 0);
	is_int(r.status, 200, "list");
	ok(strstr(r.body, "\"series\"") != NULL, "list object");
	res_free(&r);
	r = call("GET", "/healthz", NULL, NULL, 0);
	is_int(r.status, 200, "healthz");
	ok(strstr(r.body, "\"ok\"") != NULL, "healthz ok");
	res_free(&r);
}

static void
test_mbox_pipeline(void)
{
	struct res r, before, after;
	long long good, bad;
	char path[64], *state, *err;
	int good_final;

	r = post_file("rerolls.mbox");
	is_int(r.status, 202, "mbox upload accepted");
	good = json_id(r.body);
	res_free(&r);
	ok(pipeline_run_stage(app_db(), "queued") >= 1,
	    "pipeline ran the fetch stage");
	snprintf(path, sizeof(path), "/api/v1/series/%lld", good);
	before = call("GET", path, NULL, NULL, 0);
	state = json_field(before.body, "state");
	is_str(state, "fetched", "fetch stage moved the upload to fetched");
	free(state);
	ok(strstr(before.body, "\"counter\": 3") != NULL,
	    "patches stored and served");
	ok(strstr(before.body, "Reviewed-by") != NULL, "trailers served");

	r = post_file("no-patches.mbox");
	bad = json_id(r.body);
	res_free(&r);
	r = call("POST", "/api/v1/series?version=abc", "application/mbox",
	    "x", 1);
	is_int(r.status, 400, "bad ?version on upload");
	res_free(&r);
	r = call("POST", "/api/v1/series", "application/mbox", "", 0);
	is_int(r.status, 400, "empty mbox refused");
	res_free(&r);
	pipeline_run_stage(app_db(), "queued");
	snprintf(path, sizeof(path), "/api/v1/series/%lld", bad);
	r = call("GET", path, NULL, NULL, 0);
	state = json_field(r.body, "state");
	err = json_field(r.body, "error");
	is_str(state, "failed", "thread without patches fails");
	ok(err && strstr(err, "no patches"), "reason stored: %s",
	    err ? err : "(null)");
	free(state);
	free(err);
	res_free(&r);
	snprintf(path, sizeof(path), "/api/v1/series/%lld", good);
	after = call("GET", path, NULL, NULL, 0);
	is_str(after.body, before.body,
	    "a failing submission touched nothing stored before");
	good_final = strstr(before.body, "\"final\": true") != NULL;
	res_free(&before);
	res_free(&after);

	/* the page shows the series and escapes what the mail said */
	snprintf(path, sizeof(path), "/series/%lld", good);
	r = call("GET", path, NULL, NULL, 0);
	is_int(r.status, 200, "series page");
	ok(strstr(r.body, "mm: move LRU stat updates out of lru_lock") &&
	    strstr(r.body, "Reviewed-by: Bob Reviewer &lt;bob@example.com&gt;"),
	    "page lists patches and escaped trailers");
	ok((strstr(r.body, "http-equiv=\"refresh\"") == NULL) ==
	    good_final,
	    "the page refreshes exactly when the series is not at rest");
	res_free(&r);
	snprintf(path, sizeof(path), "/series/%lld", bad);
	r = call("GET", path, NULL, NULL, 0);
	ok(strstr(r.body, "state-failed") && strstr(r.body, "no patches"),
	    "failed page shows the reason");
	res_free(&r);
	r = call("GET", "/series/4242", NULL, NULL, 0);
	is_int(r.status, 404, "unknown series page 404");
	res_free(&r);
}

static void
test_ui(void)
{
	struct res r;
	const char *form = "url=http%3A%2F%2F127.0.0.1%3A9%2Flinux-mm%2F"
	    "x%40y%2F&version=&base=";
	const char *bad = "url=https%3A%2F%2Fevil%2Fl%2F%3Cb%3E%40y%2F";
	char csrf[65], *formbuf = NULL, *badbuf = NULL;

	r = call("GET", "/", NULL, NULL, 0);
	is_int(r.status, 200, "front page");
	ok(strstr(r.body, "\">mm: batching</a>") != NULL,
	    "front page lists a series by its cover subject");
	ok(strstr(r.body, "<form") && strstr(r.body, "name=\"url\"") &&
	    strstr(r.body, "viewport"), "front page has the form, viewport");
	res_free(&r);
	r = call("POST", "/submit", "application/x-www-form-urlencoded", form,
	    strlen(form));
	is_int(r.status, 403, "form without the CSRF token refused");
	res_free(&r);
	auth_csrf_token(csrf);
	form = formbuf = xasprintf("%s&csrf=%s", form, csrf);
	bad = badbuf = xasprintf("%s&csrf=%s", bad, csrf);
	r = call("POST", "/submit", "application/x-www-form-urlencoded", form,
	    strlen(form));
	if (r.status != 303)
		printf("# %s\n", r.body);
	is_int(r.status, 303, "form submit redirects");
	ok(r.location && !strncmp(r.location, "/series/", 8),
	    "redirect to the series page");
	if (r.location) {
		struct res page = call("GET", r.location, NULL, NULL, 0);

		ok(strstr(page.body, "state-queued") &&
		    strstr(page.body, "http-equiv=\"refresh\""),
		    "a queued series' page refreshes itself");
		res_free(&page);
	}
	res_free(&r);
	r = call("POST", "/submit", "application/x-www-form-urlencoded", bad,
	    strlen(bad));
	is_int(r.status, 400, "form with an off-list URL");
	ok(strstr(r.body, "&lt;b&gt;") && !strstr(r.body, "<b>@"),
	    "error page escapes the URL");
	res_free(&r);
	r = call("GET", "/static/style.css", NULL, NULL, 0);
	is_int(r.status, 200, "stylesheet served");
	res_free(&r);
	r = call("GET", "/static/..%2Fetc", NULL, NULL, 0);
	is_int(r.status, 404, "no path tricks in static files");
	res_free(&r);
	free(formbuf);
	free(badbuf);
}

int
main(void)
{
	struct buf err = BUF_INIT(0);
	const char *rm[] = { "rm", "-rf", dir, NULL };
	struct run rr = { .argv = rm, .timeout_sec = 30 };
	char *conf, admin[65];

	if (!mkdtemp(dir))
		return 1;
	sha256_hex("t-api-admin", 11, admin);
	conf = xasprintf("[daemon]\ndata = %s\n[lore]\n"
	    "allow = http://127.0.0.1:9/\n[http]\nupload_quota = 1K\n"
	    "[auth]\nadmin_token_sha256 = %s\n", dir, admin);
	config_init(&app.cfg);
	ok(config_parse(&app.cfg, "test", conf, &err) == 0, "config");
	ok(app_setup(1, &err) == 0, "paths");
	ok(app_db() && db_migrate(app_db(), app.schema_dir) == 0, "store");
	test_submit_url();
	test_get();
	test_mbox_pipeline();
	test_ui();
	test_not_mail();
	test_limit();
	test_rate_limit();
	test_quota();
	test_quota_results();
	test_response_cache();
	app_db_close_thread();
	app_release();
	config_release(&app.cfg);
	free(conf);
	buf_release(&err);
	run_cmd(&rr);
	return tap_done();
}
