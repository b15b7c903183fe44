-- 0002-trees-builds: trees, kernel builds, and what the apply and build
-- stages decided for each series.
--
-- builds: one row per cache key (commit, config hash, compiler); a
-- resubmitted series points at the same row, which is why a cache hit costs
-- nothing.  state: queued, configuring, building, done, failed; progress is
-- the building percentage (NULL when unknown).

CREATE TABLE trees (
	name		TEXT PRIMARY KEY,
	url		TEXT,
	path		TEXT NOT NULL,
	branch		TEXT NOT NULL,
	fetch_state	TEXT,			-- fetching, done, failed
	fetch_error	TEXT,
	fetched		INTEGER,		-- epoch seconds of the last fetch
	head		TEXT			-- branch head after it
);

CREATE TABLE builds (
	id		INTEGER PRIMARY KEY,
	key		TEXT NOT NULL UNIQUE,
	tree		TEXT NOT NULL,
	commit_id	TEXT NOT NULL,
	config		TEXT NOT NULL,		-- base config and fragments, as configured
	base_build	INTEGER REFERENCES builds(id),	-- incremental from
	state		TEXT NOT NULL DEFAULT 'queued',
	progress	INTEGER,
	dir		TEXT,
	sha256		TEXT,
	error		TEXT,
	log_tail	TEXT,
	seconds		REAL,
	cc_lines	INTEGER,
	created		INTEGER NOT NULL,
	updated		INTEGER NOT NULL
);

CREATE TABLE series_builds (
	series_id	INTEGER PRIMARY KEY REFERENCES series(id) ON DELETE CASCADE,
	tree		TEXT NOT NULL,
	base_commit	TEXT NOT NULL,
	base_kind	TEXT NOT NULL,		-- base-commit, submitted, branch-head
	base_reason	TEXT NOT NULL,		-- one sentence for the page
	patched_commit	TEXT,
	ref		TEXT,
	base_build	INTEGER REFERENCES builds(id),
	patched_build	INTEGER REFERENCES builds(id)
);

CREATE TABLE patch_apply (
	series_id	INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
	counter		INTEGER NOT NULL,
	path		TEXT NOT NULL,		-- libgit2, git apply -3
	PRIMARY KEY (series_id, counter)
);
