-- 0010-cancel-sticks: a cancelled comparison stays cancelled (daemon/
-- db_auth.c cancels; the scheduler may be in the middle of a stage for
-- it at that moment).  A job created for it afterwards (the next look, a
-- replacement) is cancelled at once, so no agent leases it, and a later
-- finish does not turn it back into done or failed.
CREATE TRIGGER jobs_of_cancelled_comparison AFTER INSERT ON jobs
WHEN NEW.comparison_id IS NOT NULL AND (SELECT state FROM comparisons
    WHERE id = NEW.comparison_id) = 'cancelled'
BEGIN
	UPDATE jobs SET state = 'cancelled', reason = 'its comparison was '
	    || 'cancelled' WHERE id = NEW.id;
END;

CREATE TRIGGER comparisons_cancel_sticks BEFORE UPDATE OF state ON comparisons
WHEN OLD.state = 'cancelled' AND NEW.state <> 'cancelled'
BEGIN
	SELECT RAISE(IGNORE);
END;
