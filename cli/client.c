/*
 * client: requests to the kperfcid API through lib/http_client.c (see
 * client.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/client.h"
#include "cli/term.h"
#include "lib/http_client.h"
#include "lib/xalloc.h"

#define CLIENT_USER_AGENT	"kperfci-cli/0.1"
#define CLIENT_TIMEOUT		300	/* seconds: a submit sends an mbox */

const char *client_server = "http://127.0.0.1:8080";
const char *client_token;

int
client_request(const char *method, const char *path, const char *ctype,
    const void *body, size_t len, struct buf *out)
{
	struct buf why = BUF_INIT(1024);
	struct httpc h;
	struct httpc_resp resp;
	size_t sl = strlen(client_server);
	char *url;
	int status = -1;

	if (httpc_init(&h) < 0) {
		fprintf(stderr, "kperfci: cannot initialise libcurl\n");
		return -1;
	}
	/* "http://h:p/" + "/api/..." must not give "//api" */
	if (sl && client_server[sl - 1] == '/' && path[0] == '/')
		sl--;
	url = xasprintf("%.*s%s", (int)sl, client_server, path);
	{
		struct httpc_req req = {
			.method = method,
			.url = url,
			.user_agent = CLIENT_USER_AGENT,
			.token = client_token && *client_token ? client_token :
			    NULL,
			.content_type = ctype,
			.body = body,
			.len = len,
			.timeout = CLIENT_TIMEOUT,
			.out = out,
		};

		if (httpc_request(&h, &req, &resp, &why) < 0)
			fprintf(stderr, "kperfci: %s %s: %s\n", method, url,
			    why.data);
		else
			status = (int)resp.status;
	}
	httpc_resp_release(&resp);
	httpc_release(&h);
	buf_release(&why);
	free(url);
	return status;
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
