/*
 * intake: turning a submission into a queued series, and the fetch stage
 * that turns a queued series into a fetched one.
 *
 * Submission is synchronous and cheap (validation and one INSERT); the
 * fetch (lore or the uploaded mbox) runs later in a pipeline worker.
 */
#ifndef KPERFCI_INTAKE_H
#define KPERFCI_INTAKE_H

#include <stddef.h>

#include "lib/buf.h"

struct db;

/*
 * Checks url against the [lore] allowlist and the lore URL forms.  On
 * success *base, *list, *msgid (malloc'd; list may be "all") are set and
 * *version gets a ?v=N from the URL (else left alone).  -1 with a sentence
 * in err that names the problem (and the allowed bases when off-list).
 */
int	intake_parse_url(const char *url, char **base, char **list,
	    char **msgid, int *version, struct buf *err);

/* Validate and queue.  0 with *id, or -1 with err (a client error).  An
   mbox is read through first (mbox_check): one that the fetch stage would
   refuse (a message over MBOX_MAX_MESSAGE, too many) is never stored. */
int	intake_submit_url(struct db *, const char *url, int version,
	    const char *base, long long *id, struct buf *err);
int	intake_submit_mbox(struct db *, const void *data, size_t len,
	    int version, const char *base, long long *id, struct buf *err);

/* Checks a base rev given by a submitter (no spaces or control bytes). */
int	intake_check_rev(const char *rev, struct buf *err);

#endif
