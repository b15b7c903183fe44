-- 0004-comparisons: the A/B scheduler's store (daemon/db_sched.c).
--
-- sched_requests: what a submitter asked for besides the series (a workload
-- matrix, a number of boots); read when the series reaches `built`.
--
-- comparisons: one per series that reached `built`: the two kernels, the
-- matrix, the hardware class its jobs are pinned to, the boot budget
-- (boots for the first look, boot_step more per side per extra look, up to
-- max_boots; looks = how many looks that allows, for the error rate), the
-- boots planned per side so far, the current look, and once finished the
-- stored statistics (result: stats_result_to_json) and a summary.  The jobs
-- themselves are rows of `jobs` (0003) with comparison_id, side and boot;
-- a job replaced after an infrastructure failure keeps its row and the
-- replacement gets the same (side, boot): the newest job of a (side, boot)
-- is the one that counts.

CREATE TABLE sched_requests (
	series_id	INTEGER PRIMARY KEY REFERENCES series(id) ON DELETE CASCADE,
	matrix		TEXT,			-- NULL: etc/workloads.conf
	boots		INTEGER			-- NULL: [sched] boots
);

CREATE TABLE comparisons (
	id		INTEGER PRIMARY KEY,
	series_id	INTEGER NOT NULL UNIQUE REFERENCES series(id) ON DELETE CASCADE,
	state		TEXT NOT NULL DEFAULT 'running',	-- running | done | failed
	base_kernel	INTEGER NOT NULL REFERENCES kernels(id),
	patched_kernel	INTEGER NOT NULL REFERENCES kernels(id),
	matrix		TEXT NOT NULL,
	class		TEXT,			-- NULL until the first lease pins it
	priority	INTEGER NOT NULL,
	boots		INTEGER NOT NULL,	-- first look, per side
	boot_step	INTEGER NOT NULL,
	max_boots	INTEGER NOT NULL,
	looks		INTEGER NOT NULL,	-- planned looks (error rate)
	look		INTEGER NOT NULL DEFAULT 1,
	planned		INTEGER NOT NULL,	-- boots per side scheduled so far
	replacements	INTEGER NOT NULL DEFAULT 0,
	max_replacements INTEGER NOT NULL,
	summary		TEXT,			-- one sentence when finished
	result		TEXT,			-- stats JSON when done
	created		INTEGER NOT NULL,
	updated		INTEGER NOT NULL
);

-- One hardware class per comparison: when a job of a comparison whose
-- class is still open is leased, the leasing agent's class becomes the
-- class of every job of that comparison, in the lease's own transaction
-- (so a second agent of another class cannot slip in between).
CREATE TRIGGER comparisons_pin_class AFTER UPDATE OF state ON jobs
WHEN NEW.state = 'leased' AND NEW.comparison_id IS NOT NULL
    AND NEW.class IS NULL
BEGIN
	UPDATE jobs SET class = (SELECT class FROM agents WHERE name = NEW.agent)
	    WHERE comparison_id = NEW.comparison_id AND class IS NULL;
	UPDATE comparisons SET class = (SELECT class FROM agents
	    WHERE name = NEW.agent)
	    WHERE id = NEW.comparison_id AND class IS NULL;
END;
