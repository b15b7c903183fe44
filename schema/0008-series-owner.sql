-- 0008-series-owner: who submitted a series (daemon/auth.c): "local" for
-- a trusted loopback client, "admin", or the [submitter "NAME"] name.
-- NULL for series from before this migration: only the admin manages
-- those.  A cancelled series rests in state 'cancelled' (error says by
-- whom); its comparison and jobs are 'cancelled' too, so no agent leases
-- them any more.
ALTER TABLE series ADD COLUMN owner TEXT;
