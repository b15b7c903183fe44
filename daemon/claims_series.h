/*
 * claims_series: the claims of a stored series (its cover letter and
 * patches, read with core/claims.c), for whoever needs them: the
 * scheduler plans "boots: auto" from them, the comparison's claims table
 * checks them.  A service of its own so that the scheduler never calls
 * into the renderer (sched.c -> report_claims.c -> report.c -> sched.c
 * was a circle).
 */
#ifndef KPERFCI_CLAIMS_SERIES_H
#define KPERFCI_CLAIMS_SERIES_H

struct db;
struct claims;

/* Appends the claims of series sid to out.  0, 1 (no such series), or
   -1 (logged). */
int	claims_series_extract(struct db *, long long sid, struct claims *out);

#endif
