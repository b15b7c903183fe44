/*
 * power: power control of test machines that hang.  A kexec agent's
 * machine that boots a job kernel which hangs without rebooting (no panic
 * timeout, a deadlock, firmware stuck) never speaks again: nothing on the
 * machine can help.  [agent "NAME"] power_cycle names the command that
 * can (ipmitool, a Redfish call, a PDU outlet); see daemon/power.c.
 */
#ifndef KPERFCI_POWER_H
#define KPERFCI_POWER_H

struct db;

/* Writes every agent's power_margin from the settings (0 without
   power_cycle).  At start; 0 or -1. */
int	power_sync(struct db *);
/* The same for one agent, when it registers. */
int	power_agent_registered(struct db *, const char *name);
/*
 * Settles the jobs whose holder missed its lease by its power_margin:
 * runs power_cycle (unless power_max_per_hour cycles already ran in the
 * last hour), records the cycle and makes the job boot-failed.  Runs on
 * the lease timer's thread.  The number of jobs settled, or -1.
 */
int	power_tick(struct db *, long long now);

#endif
