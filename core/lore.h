/*
 * lore: lore URLs, the allowlist of lore bases, and fetching a thread.
 *
 * The daemon must never fetch a URL a client made up: every URL is checked
 * against the configured lore bases (kperfci.conf), and so is every
 * redirect target.  Message-IDs are validated and re-escaped, never pasted.
 *
 * Thread-safety: all functions are reentrant.  lore_fetch_thread() uses a
 * curl easy handle per call; curl_global_init(CURL_GLOBAL_DEFAULT) must
 * have been called once at start-up by the program (not by this module),
 * before any thread calls it.
 */
#ifndef KPERFCI_LORE_H
#define KPERFCI_LORE_H

#include <stddef.h>

#include "lib/buf.h"

#define LORE_MAX_BYTES		(64u << 20)	/* compressed and inflated */
#define LORE_MSGID_MAX		998
#define LORE_CONNECT_TIMEOUT	10		/* seconds */
#define LORE_TOTAL_TIMEOUT	120
#define LORE_MAX_REDIRECTS	5
#define LORE_USER_AGENT		"kperfci/0.1"

struct lore_url {
	char	*base;		/* the allowlisted base it matched, normalised:
				   "https://lore.kernel.org/" */
	char	*list;		/* "linux-mm", or "all" for /all/ and /r/ */
	char	*msgid;		/* decoded, without <> */
	int	 version;	/* ?v=N, 0 when absent */
};

/*
 * Takes apart a URL copied from lore: <base><list>/<msgid>[/T/|/t/|
 * /t.mbox.gz|/raw|/][#anchor][?v=N], <base>all/<msgid>/..., <base>r/<msgid>.
 * bases (n of them) is the allowlist: the URL must lie under one of them
 * (scheme, host, port and path prefix); with n == 0 the base is the URL's
 * origin and nothing is checked (for tests and offline tools only).
 * Returns 0, or -1 with a sentence in err naming what was wrong.
 */
int	lore_parse_url(const char *url, const char *const *bases, size_t n,
	    struct lore_url *out, struct buf *err);
void	lore_url_release(struct lore_url *);

/*
 * 0 when url lies under one of the bases; else -1 with "<url> is not on
 * an allowed lore base (allowed: a, b)" or why the URL itself is refused
 * (scheme, userinfo, "..").  Also refuses a malformed base.
 */
int	lore_check_allowed(const char *url, const char *const *bases, size_t n,
	    struct buf *err);

/*
 * GET <base><list>/<msgid-escaped>/t.mbox.gz, inflated into out_mbox
 * (caller-owned; appended to).  Redirects are followed only to URLs under
 * base.  Errors, in err: "lore has no message <id> at <base>", "response
 * larger than 64 MiB", "truncated gzip response from <url>", "redirect to
 * <url> refused: ...", curl's own message for network failures.
 */
int	lore_fetch_thread(const char *base, const char *list, const char *msgid,
	    struct buf *out_mbox, struct buf *err);
/* The same with an explicit allowlist for redirects (base need not be in
   it; it is always allowed). */
int	lore_fetch_thread_allow(const char *base, const char *list,
	    const char *msgid, const char *const *allow, size_t nallow,
	    struct buf *out_mbox, struct buf *err);

/*
 * GET <base><list>/new.atom (the list's newest messages, as public-inbox
 * serves them) into out (reset first); redirects as above.
 */
int	lore_fetch_atom(const char *base, const char *list,
	    const char *const *allow, size_t nallow, struct buf *out,
	    struct buf *err);

/*
 * POST <base><list>/?x=m&t=1&q=QUERY (public-inbox's search as an mbox, the
 * way b4 asks): the whole threads of the matching messages, inflated, appended to out_mbox
 * (nothing when none match).  0; 2 when the inbox has no search index
 * (it answers a page); -1 with err.
 */
int	lore_search(const char *base, const char *list, const char *query,
	    const char *const *allow, size_t nallow, struct buf *out_mbox,
	    struct buf *err);
/* Appends msgid escaped for a lore path ("/" becomes %2F). */
void	lore_escape_msgid(struct buf *out, const char *msgid);
/* 0 when msgid is a usable Message-ID (no spaces, controls, <>, empty). */
int	lore_check_msgid(const char *msgid, struct buf *err);

#endif
