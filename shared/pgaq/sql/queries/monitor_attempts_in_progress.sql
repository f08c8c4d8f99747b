-- Transactions that noted SQL dequeue attempts and have not ended (the monitor waits for them)
SELECT x::text AS xid FROM aq.attempts_in_progress() x
