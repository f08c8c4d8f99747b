-- The session that noted a SQL dequeue's attempt (aq.note_attempt, R__80): the key of a
-- session-level advisory lock it holds until it ends, so that the monitor can tell a
-- transaction its session rolled back (an attempt, counted) from one whose session died
-- with it open (seed 002: "If a dequeue transaction fails because the server process dies
-- ... then RETRY_COUNT is not incremented"). NULL: noted before this column existed
-- (counted, as then).
ALTER TABLE aq.pending_attempts ADD COLUMN session_key integer;
