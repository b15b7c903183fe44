/*
 * lore: URL forms, the base allowlist, and the thread fetch (see lore.h).
 * URLs are taken apart with libcurl's own parser (CURLU); the requests
 * go through lib/http_client.c, which never follows a redirect: each
 * target is checked here against the allowlist before it is asked for.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <zlib.h>

#include "core/lore.h"
#include "lib/http_client.h"
#include "lib/xalloc.h"

struct uparts {
	char	*scheme;	/* lower case */
	char	*host;		/* lower case */
	int	 port;		/* explicit or the scheme's default */
	char	*path;		/* raw, starts with '/' */
	char	*query;		/* raw, or NULL */
};

static void
uparts_release(struct uparts *u)
{
	free(u->scheme);
	free(u->host);
	free(u->path);
	free(u->query);
	memset(u, 0, sizeof(*u));
}

/* curl_url_get of one part into *out (NULL when the URL has none). */
static int
lore_part(CURLU *h, CURLUPart part, unsigned flags, char **out)
{
	char *v = NULL;
	CURLUcode rc = curl_url_get(h, part, &v, flags);

	*out = NULL;
	if (rc != CURLUE_OK)
		return rc;
	*out = xstrdup(v);
	curl_free(v);
	return 0;
}

/*
 * Takes the URL apart with libcurl's own parser (CURLU), the one that will
 * fetch it, so what is checked is what is fetched.  The path is kept as
 * written (CURLU_PATH_AS_IS: curl would otherwise resolve "..", which the
 * allowlist check refuses outright).  Our own checks come first where they
 * give a clearer sentence than curl's error code.
 */
static int
lore_split(const char *url, struct uparts *u, struct buf *err)
{
	CURLU *h = NULL;
	CURLUcode rc;
	char *v = NULL, *end;
	const char *p;
	long port;
	size_t i;
	int ret = -1;

	memset(u, 0, sizeof(*u));
	for (p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			buf_addf(err, "URL contains a space or a control character");
			return -1;
		}
	if (!(p = strstr(url, "://")) || p == url) {
		buf_addf(err, "not a URL (no scheme://): %.200s", url);
		return -1;
	}
	if (!((p - url == 4 && strncasecmp(url, "http", 4) == 0) ||
	    (p - url == 5 && strncasecmp(url, "https", 5) == 0))) {
		buf_addf(err, "only http and https lore URLs are accepted, "
		    "not '%.*s'", (int)(p - url < 20 ? p - url : 20), url);
		return -1;
	}
	/* curl reads "https:///x" as host x: the URL has none */
	if (strchr("/?#", p[3])) {
		buf_addstr(err, "URL has no host");
		return -1;
	}
	if (!(h = curl_url()))
		goto oom;
	/* the scheme is http or https (checked above): curl knows both */
	rc = curl_url_set(h, CURLUPART_URL, url, CURLU_PATH_AS_IS);
	if (rc == CURLUE_OK && lore_part(h, CURLUPART_SCHEME, 0, &u->scheme))
		rc = CURLUE_BAD_SCHEME;
	if (rc == CURLUE_OUT_OF_MEMORY)
		goto oom;
	if (u->scheme)
		for (i = 0; u->scheme[i]; i++)
			u->scheme[i] = tolower((unsigned char)u->scheme[i]);
	if (rc == CURLUE_OK && (curl_url_get(h, CURLUPART_USER, &v, 0) ==
	    CURLUE_OK || curl_url_get(h, CURLUPART_PASSWORD, &v, 0) ==
	    CURLUE_OK)) {
		buf_addstr(err, "URL has user information before the host "
		    "('user@host'), refused");
		goto out;
	}
	switch (rc) {
	case CURLUE_OK:
		break;
	case CURLUE_BAD_PORT_NUMBER:
		buf_addstr(err, "URL has a malformed port");
		goto out;
	case CURLUE_BAD_IPV6:
		buf_addstr(err, "URL has a malformed IPv6 host");
		goto out;
	case CURLUE_NO_HOST:
		buf_addstr(err, "URL has no host");
		goto out;
	default:
		buf_addf(err, "malformed URL (%s): %.200s",
		    curl_url_strerror(rc), url);
		goto out;
	}
	if (lore_part(h, CURLUPART_HOST, 0, &u->host) || !*u->host) {
		buf_addstr(err, "URL has no host");
		goto out;
	}
	for (i = 0; u->host[i]; i++)
		u->host[i] = tolower((unsigned char)u->host[i]);
	curl_free(v);
	v = NULL;
	if (curl_url_get(h, CURLUPART_PORT, &v, CURLU_DEFAULT_PORT) !=
	    CURLUE_OK || (port = strtol(v, &end, 10)) <= 0 || port > 65535 ||
	    *end) {
		buf_addstr(err, "URL has a malformed port");
		goto out;
	}
	u->port = (int)port;
	if (lore_part(h, CURLUPART_PATH, 0, &u->path) || !*u->path) {
		free(u->path);
		u->path = xstrdup("/");
	}
	lore_part(h, CURLUPART_QUERY, 0, &u->query);
	ret = 0;
	goto out;
oom:
	buf_addstr(err, "out of memory parsing the URL");
out:
	curl_free(v);
	curl_url_cleanup(h);
	if (ret < 0)
		uparts_release(u);
	return ret;
}

