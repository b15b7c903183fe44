/*
 * report_mail: the comparison as a reply in the series' thread (and a
 * nightly regression as a mail to its commit's author), in the kernel
 * test robot's form: plain text, 72 columns, no control bytes, every
 * link absolute, a reproduce block with nothing left to fill in.
 *
 * Pure functions of the model (report.h, db_track.h): the mail queue
 * (mail.c) loads the model and decides who gets it.
 */
#ifndef KPERFCI_REPORT_MAIL_H
#define KPERFCI_REPORT_MAIL_H

#include <stddef.h>

#include "lib/buf.h"

struct report;
struct track_regression;

#define REPORT_MAIL_WIDTH	72

struct report_mail {
	const char	*public_url;	/* absolute, ends in '/' */
	const char	*greet;		/* "Dev Eloper", or NULL */
	const char	*thread_url;	/* the series' lore URL, or NULL */
	const char	*msgid;		/* the thread's root, for b4, or NULL */
	const char	*answered;	/* "#kperfci test ..." this answers */
};

/* The body of the reply for r (a finished comparison). */
void	report_mail_body(const struct report *r, const struct report_mail *m,
	    struct buf *out);

/* The robot's subject for a nightly regression: "[tree:branch] [mm]
   abcdef123456: metric -12.3% regression". */
void	report_mail_regression_subject(const struct track_regression *g,
	    const char *branch, struct buf *out);
void	report_mail_regression_body(const struct track_regression *g,
	    const char *branch, const struct report_mail *m, struct buf *out);

/*
 * Copies text into out with every line longer than width broken at
 * blanks (a broken line continues under its first word's indent plus
 * two), control bytes but tab and newline replaced by '?'.  A word longer
 * than the line (a URL) stays whole.
 */
void	report_mail_wrap(const char *text, size_t width, struct buf *out);

#endif
