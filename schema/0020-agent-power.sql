-- 0020-agent-power: power control of machines that hang (daemon/power.c).
--
-- agents.power_margin: seconds past its lease a job of this agent is left
-- alone before the machine is power-cycled ([agent "NAME"] power_margin,
-- written at start and at registration; 0: no power control, the lease
-- expires as usual).  power_cycles: every cycle run or refused, for the
-- hourly limit and the job's page.

ALTER TABLE agents ADD COLUMN power_margin INTEGER NOT NULL DEFAULT 0;

CREATE TABLE power_cycles (
	id		INTEGER PRIMARY KEY,
	agent		TEXT NOT NULL,
	at		INTEGER NOT NULL,
	job_id		INTEGER,
	attempt		INTEGER,
	command		TEXT NOT NULL,		-- the argv, space-joined
	status		TEXT NOT NULL,		-- "exit 0", "timed out after 60 s", "skipped: ..."
	ran		INTEGER NOT NULL	-- 1: the command ran (counts for the limit)
);
CREATE INDEX power_cycles_agent ON power_cycles(agent, at);
CREATE INDEX power_cycles_job ON power_cycles(job_id, attempt);
