-- 0001-series: submitted series, their patches and trailers.
--
-- state is one of the pipeline's stored states (queued, fetched, applied,
-- built, running, done, failed); error holds the reason when failed.
-- upload keeps an uploaded mbox until the fetch stage has parsed it.

CREATE TABLE series (
	id		INTEGER PRIMARY KEY,
	source		TEXT NOT NULL,		-- lore URL, or "upload"
	lore_base	TEXT,
	lore_list	TEXT,
	msgid		TEXT,
	req_version	INTEGER NOT NULL DEFAULT 0,	-- 0: newest
	req_base	TEXT,			-- submitter's base rev
	upload		BLOB,
	state		TEXT NOT NULL DEFAULT 'queued',
	error		TEXT,
	version		INTEGER,
	total		INTEGER,
	cover_subject	TEXT,
	cover_body	TEXT,
	cover_msgid	TEXT,
	change_id	TEXT,
	base_commit	TEXT,
	author		TEXT,
	email		TEXT,
	versions	TEXT,			-- "1,2,3": revisions in the thread
	priority	INTEGER NOT NULL DEFAULT 0,
	submitted	INTEGER NOT NULL,	-- epoch seconds
	updated		INTEGER NOT NULL
);
CREATE INDEX series_state ON series(state);

CREATE TABLE patches (
	id		INTEGER PRIMARY KEY,
	series_id	INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
	counter		INTEGER NOT NULL,
	total		INTEGER NOT NULL,
	subject		TEXT NOT NULL,
	author		TEXT,
	email		TEXT,
	date		TEXT,
	date_epoch	INTEGER,
	msgid		TEXT,
	message		TEXT,
	diff		TEXT,
	from_version	INTEGER,
	UNIQUE (series_id, counter)
);

CREATE TABLE trailers (
	id		INTEGER PRIMARY KEY,
	patch_id	INTEGER NOT NULL REFERENCES patches(id) ON DELETE CASCADE,
	pos		INTEGER NOT NULL,
	name		TEXT NOT NULL,
	value		TEXT NOT NULL
);
CREATE INDEX trailers_patch ON trailers(patch_id);
