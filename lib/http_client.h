/*
 * http_client: the project's one HTTP client (libcurl), shared by the lore
 * fetch (core/lore.c), the agent (agents/client.c) and the CLI
 * (cli/client.c), so that timeouts, limits and protocols are set in one
 * place and not three.
 *
 * It owns the easy handle's set-up, the write callback, the request
 * headers and the error sentence:
 *   - http and https only (CURLOPT_PROTOCOLS_STR): a file://, ftp:// or
 *     gopher:// URL is refused by libcurl before anything is read;
 *   - redirects are never followed: a 3xx comes back as it is, with its
 *     Location in resp->location, and a caller that wants to go on (lore)
 *     checks the target against its own allowlist and asks again;
 *   - a connect timeout and a total timeout on every request (defaults
 *     below), no signals (NOSIGNAL: the daemon is threaded);
 *   - the body goes into a struct buf with a hard maximum (or a caller's
 *     sink); past the cap the transfer stops and says "response too large";
 *   - headers: "Authorization: Bearer <token>" (or another scheme),
 *     "Content-Type: <type>", and
 *     no "Expect: 100-continue" round trip;
 *   - proxies: libcurl's usual environment ($http_proxy, $no_proxy) is
 *     honoured, as it was by each caller before.
 *
 * The prefix is httpc_, not http_: the daemon's server owns http_
 * (daemon/http.c), and t0010 checks that bin/kperfci links none of it.
 *
 *	struct httpc h;
 *	struct httpc_req req = { .url = url, .user_agent = "kperfci/0.1",
 *	    .timeout = 120, .out = &body };
 *	struct httpc_resp resp;
 *
 *	if (httpc_init(&h) < 0) ...
 *	if (httpc_request(&h, &req, &resp, &err) < 0)
 *		... err says why, resp.too_large when it was the cap
 *	else if (resp.status != 200) ...
 *	httpc_resp_release(&resp);
 *	httpc_release(&h);
 *
 * Thread-safety: a struct httpc belongs to one thread at a time; separate
 * ones may be used in parallel.  httpc_global_init (or the program's own
 * curl_global_init) must have run once before any thread uses one.
 */
#ifndef KPERFCI_HTTP_CLIENT_H
#define KPERFCI_HTTP_CLIENT_H

#include <stddef.h>

#include "lib/buf.h"

#define HTTPC_CONNECT_TIMEOUT	10	/* seconds, when the request says 0 */
#define HTTPC_TIMEOUT		120	/* seconds, whole request, likewise */

struct httpc {
	void	*curl;		/* CURL *: kept between requests, so the
				   connection is reused */
};

/* What to send; every pointer is borrowed for the call. */
struct httpc_req {
	const char *method;	/* NULL: GET, or POST when there is a body;
				   else "PUT", "DELETE", ... */
	const char *url;
	const char *user_agent;	/* NULL: no User-Agent header */
	const char *token;	/* non-NULL: "Authorization: Bearer <token>",
				   sent even when empty */
	const char *auth_scheme;	/* NULL: "Bearer"; else the word
				   before the token (LAVA: "Token") */
	const char *content_type;	/* NULL: none of ours */
	const void *body;	/* non-NULL: sent, len bytes */
	size_t	 len;
	long	 connect_timeout;	/* seconds; 0: HTTPC_CONNECT_TIMEOUT */
	long	 timeout;		/* seconds; 0: HTTPC_TIMEOUT */
	int	 fail_on_error;	/* a status >= 400 fails the transfer
				   (libcurl's FAILONERROR) */
	/*
	 * Where the body goes.  out (appended to) with its own max, and at
	 * most max_bytes of this response when that is not 0; a body larger
	 * than the cap is refused, before it is read when the server says
	 * its length.  And/or sink, called with each piece: -1 from it
	 * stops the transfer (resp->sink_refused).
	 */
	struct buf *out;
	size_t	 max_bytes;
	int	(*sink)(void *arg, const void *data, size_t len);
	void	*sink_arg;
};

/* What came back. */
struct httpc_resp {
	long	 status;	/* HTTP status, 0 when no answer came; also
				   set when the transfer failed after it */
	char	*location;	/* a redirect's target, absolute (owned), or
				   NULL */
	int	 too_large;	/* the body passed the cap */
	int	 sink_refused;	/* req->sink returned -1 */
	const char *reason;	/* on failure, libcurl's short text ("Couldn't
				   connect to server") or "response too
				   large"; static */
};

/* Once per program, before threads start: curl_global_init. */
void	httpc_global_init(void);
/* 0, or -1 when libcurl cannot make a handle. */
int	httpc_init(struct httpc *);
void	httpc_release(struct httpc *);

/*
 * One request.  0 when an HTTP answer came, whatever its status (and with
 * fail_on_error, only a status < 400); -1 when none did, or the body was
 * cut short: err (may be NULL; appended to) gets one sentence, "response
 * too large" or libcurl's detailed message ("Failed to connect to
 * 127.0.0.1 port 9 after 0 ms: Couldn't connect to server"), without the
 * URL.  resp is filled either way; httpc_resp_release frees it.
 */
int	httpc_request(struct httpc *, const struct httpc_req *,
	    struct httpc_resp *, struct buf *err);
void	httpc_resp_release(struct httpc_resp *);

#endif
