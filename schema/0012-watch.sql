-- Watched lists (daemon/watch.c): where a series came from, the messages
-- a watch has seen (so a restart or a repeating feed never submits twice),
-- and the series each watch submitted (so a v2 supersedes its v1).
ALTER TABLE series ADD COLUMN origin TEXT;	-- NULL: submitted; "watch NAME"
CREATE TABLE watch_seen (
	watch		TEXT NOT NULL,
	msgid		TEXT NOT NULL,
	seen		INTEGER NOT NULL,		-- epoch seconds
	outcome		TEXT NOT NULL,			-- "series N" or why not
	PRIMARY KEY (watch, msgid)
);
CREATE TABLE watch_series (
	series_id	INTEGER PRIMARY KEY REFERENCES series(id) ON DELETE CASCADE,
	watch		TEXT NOT NULL,
	subject_key	TEXT NOT NULL,		-- the subject without [PATCH ...]
	version		INTEGER NOT NULL,
	submitted	INTEGER NOT NULL
);
CREATE INDEX watch_series_key ON watch_series(watch, subject_key);
