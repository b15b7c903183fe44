/*
 * client: the agent's HTTP to the daemon (lib/http_client.c).  Bodies from
 * the daemon are bounded; a kernel download is checked for size and
 * sha256 before it is renamed into place, so a truncated or corrupt file
 * never boots.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "lib/http_client.h"
#include "lib/log.h"
#include "lib/proto.h"
#include "lib/sha256.h"
#include "lib/xalloc.h"

#define RESP_MAX	(4 * 1024 * 1024)
#define CLIENT_USER_AGENT	"kperfci-agent"
#define CLIENT_TIMEOUT		120	/* seconds, one JSON call */
#define CLIENT_DOWNLOAD_TIMEOUT	1800	/* a kernel image */

void
client_init(struct client *c, const struct agent_conf *conf)
{
	static int global;

	if (!global++)
		httpc_global_init();
	c->conf = conf;
	if (httpc_init(&c->http) < 0)
		fatalx("curl_easy_init failed");
}

void
client_release(struct client *c)
{
	httpc_release(&c->http);
}

/* The daemon's token, "" when none is configured (the header is sent). */
static const char *
client_token(const struct client *c)
{
	return c->conf->token ? c->conf->token : "";
}

long
client_post(struct client *c, const char *path, json_t *body, json_t **resp,
    struct buf *err)
{
	struct buf in = BUF_INIT(RESP_MAX);
	struct httpc_resp hr;
	char *text, *url;
	long status = 0;

	*resp = NULL;
	text = json_dumps(body, JSON_COMPACT);
	url = xasprintf("%s%s", c->conf->server, path);
	{
		struct httpc_req req = {
			.url = url,
			.user_agent = CLIENT_USER_AGENT,
			.token = client_token(c),
			.content_type = "application/json",
			.body = text,
			.len = strlen(text),
			.timeout = CLIENT_TIMEOUT,
			.out = &in,
		};

		if (httpc_request(&c->http, &req, &hr, NULL) < 0) {
			buf_addf(err, "%s: %s", url, hr.reason);
			goto out;
		}
	}
	status = hr.status;
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
	httpc_resp_release(&hr);
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

/* The download's sink: into the file and the digest, up to d->max. */
static int
client_dl_write(void *arg, const void *p, size_t n)
{
	struct dl *d = arg;

	if (d->got + (long long)n > d->max)
		return -1;
	if (fwrite(p, 1, n, d->f) != n)
		return -1;
	sha256_update(&d->sha, p, n);
	d->got += n;
	return 0;
}

int
client_download(struct client *c, const char *path, const char *dest,
    long long size, const char *sha256, long *status, struct buf *err)
{
	struct dl d = { 0 };
	struct httpc_resp hr = { 0 };
	char *url = xasprintf("%s%s", c->conf->server, path);
	char *tmp = xasprintf("%s.part", dest);
	unsigned char dig[32];
	char hex[65];
	int rc = -1, r;

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
	{
		struct httpc_req req = {
			.url = url,
			.token = client_token(c),
			.timeout = CLIENT_DOWNLOAD_TIMEOUT,
			.fail_on_error = 1,
			.sink = client_dl_write,
			.sink_arg = &d,
		};

		r = httpc_request(&c->http, &req, &hr, NULL);
	}
	*status = hr.status;
	if (fclose(d.f) != 0 && r == 0) {
		buf_addf(err, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	/* a body longer than announced stops the sink: named below */
	if (r < 0 && !(hr.sink_refused && d.got >= size)) {
		buf_addf(err, "kernel download %s: %s", url, hr.reason);
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
	httpc_resp_release(&hr);
	free(url);
	free(tmp);
	return rc;
}
