-- The scan floor: a lower bound the engine keeps for the READY messages of a queue table,
-- so that a dequeue's scan starts at it rather than at the start of the READY index.
--
-- Why: a REMOVE deletes its row (or moves it out of READY), and while any snapshot may
-- still see that row (an idle transaction pinning the xmin horizon) its entry in the
-- partial READY index cannot be marked dead. Every dequeue would walk, and visit the heap
-- for, every message consumed since the horizon was pinned: minutes of a pin made each
-- dequeue milliseconds slower (docs/chaos.md, the pressure cell `idle`). A scan that
-- starts at the floor skips them in the index itself.
--
-- The invariant: every READY message of the table has enq_seq >= its floor. Only tables
-- whose READY index is (q_name, enq_seq) have one: single-consumer, sort order ENQ_TIME,
-- no message grouping (and their buffered companions). The floor is a sequence of its
-- own (aq$_<table>_sf), read with SELECT last_value: a sequence is not versioned, so
-- moving the floor leaves no dead row behind, whatever the horizon.
--
-- How it moves:
--  * up, by the monitor (aq.advance_scan_floors, every PGAQ_SCAN_FLOOR_PERIOD): to the
--    lowest READY position, but never above positions a transaction still running may yet
--    commit. A position is drawn from aq.enq_seq inside an INSERT into the table, so its
--    transaction holds RowExclusiveLock on the table from before the draw to its end. Each
--    round reads the sequence (V) and then the transactions holding that lock (W); the
--    next round raises the floor to at most V + 1, and only when none of W still holds it:
--    every position <= V is then committed (visible) or gone. A REMOVE still running keeps
--    its row visible to the look, so a rollback puts back nothing below the floor.
--  * down, by whatever makes an older message READY: the monitor's end of a delay or retry
--    delay (aq.monitor_table). It lowers the floor in the same transaction.
-- A per-table advisory lock orders the two: the raise takes it with try (and skips the
-- round when busy), a lowering waits for it, so a raise computed before a lowering
-- committed is never written after it.

-- The floor sequence's name (NULL: the table has none)
CREATE OR REPLACE FUNCTION aq.scan_floor_name(p_table name, p_sort_key text, p_multi boolean) RETURNS name
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_sort_key = 'ENQ_TIME' AND NOT p_multi THEN ('aq$_' || p_table || '_sf')::name END
$$;

CREATE OR REPLACE FUNCTION aq.scan_floor_name(t aq.queue_tables) RETURNS name
LANGUAGE sql IMMUTABLE AS $$
  SELECT aq.scan_floor_name(t.table_name,
                            t.sort_list || CASE WHEN t.message_grouping = 'TRANSACTIONAL' THEN '+G' ELSE '' END,
                            t.multiple_consumers)
$$;

