/*
 * client: the agent's HTTP to the daemon (libcurl).  Bodies from the daemon
 * are bounded; a kernel download is checked for size and sha256 before it
 * is renamed into place, so a truncated or corrupt file never boots.
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"

#define RESP_MAX	(4 * 1024 * 1024)

void
client_init(struct client *c, const struct agent_conf *conf)
{
	static int global;

	if (!global++)
		curl_global_init(CURL_GLOBAL_DEFAULT);
	c->conf = conf;
	c->curl = curl_easy_init();
	if (c->curl == NULL)
		fatalx("curl_easy_init failed");
}

void
client_release(struct client *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	c->curl = NULL;
}

static size_t
to_buf(char *p, size_t sz, size_t n, void *arg)
{
	struct buf *b = arg;

	if (buf_add(b, p, sz * n) == -1)
		return 0;	/* aborts the transfer */
	return sz * n;
}

static struct curl_slist *
headers(struct client *c, int json)
{
	struct curl_slist *h = NULL;
	char *auth = xasprintf("Authorization: Bearer %s",
	    c->conf->token ? c->conf->token : "");

	h = curl_slist_append(h, auth);
	if (json)
		h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, "Expect:");
	free(auth);
	return h;
}

long
client_post(struct client *c, const char *path, json_t *body, json_t **resp,
    struct buf *err)
{
	struct buf in = BUF_INIT(RESP_MAX);
	struct curl_slist *h;
	char *text, *url;
	long status = 0;
	CURLcode cc;

	*resp = NULL;
	text = json_dumps(body, JSON_COMPACT);
	url = xasprintf("%s%s", c->conf->server, path);
	h = headers(c, 1);
	curl_easy_reset(c->curl);
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(text));
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, to_buf);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &in);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "kperfci-agent");
	cc = curl_easy_perform(c->curl);
	if (cc != CURLE_OK) {
		buf_addf(err, "%s: %s", url, in.overflow ?
		    "response too large" : curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	if (in.len) {
		json_error_t je;

		*resp = json_loadb(in.data, in.len, 0, &je);
		if (*resp == NULL || !json_is_object(*resp)) {
			json_decref(*resp);
			*resp = NULL;
			buf_addf(err, "%s: HTTP %ld with a body that is not a "
			    "JSON object (%s)", url, status, je.text);
		}
	}
out:
	curl_slist_free_all(h);
	free(text);
	free(url);
	buf_release(&in);
	return status;
}

struct dl {
	FILE	*f;
	long long got, max;
	struct sha256 sha;
};

static size_t
to_file(char *p, size_t sz, size_t n, void *arg)
{
	struct dl *d = arg;

	if (d->got + (long long)(sz * n) > d->max)
		return 0;
	if (fwrite(p, sz, n, d->f) != n)
		return 0;
	sha256_update(&d->sha, p, sz * n);
	d->got += sz * n;
	return sz * n;
}

int
client_download(struct client *c, const char *path, const char *dest,
    long long size, const char *sha256, long *status, struct buf *err)
{
	struct dl d = { 0 };
	struct curl_slist *h;
	char *url = xasprintf("%s%s", c->conf->server, path);
	char *tmp = xasprintf("%s.part", dest);
	unsigned char dig[32];
	char hex[65];
	CURLcode cc;
	int rc = -1;

	*status = 0;
	if ((d.f = fopen(tmp, "wb")) == NULL) {
		buf_addf(err, "%s: %s", tmp, strerror(errno));
		free(url);
		free(tmp);
		return -1;
	}
	/* One byte more than announced so a longer body is caught too. */
	d.max = size + 1;
	sha256_init(&d.sha);
	h = headers(c, 0);
	curl_easy_reset(c->curl);
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, to_file);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &d);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 1800L);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_FAILONERROR, 1L);
	cc = curl_easy_perform(c->curl);
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, status);
	if (fclose(d.f) != 0 && cc == CURLE_OK) {
		buf_addf(err, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && d.got >= size)) {
		buf_addf(err, "kernel download %s: %s", url,
		    curl_easy_strerror(cc));
		goto out;
	}
	if (d.got != size) {
		buf_addf(err, "kernel download %s: got %lld bytes, expected "
		    "%lld (%s)", url, d.got, size, d.got < size ? "truncated" :
		    "too long");
		goto out;
	}
	sha256_final(&d.sha, dig);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", dig[i]);
	if (strcmp(hex, sha256) != 0) {
		buf_addf(err, "kernel download %s: sha256 %s, expected %s "
		    "(corrupt)", url, hex, sha256);
		goto out;
	}
	if (rename(tmp, dest) == -1) {
		buf_addf(err, "%s: %s", dest, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc == -1)
		unlink(tmp);
	curl_slist_free_all(h);
	free(url);
	free(tmp);
	return rc;
}