static int
lore_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decodes s[0..n); -1 on a malformed escape or an escaped NUL. */
static char *
lore_unescape(const char *s, size_t n)
{
	char *r = xmalloc(n + 1), *w = r;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			int h, l;
			if (i + 2 >= n || (h = lore_hex((unsigned char)s[i + 1])) < 0 ||
			    (l = lore_hex((unsigned char)s[i + 2])) < 0 || (h == 0 && l == 0))
				goto bad;
			*w++ = (char)(h * 16 + l);
			i += 2;
		} else {
			*w++ = s[i];
		}
	}
	*w = '\0';
	return r;
bad:
	free(r);
	return NULL;
}

/* ".." as a path segment, raw or escaped, anywhere in the path */
static int
lore_has_dotdot(const char *path)
{
	const char *p = path;

	while (*p) {
		const char *e = p + strcspn(p, "/");
		char *seg = lore_unescape(p, e - p);
		/* a malformed escape is reported later, with its own words */
		int bad = seg && (strcmp(seg, "..") == 0 || strcmp(seg, ".") == 0);

		free(seg);
		if (bad && e > p)
			return 1;
		p = *e ? e + 1 : e;
	}
	return 0;
}

static void
lore_list_bases(struct buf *err, const char *const *bases, size_t n)
{
	size_t i;

	buf_addstr(err, " (allowed: ");
	for (i = 0; i < n; i++)
		buf_addf(err, "%s%s", i ? ", " : "", bases[i]);
	buf_addstr(err, n ? ")" : "none configured)");
}

/*
 * Finds the base url lies under.  On success *which is its index and
 * *rel the path below the base.
 */
static int
lore_match(const struct uparts *u, const char *url, const char *const *bases,
    size_t n, size_t *which, const char **rel, struct buf *err)
{
	size_t i;

	if (lore_has_dotdot(u->path)) {
		buf_addstr(err, "URL path contains a '..' or '.' segment, refused");
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct uparts b;
		struct buf e = BUF_INIT(1024);
		size_t bl;
		int hit;

		if (lore_split(bases[i], &b, &e) < 0) {
			buf_addf(err, "configured lore base '%s' is not a URL: %s",
			    bases[i], e.data);
			buf_release(&e);
			return -1;
		}
		buf_release(&e);
		bl = strlen(b.path);
		/* "https://lore.kernel.org/lkml" is a prefix of "/lkml/" only */
		hit = strcmp(b.scheme, u->scheme) == 0 &&
		    strcmp(b.host, u->host) == 0 && b.port == u->port &&
		    strncmp(u->path, b.path, bl) == 0 &&
		    (b.path[bl - 1] == '/' || u->path[bl] == '/' || u->path[bl] == '\0');
		if (hit) {
			*which = i;
			*rel = u->path + bl;
			while (**rel == '/')
				(*rel)++;
		}
		uparts_release(&b);
		if (hit)
			return 0;
	}
	buf_addf(err, "%.300s is not on an allowed lore base", url);
	lore_list_bases(err, bases, n);
	return -1;
}

