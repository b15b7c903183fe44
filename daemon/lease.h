/*
 * lease: the job-lease timer.  A job an agent leased and stopped speaking
 * about (no progress, no result) is settled when its lease runs out:
 * re-queued for another attempt, or failed after the last one
 * (db_job_expire).  One thread does it once a second, so pages and the
 * JSON API only read the store: no GET handler writes.  Leasing a job
 * (POST /api/v1/agents/lease) still expires stale leases first, in the
 * same transaction, so an agent never waits for the next tick.
 */
#ifndef KPERFCI_LEASE_H
#define KPERFCI_LEASE_H

/* Starts the timer thread.  0, or -1 (logged). */
int	lease_start(void);
/* Stops and joins it; nothing if it never started. */
void	lease_stop(void);
/*
 * One tick on the calling thread's store: expires leases older than now,
 * kicks the pipeline when a job changed.  The number settled, or -1.
 */
int	lease_tick(long long now);

#endif
