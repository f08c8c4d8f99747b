-- A ROLLBACK of dbms_aq.dequeue in plain SQL must count a failed attempt, but PostgreSQL
-- has no autonomous transactions: the dequeue notes the attempt through dblink (a second
-- session, committed at once) and the monitor counts it once the transaction aborted.
DO $do$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'dblink') THEN
    BEGIN
      CREATE EXTENSION dblink SCHEMA aq;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'dblink is not available (%): a ROLLBACK of dbms_aq.dequeue in SQL will not count '
                   'a failed attempt (the library and the gateway count theirs)', SQLERRM;
    END;
  END IF;
END $do$;

CREATE TABLE aq.pending_attempts (
    xid       xid8 NOT NULL,          -- the dequeuing transaction
    queue_id  integer NOT NULL,
    consumer  text NOT NULL DEFAULT '',
    msgid     bytea NOT NULL,
    noted_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (xid, queue_id, consumer, msgid)
);
REVOKE ALL ON aq.pending_attempts FROM PUBLIC;
