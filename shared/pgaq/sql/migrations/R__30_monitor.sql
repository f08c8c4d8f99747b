-- Time-driven work of the queue monitor, computed from the database's clock:
-- delay and retry-delay ends (WAIT -> READY), expiration (to the exception queue with
-- TIME_EXPIRATION), retention ends (PROCESSED rows deleted). Every step takes its rows
-- with FOR UPDATE SKIP LOCKED in bounded batches, so several monitors share the work and
-- a monitor killed mid-batch leaves its batch to be redone whole. An item a transaction
-- holds stays due: the pass reports it as busy with the next due time after it, so the
-- monitor retries it after a short interval instead of spinning.

-- upgrade (stays here: a changed result needs the old function gone; p_after's default would
-- make a call ambiguous): removes the forms before `busy` and table_next_due(t); no release
DROP FUNCTION IF EXISTS aq.monitor_pass(integer);
DROP FUNCTION IF EXISTS aq.monitor_table(aq.queue_tables, timestamptz, integer);
DROP FUNCTION IF EXISTS aq.table_next_due(aq.queue_tables);

-- monitor_table's steps, each over at most p_limit rows of table t that are due at p_now:

-- 1. delay and retry delay ended: WAIT -> READY, message rows and recipient rows; returns
-- how many rows and the queues they are in (to wake)
CREATE OR REPLACE FUNCTION aq.monitor_end_delays(t aq.queue_tables, p_now timestamptz, p_limit integer,
                                                 OUT done integer, OUT woke text[])
LANGUAGE plpgsql AS $$
DECLARE
  n integer;
  names text[];
  ids bytea[];
  lowest bigint;
BEGIN
  EXECUTE aq.render_monitor_end_delays_messages(jsonb_build_object('schema', t.schema_name, 'table', t.table_name))
    INTO n, woke, lowest, ids USING p_now, p_limit;
  IF n > 0 THEN
    PERFORM aq.lower_scan_floor(t, lowest);  -- READY again below the scan floor (R__12_scan_floor)
    -- READY below the floors of the subscribers reading it implicitly (R__12_audience,
    -- "Queues sorted by enqueue time"): it gets its rows, and is read by them
    PERFORM aq.explicitise_held(t, ids);
  END IF;
  done := n;
  IF t.multiple_consumers THEN
    EXECUTE aq.render_monitor_end_delays_recipients(jsonb_build_object(
      'schema', t.schema_name, 'recipients', ('aq$_' || t.table_name || '_r')::name))
      INTO n, names USING p_now, p_limit;
    done := done + n;
    woke := coalesce(woke, '{}') || coalesce(names, '{}');
  END IF;
END $$;