int
lore_check_allowed(const char *url, const char *const *bases, size_t n,
    struct buf *err)
{
	struct uparts u;
	size_t which;
	const char *rel;
	int ret;

	if (lore_split(url, &u, err) < 0) {
		lore_list_bases(err, bases, n);
		return -1;
	}
	ret = lore_match(&u, url, bases, n, &which, &rel, err);
	uparts_release(&u);
	return ret;
}

int
lore_check_msgid(const char *id, struct buf *err)
{
	const unsigned char *p;

	if (!id || !*id) {
		buf_addstr(err, "empty message-id");
		return -1;
	}
	if (strlen(id) > LORE_MSGID_MAX) {
		buf_addf(err, "message-id longer than %d bytes", LORE_MSGID_MAX);
		return -1;
	}
	for (p = (const unsigned char *)id; *p; p++) {
		if (*p <= ' ' || *p == 0x7f) {
			buf_addf(err, "message-id '%.80s' contains a space or a "
			    "control character", id);
			return -1;
		}
		if (*p == '<' || *p == '>') {
			buf_addf(err, "message-id '%.80s' contains '<' or '>'", id);
			return -1;
		}
	}
	return 0;
}

static int
lore_is_suffix(const char *seg)
{
	static const char *const sfx[] = { "T", "t", "t.mbox.gz", "raw",
	    "t.atom", "mbox.gz", "f", "R", NULL };
	size_t i;

	for (i = 0; sfx[i]; i++)
		if (strcmp(seg, sfx[i]) == 0)
			return 1;
	return 0;
}

int
lore_parse_url(const char *url, const char *const *bases, size_t n,
    struct lore_url *out, struct buf *err)
{
	struct uparts u;
	const char *rel, *p;
	char **segs = NULL, *list = NULL, *raw = NULL;
	size_t nsegs = 0, which = 0, i;
	struct buf id = BUF_INIT(4096);
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (lore_split(url, &u, err) < 0)
		return -1;
	if (n) {
		if (lore_match(&u, url, bases, n, &which, &rel, err) < 0)
			goto out;
		out->base = xstrdup(bases[which]);
		if (out->base[strlen(out->base) - 1] != '/') {
			char *b = xasprintf("%s/", out->base);
			free(out->base);
			out->base = b;
		}
	} else {
		if (lore_has_dotdot(u.path)) {
			buf_addstr(err, "URL path contains a '..' or '.' segment, refused");
			goto out;
		}
		if ((u.port == 443 && !strcmp(u.scheme, "https")) ||
		    (u.port == 80 && !strcmp(u.scheme, "http")))
			out->base = xasprintf("%s://%s/", u.scheme, u.host);
		else
			out->base = xasprintf("%s://%s:%d/", u.scheme, u.host, u.port);
		for (rel = u.path; *rel == '/'; rel++)
			;
	}
	/* segments, raw (still escaped) */
	for (p = rel; *p;) {
		const char *e = p + strcspn(p, "/");
		segs = xrealloc(segs, (nsegs + 1) * sizeof(*segs));
		segs[nsegs++] = xstrndup(p, e - p);
		p = *e ? e + 1 : e;
	}
	while (nsegs && !*segs[nsegs - 1])
		free(segs[--nsegs]);
	if (nsegs < 2) {
		buf_addf(err, "URL names no message: expected %s<list>/<message-id>/",
		    out->base);
		goto out;
	}
	list = segs[0];
	if (strcmp(list, "r") == 0)
		list = "all";	/* lore's /r/<msgid> looks across all lists */
	for (p = list; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p)) {
			buf_addf(err, "list name '%.60s' in the URL is not a lore list name",
			    list);
			goto out;
		}
	if (nsegs > 2 && lore_is_suffix(segs[nsegs - 1]))
		free(segs[--nsegs]);
	while (nsegs > 1 && !*segs[nsegs - 1])
		free(segs[--nsegs]);
	/* what remains is the message-id; a literal '/' in it is kept */
	for (i = 1; i < nsegs; i++) {
		if (i > 1)
			buf_addch(&id, '/');
		buf_addstr(&id, segs[i]);
	}
	if (id.overflow) {
		buf_addf(err, "message-id longer than %d bytes", LORE_MSGID_MAX);
		goto out;
	}
	buf_addstr(&id, "");
	raw = lore_unescape(id.data, id.len);
	if (!raw) {
		buf_addstr(err, "message-id in the URL has a malformed %-escape");
		goto out;
	}
	if (raw[0] == '<' && raw[1] && raw[strlen(raw) - 1] == '>') {
		memmove(raw, raw + 1, strlen(raw));
		raw[strlen(raw) - 1] = '\0';
	}
	if (lore_check_msgid(raw, err) < 0)
		goto out;
	out->msgid = raw;
	raw = NULL;
	out->list = xstrdup(list);
	if (u.query) {
		for (p = u.query; *p;) {
			const char *e = p + strcspn(p, "&;");
			if (e - p > 2 && p[0] == 'v' && p[1] == '=') {
				long v = 0;
				const char *q;
				for (q = p + 2; q < e && isdigit((unsigned char)*q) && v < 100000; q++)
					v = v * 10 + (*q - '0');
				if (q != e || v <= 0 || v >= 100000) {
					buf_addf(err, "?v= wants a revision number, not '%.*s'",
					    (int)(e - p - 2 > 20 ? 20 : e - p - 2), p + 2);
					goto out;
				}
				out->version = (int)v;
			}
			p = *e ? e + 1 : e;
		}
	}
	ret = 0;
