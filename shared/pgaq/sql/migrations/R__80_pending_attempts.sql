-- SQL dequeues rolled back: noted autonomously (dblink), counted by the monitor. The note
-- wakes the monitor (NOTIFY aq_attempt); the dequeuing transaction holds a shared
-- advisory lock keyed by its id until it ends, so the monitor waits for exactly that end
-- (no polling) and counts the attempt at once, unless the session died with the
-- transaction open (its session lock is gone too): that counts nothing, as in Oracle.
-- The monitor's safety poll still settles whatever a lost notification or a long
-- transaction left.

-- The advisory lock a transaction that noted attempts holds until it ends.
CREATE OR REPLACE FUNCTION aq.attempt_lock_key(p_xid xid8) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT hashtextextended('pgaq dequeue attempt ' || p_xid::text, 0) $$;

-- A session that noted attempts holds a session-level shared advisory lock (class
-- 1885823346, this key) until it ends: a rollback leaves it held, a session that dies
-- (terminated, its client gone, the server crashed) releases it with its transaction.
-- The key names the backend and its start, so a later session on the same pid differs.
CREATE OR REPLACE FUNCTION aq.attempt_session_key() RETURNS integer
LANGUAGE sql STABLE AS $$
  SELECT hashtext(pg_backend_pid()::text || ' ' || coalesce(
           (SELECT a.backend_start::text FROM pg_stat_get_activity(pg_backend_pid()) a), ''))
$$;

-- Whether the session that held p_key is gone: its lock is free. A dying backend releases
-- its transaction's locks a moment before its session's (PostgreSQL's exit path), so a
-- lock still held is waited for a little (5 ms) before the session counts as alive.
CREATE OR REPLACE FUNCTION aq.attempt_session_gone(p_key integer) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF p_key = aq.attempt_session_key() THEN
    RETURN false;  -- this very session (its own lock would not stop it)
  END IF;
  IF pg_try_advisory_xact_lock(1885823346, p_key) THEN
    RETURN true;
  END IF;
  BEGIN
    PERFORM set_config('lock_timeout', '5ms', true);
    PERFORM pg_advisory_xact_lock(1885823346, p_key);
    PERFORM set_config('lock_timeout', '0', true);
    RETURN true;
  EXCEPTION WHEN lock_not_available THEN
    RETURN false;
  END;
END $$;
REVOKE EXECUTE ON FUNCTION aq.attempt_session_gone(integer) FROM PUBLIC;

CREATE OR REPLACE FUNCTION aq.conn_value(p text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT '''' || replace(replace(p, '\', '\\'), '''', '\''') || '''' $$;

-- Notes that the calling transaction removed p_msgid; a no-op without dblink. Runs as its
-- owner (the link needs it, R__81) but only for a caller who may dequeue the queue.
CREATE OR REPLACE FUNCTION aq.note_attempt(p_queue_id integer, p_consumer text, p_msgid bytea)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  ext name;
  q aq.queue_info;
  skey integer;
BEGIN
  IF aq.dblink_schema() IS NULL THEN
    RETURN;
  END IF;
  SELECT * INTO q FROM aq.queue_info x WHERE x.queue_id = p_queue_id;
  IF NOT FOUND OR NOT aq.has_access_as(q, 'DEQUEUE', aq.caller_role()) THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(aq.attempt_lock_key(pg_current_xact_id()));
  skey := aq.attempt_session_key();
  PERFORM pg_advisory_lock_shared(1885823346, skey);  -- the session's, until it ends
  BEGIN
    ext := aq.autonomous_link();
    EXECUTE aq.render_autonomous_exec(jsonb_build_object('dblink', ext, 'statement',
      aq.render_pending_attempts_note(jsonb_build_object(
        'xid', pg_current_xact_id()::text, 'queue_id', p_queue_id::text, 'consumer', coalesce(p_consumer, ''),
        'msgid', p_msgid::text, 'session_key', skey::text))));
  EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'could not note the dequeue attempt (a rollback will not count it): %', SQLERRM;
  END;
END $$;

-- The monitor's part: attempts of aborted transactions are counted (retry delay, exception
-- queue past max_retries), those of committed ones forgotten. On multi-consumer tables the
-- rows are locked up front in dequeue settlement's order (recipient rows, then message
-- rows in msgid order): counting one group settles its messages (message rows held), and
-- the next group's recipient rows must not be waited for while holding them, as a
-- dequeuer holding such a recipient row may be waiting for one of those message rows.
-- An implicit recipient's attempt (R__12_audience) has no row to lock up front: counting
-- it writes the row (aq.record_failed_attempts), under the message row held, which no
-- dequeue is taking then (a take holds the message row FOR KEY SHARE).
CREATE OR REPLACE FUNCTION aq.aborted_attempt_tables()
RETURNS TABLE (table_schema name, table_name name, recipients_table name, ids bytea[])
LANGUAGE sql STABLE AS $$
  SELECT qi.table_schema, qi.table_name, qi.recipients_table, array_agg(DISTINCT p.msgid)
  FROM aq.pending_attempts p JOIN aq.queue_info qi ON qi.queue_id = p.queue_id
  WHERE qi.multiple_consumers AND qi.queue_type = 'NORMAL_QUEUE' AND pg_xact_status(p.xid) = 'aborted'
  GROUP BY qi.table_id, qi.table_schema, qi.table_name, qi.recipients_table
  ORDER BY qi.table_id
