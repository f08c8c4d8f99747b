-- SQL dequeues rolled back: noted autonomously (dblink), counted by the monitor.

CREATE OR REPLACE FUNCTION aq.conn_value(p text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT '''' || replace(replace(p, '\', '\\'), '''', '\''') || '''' $$;

-- Notes that the calling transaction removed p_msgid; a no-op without dblink. Runs as its
-- owner (dblink's connection needs it) but only for a caller who may dequeue the queue.
CREATE OR REPLACE FUNCTION aq.note_attempt(p_queue_id integer, p_consumer text, p_msgid bytea)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  ext name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
               WHERE e.extname = 'dblink');
  caller name := CASE WHEN current_setting('role') IN ('', 'none') THEN session_user
                      ELSE current_setting('role') END;
  q aq.queue_info;
  sockets text := split_part(current_setting('unix_socket_directories'), ',', 1);
  open boolean;
BEGIN
  IF ext IS NULL THEN
    RETURN;
  END IF;
  SELECT * INTO q FROM aq.queue_info x WHERE x.queue_id = p_queue_id;
  IF NOT FOUND OR NOT aq.has_access_as(q, 'DEQUEUE', caller) THEN
    RETURN;
  END IF;
  BEGIN
    EXECUTE format('SELECT %L = ANY (coalesce(%I.dblink_get_connections(), ''{}''))', 'aq_attempts', ext)
      INTO open;
    IF NOT open THEN
      EXECUTE format('SELECT %I.dblink_connect(%L, %L)', ext, 'aq_attempts',
                     'dbname=' || aq.conn_value(current_database()) || ' user=' || aq.conn_value(current_user)
                     || ' port=' || current_setting('port')
                     || CASE WHEN btrim(sockets) <> '' THEN ' host=' || aq.conn_value(btrim(sockets)) ELSE '' END);
    END IF;
    EXECUTE format('SELECT %I.dblink_exec(%L, %L)', ext, 'aq_attempts',
                   format('INSERT INTO aq.pending_attempts (xid, queue_id, consumer, msgid) '
                          'VALUES (%L, %s, %L, %L) ON CONFLICT DO NOTHING',
                          pg_current_xact_id(), p_queue_id, coalesce(p_consumer, ''), p_msgid));
  EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'could not note the dequeue attempt (a rollback will not count it): %', SQLERRM;
  END;
END $$;

-- The monitor's part: attempts of aborted transactions are counted (retry delay, exception
-- queue past max_retries), those of committed ones forgotten.
CREATE OR REPLACE FUNCTION aq.settle_pending_attempts() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  r record;
  n integer := 0;
BEGIN
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