out:
	for (i = 0; i < nsegs; i++)
		free(segs[i]);
	free(segs);
	free(raw);
	buf_release(&id);
	uparts_release(&u);
	if (ret)
		lore_url_release(out);
	return ret;
}

void
lore_url_release(struct lore_url *u)
{
	free(u->base);
	free(u->list);
	free(u->msgid);
	memset(u, 0, sizeof(*u));
}

void
lore_escape_msgid(struct buf *out, const char *id)
{
	static const char ok[] = "-._~@!$&'()*+,;=:";

	for (; *id; id++) {
		unsigned char c = *id;
		if (isalnum(c) || strchr(ok, c))
			buf_addch(out, c);
		else
			buf_addf(out, "%%%02X", c);
	}
}

/* ---- fetch -------------------------------------------------------------- */

static int
lore_inflate(const struct buf *gz, struct buf *out, const char *url,
    struct buf *err)
{
	z_stream z;
	unsigned char chunk[65536];
	int zr = Z_OK, ret = -1;

	/* a server may hand out the plain mbox (or a proxy may decode it) */
	if (gz->len < 2 || (unsigned char)gz->data[0] != 0x1f ||
	    (unsigned char)gz->data[1] != 0x8b) {
		if (gz->len >= 5 && memcmp(gz->data, "From ", 5) == 0) {
			if (buf_add(out, gz->data, gz->len) < 0) {
				buf_addf(err, "response larger than %u MiB",
				    LORE_MAX_BYTES >> 20);
				return -1;
			}
			return 0;
		}
		buf_addf(err, "response from %.300s is neither gzip nor an mbox", url);
		return -1;
	}
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		buf_addstr(err, "zlib: inflateInit2 failed");
		return -1;
	}
	z.next_in = (unsigned char *)gz->data;
	z.avail_in = gz->len;
	for (;;) {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			buf_addf(err, "corrupt gzip response from %.300s: %s", url,
			    z.msg ? z.msg : "inflate failed");
			goto out;
		}
		if (buf_add(out, chunk, sizeof(chunk) - z.avail_out) < 0) {
			buf_addf(err, "response larger than %u MiB",
			    LORE_MAX_BYTES >> 20);
			goto out;
		}
		if (zr == Z_STREAM_END) {
			/* concatenated gzip members: go on with the next */
			if (z.avail_in == 0)
				break;
			inflateReset(&z);
			continue;
		}
		if (zr == Z_BUF_ERROR || (z.avail_in == 0 && z.avail_out != 0)) {
			buf_addf(err, "truncated gzip response from %.300s", url);
			goto out;
		}
	}
	ret = 0;
