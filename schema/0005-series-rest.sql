-- 0005-series-rest: why a series rests in a state that has a stage after
-- it (no tree configured, no agent configured).  NULL while the series
-- can move on.  The pipeline sets it when a stage answers STAGE_REST and
-- clears it on every state change and at start-up (the configuration may
-- have changed), so resting series are looked at again once.
ALTER TABLE series ADD COLUMN rest TEXT;
