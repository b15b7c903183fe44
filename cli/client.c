/*
 * client: libcurl requests to the kperfcid API (see client.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cli/client.h"
#include "cli/term.h"
#include "lib/xalloc.h"

const char *client_server = "http://127.0.0.1:8080";
const char *client_token;

static size_t
client_write(char *p, size_t sz, size_t n, void *arg)
{
	struct buf *out = arg;

	if (buf_add(out, p, sz * n) < 0)
		return 0;
	return sz * n;
}

int
client_request(const char *method, const char *path, const char *ctype,
    const void *body, size_t len, struct buf *out)
{
	struct curl_slist *hdrs = NULL;
	char *url, *h, errbuf[CURL_ERROR_SIZE] = "";
	long status = -1;
	CURL *c;
	CURLcode rc;

	c = curl_easy_init();
	if (!c) {
		fprintf(stderr, "kperfci: cannot initialise libcurl\n");
		return -1;
	}
	{
		size_t sl = strlen(client_server);

		/* "http://h:p/" + "/api/..." must not give "//api" */
		if (sl && client_server[sl - 1] == '/' && path[0] == '/')
			sl--;
		url = xasprintf("%.*s%s", (int)sl, client_server, path);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "kperfci-cli/0.1");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, client_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)len);
	}
	if (ctype) {
		h = xasprintf("Content-Type: %s", ctype);
		hdrs = curl_slist_append(hdrs, h);
		free(h);
	}
	if (client_token && *client_token) {
		h = xasprintf("Authorization: Bearer %s", client_token);
		hdrs = curl_slist_append(hdrs, h);
		free(h);
	}
	hdrs = curl_slist_append(hdrs, "Expect:");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		fprintf(stderr, "kperfci: %s %s: %s\n", method, url,
		    out->overflow ? "response too large" : errbuf[0] ?
		    errbuf : curl_easy_strerror(rc));
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	}
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	free(url);
	return (int)status;
}

json_t *
client_json(const char *method, const char *path, json_t *body, int *status)
{
	struct buf out = BUF_INIT(64 << 20);
	char *text = NULL;
	json_t *j = NULL, *e;
	json_error_t je;
	int st;

	if (body)
		text = json_dumps(body, JSON_COMPACT);
	st = client_request(method, path, body ? "application/json" : NULL,
	    text, text ? strlen(text) : 0, &out);
	free(text);
	if (status)
		*status = st;
	if (st < 0)
		goto out;
	j = json_loadb(out.data ? out.data : "", out.len, 0, &je);
	if (st < 200 || st > 299) {
		e = j ? json_object_get(j, "error") : NULL;
		fprintf(stderr, "kperfci: server answered %d: %s\n", st,
		    term_clean(json_is_string(e) ? json_string_value(e) :
		    out.data ? out.data : ""));
		json_decref(j);
		j = NULL;
	} else if (!j) {
		fprintf(stderr, "kperfci: server sent invalid JSON: %s\n",
		    term_clean(je.text));
	}
out:
	buf_release(&out);
	return j;
}