out:
	inflateEnd(&z);
	return ret;
}

/*
 * GETs url into body (reset first), following redirects only to URLs under
 * one of bases.  Returns 0 on HTTP 200, 1 on 404/410 (nothing there), -1
 * with err on anything else.
 */
static int
lore_request(const char *url0, int post, const char *const *bases,
    size_t nbases, struct buf *body, struct buf *err)
{
	struct buf url = BUF_INIT(8192), why = BUF_INIT(4096);
	struct httpc h = { NULL };
	struct httpc_resp resp = { 0 };
	int hops, ret = -1;

	buf_addstr(&url, url0);
	if (lore_check_allowed(url.data, bases, nbases, err) < 0)
		goto out;
	if (httpc_init(&h) < 0) {
		buf_addstr(err, "curl_easy_init failed");
		goto out;
	}
	for (hops = 0;; hops++) {
		struct httpc_req req = {
			.url = url.data,
			.user_agent = LORE_USER_AGENT,
			.connect_timeout = LORE_CONNECT_TIMEOUT,
			.timeout = LORE_TOTAL_TIMEOUT,
			.out = body,
			.max_bytes = LORE_MAX_BYTES,
		};
		long code;

		/* the search is a POST with no body; a redirect is a GET */
		if (post && hops == 0) {
			req.method = "POST";
			req.body = "";
		}
		buf_reset(body);
		buf_reset(&why);
		httpc_resp_release(&resp);
		if (httpc_request(&h, &req, &resp, &why) < 0) {
			if (resp.too_large)
				buf_addf(err, "response larger than %u MiB",
				    LORE_MAX_BYTES >> 20);
			else
				buf_addf(err, "fetching %.300s: %s", url.data,
				    why.data);
			goto out;
		}
		code = resp.status;
		if (code == 301 || code == 302 || code == 303 || code == 307 ||
		    code == 308) {
			const char *loc = resp.location;

			if (!loc) {
				buf_addf(err, "lore answered HTTP %ld without a "
				    "Location for %.300s", code, url.data);
				goto out;
			}
			if (hops >= LORE_MAX_REDIRECTS) {
				buf_addf(err, "more than %d redirects from %.300s",
				    LORE_MAX_REDIRECTS, url.data);
				goto out;
			}
			buf_reset(&why);
			if (lore_check_allowed(loc, bases, nbases, &why) < 0) {
				buf_addf(err, "redirect to %.300s refused: %s",
				    loc, why.data);
				goto out;
			}
			buf_reset(&url);
			buf_addstr(&url, loc);
			continue;
		}
		if (code == 404 || code == 410) {
			ret = 1;
			goto out;
		}
		if (code != 200) {
			buf_addf(err, "lore answered HTTP %ld for %.300s", code,
			    url.data);
			goto out;
		}
		break;
	}
	ret = 0;
out:
	httpc_resp_release(&resp);
	httpc_release(&h);
	buf_release(&url);
	buf_release(&why);
	return ret;
}

static int
lore_get(const char *url, const char *const *bases, size_t nbases,
    struct buf *body, struct buf *err)
{
	return lore_request(url, 0, bases, nbases, body, err);
}

/* bases[0] = base, then allow[]: the caller frees the array. */
static const char **
lore_bases(const char *base, const char *const *allow, size_t nallow)
{
	const char **bases = xcalloc(nallow + 1, sizeof(*bases));

	bases[0] = base;
	for (size_t i = 0; i < nallow; i++)
		bases[i + 1] = allow[i];
	return bases;
}

