-- Watched lists: who sent each series a watch submitted and its change-id,
-- so a "v2" supersedes only a series of the same author (daemon/watch.c),
-- and a watch's per_day is shared between authors.
ALTER TABLE watch_series ADD COLUMN author TEXT;	-- From address, lower case
ALTER TABLE watch_series ADD COLUMN change_id TEXT;	-- NULL: none
CREATE INDEX watch_series_author ON watch_series(watch, author, submitted);
