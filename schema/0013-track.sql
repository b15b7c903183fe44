-- Nightly runs of tracked trees ([track "NAME"] in kperfci.conf), their
-- per-boot history, the regressions found in it and their bisects
-- (daemon/track.c, daemon/db_track.c).

-- One row per track name ever configured: when it was first seen (timer
-- occurrences before that are not "missed").
CREATE TABLE tracks (
	name	TEXT PRIMARY KEY,
	since	INTEGER NOT NULL
);

-- A run: fetch the branch, build the head if it moved, run the matrix.
-- queued -> fetched -> built -> running -> done | failed
CREATE TABLE track_runs (
	id	INTEGER PRIMARY KEY,
	track	TEXT NOT NULL,
	trigger	TEXT NOT NULL,		-- timer | manual
	state	TEXT NOT NULL DEFAULT 'queued',
	error	TEXT,
	note	TEXT,			-- "no new commits", ...
	head	TEXT,			-- the branch head fetched
	prev_head TEXT,			-- the head of the previous run tested
	build_key TEXT,
	build_dir TEXT,
	kernel_id INTEGER,
	boots	INTEGER NOT NULL,
	created	INTEGER NOT NULL,
	updated	INTEGER NOT NULL
);
CREATE INDEX track_runs_track ON track_runs(track, id);
CREATE INDEX track_runs_state ON track_runs(state);

-- Agent jobs of a run (step = 0) or of a bisect step (step = its id).
CREATE TABLE track_jobs (
	run_id	INTEGER NOT NULL DEFAULT 0,
	step_id	INTEGER NOT NULL DEFAULT 0,
	job_id	INTEGER NOT NULL,
	boot	INTEGER NOT NULL
);
CREATE INDEX track_jobs_run ON track_jobs(run_id);
CREATE INDEX track_jobs_step ON track_jobs(step_id);

-- Per-boot means of a run (step_id 0) or of a bisect step.
CREATE TABLE track_points (
	run_id	INTEGER NOT NULL DEFAULT 0,
	step_id	INTEGER NOT NULL DEFAULT 0,
	boot	INTEGER NOT NULL,
	workload TEXT NOT NULL,
	params	TEXT NOT NULL,
	metric	TEXT NOT NULL,
	unit	TEXT NOT NULL,
	better	INTEGER NOT NULL,
	value	REAL NOT NULL
);
CREATE INDEX track_points_run ON track_points(run_id);
CREATE INDEX track_points_step ON track_points(step_id);

-- A change point that is a regression, and its bisect.
-- state: bisecting | found | undecided | failed
CREATE TABLE regressions (
	id	INTEGER PRIMARY KEY,
	track	TEXT NOT NULL,
	tree	TEXT NOT NULL,
	workload TEXT NOT NULL,
	params	TEXT NOT NULL,
	metric	TEXT NOT NULL,
	unit	TEXT NOT NULL,
	better	INTEGER NOT NULL,
	good_run INTEGER NOT NULL,
	bad_run	INTEGER NOT NULL,
	good_commit TEXT NOT NULL,
	bad_commit TEXT NOT NULL,
	pct_change REAL,
	ci_lo	REAL,
	ci_hi	REAL,
	p_value	REAL,
	state	TEXT NOT NULL DEFAULT 'bisecting',
	error	TEXT,
	first_bad TEXT,
	subject	TEXT,
	author	TEXT,
	link	TEXT,
	suspects TEXT,			-- undecided: the commits it may be
	created	INTEGER NOT NULL,
	updated	INTEGER NOT NULL
);
CREATE INDEX regressions_track ON regressions(track, id);

-- One bisect step: a commit built and booted, and the verdict.
-- state: queued | built | running | done | skipped
CREATE TABLE bisect_steps (
	id	INTEGER PRIMARY KEY,
	regression_id INTEGER NOT NULL,
	commit_id TEXT NOT NULL,
	state	TEXT NOT NULL DEFAULT 'queued',
	verdict	TEXT,			-- good | bad | skip
	reason	TEXT,
	kernel_id INTEGER,
	boots	INTEGER NOT NULL,
	pct_vs_good REAL,
	ci_good_lo REAL,
	ci_good_hi REAL,
	pct_vs_bad REAL,
	ci_bad_lo REAL,
	ci_bad_hi REAL,
	created	INTEGER NOT NULL,
	updated	INTEGER NOT NULL
);
CREATE INDEX bisect_steps_reg ON bisect_steps(regression_id, id);
