/*
 * http_client: one libcurl easy handle per struct httpc, set up the same
 * way for every request (see http_client.h).
 */
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "lib/http_client.h"
#include "lib/xalloc.h"

/* The write callback's state for one request. */
struct httpc_sink {
	const struct httpc_req *req;
	size_t	 cap;		/* 0: out's own max only */
	size_t	 got;
	int	 too_large;
	int	 refused;
};

static size_t
httpc_write(char *p, size_t sz, size_t nm, void *arg)
{
	struct httpc_sink *s = arg;
	const struct httpc_req *req = s->req;
	size_t n = sz * nm;

	/* returning less than n makes libcurl stop with CURLE_WRITE_ERROR */
	if (s->cap && n > s->cap - s->got) {
		s->too_large = 1;
		return 0;
	}
	if (req->out && buf_add(req->out, p, n) < 0) {
		s->too_large = 1;
		return 0;
	}
	if (req->sink && req->sink(req->sink_arg, p, n) < 0) {
		s->refused = 1;
		return 0;
	}
	s->got += n;
	return n;
}

static struct curl_slist *
httpc_headers(const struct httpc_req *req)
{
	struct curl_slist *h = NULL;
	char *line;

	if (req->content_type) {
		line = xasprintf("Content-Type: %s", req->content_type);
		h = curl_slist_append(h, line);
		free(line);
	}
	if (req->token) {
		line = xasprintf("Authorization: %s %s", req->auth_scheme ?
		    req->auth_scheme : "Bearer", req->token);
		h = curl_slist_append(h, line);
		free(line);
	}
	/* a body goes at once, not after a "100 Continue" round trip */
	h = curl_slist_append(h, "Expect:");
	return h;
}

void
httpc_global_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

int
httpc_init(struct httpc *h)
{
	h->curl = curl_easy_init();
	return h->curl ? 0 : -1;
}

void
httpc_release(struct httpc *h)
{
	if (h->curl)
		curl_easy_cleanup(h->curl);
	h->curl = NULL;
}

/* The options every request gets; what the last one set is gone (reset). */
static void
httpc_setup(CURL *c, const struct httpc_req *req, struct httpc_sink *sink,
    struct curl_slist *hdrs, char *cerr)
{
	const char *derived = req->body ? "POST" : "GET";

	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, req->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, req->connect_timeout ?
	    req->connect_timeout : (long)HTTPC_CONNECT_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, req->timeout ? req->timeout :
	    (long)HTTPC_TIMEOUT);
	if (req->user_agent)
		curl_easy_setopt(c, CURLOPT_USERAGENT, req->user_agent);
	if (req->method && strcmp(req->method, derived) != 0)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
	if (req->body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)req->len);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	if (req->fail_on_error)
		curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	/* refused before it is read when the server announces its length */
	if (sink->cap || (req->out && req->out->max))
		curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)
		    (sink->cap ? sink->cap : req->out->max));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, httpc_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, sink);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	cerr[0] = '\0';
}

int
httpc_request(struct httpc *h, const struct httpc_req *req,
    struct httpc_resp *resp, struct buf *err)
{
	struct httpc_sink sink = { req, req->max_bytes, 0, 0, 0 };
	struct curl_slist *hdrs = httpc_headers(req);
	char cerr[CURL_ERROR_SIZE], *loc = NULL;
	CURLcode cr;

	memset(resp, 0, sizeof(*resp));
	httpc_setup(h->curl, req, &sink, hdrs, cerr);
	cr = curl_easy_perform(h->curl);
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &resp->status);
	if (curl_easy_getinfo(h->curl, CURLINFO_REDIRECT_URL, &loc) ==
	    CURLE_OK && loc)
		resp->location = xstrdup(loc);
	resp->sink_refused = sink.refused;
	resp->too_large = sink.too_large || cr == CURLE_FILESIZE_EXCEEDED;
	/* the handle keeps these pointers: none may outlive this call */
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, NULL);
	curl_slist_free_all(hdrs);
	if (resp->too_large) {
		resp->reason = "response too large";
		if (err)
			buf_addstr(err, resp->reason);
		return -1;
	}
	if (cr != CURLE_OK) {
		resp->reason = curl_easy_strerror(cr);
		if (err)
			buf_addstr(err, cerr[0] ? cerr : resp->reason);
		return -1;
	}
	return 0;
}

void
httpc_resp_release(struct httpc_resp *resp)
{
	free(resp->location);
	memset(resp, 0, sizeof(*resp));
}
