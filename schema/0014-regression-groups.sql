-- One change point, one regression (issue 15): every metric that moved at
-- a regression's first bad night, the rows that carry its verdict and the
-- lock-contention rows shown beside them as evidence; what the bisect
-- verified before naming a commit; which steps are bisect steps and which
-- re-boot the named commit and its parent (daemon/track.c).

CREATE TABLE regression_metrics (
	regression_id INTEGER NOT NULL,
	workload TEXT NOT NULL,
	params	TEXT NOT NULL,
	metric	TEXT NOT NULL,
	unit	TEXT NOT NULL,
	better	INTEGER NOT NULL,
	pct_change REAL,
	ci_lo	REAL,
	ci_hi	REAL,
	p_value	REAL,
	carries	INTEGER NOT NULL,	-- 1: may carry the verdict; 0: evidence
	why	TEXT,			-- evidence: why it does not carry it
	UNIQUE (regression_id, workload, params, metric)
);

-- found: the verification that let the commit be named; unconfirmed: why
-- it was not named.
ALTER TABLE regressions ADD COLUMN verified TEXT;

-- bisect: a step of the search; verify: a re-boot of the commit the search
-- ended on (or its parent), not a mark of the search.
ALTER TABLE bisect_steps ADD COLUMN role TEXT NOT NULL DEFAULT 'bisect';
