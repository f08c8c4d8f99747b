-- Wake-ups without a lost one. An enqueuer takes a shared advisory lock on the queue, then
-- looks for waiters; a process that starts waiting registers under the exclusive lock,
-- which it gets only after every enqueuer already past the check has committed. So a
-- message is either committed before the waiter's first look, or its enqueuer sees the
-- waiter and notifies.

CREATE OR REPLACE FUNCTION aq.wake(p_queue_id integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(1885823345, p_queue_id);
  IF EXISTS (SELECT 1 FROM aq.waiters w WHERE w.queue_id = p_queue_id) THEN
    PERFORM pg_notify('aq_' || p_queue_id, '');
  END IF;
END $$;

-- Called by a listening process (its own connection, autocommit) before its first look.
CREATE OR REPLACE FUNCTION aq.register_waiter(p_queue_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
BEGIN
  INSERT INTO aq.waiters (queue_id, pid) VALUES (p_queue_id, pg_backend_pid())
  ON CONFLICT DO NOTHING;
  PERFORM pg_advisory_xact_lock(1885823345, p_queue_id);
END $$;

CREATE OR REPLACE FUNCTION aq.unregister_waiter(p_queue_id integer) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  DELETE FROM aq.waiters WHERE queue_id = p_queue_id AND pid = pg_backend_pid()
$$;

-- Rows of processes that are gone (the monitor calls this now and then).
CREATE OR REPLACE FUNCTION aq.forget_dead_waiters() RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  WITH d AS (DELETE FROM aq.waiters w
             WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = w.pid)
             RETURNING 1)
  SELECT count(*)::integer FROM d
$$;