-- 2a. expiration on a multi-consumer table, Oracle's rule: expired for one intended
-- recipient that has not dequeued it; the recipient rows go to the exception queue.
-- Returns how many messages expired.
-- Lock order as in dequeue settlement (aq.finish_messages): message rows first, and
-- recipient rows never waited for. A dequeuer holds the recipient row it removed while
-- it waits for the message row; waiting here for that recipient row closed the cycle
-- (40P01). A busy recipient is expired by a later pass (or dequeued meanwhile).
CREATE OR REPLACE FUNCTION aq.monitor_expire_recipients(t aq.queue_tables, p_now timestamptz, p_limit integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  ids bytea[];
  q aq.queue_info;
BEGIN
  EXECUTE aq.render_monitor_expire_lock_messages(jsonb_build_object('schema', t.schema_name, 'table', t.table_name))
    INTO ids USING p_now, p_limit;
  IF ids IS NOT NULL AND NOT aq.is_buffered(t) THEN
    -- implicit recipients (R__12_audience) get their rows, to expire each as Oracle
    -- reports it (one EXPIRED row per recipient not done). The message rows held, no
    -- dequeue is taking one (a take holds its message row FOR KEY SHARE; such a message
    -- was skipped above, and is expired by a later pass)
    PERFORM aq.explicitise_held(t, ids);
  END IF;
  IF ids IS NOT NULL THEN
    EXECUTE aq.render_monitor_expire_recipients(jsonb_build_object(
      'schema', t.schema_name, 'recipients', ('aq$_' || t.table_name || '_r')::name))
      INTO ids USING ids;
  END IF;
  IF ids IS NULL THEN
    RETURN 0;
  END IF;
  FOR q IN SELECT * FROM aq.queue_info WHERE table_id = t.id AND queue_type = 'NORMAL_QUEUE' LOOP
    IF aq.is_buffered(t) THEN
      q := aq.buffered_info(q);
    END IF;
    PERFORM aq.finish_messages(q, ids);
    EXIT;
  END LOOP;
  RETURN cardinality(ids);
END $$;

-- 2b. expiration on a single-consumer table: the messages go to the exception queue (the
-- message's own when it still exists, else the table's default); returns how many and
-- the queues they went to (to wake)
CREATE OR REPLACE FUNCTION aq.monitor_expire_messages(t aq.queue_tables, p_now timestamptz, p_limit integer,
                                                      OUT done integer, OUT woke text[])
LANGUAGE plpgsql AS $$
DECLARE
  -- (the queue table's own name: t may be the companion of its buffered messages, R__11_buffered)
  defexc name := ('aq$_' || (SELECT x.table_name FROM aq.queue_tables x WHERE x.id = t.id) || '_e')::name;
  n integer;
BEGIN
  -- as Oracle writes to its alert file: an exception queue named at enqueue is gone
  EXECUTE aq.render_monitor_expire_lost(jsonb_build_object('schema', t.schema_name, 'table', t.table_name))
    INTO n USING p_now, aq.exception_queues(t.id), p_limit;
  IF n > 0 THEN
    RAISE WARNING 'pgaq: % expired message(s) in %.% name an exception queue that no longer exists; moved to %',
      n, t.schema_name, t.table_name, defexc;
  END IF;
  EXECUTE aq.render_monitor_expire_messages(jsonb_build_object(
    'schema', t.schema_name, 'table', t.table_name, 'exception_queue', defexc)) INTO done, woke
  USING p_now, p_limit, aq.exception_queues(t.id);
END $$;

-- 3. retention ended: processed messages go (INFINITE = -1 keeps them); returns how many
CREATE OR REPLACE FUNCTION aq.monitor_end_retention(t aq.queue_tables, p_now timestamptz, p_limit integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  ids bytea[];
  free bytea[];
BEGIN
  EXECUTE aq.render_monitor_retention_due(jsonb_build_object(
    'schema', t.schema_name, 'table', t.table_name, 'table_id', t.id)) INTO ids USING p_now, p_limit;
  IF ids IS NOT NULL AND t.multiple_consumers THEN
    -- never wait for a recipient row (see aq.lock_free_recipients): a busy message is
    -- looked at again a second later (on these tables the message's deq_time is only
    -- the retention clock; each recipient keeps its own)
    free := aq.lock_free_recipients(t.schema_name, ('aq$_' || t.table_name || '_r')::name, ids);
    EXECUTE aq.render_monitor_retention_postpone(jsonb_build_object(
      'schema', t.schema_name, 'table', t.table_name, 'table_id', t.id)) USING ids, free, p_now;
    ids := free;
  END IF;
  IF ids IS NULL THEN
    RETURN 0;
  END IF;
  -- (settling's DELETE)
  EXECUTE aq.render_settle_delete(jsonb_build_object('schema', t.schema_name, 'table', t.table_name)) USING ids;
  RETURN cardinality(ids);
END $$;

CREATE OR REPLACE FUNCTION aq.monitor_table(t aq.queue_tables, p_now timestamptz, p_limit integer)
RETURNS TABLE (done integer, next_due timestamptz, busy boolean, busy_msgid bytea) LANGUAGE plpgsql AS $$
DECLARE
  step record;
  total integer := 0;
  woke text[];
BEGIN
  done := 0;
  busy := false;
  busy_msgid := NULL;
  -- nothing due yet (the common case): one look, no work
  next_due := aq.table_next_due(t);
  IF next_due IS NULL OR next_due > p_now THEN
    RETURN NEXT;
    RETURN;
  END IF;
  step := aq.monitor_end_delays(t, p_now, p_limit);
  total := total + step.done;
  woke := step.woke;
  IF t.multiple_consumers THEN
    total := total + aq.monitor_expire_recipients(t, p_now, p_limit);
  ELSE
    step := aq.monitor_expire_messages(t, p_now, p_limit);
    total := total + step.done;
    woke := coalesce(woke, '{}') || coalesce(step.woke, '{}');
  END IF;
  total := total + aq.monitor_end_retention(t, p_now, p_limit);

  -- wake the queues' waiters once per queue
  IF woke IS NOT NULL THEN
    PERFORM aq.wake(q2.id)
    FROM aq.queues q2 WHERE q2.queue_table_id = t.id AND q2.queue_name = ANY (woke::name[]);
  END IF;

  done := total;
  next_due := aq.table_next_due(t);
  -- still due now: rows a transaction holds (skipped above) or more than a batch; the
  -- caller learns both, and when the next item falls due after those
  busy := next_due <= p_now;
  IF busy THEN
    next_due := aq.table_next_due(t, p_now);
    -- a message row still due, for the monitor to wait on (NULL when only recipient rows are)
    EXECUTE aq.render_monitor_busy_message(jsonb_build_object('schema', t.schema_name, 'table', t.table_name))
      INTO busy_msgid USING p_now;
  END IF;
  RETURN NEXT;
END $$;

-- When a queue table is next due after $1 (a delay or retry delay ending, an expiration, a
-- retention ending). Each table has a generated function with static SQL, so its plan is
-- cached: an idle table costs the monitor one cheap look.
-- p_after: what the statement calls the time to look after ($1 in a dynamic statement,
-- p_after in the table's _due function).
CREATE OR REPLACE FUNCTION aq.next_due_sql(t aq.queue_tables, p_after text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT aq.render('monitor.next_due', jsonb_build_object(
    'schema', t.schema_name, 'table', t.table_name, 'table_id', t.id, 'after', p_after,
    'recipients', CASE WHEN t.multiple_consumers
                       THEN aq.render('monitor.next_due.recipients', jsonb_build_object(
                              'schema', t.schema_name, 'recipients', 'aq$_' || t.table_name || '_r',
                              'after', p_after))
                       ELSE '' END))
$$;

CREATE OR REPLACE FUNCTION aq.create_monitor_functions(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- beside the table's other generated functions, owned like them (and named: a release
  -- before this one left it with an unnamed parameter)
  -- upgrade (stays here: run for each queue table): drops a _due() without a parameter, no
  -- release, and one with an unnamed parameter, release 435be0f
  IF to_regprocedure(format('%I.%I()', t.schema_name, 'aq$_' || t.table_name || '_due')) IS NOT NULL THEN
    EXECUTE aq.sql('DROP FUNCTION {{schema:ident}}.{{name:ident}}()',
                   jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_due'));
  END IF;
  PERFORM aq.drop_if_renamed(t.schema_name, ('aq$_' || t.table_name || '_due')::name, 'timestamptz', 'p_after');
  EXECUTE aq.render('queue_table.due', jsonb_build_object(
    'schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_due',
    'next_due', aq.next_due_sql(t, 'p_after')));
  EXECUTE aq.sql('ALTER FUNCTION {{schema:ident}}.{{name:ident}}(timestamptz) OWNER TO {{owner:ident}}',
                 jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_due', 'owner', t.owner));
END $$;

-- The next due time after p_after (by default: anything, overdue included).
CREATE OR REPLACE FUNCTION aq.table_next_due(t aq.queue_tables, p_after timestamptz DEFAULT '-infinity')
RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
DECLARE
  nd timestamptz;
BEGIN
  BEGIN
    EXECUTE aq.render_monitor_due_call(jsonb_build_object('schema', t.schema_name,
                                                          'name', 'aq$_' || t.table_name || '_due'))
      INTO nd USING p_after;
  EXCEPTION WHEN undefined_function THEN
    EXECUTE aq.next_due_sql(t, '$1') INTO nd USING p_after;  -- a table made before the function existed
  END;
  RETURN nd;
END $$;

-- One pass over every queue table; returns the work done, the next due time and whether
-- due items were left because transactions hold them (busy: next_due is then the next
-- time after now, and the caller retries the busy ones after a short interval), with one
-- such message row for the caller to wait on (aq.await_row_lock).
CREATE OR REPLACE FUNCTION aq.monitor_pass(p_limit integer DEFAULT 1000)
RETURNS TABLE (done integer, next_due timestamptz, db_now timestamptz, busy boolean,
               busy_schema name, busy_table name, busy_msgid bytea)
LANGUAGE plpgsql AS $$
DECLARE
  t aq.queue_tables;
  now_ts timestamptz := clock_timestamp();
  r record;
  total integer := 0;
  nd timestamptz;
  left_busy boolean := false;
BEGIN
  -- settlements a dequeue left because another transaction held the message row
  SELECT * INTO r FROM aq.settle_deferred(p_limit);
  total := r.done;
  IF r.busy_msgid IS NOT NULL THEN
    left_busy := true;
    busy_schema := r.busy_schema;
    busy_table := r.busy_table;
    busy_msgid := r.busy_msgid;
  END IF;
  -- each queue table, and the companion of its buffered messages (R__11_buffered) after it
  FOR t IN SELECT (y.r).* FROM (SELECT qt.id, 0 AS k, qt AS r FROM aq.queue_tables qt
                                UNION ALL
                                SELECT qt.id, 1, aq.buffered_table(qt) FROM aq.queue_tables qt
                                WHERE aq.has_buffered(qt)) y
           ORDER BY y.id, y.k LOOP
    BEGIN
      SELECT * INTO r FROM aq.monitor_table(t, now_ts, p_limit);
      IF aq.is_buffered(t) THEN
        -- expired buffered messages: to their exception queue as persistent messages
        total := total + aq.persist_buffered_exceptions(
          (SELECT qt FROM aq.queue_tables qt WHERE qt.id = t.id), p_limit);
      END IF;
      total := total + r.done;
      nd := least(nd, r.next_due);
      left_busy := left_busy OR r.busy;
      IF r.busy_msgid IS NOT NULL AND busy_msgid IS NULL THEN
        busy_schema := t.schema_name;
        busy_table := t.table_name;
        busy_msgid := r.busy_msgid;
      END IF;
    EXCEPTION WHEN undefined_table THEN
      NULL;  -- dropped while we looked
    END;
  END LOOP;
  done := total;
  next_due := nd;
  db_now := now_ts;
  busy := left_busy;
  RETURN NEXT;
END $$;

-- Waits (at most p_wait_ms) for the transaction holding a queue table's message row to
-- end; true when it had to wait (the monitor then looks at once), false when the row was
-- not held (what is busy is elsewhere: the monitor's retry interval covers it). Lock
-- timeout (55P03): still held. Holds nothing else, so it closes no cycle.
CREATE OR REPLACE FUNCTION aq.await_row_lock(p_schema name, p_table name, p_msgid bytea, p_wait_ms integer)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM aq.queue_tables t WHERE t.schema_name = p_schema AND t.table_name = p_table) THEN
    RETURN false;
  END IF;
  BEGIN
    EXECUTE aq.render_monitor_row_lock_nowait(jsonb_build_object('schema', p_schema, 'table', p_table)) USING p_msgid;
    RETURN false;
  EXCEPTION WHEN lock_not_available THEN
    NULL;
  END;
  PERFORM set_config('lock_timeout', greatest(p_wait_ms, 1)::text || 'ms', true);
  EXECUTE aq.render_monitor_row_lock(jsonb_build_object('schema', p_schema, 'table', p_table)) USING p_msgid;
  RETURN true;
END $$;
REVOKE EXECUTE ON FUNCTION aq.await_row_lock(name, name, bytea, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.await_row_lock(name, name, bytea, integer) TO aq_administrator_role;

-- gv$aq / v$aq: per queue, messages WAITING, READY, EXPIRED, and the waits.
CREATE OR REPLACE FUNCTION aq.gv_aq_rows()
RETURNS TABLE (qid integer, queue_schema name, queue_name name, waiting bigint, ready bigint,
               expired bigint, total_wait double precision, average_wait double precision,
               average_msg_age double precision)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  t aq.queue_tables;
BEGIN
  FOR t IN SELECT * FROM aq.queue_tables ORDER BY id LOOP
    RETURN QUERY EXECUTE aq.render_monitor_gv_aq(jsonb_build_object(
      'schema', t.schema_name, 'table', t.table_name, 'table_id', t.id));
  END LOOP;
END $$;

CREATE OR REPLACE VIEW aq.gv$aq AS
SELECT 1 AS inst_id, qid, queue_schema, queue_name, waiting, ready, expired, total_wait,
       average_wait, average_msg_age
FROM aq.gv_aq_rows();
CREATE OR REPLACE VIEW aq.v$aq AS
SELECT qid, queue_schema, queue_name, waiting, ready, expired, total_wait, average_wait,
       average_msg_age
FROM aq.gv_aq_rows();
CREATE OR REPLACE VIEW public.gv$aq AS SELECT * FROM aq.gv$aq;
CREATE OR REPLACE VIEW public.v$aq AS SELECT * FROM aq.v$aq;
GRANT SELECT ON aq.gv$aq, aq.v$aq, public.gv$aq, public.v$aq TO PUBLIC;

CREATE OR REPLACE FUNCTION aq.take_snapshot() RETURNS integer LANGUAGE sql AS $$
  WITH ins AS (
    INSERT INTO aq.queue_snapshots (taken_at, queue_id, queue_schema, queue_name, ready,
                                    waiting, expired, processed, oldest_ready_age)
    SELECT clock_timestamp(), g.qid, g.queue_schema, g.queue_name, g.ready, g.waiting,
           g.expired, 0, NULLIF(g.average_wait, 0)
    FROM aq.gv_aq_rows() g
    ON CONFLICT DO NOTHING
    RETURNING 1)
  SELECT count(*)::integer FROM ins
$$;
