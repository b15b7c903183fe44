-- 0006-submitter: who submitted a series (daemon/limits.c): the client
-- address, or a submitter's name where tokens identify one.  The storage
-- quota sums the uploads of one submitter; NULL for in-process submissions
-- and series stored before this migration.
ALTER TABLE series ADD COLUMN submitter TEXT;
CREATE INDEX series_submitter ON series(submitter);
