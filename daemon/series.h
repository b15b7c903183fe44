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

#endif
