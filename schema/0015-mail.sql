-- 0015-mail: replies in the thread (daemon/mail.c).
--
-- mail: one row per message kperfci would send, keyed by its Message-ID,
-- which derives from what it is about (the comparison and its look, the
-- regression, the command it answers): inserting it again is a no-op, so
-- a restart, a re-run or a repeated hook never mails twice.  state:
--   new      asked for, not rendered yet (rendered by the mail thread)
--   queued   rendered, waiting for next_try
--   sending  handed to the transport; a crash here is checked against the
--            list before it is sent again (the same Message-ID)
--   sent     accepted by the transport
--   skipped  not sent, and never will be: reason says why
--   failed   the relay refused it permanently (5xx): reason says why
CREATE TABLE mail (
	id		INTEGER PRIMARY KEY,
	msgid		TEXT NOT NULL UNIQUE,
	kind		TEXT NOT NULL,		-- result regression answer
	series_id	INTEGER,
	comparison_id	INTEGER,
	regression_id	INTEGER,
	look		INTEGER NOT NULL DEFAULT 0,
	state		TEXT NOT NULL DEFAULT 'new',
	reason		TEXT,			-- why skipped, the last error
	subject		TEXT,
	rcpt		TEXT,			-- one address a line, To first
	list		TEXT,			-- the list the per-day cap counts
	message		TEXT,			-- the whole message as sent
	attempts	INTEGER NOT NULL DEFAULT 0,
	next_try	INTEGER NOT NULL DEFAULT 0,
	created		INTEGER NOT NULL,
	sent		INTEGER
);
CREATE INDEX mail_state ON mail(state, next_try);
CREATE INDEX mail_series ON mail(series_id);

-- Per series: whether it gets a reply (yes, regressions, no) and, for a
-- series started by a command in a reply, that reply's Message-ID (its
-- result answers that message).
CREATE TABLE mail_policy (
	series_id	INTEGER PRIMARY KEY REFERENCES series(id) ON DELETE CASCADE,
	reply		TEXT NOT NULL,
	in_reply_to	TEXT
);

-- Commands read from replies: each message is acted on once.
CREATE TABLE mail_command (
	msgid		TEXT PRIMARY KEY,
	watch		TEXT NOT NULL,
	sender		TEXT,
	series_id	INTEGER,		-- the series it was about
	command		TEXT,
	outcome		TEXT NOT NULL,
	new_series	INTEGER,
	created		INTEGER NOT NULL
);

-- Search-based watches: the newest received time a poll has covered.
CREATE TABLE watch_search (
	watch		TEXT PRIMARY KEY,
	since		INTEGER NOT NULL
);