static void
lore_list_url(struct buf *url, const char *base, const char *list)
{
	buf_addf(url, "%s%s%s/", base, base[strlen(base) - 1] == '/' ? "" : "/",
	    list);
}

int
lore_fetch_thread_allow(const char *base, const char *list, const char *msgid,
    const char *const *allow, size_t nallow, struct buf *out_mbox,
    struct buf *err)
{
	const char **bases = lore_bases(base, allow, nallow);
	struct buf url = BUF_INIT(8192), gz = BUF_INIT(LORE_MAX_BYTES);
	struct buf inflated = BUF_INIT(LORE_MAX_BYTES);
	int r, ret = -1;

	if (lore_check_msgid(msgid, err) < 0)
		goto out;
	lore_list_url(&url, base, list);
	lore_escape_msgid(&url, msgid);
	buf_addstr(&url, "/t.mbox.gz");
	if ((r = lore_get(url.data, bases, nallow + 1, &gz, err)) != 0) {
		if (r == 1)
			buf_addf(err, "lore has no message <%s> at %s", msgid,
			    base);
		goto out;
	}
	if (lore_inflate(&gz, &inflated, url.data, err) < 0)
		goto out;
	if (buf_add(out_mbox, inflated.data, inflated.len) < 0) {
		buf_addf(err, "response larger than %u MiB", LORE_MAX_BYTES >> 20);
		goto out;
	}
	ret = 0;
out:
	buf_release(&url);
	buf_release(&gz);
	buf_release(&inflated);
	free(bases);
	return ret;
}

int
lore_fetch_atom(const char *base, const char *list,
    const char *const *allow, size_t nallow, struct buf *out,
    struct buf *err)
{
	const char **bases = lore_bases(base, allow, nallow);
	struct buf url = BUF_INIT(8192);
	int r;

	lore_list_url(&url, base, list);
	buf_addstr(&url, "new.atom");
	r = lore_get(url.data, bases, nallow + 1, out, err);
	if (r == 1)
		buf_addf(err, "lore has no list %s at %s", list, base);
	buf_release(&url);
	free(bases);
	return r == 0 ? 0 : -1;
}

int
lore_fetch_thread(const char *base, const char *list, const char *msgid,
    struct buf *out_mbox, struct buf *err)
{
	return lore_fetch_thread_allow(base, list, msgid, NULL, 0, out_mbox, err);
}

int
lore_search(const char *base, const char *list, const char *query,
    const char *const *allow, size_t nallow, struct buf *out_mbox,
    struct buf *err)
{
	const char **bases = lore_bases(base, allow, nallow);
	struct buf url = BUF_INIT(8192), gz = BUF_INIT(LORE_MAX_BYTES);
	char *q = NULL;
	CURL *c;
	int r, ret = -1;

	if (!(c = curl_easy_init())) {
		buf_addstr(err, "curl_easy_init failed");
		goto out;
	}
	q = curl_easy_escape(c, query, 0);
	curl_easy_cleanup(c);
	if (!q) {
		buf_addstr(err, "the search query cannot be escaped");
		goto out;
	}
	lore_list_url(&url, base, list);
	buf_addf(&url, "?x=m&t=1&q=%s", q);
	r = lore_request(url.data, 1, bases, nallow + 1, &gz, err);
	if (r == 1) {		/* public-inbox: no match is a 404 */
		ret = 0;
		goto out;
	}
	if (r < 0)
		goto out;
	if (gz.len >= 2 && (unsigned char)gz.data[0] == 0x1f &&
	    (unsigned char)gz.data[1] == 0x8b) {
		if (lore_inflate(&gz, out_mbox, url.data, err) < 0)
			goto out;
	} else {
		/* an HTML page: the inbox has no search index */
		buf_addf(err, "%s%s has no search (it answered a page, not "
		    "an mbox)", base, list);
		ret = 2;
		goto out;
	}
	ret = 0;
out:
	curl_free(q);
	buf_release(&url);
	buf_release(&gz);
	free(bases);
	return ret;
}
