-- 0009-exercise: was the code a series changes exercised, and what did
-- each boot run with (core/exercise.c, daemon/db_exercise.c).
--
-- comparisons.changes: the series' change analysis as JSON, made when the
-- comparison is created: touched files, the suites they call for and why
-- ("mm/swap.c -> lru-lock"), and each changed function with its status
-- against the patched build's System.map (probed, inlined: not countable,
-- defined N times...).  comparisons.probes: the JSON array of function
-- names every job of the comparison counts (the agent protocol's probes).
-- job_attempts.probe_hits: the upload's probe_hits (JSON array);
-- environment: THP/mTHP, command line, accelerator (JSON object); splats:
-- WARN/BUG/lockdep reports found in the attempt's console (NULL: no
-- console); splat: the first such line.
-- sched_requests.suites: the suites a submitter asked for (JSON array,
-- NULL: the suites the series touches).

ALTER TABLE comparisons ADD COLUMN changes TEXT;
ALTER TABLE comparisons ADD COLUMN probes TEXT;
ALTER TABLE job_attempts ADD COLUMN probe_hits TEXT;
ALTER TABLE job_attempts ADD COLUMN environment TEXT;
ALTER TABLE job_attempts ADD COLUMN splats INTEGER;
ALTER TABLE job_attempts ADD COLUMN splat TEXT;
ALTER TABLE sched_requests ADD COLUMN suites TEXT;