-- The fragment a READY scan of `q`'s message rows (alias p_alias) adds: the floor as the
-- start of its index range. Empty where the table has no floor.
SELECT aq.define_template('scan_floor.bound', $tpl$ AND {{alias}}.enq_seq >= (SELECT f.last_value FROM {{schema:ident}}.{{seq:ident}} f)$tpl$);
CREATE OR REPLACE FUNCTION aq.scan_floor_expr(q aq.queue_info, p_alias text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN f IS NULL THEN ''
              ELSE aq.render_scan_floor_bound(jsonb_build_object('alias', p_alias, 'schema', q.table_schema, 'seq', f)) END
  FROM (SELECT aq.scan_floor_name(q.table_name, q.sort_key, q.multiple_consumers) AS f) x
$$;

-- (Named templates, R__09_render.sql: defined here, before the functions that call them
-- are replaced in this file's transaction.)
-- R__12_scan_floor: the floor's value (aq.lower_scan_floor, aq.raise_scan_floor), and the
-- lowest READY position from $2 on of the table's queues (queue table $1)
SELECT aq.define_template('scan_floor.last_value', $tpl$SELECT last_value FROM {{schema:ident}}.{{seq:ident}}$tpl$);
SELECT aq.define_template('scan_floor.lowest_ready', $tpl$
    SELECT min(x.enq_seq) FROM aq.queues q
    CROSS JOIN LATERAL (SELECT m.enq_seq FROM {{schema:ident}}.{{table:ident}} m
                        WHERE m.q_name = q.queue_name AND m.state = 0 AND m.enq_seq >= $2
                        ORDER BY m.enq_seq LIMIT 1) x
    WHERE q.queue_table_id = $1$tpl$);

-- Made with the table (aq.create_queue_table_objects) and, for tables made before floors,
-- by R__99. Dropped with it (OWNED BY). At 0 until the monitor raises it.
CREATE OR REPLACE FUNCTION aq.create_scan_floor(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  f name := aq.scan_floor_name(t);
  args jsonb;
BEGIN
  IF f IS NULL OR to_regclass(format('%I.%I', t.schema_name, f)) IS NOT NULL
     OR to_regclass(format('%I.%I', t.schema_name, t.table_name)) IS NULL THEN
    RETURN;  -- none, made already, or (a companion R__99 has yet to make) no table
  END IF;
  args := jsonb_build_object('schema', t.schema_name, 'seq', f, 'table', t.table_name, 'owner', t.owner,
                             'comment', format('pgaq scan floor of %s.%s: no READY message lies below last_value',
                                               t.schema_name, t.table_name));
  EXECUTE aq.sql('CREATE SEQUENCE {{schema:ident}}.{{seq:ident}} AS bigint MINVALUE 0 START 0 CACHE 1', args);
  EXECUTE aq.sql('COMMENT ON SEQUENCE {{schema:ident}}.{{seq:ident}} IS {{comment:literal}}', args);
  EXECUTE aq.sql('ALTER SEQUENCE {{schema:ident}}.{{seq:ident}} OWNER TO {{owner:ident}}', args);
  EXECUTE aq.sql('ALTER SEQUENCE {{schema:ident}}.{{seq:ident}} OWNED BY {{schema:ident}}.{{table:ident}}.enq_seq', args);
  -- everyone's dequeues read it; the monitor (an administrator, as for its other work on
  -- the queue tables) moves it
  EXECUTE aq.sql('GRANT SELECT ON SEQUENCE {{schema:ident}}.{{seq:ident}} TO PUBLIC', args);
  EXECUTE aq.sql('GRANT UPDATE ON SEQUENCE {{schema:ident}}.{{seq:ident}} TO aq_administrator_role', args);
END $$;

-- Lowers t's floor to p_seq (a message at p_seq has just been made READY in the calling
-- transaction). Waits for a raise in progress, so the raise cannot overwrite this. A caller
-- who may not move the floor (UPDATE on the sequence: the table's owner and
-- aq_administrator_role) gets the error, and its message stays WAITING rather than READY
-- out of the scans' reach.
CREATE OR REPLACE FUNCTION aq.lower_scan_floor(t aq.queue_tables, p_seq bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  f name := aq.scan_floor_name(t);
  cur bigint;
BEGIN
  IF f IS NULL OR p_seq IS NULL THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(1885823347, t.id);
  EXECUTE aq.render_scan_floor_last_value(jsonb_build_object('schema', t.schema_name, 'seq', f)) INTO cur;
  IF p_seq < cur THEN
    PERFORM setval(format('%I.%I', t.schema_name, f)::regclass, greatest(p_seq, 0), true);
  END IF;
EXCEPTION WHEN undefined_table THEN
  NULL;  -- the table went meanwhile
END $$;

-- Transactions (virtual ids) other than the caller's holding RowExclusiveLock on p_rel:
-- those that may have drawn a position for it and not yet ended. A prepared transaction
-- (no backend) is listed as 'prepared': it keeps the floor where it is until it ends, as
-- its virtual id does not survive a restart of the server.
CREATE OR REPLACE FUNCTION aq.scan_floor_writers(p_rel regclass) RETURNS text[]
LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(array_agg(CASE WHEN l.pid IS NULL THEN 'prepared' ELSE l.virtualtransaction END
                            ORDER BY l.virtualtransaction), '{}')
  FROM pg_locks l
  WHERE l.locktype = 'relation' AND l.relation = p_rel
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.mode = 'RowExclusiveLock' AND l.granted
    AND l.pid IS DISTINCT FROM pg_backend_pid()
$$;

-- One raise of t's floor; p_seq and p_writers: the previous round's V and W for t (see
-- the top). Returns the new floor, or NULL when it stayed (no previous round, a writer of
-- then still running, the lock busy, nothing to gain).
CREATE OR REPLACE FUNCTION aq.raise_scan_floor(t aq.queue_tables, p_seq bigint, p_writers text[], p_now_writers text[])
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  f name := aq.scan_floor_name(t);
  cur bigint;
  lowest bigint;
  target bigint;
  args jsonb;
BEGIN
  IF f IS NULL OR p_seq IS NULL OR p_writers IS NULL OR p_writers && p_now_writers
     OR 'prepared' = ANY (p_now_writers) THEN
    RETURN NULL;
  END IF;
  IF NOT pg_try_advisory_xact_lock(1885823347, t.id) THEN
    RETURN NULL;  -- a lowering in progress: the next round
  END IF;
  args := jsonb_build_object('schema', t.schema_name, 'seq', f, 'table', t.table_name);
  EXECUTE aq.render_scan_floor_last_value(args) INTO cur;
  -- a statement of its own: its snapshot is taken now, after the writers were seen gone
  EXECUTE aq.render_scan_floor_lowest_ready(args) INTO lowest USING t.id, cur;
  target := least(coalesce(lowest, p_seq + 1), p_seq + 1);
  IF target <= cur THEN
    RETURN NULL;
  END IF;
  PERFORM setval(format('%I.%I', t.schema_name, f)::regclass, target, true);
  RETURN target;
END $$;

-- The tables that have a floor: queue tables and buffered companions (R__11_buffered),
-- each with its floor made.
CREATE OR REPLACE FUNCTION aq.floored_tables() RETURNS SETOF aq.queue_tables
LANGUAGE sql STABLE AS $$
  SELECT (y.r).* FROM (SELECT qt.id, 0 AS k, qt AS r FROM aq.queue_tables qt
                       UNION ALL
                       SELECT qt.id, 1, aq.buffered_table(qt) FROM aq.queue_tables qt) y
  WHERE aq.scan_floor_name(y.r) IS NOT NULL
    AND to_regclass(format('%I.%I', (y.r).schema_name, aq.scan_floor_name(y.r))) IS NOT NULL
  ORDER BY y.id, y.k
$$;

-- Every floor back to 0 (always safe: lowering never hides a message). The monitor's first
-- round does it: a floor read by pg_dump after its snapshot of the rows can be above
-- messages the dump holds, so after a logical restore the floors start again from 0 (run
-- it by hand if clients dequeue before the monitor has started).
CREATE OR REPLACE FUNCTION aq.reset_scan_floors() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  t aq.queue_tables;
  n integer := 0;
BEGIN
  FOR t IN SELECT * FROM aq.floored_tables() LOOP
    PERFORM aq.lower_scan_floor(t, 0);
    n := n + 1;
  END LOOP;
  RETURN n;
END $$;
REVOKE EXECUTE ON FUNCTION aq.reset_scan_floors() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.reset_scan_floors() TO aq_administrator_role;

-- The monitor's round over every table with a floor. p_prev: what the previous round
-- returned ({"seq": V, "started": the server's start, "writers": {"<table oid>": [vxid,
-- ...]}}), NULL the first time (which resets the floors, aq.reset_scan_floors). Returns
-- this round's, for the next; a round after a restart of the server raises nothing (the
-- virtual ids it compares are not those of before). Only under READ COMMITTED, where each
-- statement takes a fresh snapshot (the soundness above needs it), and only while
-- aq.enq_seq hands out its values one at a time (CACHE 1: a cached range would be drawn
-- by a session after V was read); otherwise it raises nothing.
CREATE OR REPLACE FUNCTION aq.advance_scan_floors(p_prev jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  t aq.queue_tables;
  v bigint := coalesce(pg_sequence_last_value('aq.enq_seq'), 0);  -- V: read before W
  rel regclass;
  now_writers text[];
  prev_writers text[];
  writers jsonb := '{}';
  started text := pg_postmaster_start_time()::text;
  ok boolean := current_setting('transaction_isolation') = 'read committed'
    AND (SELECT s.cache_size = 1 FROM pg_sequences s WHERE s.schemaname = 'aq' AND s.sequencename = 'enq_seq')
    AND p_prev ->> 'started' = started;
BEGIN
  IF p_prev IS NULL THEN
    PERFORM aq.reset_scan_floors();
  END IF;
  FOR t IN SELECT * FROM aq.floored_tables() LOOP
    rel := to_regclass(format('%I.%I', t.schema_name, t.table_name));
    CONTINUE WHEN rel IS NULL;
    now_writers := aq.scan_floor_writers(rel);
    writers := writers || jsonb_build_object(rel::oid::text, to_jsonb(now_writers));
    IF ok THEN
      SELECT array_agg(e) INTO prev_writers
      FROM jsonb_array_elements_text(p_prev -> 'writers' -> rel::oid::text) e;
      IF p_prev -> 'writers' ? rel::oid::text THEN
        BEGIN
          PERFORM aq.raise_scan_floor(t, (p_prev ->> 'seq')::bigint, coalesce(prev_writers, '{}'), now_writers);
        EXCEPTION WHEN undefined_table THEN
          NULL;  -- dropped while we looked
        END;
      END IF;
    END IF;
  END LOOP;
  RETURN jsonb_build_object('seq', v, 'started', started, 'writers', writers);
END $$;
REVOKE EXECUTE ON FUNCTION aq.advance_scan_floors(jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.advance_scan_floors(jsonb) TO aq_administrator_role;

-- Tables made before scan floors get theirs now, before the dequeues that read them are
-- generated again (R__13 on; a companion made later by R__99 gets its own there).
SELECT aq.create_scan_floor(t), aq.create_scan_floor(aq.buffered_table(t)) FROM aq.queue_tables t;
