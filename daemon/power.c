/*
 * power: the daemon's side of power control (see power.h).
 *
 * DESIGN.  A job leased by an agent with power_cycle is not re-queued when
 * its lease runs out (db_agent.c NOT_POWERED): a kexec'd machine does not
 * heartbeat while it reboots, and one that hung holds its job until it
 * is power-cycled.  When the lease has been missed by power_margin
 * seconds (longer than the slowest honest reboot of that machine), the
 * lease timer's thread calls power_tick, which for each such job:
 *
 *   1. counts the cycles that ran for the machine in the last hour; at
 *      power_max_per_hour it refuses (a machine that hangs every boot
 *      must not be cycled all night) and says so;
 *   2. runs the argv (lib/run.c: no shell, its own process group, killed
 *      after power_timeout seconds, output appended to <data>/power.log);
 *   3. records the cycle (power_cycles: the job's page lists it) and ends
 *      the attempt and the job as boot-failed with a reason that says
 *      what happened.
 *
 * The command runs on the lease thread: while it runs (power_timeout at
 * most, a few seconds for ipmitool) other leases expire late by as much.
 * Cycles are rare and bounded per hour, so a thread of their own would
 * buy nothing measurable.  The machine, back in its home kernel, uploads
 * boot-failed with what its console kept; the store keeps that console
 * for the power-cycled attempt (db_agent.c late_console).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/app.h"
#include "daemon/db_agent.h"
#include "daemon/power.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/xalloc.h"

int
power_sync(struct db *db)
{
	const struct settings *s = &app.settings;

	if (db_agent_power_margin(db, NULL, 0) == -1)
		return -1;
	for (size_t i = 0; i < s->agents.npower; i++)
		if (db_agent_power_margin(db, s->agents.power[i].agent,
		    s->agents.power[i].margin) == -1)
			return -1;
	return 0;
}

int
power_agent_registered(struct db *db, const char *name)
{
	const struct settings_power *p = settings_agent_power(&app.settings,
	    name);

	return db_agent_power_margin(db, name, p ? p->margin : 0);
}

/* Runs p's command; its status in words ("exit 0", "timed out ..."). */
static void
power_run(const struct settings_power *p, struct buf *status)
{
	struct run r = { 0 };
	char *log = xasprintf("%s/power.log", app.data_dir);

	r.argv = (const char *const *)p->argv;
	r.timeout_sec = p->timeout;
	r.log_path = log;
	if (run_cmd(&r) == -1 && r.pid <= 0)
		buf_addstr(status, "could not start");
	else
		buf_addstr(status, run_status(&r));
	free(log);
}

/* Cycles one job's machine (or refuses to) and settles the job. */
static int
power_job(struct db *db, const json_t *due, long long now)
{
	long long id = json_integer_value(json_object_get(due, "job"));
	int attempt = (int)json_integer_value(json_object_get(due, "attempt"));
	const char *agent = json_string_value(json_object_get(due, "agent"));
	const char *progress = json_string_value(json_object_get(due,
	    "progress"));
	long long late = now - json_integer_value(json_object_get(due,
	    "lease_expires"));
	const struct settings_power *p = settings_agent_power(&app.settings,
	    agent);
	struct buf cmd = BUF_INIT(4096), status = BUF_INIT(512),
	    why = BUF_INIT(2048);
	int ran = 0, n, rc = -1;

	if (p == NULL)		/* margin from an older configuration */
		return db_agent_power_margin(db, agent, 0);
	for (char **a = p->argv; *a; a++)
		buf_addf(&cmd, "%s%s", a == p->argv ? "" : " ", *a);
	if (db_power_count(db, agent, now - 3600, &n) == -1)
		goto out;
	buf_addf(&why, "agent %s missed its lease by %lld s (last progress: "
	    "%s): ", agent, late, progress ? progress : "none");
	if (n >= p->max_per_hour) {
		buf_addf(&status, "skipped: %d cycles in the last hour "
		    "(power_max_per_hour = %d)", n, p->max_per_hour);
		buf_addf(&why, "not power-cycled, %s", status.data + 9);
		log_warnx("job %lld: %s", id, why.data);
	} else {
		log_warnx("job %lld: agent %s missed its lease by %lld s; "
		    "power-cycling: %s", id, agent, late, cmd.data);
		power_run(p, &status);
		ran = 1;
		buf_addf(&why, "power-cycled with `%s` (%s)", cmd.data,
		    status.data);
		log_info("job %lld: power cycle of %s: %s", id, agent,
		    status.data);
	}
	if (db_power_record(db, agent, now, id, attempt, cmd.data,
	    status.data, ran) == -1)
		goto out;
	rc = db_job_power_fail(db, id, attempt, agent, why.data, now);
	if (rc == 1)
		log_info("job %lld: settled meanwhile; the cycle stays "
		    "recorded", id);
out:
	buf_release(&cmd);
	buf_release(&status);
	buf_release(&why);
	return rc;
}

int
power_tick(struct db *db, long long now)
{
	json_t *due = NULL;
	int n = 0;

	if (app.settings.agents.npower == 0)
		return 0;
	if (db_power_due(db, now, &due) == -1) {
		json_decref(due);
		return -1;
	}
	for (size_t i = 0; i < json_array_size(due); i++)
		if (power_job(db, json_array_get(due, i), now) == 0)
			n++;
	json_decref(due);
	return n;
}
