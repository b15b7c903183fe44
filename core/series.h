/*
 * series: pick a patch series out of a mail thread the way b4 does.
 *
 * Input is a list of decoded messages (mbox.h + mime.h); output is one
 * revision of one series: the cover letter, the patches in order with their
 * trailers, and the base-commit / change-id footers.  This is pure code, no
 * I/O: the daemon (after a lore fetch), the CLI (`kperfci series show
 * --mbox`) and the fuzz target all call series_pick().
 *
 * Ownership: every char * in these structs is owned by the struct and freed
 * by series_release().
 */
#ifndef KPERFCI_SERIES_H
#define KPERFCI_SERIES_H

#include <stddef.h>

#include "lib/buf.h"

struct msg;			/* a decoded message, see mime.h */

struct trailer {
	char	*name;		/* canonical case: "Reviewed-by" */
	char	*value;		/* "Jane Doe <jane@example.org>" */
};

struct patch {
	int	 counter;	/* M of [PATCH vN M/K] */
	int	 total;		/* K */
	char	*subject;	/* without the [PATCH ...] prefix */
	char	*author;	/* From: display name */
	char	*email;		/* From: address */
	char	*date;		/* Date: header as sent (RFC 2822) */
	long long date_epoch;	/* the same, seconds since the epoch; 0 unknown */
	char	*msgid;		/* without angle brackets */
	char	*message;	/* commit message: subject line, blank line,
				   body, trailers (the patch's own plus those
				   collected from replies), as git am writes */
	char	*diff;		/* the diff (from the first "diff --git" or
				   "--- " line through the end of the patch) */
	char	*notes;		/* below the "---" cut line, before the diff
				   (its diffstat left out): a changelog, the
				   test results a patch without a cover letter
				   carries; NULL when there is nothing */
	int	 from_version;	/* revision the patch came from (partial
				   rerolls fill from older revisions) */
	struct trailer *trailers;	/* follow-up trailers included */
	size_t	 ntrailers;
};

struct series {
	int	 version;	/* 1 when no vN was given */
	int	 total;		/* K */
	char	*cover_subject;	/* NULL without a cover letter */
	char	*cover_body;
	char	*cover_msgid;
	char	*author;	/* of the cover letter or patch 1 */
	char	*email;
	char	*change_id;	/* change-id: footer, or NULL */
	char	*base_commit;	/* base-commit: footer, or NULL */
	struct patch *patches;	/* 1..K in order */
	size_t	 npatches;
	int	*versions;	/* every revision seen in the thread, ascending */
	size_t	 nversions;
	int	 partial_reroll;	/* some patches came from older revisions */
	struct trailer *cover_trailers;	/* follow-up trailers sent to the
					   cover letter (b4 am applies them
					   only with -t; so do we: not at all) */
	size_t	 ncover_trailers;
	struct trailer *ignored_trailers; /* sender did not match the person */
	size_t	 nignored_trailers;
};

/*
 * Picks a series from msgs.  want_msgid (may be NULL) names the message the
 * user pointed at: the thread is the one containing it.  want_version 0
 * means the newest revision.  Returns 0, or -1 with a sentence in err that
 * names the problem ("no patches in thread", "revision v4 not found; the
 * thread has v1, v2", "patch 2/3 of v2 is missing").
 */
int	series_pick(struct msg *const *msgs, size_t nmsgs, const char *want_msgid,
	    int want_version, struct series *out, struct buf *err);
void	series_release(struct series *);

/*
 * The JSON form of a series (jansson; the caller json_decref()s it):
 * {version, total, cover_subject, cover_msgid, change_id, base_commit,
 *  author, email, partial_reroll, versions:[..], cover_trailers:[{name,
 *  value}], ignored_trailers:[{name, value}],
 *  patches:[{counter, total, subject, author, email, date, msgid,
 *            from_version, trailers:[{name, value}]}]}
 * Fields without a value are JSON null.
 */
struct json_t;
struct json_t *series_to_json(const struct series *);

/*
 * A mail subject taken apart the way b4 does: "[PATCH RFC v3 2/5] mm: x",
 * "[PATCHv3 2/5] x", "Re: [PATCH] x", "Aw: ...", "Fwd: ...".
 */
struct subject {
	int	 reply;		/* Re:/Aw:/Fwd: (then nothing else is parsed) */
	int	 patch, rfc, resend;
	int	 revision;		/* 1 unless vN given */
	int	 revision_inferred;	/* no vN */
	int	 counter, expected;	/* 1/1 unless M/K given */
	int	 counters_inferred;	/* no M/K */
	char	*subject;	/* the rest, without [..] prefixes; owned */
};

void	subject_parse(const char *subj, struct subject *out);
void	subject_release(struct subject *);

/* 1 when the line (n bytes, no newline) is one of git's diffstat: " mm/swap.c
   | 12 ++--", " 2 files changed, ...", " create mode 100644 mm/x.c". */
int	 series_is_diffstat_line(const char *line, size_t n);

#endif
