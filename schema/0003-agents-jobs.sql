-- 0003-agents-jobs: the agent pool, kernel artifacts, jobs and their
-- results (daemon/db_agent.c).
--
-- A job is one boot of one kernel running one workload matrix.  Leasing
-- it makes a new attempt; an attempt ends with an upload (done, failed,
-- boot-failed) or with its lease expiring (the job goes back to the queue).
-- Results are keyed by (job_id, attempt): a retried upload is refused, never
-- stored twice.  Console logs live as files under <data>/console/.

CREATE TABLE agents (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL UNIQUE,
	class		TEXT NOT NULL,		-- "2s-2n-4c-1a2b3c4d"
	backend		TEXT NOT NULL,		-- qemu | kexec
	kernel_release	TEXT,
	sockets		INTEGER NOT NULL,
	nodes		INTEGER NOT NULL,
	cpus		INTEGER NOT NULL,
	cores		INTEGER,
	cpu_model	TEXT NOT NULL,
	memory_mb	INTEGER NOT NULL,
	topology	TEXT NOT NULL,		-- the registered JSON
	state		TEXT NOT NULL DEFAULT 'idle',	-- idle | busy
	job_id		INTEGER,		-- current job, or NULL
	registered	INTEGER NOT NULL,
	last_seen	INTEGER NOT NULL
);

CREATE TABLE kernels (
	id		INTEGER PRIMARY KEY,
	sha256		TEXT NOT NULL UNIQUE,
	size		INTEGER NOT NULL,
	path		TEXT NOT NULL,		-- relative to the data dir
	release		TEXT,
	note		TEXT,			-- e.g. "build 12"
	created		INTEGER NOT NULL
);

CREATE TABLE jobs (
	id		INTEGER PRIMARY KEY,
	kernel_id	INTEGER NOT NULL REFERENCES kernels(id),
	matrix		TEXT NOT NULL,		-- workloads.conf text
	cmdline		TEXT NOT NULL DEFAULT '',
	priority	INTEGER NOT NULL DEFAULT 0,
	comparison_id	INTEGER,		-- the scheduler's, or NULL
	side		TEXT,			-- "base" | "patched" | NULL
	boot		INTEGER NOT NULL DEFAULT 0,
	class		TEXT,			-- required hardware class
	state		TEXT NOT NULL DEFAULT 'queued',
		-- queued | leased | done | failed | boot-failed
	attempts	INTEGER NOT NULL DEFAULT 0,
	max_attempts	INTEGER NOT NULL DEFAULT 3,
	agent		TEXT,			-- holder of the lease
	lease_expires	INTEGER,
	progress	TEXT,
	reason		TEXT,
	created		INTEGER NOT NULL,
	updated		INTEGER NOT NULL
);
CREATE INDEX jobs_queue ON jobs(state, priority DESC, id);
CREATE INDEX jobs_comparison ON jobs(comparison_id);

CREATE TABLE job_attempts (
	job_id		INTEGER NOT NULL REFERENCES jobs(id),
	attempt		INTEGER NOT NULL,
	agent		TEXT NOT NULL,
	started		INTEGER NOT NULL,
	ended		INTEGER,
	status		TEXT,		-- done | failed | boot-failed | expired
	reason		TEXT,
	boot_seconds	REAL,
	topology	TEXT,		-- what the booted kernel saw (JSON)
	console		TEXT,		-- file relative to the data dir
	PRIMARY KEY (job_id, attempt)
);

CREATE TABLE samples (
	id		INTEGER PRIMARY KEY,
	job_id		INTEGER NOT NULL REFERENCES jobs(id),
	attempt		INTEGER NOT NULL,
	workload	TEXT NOT NULL,
	params		TEXT NOT NULL,
	iteration	INTEGER NOT NULL,
	metric		TEXT NOT NULL,
	value		REAL NOT NULL,
	unit		TEXT NOT NULL,
	better		TEXT NOT NULL
);
CREATE INDEX samples_job ON samples(job_id);

CREATE TABLE lock_profiles (
	id		INTEGER PRIMARY KEY,
	job_id		INTEGER NOT NULL REFERENCES jobs(id),
	attempt		INTEGER NOT NULL,
	workload	TEXT NOT NULL,
	profile		TEXT NOT NULL		-- the JSON line as sent
);
CREATE INDEX lock_profiles_job ON lock_profiles(job_id);
