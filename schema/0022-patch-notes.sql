-- 0022-patch-notes: what a patch mail carries below its "---" cut line
-- and before the diff (its diffstat left out): a changelog, and for a
-- patch without a cover letter often its test results, which the claims
-- read (core/series.h: struct patch's notes).  NULL for the patches
-- stored before it: their claims stay those of the commit message.
ALTER TABLE patches ADD COLUMN notes TEXT;
