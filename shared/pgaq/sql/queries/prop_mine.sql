-- The schedules this propagator holds (a claim skips rows that are locked at that moment,
-- by this propagator's own batches too: they are still ours). $1 propagator
SELECT id FROM aq.schedules WHERE lease_owner = $1
