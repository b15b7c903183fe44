/*
 * auth_client: who the client of a request is, as every limit counts it
 * (see auth_client.h): the peer, or behind an [auth] proxy the address
 * the proxy saw.  Below both auth.c (roles, the guard) and agent.c (the
 * agents' tokens), which count failed tokens by it, so neither includes
 * the other for it.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "daemon/app.h"
#include "daemon/auth_client.h"
#include "daemon/http.h"

/* s as a 16-byte address (IPv4 as ::ffff:a.b.c.d); 0, or -1. */
static int
auth_addr(const char *s, unsigned char out[16])
{
	unsigned char v4[4];

	if (inet_pton(AF_INET6, s, out) == 1)
		return 0;
	if (inet_pton(AF_INET, s, v4) != 1)
		return -1;
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, v4, 4);
	return 0;
}

static int
auth_peer_is_proxy(const char *peer)
{
	unsigned char a[16], p[16];

	if (!peer || auth_addr(peer, a) < 0)
		return 0;
	for (size_t i = 0; i < app.settings.auth.nproxies; i++)
		if (auth_addr(app.settings.auth.proxies[i], p) == 0 &&
		    !memcmp(a, p, 16))
			return 1;
	return 0;
}

/* The last X-Forwarded-For header's last hop, trimmed, into out. */
static int
auth_forwarded_for(const struct http_req *r, char *out, size_t n)
{
	const char *xff = NULL, *hop, *end;
	unsigned char a[16];
	size_t len;

	for (size_t i = 0; i < r->nheaders; i++)
		if (!strcasecmp(r->headers[i].name, "X-Forwarded-For"))
			xff = r->headers[i].value;
	if (!xff)
		return -1;
	hop = strrchr(xff, ',');
	hop = hop ? hop + 1 : xff;
	hop += strspn(hop, " \t");
	for (end = hop + strlen(hop); end > hop && (end[-1] == ' ' ||
	    end[-1] == '\t'); end--)
		;
	/* "[2001:db8::1]:443", "[2001:db8::1]", "192.0.2.1:4444": the
	   address without its port or brackets */
	if (end > hop && *hop == '[') {
		const char *rb = memchr(hop, ']', end - hop);

		if (rb) {
			hop++;
			end = rb;
		}
	} else {
		const char *colon = memchr(hop, ':', end - hop);

		if (colon && !memchr(colon + 1, ':', end - colon - 1))
			end = colon;
	}
	len = end - hop;
	if (!len || len >= n || len >= INET6_ADDRSTRLEN)
		return -2;
	memcpy(out, hop, len);
	out[len] = '\0';
	return auth_addr(out, a) == 0 ? 0 : -2;
}

char *
auth_client(const struct http_req *r, char *out, size_t n)
{
	if (!n)
		return out;
	out[0] = '\0';
	if (!r->peer)
		return out;
	if (auth_peer_is_proxy(r->peer)) {
		switch (auth_forwarded_for(r, out, n)) {
		case 0:
			return out;
		case -2:
			/* never the proxy's own address: one guesser with a
			   hop that does not parse must not lock out everyone
			   who comes through it */
			snprintf(out, n, "%s", AUTH_CLIENT_UNPARSED);
			return out;
		}
	}
	snprintf(out, n, "%s", r->peer);
	/* an IPv4 client of a dual-stack listener is its IPv4 address:
	   counted, and grouped by /24, as the same client on IPv4 is */
	if (!strncasecmp(out, "::ffff:", 7) && !strchr(out + 7, ':') &&
	    strchr(out + 7, '.'))
		memmove(out, out + 7, strlen(out + 7) + 1);
	return out;
}

/* An IPv6 address becomes its /64 ("2001:db8:1:2::/64"): every address
   of one network is one client to the limits, as an IPv4 address is. */
static void
auth_prefix64(char *a, size_t sz)
{
	struct in6_addr in;

	if (!strchr(a, ':') || inet_pton(AF_INET6, a, &in) != 1 ||
	    IN6_IS_ADDR_V4MAPPED(&in))
		return;
	memset(in.s6_addr + 8, 0, 8);
	if (inet_ntop(AF_INET6, &in, a, sz - 4))
		strcat(a, "/64");
}

char *
auth_client_key(const struct http_req *r, char *out, size_t n)
{
	if (*auth_client(r, out, n))
		auth_prefix64(out, n);
	return out;
}

void
auth_client_principal(const struct http_req *r, const char *kind,
    const char *name, char *key, size_t keysz)
{
	char client[INET6_ADDRSTRLEN];
	unsigned char a[16];

	if (name) {
		snprintf(key, keysz, "%s:%s", kind, name);
		return;
	}
	auth_client(r, client, sizeof(client));
	if (auth_addr(client, a) == 0 && !strchr(client, ':'))
		*strrchr(client, '.') = '\0';	/* 192.0.2 */
	else
		auth_prefix64(client, sizeof(client));
	snprintf(key, keysz, "%s:%s", kind, client);
}
