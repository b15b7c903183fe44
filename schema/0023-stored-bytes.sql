-- 0023-stored-bytes: the bytes a run keeps outside the store, so that the
-- storage quota (daemon/limits.c, db_limits.c) can count them with SQL:
-- an attempt's console log (<data>/console/, job_attempts.console) and a
-- build's artifacts in the build cache (bzImage, System.map, config and
-- build.log, what the cache keeps while the store names the build).
-- NULL for the rows stored before this migration: they count nothing.
ALTER TABLE job_attempts ADD COLUMN console_bytes INTEGER;
ALTER TABLE builds ADD COLUMN artifact_bytes INTEGER;
