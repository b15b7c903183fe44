-- 0007-comparison-profiles: a finished comparison's lock-profile diff,
-- stored once beside its statistics (comparisons.result) so that the
-- page, the JSON, report.txt and `kperfci submit --wait` read both from
-- the store instead of recomputing them on every GET (daemon/report.c).
-- result is now also written for a comparison that failed with samples
-- (once, at its first view).
ALTER TABLE comparisons ADD COLUMN profiles TEXT;
