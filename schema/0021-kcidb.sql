-- 0021-kcidb: results exported in KCIDB I/O form (daemon/kcidb.c).
--
-- kcidb_exports: one row per finished comparison, track run or bisect
-- (kind, object_id), made once when it finishes (compute once, read many:
-- GET /api/v1/kcidb merges the stored bodies).  created is the export's
-- time, the ?since= key.  The submit columns drive [kcidb] submit: state
-- pending until the command exits 0 (submitted) or attempts run out
-- (failed); none when no command is configured.  next_try is the retry's
-- time (backoff), last_error how the last attempt ended.

CREATE TABLE kcidb_exports (
	id		INTEGER PRIMARY KEY,
	kind		TEXT NOT NULL,		-- comparison | track_run | bisect
	object_id	INTEGER NOT NULL,
	created		INTEGER NOT NULL,
	body		TEXT NOT NULL,		-- the KCIDB JSON object
	submit_state	TEXT NOT NULL DEFAULT 'pending',
	attempts	INTEGER NOT NULL DEFAULT 0,
	next_try	INTEGER NOT NULL DEFAULT 0,
	last_error	TEXT,
	UNIQUE (kind, object_id)
);
CREATE INDEX kcidb_exports_created ON kcidb_exports(created, id);
CREATE INDEX kcidb_exports_submit ON kcidb_exports(submit_state, next_try);
