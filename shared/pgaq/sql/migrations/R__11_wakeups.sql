-- Wake-ups without a lost one, and without a lock on the enqueue's way.
--
-- An enqueuer looks for a waiter of the queue (EXISTS on aq.waiters, with the snapshot of
-- the statement that looks) and NOTIFYs when it finds one. Every enqueuer (and everything
-- else that wakes a queue: a retry, the end of a delay, an audience's catch-up) writes one
-- of the queue's message tables first (aq.waiter_tables), so it holds RowExclusiveLock on
-- that table from before the snapshot of its look (a statement's locks are taken when it
-- is planned or its cached plan checked, its snapshot when it runs; a later statement of
-- the transaction takes a later one) until after its commit is visible (locks go after
-- the commit is in the proc array).
--
-- A process that starts waiting (pgaq.listener, its own connection, autocommit)
--   1. LISTENs, registers (aq.register_waiter: its row is committed at R),
--   2. reads the transactions holding that lock on the queue's tables (aq.waiter_writers),
--   3. looks; while any transaction read in 2 still holds the lock it polls
--      (aq.waiter_writers with that list, backoff to ~50 ms) and, once none does, looks
--      again, as after a NOTIFY.
-- An enqueuer whose look's snapshot is taken after R sees the row and notifies (LISTEN was
-- in effect before R). One whose snapshot is before R took its lock before then, so at 2
-- it has either ended (its commit was visible before its lock went: the look of 3 sees the
-- message) or holds the lock (it is polled, and looked for after it ended). A registration
-- outlives waits (the listener's linger), so 2 and the polling are paid once per
-- registration, not per message, and an enqueue pays an index probe, no lock.
--
-- (A client of release 435be0f registers without step 2: aq.register_waiter says what it
-- loses.) dbms_aqadm.start_queue wakes a queue without writing a message table; it needs
-- no lock: a waiter that waits has seen its queue enabled for dequeue (a look at a queue
-- that is not raises ORA-25226 or ORA-25253), and starting a queue commits no message.

-- Whether anyone waits on the queue, then NOTIFY: the enqueue's check. The generated send
-- functions and the fast send statement (R__13_templates) inline it.
CREATE OR REPLACE FUNCTION aq.wake(p_queue_id integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM aq.waiters w WHERE w.queue_id = p_queue_id) THEN
    PERFORM pg_notify('aq_' || p_queue_id, '');
  END IF;
END $$;

-- Called by a listening process (its own connection, autocommit) before its first look;
-- then it reads aq.waiter_writers (above). A client of release 435be0f calls this only: it
-- relied on an advisory lock enqueuers no longer take, so a message whose enqueuer looked
-- for waiters before this row was committed and committed after that client's first look
-- is not notified to it; the client finds it at its next look, its safety poll
-- (PGAQ_SAFETY_POLL, 5 s by default) or the queue's next wake-up.
CREATE OR REPLACE FUNCTION aq.register_waiter(p_queue_id integer) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  INSERT INTO aq.waiters (queue_id, pid) VALUES (p_queue_id, pg_backend_pid())
  ON CONFLICT DO NOTHING
$$;

-- The tables a queue's messages live in, where whatever wakes the queue writes: its queue
-- table, its recipients (multi-consumer), its buffered companion and the companion's
-- recipients (R__11_buffered). Those that exist.
CREATE OR REPLACE FUNCTION aq.waiter_tables(p_queue_id integer) RETURNS oid[]
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, aq AS $$
BEGIN
  RETURN (SELECT array_agg(r.oid) FILTER (WHERE r.oid IS NOT NULL)
          FROM aq.queues q JOIN aq.queue_tables t ON t.id = q.queue_table_id
          CROSS JOIN LATERAL unnest(ARRAY[t.table_name, 'aq$_' || t.table_name || '_r', 'aq$_' || t.table_name || '_b',
                                          'aq$_aq$_' || t.table_name || '_b_r']) n(relname)
          CROSS JOIN LATERAL (SELECT to_regclass(quote_ident(t.schema_name) || '.' || quote_ident(n.relname))::oid) r(oid)
          WHERE q.id = p_queue_id);
END $$;

-- The transactions (virtual ids) other than the caller's that hold RowExclusiveLock on the
-- queue's tables (pg_locks shows fast-path locks too), or, given p_among, those of p_among
-- that still do. Granted locks only: a transaction still waiting for its lock takes the
-- snapshot of its look after it (after R), and sees the waiter. (PL/pgSQL, as aq.waiter_tables:
-- the listening connection keeps their plans; SQL functions would be planned at every poll.)
CREATE OR REPLACE FUNCTION aq.waiter_writers(p_queue_id integer, p_among text[]) RETURNS text[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  rels oid[] := aq.waiter_tables(p_queue_id);
BEGIN
  RETURN (SELECT coalesce(array_agg(DISTINCT l.virtualtransaction), '{}')
          FROM pg_locks l
          WHERE l.locktype = 'relation' AND l.mode = 'RowExclusiveLock' AND l.granted
            AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
            AND l.relation = ANY (rels)
            AND l.pid IS DISTINCT FROM pg_backend_pid()
            AND (p_among IS NULL OR l.virtualtransaction = ANY (p_among)));
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