$$;
REVOKE EXECUTE ON FUNCTION aq.aborted_attempt_tables() FROM PUBLIC;

CREATE OR REPLACE FUNCTION aq.settle_pending_attempts() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  r record;
  t record;
  n integer := 0;
BEGIN
  -- a transaction whose session died with it open counts no attempt (Oracle Streams
  -- Advanced Queuing User's Guide and Reference 10g Release 2 (10.2), "Introducing Oracle
  -- Streams AQ", "Retries with Delays": "If a dequeue transaction fails because the server
  -- process dies ..., then RETRY_COUNT is not incremented"): forgotten
  FOR r IN SELECT DISTINCT p.xid, p.session_key FROM aq.pending_attempts p
           WHERE p.session_key IS NOT NULL AND pg_xact_status(p.xid) = 'aborted' LOOP
    IF aq.attempt_session_gone(r.session_key) THEN
      DELETE FROM aq.pending_attempts p WHERE p.xid = r.xid;
    END IF;
  END LOOP;
  FOR t IN SELECT * FROM aq.aborted_attempt_tables() LOOP
    EXECUTE aq.sql('SELECT count(*) FROM (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} WHERE msgid = ANY($1) AND state = 0
                    ORDER BY msgid, consumer_name, address, protocol FOR UPDATE) x',
                   jsonb_build_object('schema', t.table_schema, 'recipients', t.recipients_table)) USING t.ids;
  END LOOP;
  FOR t IN SELECT * FROM aq.aborted_attempt_tables() LOOP  -- every recipient row first
    EXECUTE aq.sql('SELECT count(*) FROM (SELECT 1 FROM {{schema:ident}}.{{table:ident}} WHERE msgid = ANY($1) ORDER BY msgid FOR UPDATE) x',
                   jsonb_build_object('schema', t.table_schema, 'table', t.table_name)) USING t.ids;
  END LOOP;
  FOR r IN
    SELECT p.queue_id, p.consumer, array_agg(p.msgid) AS ids, pg_xact_status(p.xid) AS status,
           array_agg(p.xid) AS xids
    FROM aq.pending_attempts p
    GROUP BY p.queue_id, p.consumer, pg_xact_status(p.xid)
  LOOP
    CONTINUE WHEN r.status = 'in progress';
    IF r.status = 'aborted' THEN
      n := n + aq.record_failed_attempts(
             (SELECT q.schema_name || '.' || q.queue_name FROM aq.queue_info q WHERE q.queue_id = r.queue_id),
             nullif(r.consumer, ''), r.ids);
    END IF;
    DELETE FROM aq.pending_attempts p
    WHERE p.queue_id = r.queue_id AND p.consumer = r.consumer AND p.msgid = ANY (r.ids) AND p.xid = ANY (r.xids);
  END LOOP;
  RETURN n;
END $$;
REVOKE EXECUTE ON FUNCTION aq.settle_pending_attempts() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.settle_pending_attempts() TO aq_administrator_role;

-- The transactions with attempts noted that have not ended yet (whom the monitor waits for).
CREATE OR REPLACE FUNCTION aq.attempts_in_progress() RETURNS SETOF xid8
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  SELECT DISTINCT p.xid FROM aq.pending_attempts p WHERE pg_xact_status(p.xid) = 'in progress'
$$;
REVOKE EXECUTE ON FUNCTION aq.attempts_in_progress() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.attempts_in_progress() TO aq_administrator_role;

-- Waits (at most p_wait_ms) for transaction p_xid to end, then settles attempts; a
-- lock timeout (55P03) means it is still running and is left to a later pass.
CREATE OR REPLACE FUNCTION aq.await_attempts(p_xid xid8, p_wait_ms integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
BEGIN
  PERFORM set_config('lock_timeout', greatest(p_wait_ms, 1)::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(aq.attempt_lock_key(p_xid));
  PERFORM set_config('lock_timeout', '0', true);
  RETURN aq.settle_pending_attempts();
END $$;
REVOKE EXECUTE ON FUNCTION aq.await_attempts(xid8, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.await_attempts(xid8, integer) TO aq_administrator_role;
