-- Dequeue: selection by msgid, correlation or condition, the queue's sort order,
-- BROWSE / LOCKED / REMOVE / REMOVE_NODATA, navigation positions, SKIP LOCKED between
-- concurrent dequeuers. Returns an empty set when nothing qualifies (never an error
-- that would abort the caller's transaction).

-- Of messages whose rows this transaction holds, those whose recipient rows it can lock
-- at once too (the others are returned as not free). Deleting a message cascades to its
-- recipient rows; a concurrent dequeuer's candidate scan may hold a lock on one of them
-- (a row another worker of the same consumer just removed: PostgreSQL keeps the lock
-- when the re-check fails) while it waits for one of our message rows. Waiting here
-- would close that cycle (40P01), so nothing here ever waits for a recipient row.
CREATE OR REPLACE FUNCTION aq.lock_free_recipients(p_schema name, p_rtable name, p_ids bytea[]) RETURNS bytea[]
LANGUAGE plpgsql AS $$
DECLARE
  free bytea[];
BEGIN
  EXECUTE aq.render_settle_free_recipients(jsonb_build_object('schema', p_schema, 'recipients', p_rtable))
    INTO free USING p_ids;
  RETURN coalesce(free, '{}');
END $$;

-- Settle multi-consumer messages whose recipients are all done: processed (deleted, or
-- kept for the retention time) or, when a recipient failed, moved to the exception queue.
-- Returns the messages it could not look at because another transaction holds their row.
-- Lock order: message rows only, never waited for (SKIP LOCKED), and recipient rows never
-- waited for either (see aq.lock_free_recipients). A processed message whose recipient
-- rows are busy is marked PROCESSED now and deleted by the monitor's retention pass
-- (retention 0 is due at once; Oracle's queue monitor removes processed messages the same
-- way).
-- (enable_bitmapscan off: the look for an implicit recipient still to come must walk the
-- queue's subscribers by index and stop at the first; a bitmap scan, which the planner picks
-- when it expects a few subscribers per queue, reads them all for every message)
CREATE OR REPLACE FUNCTION aq.settle_messages(q aq.queue_info, p_ids bytea[]) RETURNS bytea[]
LANGUAGE plpgsql SET enable_bitmapscan = off AS $$
DECLARE
  now_ts timestamptz := clock_timestamp();
  tbl jsonb;  -- the message table, for the statements' templates
  mine bytea[];
  held bytea[];
  ok bytea[];
  free bytea[];
  lost integer;
BEGIN
  IF p_ids IS NULL OR NOT q.multiple_consumers THEN RETURN '{}'; END IF;
  tbl := jsonb_build_object('schema', q.table_schema, 'table', q.table_name);
  -- the message rows, so that concurrent last recipients settle each message once. A row
  -- another transaction holds (another recipient's dequeue of the same message, which
  -- settled nothing because this recipient was not done then) is not waited for: Oracle
  -- lets each recipient's dequeue go on independently
  -- (NO KEY UPDATE: a dequeue taking the message as an implicit recipient holds KEY SHARE
  -- on it, R__12_audience, and must not be skipped or kept waiting by this look; deleting
  -- the message below then waits for such a dequeue, which never happens once every
  -- recipient is done)
  EXECUTE aq.render_settle_lock_messages(tbl) INTO mine USING p_ids;
  IF mine IS NULL OR cardinality(mine) < cardinality(p_ids) THEN
    -- (ids of messages that are gone are left out too: nothing is left to settle there)
    EXECUTE aq.render_settle_held(tbl) INTO held USING p_ids, coalesce(mine, '{}');
  END IF;
  IF mine IS NULL THEN RETURN coalesce(held, '{}'); END IF;
  EXECUTE aq.render_settle_done(tbl || jsonb_build_object(
    'recipients', q.recipients_table, 'exception_queue', q.default_exception_queue,
    'implicit', aq.implicit_expr('s', 'm')))
  INTO ok, lost USING mine, aq.exception_queues(q.table_id), q.queue_id;
  IF lost > 0 THEN
    -- as Oracle writes to its alert log
    RAISE WARNING 'pgaq: % message(s) of %.% name an exception queue that no longer exists; moved to %',
      lost, q.table_schema, q.table_name, q.default_exception_queue;
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    -- this transaction's snapshot may predate another recipient's commit: what it did not
    -- settle is left to the monitor, which looks with a fresh snapshot
    EXECUTE aq.render_settle_unsettled(tbl) INTO free USING mine, coalesce(ok, '{}');
    held := coalesce(held, '{}') || coalesce(free, '{}');
    free := NULL;
  END IF;
  IF ok IS NOT NULL THEN
    IF q.retention_time = 0 THEN
      free := aq.lock_free_recipients(q.table_schema, q.recipients_table, ok);
      IF free IS NOT NULL AND cardinality(free) > 0 THEN
        EXECUTE aq.render_settle_delete(tbl) USING free;
      END IF;
      IF cardinality(free) < cardinality(ok) THEN
        PERFORM pg_notify('aq_time', '');  -- the monitor deletes the rest
      END IF;
    END IF;
    EXECUTE aq.render_settle_processed(tbl) USING ok, now_ts, coalesce(free, '{}');
  END IF;
  RETURN coalesce(held, '{}');
END $$;

-- Settle what can be settled now (aq.settle_messages); what another transaction holds is
-- left to the queue monitor (aq.defer_settlement), which settles it once that ends.
CREATE OR REPLACE FUNCTION aq.finish_messages(q aq.queue_info, p_ids bytea[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  held bytea[] := aq.settle_messages(q, p_ids);
BEGIN
  IF cardinality(held) > 0 THEN
    PERFORM aq.defer_settlement(q.queue_id, held, aq.is_buffered_info(q));
  END IF;
END $$;

-- Notes messages for the monitor to settle, each under the queue it is in (only messages
-- of that queue's table that exist: a caller can make the monitor look at a message, never
-- change what settling decides), and wakes the monitor when this transaction commits. Runs as the schema's
-- owner: dequeuers have no rights on the table.
-- p_buffered: the messages are buffered ones (R__11_buffered), in the table's companion.
CREATE OR REPLACE FUNCTION aq.defer_settlement(p_queue_id integer, p_ids bytea[], p_buffered boolean) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  q aq.queue_info;
  n integer;
BEGIN
  SELECT * INTO q FROM aq.queue_info WHERE queue_id = p_queue_id;
  IF NOT FOUND OR NOT q.multiple_consumers OR p_ids IS NULL THEN RETURN; END IF;
  IF p_buffered THEN
    q := aq.buffered_info(q);
  END IF;
  EXECUTE aq.render_settle_defer(jsonb_build_object('schema', q.table_schema, 'table', q.table_name))
    INTO n USING q.table_id, p_ids, coalesce(p_buffered, false);
  IF n > 0 THEN
    PERFORM pg_notify('aq_time', '');
  END IF;
END $$;
REVOKE EXECUTE ON FUNCTION aq.defer_settlement(integer, bytea[], boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.defer_settlement(integer, bytea[], boolean) TO PUBLIC;

-- The monitor's pass over deferred settlements: the notes it can take (SKIP LOCKED: another
-- monitor may have them) are settled if their message row is free now; a message still
-- held keeps one note (no new wake-up: the monitor waits for that row). Returns how many
-- messages were settled and one still-held message to wait on.
CREATE OR REPLACE FUNCTION aq.settle_deferred(p_limit integer)
RETURNS TABLE (done integer, busy_schema name, busy_table name, busy_msgid bytea)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info;
  k record;
  buf boolean;
  notes bigint[];
  ids bytea[];
  held bytea[];
BEGIN
  done := 0;
  FOR k IN SELECT DISTINCT d.queue_id, d.buffered FROM aq.deferred_settlements d
           ORDER BY d.queue_id, d.buffered LOOP
    SELECT * INTO q FROM aq.queue_info qi WHERE qi.queue_id = k.queue_id;
    CONTINUE WHEN NOT FOUND;
    buf := k.buffered;
    SELECT array_agg(d.id), array_agg(DISTINCT d.msgid) INTO notes, ids FROM (
      SELECT x.id, x.msgid FROM aq.deferred_settlements x WHERE x.queue_id = q.queue_id AND x.buffered = buf
      ORDER BY x.id LIMIT p_limit FOR UPDATE SKIP LOCKED) d;
    CONTINUE WHEN notes IS NULL;
    IF buf THEN
      q := aq.buffered_info(q);
    END IF;
    BEGIN
      held := aq.settle_messages(q, ids);
    EXCEPTION WHEN undefined_table THEN
      held := '{}';  -- the table was dropped under its queue: nothing left to settle
    END;
    -- the taken notes go; a message still held gets one note again
    DELETE FROM aq.deferred_settlements x WHERE x.id = ANY(notes);
    INSERT INTO aq.deferred_settlements (queue_id, msgid, buffered) SELECT q.queue_id, h, buf FROM unnest(held) h;
    done := done + cardinality(ids) - cardinality(held);
    IF cardinality(held) > 0 AND busy_msgid IS NULL THEN
      busy_schema := q.table_schema;
      busy_table := q.table_name;
      busy_msgid := held[1];
    END IF;
  END LOOP;
  RETURN NEXT;
END $$;

CREATE OR REPLACE FUNCTION aq.payload_output_expr(q aq.queue_info, tr aq.transformations, p_alias text)
RETURNS text[] LANGUAGE plpgsql STABLE AS $$
DECLARE
  v text := p_alias || '.user_data';
  out_type regtype := coalesce(tr.to_type, q.payload_type);
BEGIN
  IF tr.id IS NOT NULL THEN
    v := tr.function_name || '(' || v || ')';
  END IF;
  IF out_type = 'bytea'::regtype THEN
    RETURN ARRAY['NULL::jsonb', v];
  END IF;
  RETURN ARRAY['to_jsonb(' || v || ')', 'NULL::bytea'];
END $$;


-- The SQL of one dequeue (templates dequeue.recipients.* and dequeue.messages.*, one per
-- action): candidates (c), the action of the mode, the result array. By default the
-- statement of the dynamic path, parameters $1 queue, $2 message state (0, or 3 on
-- exception queues), $3 msgid, $4 correlation, $5 position, $6 group, $7 batch,
-- $8 condition params, $9 consumer, $10 now, $11 agent; p_args overrides the references
-- (queue, consumer, batch, now, agent) and the INTO clause for a generated function.
-- p_filters and p_sel are fragments built by the engine from fixed text and compiled
-- conditions; p_outp the payload output expressions.
CREATE OR REPLACE FUNCTION aq.dequeue_sql(q aq.queue_info, p_mode text, p_multi boolean, p_exc boolean,
                                          p_filters text, p_sel text, p_outp text[],
                                          p_delete boolean, p_args jsonb)
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  src text := CASE WHEN p_multi THEN 'r' ELSE 'm' END;
  nodata boolean := p_mode = 'REMOVE_NODATA';
  args jsonb := '{"queue": "$1", "consumer": "$9", "batch": "$7", "now": "$10", "agent": "$11",
                  "into": ""}'::jsonb
    || jsonb_build_object('states', CASE WHEN p_exc THEN '= 3' ELSE '= 0' END)
    || coalesce(p_args, '{}') || jsonb_build_object(
    'schema', q.table_schema, 'table', q.table_name, 'recipients', q.recipients_table,
    'position', aq.sort_key_expr(q.sort_key, src), 'order', aq.sort_columns(q.sort_key, src),
    'filters', p_filters, 'selection', p_sel,
    'lock', CASE WHEN p_mode = 'BROWSE' THEN '' WHEN p_multi THEN 'FOR UPDATE OF r SKIP LOCKED'
                 ELSE 'FOR UPDATE OF m SKIP LOCKED' END,
    -- AQ User's Guide (11.1), "Internet Access to Oracle Streams AQ", exception_queue:
    -- "If the default exception queue is used, then the parameter returns a NULL value at
    -- dequeue time"
    'default_exception_queue', q.default_exception_queue,
    'payload_json', CASE WHEN nodata THEN 'NULL::jsonb' ELSE p_outp[1] END,
    'payload_raw', CASE WHEN nodata THEN 'NULL::bytea' ELSE p_outp[2] END);
BEGIN
  -- the scan floor bounds READY rows only: not a look by message id, which takes a WAITING
  -- message too (states IN (0, 1)), nor an exception queue's
  args := args || jsonb_build_object('floor', CASE WHEN NOT p_multi AND args ->> 'states' = '= 0'
                                                   THEN aq.scan_floor_expr(q, src) ELSE '' END);
  -- (the table's _take is there once its functions were generated by this release)
  IF p_multi AND aq.has_audience(q)
     AND to_regprocedure(format('%I.%I(name, text, bytea)', q.table_schema, 'aq$_' || q.table_name || '_take')) IS NOT NULL THEN
    -- implicit recipients beside the rows (R__12_audience)
    args := args || jsonb_build_object('table_id', q.table_id,
      'window', aq.audience_window_expr('sub', 'm'),
      'mine', 'aq$_' || q.table_name || '_mine', 'take_fn', 'aq$_' || q.table_name || '_take',
      'floor', CASE WHEN args ->> 'states' = '= 0'
                    THEN ' AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)' ELSE '' END,
      'take', CASE WHEN p_mode = 'BROWSE' THEN 'true'
                   ELSE aq.render_dequeue_audience_take(args || jsonb_build_object(
                          'take_fn', 'aq$_' || q.table_name || '_take')) END);
    args := args || jsonb_build_object('win', CASE WHEN aq.ordered_audience(q)
                                                  THEN aq.render_dequeue_audience_window_ordered(args)
                                                  ELSE aq.render_dequeue_audience_window_whole(args) END);
    RETURN CASE WHEN p_mode IN ('REMOVE', 'REMOVE_NODATA') THEN aq.render_dequeue_audience_remove(args)
                ELSE aq.render_dequeue_audience_look(args) END;
  END IF;
  -- (each template's own function: this runs for every dequeue with selection criteria)
  RETURN CASE
    WHEN p_multi AND p_mode IN ('REMOVE', 'REMOVE_NODATA') THEN aq.render_dequeue_recipients_remove(args)
    WHEN p_multi THEN aq.render_dequeue_recipients_look(args)
    WHEN p_mode IN ('REMOVE', 'REMOVE_NODATA') AND p_delete THEN aq.render_dequeue_messages_delete(args)
    WHEN p_mode IN ('REMOVE', 'REMOVE_NODATA') THEN aq.render_dequeue_messages_retain(args)
    ELSE aq.render_dequeue_messages_look(args) END;
END $$;

-- Whether `q` may be dequeued now by `consumer` (a folded agent name or NULL), as dequeue
-- and remove_held both check it: enabled for dequeue, a consumer name exactly where the
-- queue needs one, the caller's right. Returns whether the dequeue goes by recipient rows
-- (a multi-consumer queue; an exception queue never).
CREATE OR REPLACE FUNCTION aq.dequeue_target(q aq.queue_info, consumer text, p_by_id boolean)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  multi boolean;
BEGIN
  IF NOT q.dequeue_enabled THEN
    PERFORM aq.err(25226, format('dequeue failed, queue %s.%s is not enabled for dequeue',
                                 q.schema_name, q.queue_name), '55000');
  END IF;
  IF q.queue_type = 'EXCEPTION_QUEUE' THEN
    IF consumer IS NOT NULL AND q.multiple_consumers AND NOT p_by_id THEN
      PERFORM aq.err(25231, format('exception queue %s.%s is dequeued with a NULL consumer name',
                                   q.schema_name, q.queue_name), '22023');
    END IF;
    multi := false;
  ELSIF q.multiple_consumers THEN
    IF consumer IS NULL THEN
      PERFORM aq.err(25231, format('cannot dequeue because CONSUMER_NAME not specified for multi-consumer queue %s.%s',
                                   q.schema_name, q.queue_name), '22023');
    END IF;
    multi := true;
  ELSE
    IF consumer IS NOT NULL THEN
      PERFORM aq.err(24039, format('Queue %s.%s not created in queue table for multiple consumers: CONSUMER_NAME not allowed',
                                   q.schema_name, q.queue_name), '22023');
    END IF;
    multi := false;
  END IF;
  PERFORM aq.check_access(q, 'DEQUEUE');
  RETURN multi;
END $$;

-- dequeue_array's steps off its common path (each runs only when a call needs it, so the
-- common dequeue pays no PL/pgSQL call for them):

-- a call for both delivery modes: buffered messages first, then persistent ones (Oracle
-- orders each class on its own, AQ User's Guide and Reference (10.2), "Buffered Messaging":
-- "Ordering among persistent and buffered messages ... is not currently supported")
CREATE OR REPLACE FUNCTION aq.dequeue_buffered_then_persistent(
    p_queue text, p_consumer text, p_mode text, p_navigation text, p_msgid bytea, p_correlation text,
    p_condition text, p_batch integer, p_position bigint[], p_wrap boolean, p_transformation text,
    p_agent text, p_group bigint)
RETURNS SETOF aq.dequeued LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY SELECT * FROM aq.dequeue_array(p_queue, p_consumer, p_mode, p_navigation, p_msgid, p_correlation,
    p_condition, p_batch, p_position, p_wrap, p_transformation, p_agent, p_group, 'BUFFERED');
  IF NOT FOUND THEN
    RETURN QUERY SELECT * FROM aq.dequeue_array(p_queue, p_consumer, p_mode, p_navigation, p_msgid, p_correlation,
      p_condition, p_batch, p_position, p_wrap, p_transformation, p_agent, p_group, 'PERSISTENT');
  END IF;
END $$;

-- refuses a dequeue's options (mode and navigation upper-cased) with the first error that
-- applies; dequeue_array calls it only when one does
CREATE OR REPLACE FUNCTION aq.dequeue_reject_options(q aq.queue_info, p_mode text, p_navigation text,
                                                     p_batch integer, p_mode_given text, p_navigation_given text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_mode NOT IN ('BROWSE', 'LOCKED', 'REMOVE', 'REMOVE_NODATA') THEN
    PERFORM aq.err(25239, format('invalid DEQUEUE_MODE %s: use BROWSE, LOCKED, REMOVE or REMOVE_NODATA',
                                 quote_literal(p_mode_given)), '22023');
  END IF;
  IF p_navigation NOT IN ('FIRST_MESSAGE', 'NEXT_MESSAGE', 'NEXT_TRANSACTION') THEN
    PERFORM aq.err(25237, format('invalid NAVIGATION %s: use FIRST_MESSAGE, NEXT_MESSAGE or NEXT_TRANSACTION',
                                 quote_literal(p_navigation_given)), '22023');
  END IF;
  IF p_navigation = 'NEXT_TRANSACTION' AND q.message_grouping <> 'TRANSACTIONAL' THEN
    PERFORM aq.err(25237, format('navigation option NEXT_TRANSACTION used on queue %s.%s, which is not transactionally grouped',
                                 q.schema_name, q.queue_name), '22023');
  END IF;
  IF coalesce(p_batch, 1) < 1 OR p_batch > 10000 THEN
    PERFORM aq.err(25240, 'batch size must be between 1 and 10000', '22023');
  END IF;
END $$;

-- the transformation a dequeue applies: the call's, else (on a multi-consumer queue) the
-- consumer's subscription's; checked to take the queue's payload type
CREATE OR REPLACE FUNCTION aq.dequeue_transformation(q aq.queue_info, p_transformation text, p_multi boolean,
                                                     p_consumer text)
RETURNS aq.transformations LANGUAGE plpgsql AS $$
DECLARE
  tr aq.transformations;
BEGIN
  IF p_transformation IS NOT NULL THEN
    tr := aq.resolve_transformation(p_transformation);
  END IF;
  IF tr.id IS NULL AND p_multi THEN
    tr := aq.resolve_transformation((SELECT s.transformation FROM aq.subscribers s
                                     WHERE s.queue_id = q.queue_id AND s.name = p_consumer
                                       AND s.address IS NULL LIMIT 1));
  END IF;
  IF tr.id IS NOT NULL AND tr.from_type <> q.payload_type THEN
    PERFORM aq.err(25215, format('transformation %s.%s does not take %s', tr.schema_name, tr.name, q.payload_type), '42804');
  END IF;
  RETURN tr;
END $$;

-- a dequeue's selection criteria as the candidates' filters (sql: '' when there are none)
-- and the compiled condition's parameters
CREATE OR REPLACE FUNCTION aq.dequeue_filters(q aq.queue_info, p_by_msgid boolean, p_by_correlation boolean,
                                              p_condition text)
RETURNS aq.compiled_condition LANGUAGE plpgsql AS $$
DECLARE
  result aq.compiled_condition;
  cond aq.compiled_condition;
BEGIN
  result.sql := '';
  IF p_by_msgid THEN
    result.sql := result.sql || ' AND m.msgid = $3';
  END IF;
  -- a correlation is a LIKE pattern with Oracle's rules: % and _ match, a backslash is itself
  IF p_by_correlation THEN
    result.sql := result.sql || ' AND m.corrid LIKE $4 ESCAPE ''''';
  END IF;
  IF p_condition IS NOT NULL AND btrim(p_condition) <> '' THEN
    cond := aq.compile_condition(p_condition, aq.rule_dialect(q), q.payload_type, 8, 0);
    IF cond.sql IS NOT NULL THEN
      result.sql := result.sql || ' AND coalesce((' || cond.sql || '), false)';
    END IF;
    result.params := cond.params;
  END IF;
  RETURN result;
END $$;

-- the selection of a transactionally grouped queue (sel: the position's, if any): a call
-- returns messages of one transaction group only, NEXT_MESSAGE the current group's,
-- NEXT_TRANSACTION the next group's (grp: the current group), and of it the first
-- candidate's
CREATE OR REPLACE FUNCTION aq.dequeue_group_selection(q aq.queue_info, p_multi boolean, p_mode text,
                                                      p_navigation text, p_filters text, p_sel text,
                                                      p_group bigint)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  src text := CASE WHEN p_multi THEN 'r' ELSE 'm' END;
  sel text := p_sel;
  args jsonb;
BEGIN
  IF p_group IS NOT NULL THEN
    IF p_navigation = 'NEXT_MESSAGE' THEN
      sel := sel || ' AND ' || src || '.txn_group = $6';
    ELSIF p_navigation = 'NEXT_TRANSACTION' THEN
      sel := sel || ' AND ' || src || '.txn_group <> $6';
    END IF;
  END IF;
  args := jsonb_build_object(
    'schema', q.table_schema, 'table', q.table_name, 'recipients', q.recipients_table,
    'ready', CASE WHEN p_multi THEN 'r.q_name = $1 AND r.consumer_name = $9 AND r.address = '''' AND r.state = 0'
                  WHEN q.queue_type = 'EXCEPTION_QUEUE' THEN 'm.q_name = $1 AND m.state = 3'
                  ELSE 'm.q_name = $1 AND m.state = 0' END,
    'filters', p_filters, 'selection', sel,
    'order', aq.sort_columns(q.sort_key, src),
    'lock', CASE WHEN p_mode = 'BROWSE' THEN '' WHEN p_multi THEN 'FOR UPDATE OF r SKIP LOCKED'
                 ELSE 'FOR UPDATE OF m SKIP LOCKED' END);
  RETURN sel || CASE WHEN p_multi THEN aq.render_dequeue_first_group_recipients(args)
                     ELSE aq.render_dequeue_first_group_messages(args) END;
END $$;

-- upgrade (stays here: the defaults would make a call ambiguous): removes the form before
-- p_delivery_mode; release 435be0f
DROP FUNCTION IF EXISTS aq.dequeue_array(text, text, text, text, bytea, text, text, integer, bigint[], boolean,
                                         text, text, bigint);
CREATE OR REPLACE FUNCTION aq.dequeue_array(
    p_queue text,
    p_consumer text DEFAULT NULL,
    p_mode text DEFAULT 'REMOVE',
    p_navigation text DEFAULT 'NEXT_MESSAGE',
    p_msgid bytea DEFAULT NULL,
    p_correlation text DEFAULT NULL,
    p_condition text DEFAULT NULL,
    p_batch integer DEFAULT 1,
    p_position bigint[] DEFAULT NULL,
    p_wrap boolean DEFAULT true,
    p_transformation text DEFAULT NULL,
    p_agent text DEFAULT NULL,
    p_group bigint DEFAULT NULL,
    p_delivery_mode text DEFAULT 'PERSISTENT')
RETURNS SETOF aq.dequeued LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(p_queue);
  mode text := upper(coalesce(p_mode, 'REMOVE'));
  nav text := upper(coalesce(p_navigation, 'NEXT_MESSAGE'));
  consumer text := aq.agent_name(p_consumer);
  is_exc boolean := q.queue_type = 'EXCEPTION_QUEUE';
  multi boolean;
  tr aq.transformations;
  criteria aq.compiled_condition;  -- sql: the candidates' filters; params: the condition's
  grouped boolean := q.message_grouping = 'TRANSACTIONAL';
  pos bigint[] := p_position;
  grp bigint := p_group;
  sel text;
  outp text[];
  fast boolean;
  now_ts timestamptz := clock_timestamp();
  result aq.dequeued[];
  attempt integer := 0;
  dmode text := aq.delivery_mode(p_delivery_mode, ARRAY['PERSISTENT', 'BUFFERED', 'PERSISTENT_OR_BUFFERED'],
                                 'a dequeue');
BEGIN
  IF dmode = 'PERSISTENT_OR_BUFFERED' THEN
    RETURN QUERY SELECT * FROM aq.dequeue_buffered_then_persistent(p_queue, p_consumer, p_mode, p_navigation,
      p_msgid, p_correlation, p_condition, p_batch, p_position, p_wrap, p_transformation, p_agent, p_group);
    RETURN;
  END IF;
  IF dmode = 'BUFFERED' THEN q := aq.buffered_info(q); END IF;  -- the table's UNLOGGED companion (R__11_buffered)
  IF mode NOT IN ('BROWSE', 'LOCKED', 'REMOVE', 'REMOVE_NODATA')
     OR nav NOT IN ('FIRST_MESSAGE', 'NEXT_MESSAGE', 'NEXT_TRANSACTION')
     OR (nav = 'NEXT_TRANSACTION' AND NOT grouped) OR coalesce(p_batch, 1) < 1 OR p_batch > 10000 THEN
    PERFORM aq.dequeue_reject_options(q, mode, nav, p_batch, p_mode, p_navigation);
  END IF;
  multi := aq.dequeue_target(q, consumer, p_msgid IS NOT NULL);
  IF p_transformation IS NOT NULL OR multi THEN
    tr := aq.dequeue_transformation(q, p_transformation, multi, consumer);
  END IF;
  outp := aq.payload_output_expr(q, tr, 'm');
  criteria.sql := '';
  IF p_msgid IS NOT NULL OR p_correlation IS NOT NULL OR p_condition IS NOT NULL THEN
    criteria := aq.dequeue_filters(q, p_msgid IS NOT NULL, p_correlation IS NOT NULL, p_condition);
  END IF;

  fast := criteria.sql = '' AND tr.id IS NULL;
  -- candidate selection, possibly retried once from the start of the queue (wrap-around)
  LOOP
    attempt := attempt + 1;
    sel := '';
    IF p_msgid IS NULL AND nav <> 'FIRST_MESSAGE' AND pos IS NOT NULL THEN
      -- (after the position in the sort order of m (messages) or r (recipients))
      sel := ' AND ' || aq.after_position_expr(q.sort_key, CASE WHEN multi THEN 'r' ELSE 'm' END, '$5');
    END IF;
    IF grouped AND p_msgid IS NULL THEN
      sel := aq.dequeue_group_selection(q, multi, mode, nav, criteria.sql, sel, grp);
    END IF;

    IF fast AND sel NOT LIKE '%txn_group%' THEN
      -- the common case runs the queue table's generated function (cached plans), its
      -- parameters p_queue, p_state, p_msgid, p_correlation, p_position, p_group, p_batch,
      -- p_params, p_consumer, p_now, p_agent, p_mode, p_multi, p_delete by position (not
      -- by name: the previous release's, until R__99 regenerates them, name them otherwise)
      EXECUTE aq.render_dequeue_generated(jsonb_build_object('schema', q.table_schema,
                                                             'name', 'aq$_' || q.table_name || '_deq'))
        INTO result
        USING q.queue_name, CASE WHEN is_exc THEN 3 ELSE 0 END, p_msgid, p_correlation,
              CASE WHEN nav = 'FIRST_MESSAGE' THEN NULL ELSE pos END, grp,
              coalesce(p_batch, 1), criteria.params, consumer, now_ts, p_agent, mode, multi,
              is_exc OR q.retention_time = 0;
    ELSE
      -- (receiving by message id overrides the delay: a WAITING message is taken too; and
      -- browsing by message id shows a retained, PROCESSED one: "As long as the message is
      -- retained, it can be ... dequeued by specifying the message identifier of the
      -- processed message in a QueueBrowser", Oracle JMS guide, "QueueReceiver")
      EXECUTE aq.dequeue_sql(q, mode, multi, is_exc, criteria.sql, sel, outp, is_exc OR q.retention_time = 0,
                             CASE WHEN p_msgid IS NOT NULL AND NOT is_exc AND mode = 'BROWSE'
                                    THEN '{"states": "IN (0, 1, 2)"}'
                                  WHEN p_msgid IS NOT NULL AND NOT is_exc THEN '{"states": "IN (0, 1)"}'
                                  ELSE '{}' END::jsonb)
        INTO result
        USING q.queue_name, CASE WHEN is_exc THEN 3 ELSE 0 END, p_msgid, p_correlation, pos, grp,
              coalesce(p_batch, 1), criteria.params, consumer, now_ts, p_agent;
    END IF;
    EXIT WHEN result IS NOT NULL OR attempt > 1;
    -- wrap-around: past the end of the queue, NEXT_MESSAGE starts again from the beginning
    EXIT WHEN NOT coalesce(p_wrap, true) OR pos IS NULL OR p_msgid IS NOT NULL
              OR nav = 'FIRST_MESSAGE' OR (grouped AND nav = 'NEXT_MESSAGE' AND grp IS NOT NULL);
    pos := NULL;
    IF nav = 'NEXT_TRANSACTION' THEN grp := p_group; END IF;
  END LOOP;

  IF result IS NULL THEN RETURN; END IF;
  IF multi AND mode IN ('REMOVE', 'REMOVE_NODATA') THEN
    IF aq.has_audience(q) AND aq.time_to_advance(result, coalesce(p_batch, 1)) THEN
      PERFORM aq.advance_position(q.table_id, q.queue_name, consumer);  -- R__12_audience
    END IF;
    PERFORM aq.finish_messages(q, ARRAY(SELECT (x).msgid FROM unnest(result) x));
  END IF;
  RETURN QUERY SELECT * FROM unnest(result);
END $$;

-- REMOVE_NODATA of messages the calling transaction holds LOCKED (a LOCKED dequeue took
-- them), by their ids, in one statement: what dequeue_array does for each id, with one
-- rendered statement for all of them. A transacted JMS session that locks messages ahead
-- removes the ones it handed out this way at its commit. Returns how many were removed.
CREATE OR REPLACE FUNCTION aq.remove_held(p_queue text, p_consumer text, p_ids bytea[],
                                          p_agent text DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(p_queue);
  consumer text := aq.agent_name(p_consumer);
  is_exc boolean := q.queue_type = 'EXCEPTION_QUEUE';
  multi boolean;
  result aq.dequeued[];
BEGIN
  IF p_ids IS NULL OR cardinality(p_ids) = 0 THEN RETURN 0; END IF;
  IF cardinality(p_ids) > 10000 THEN
    PERFORM aq.err(25240, 'batch size must be between 1 and 10000', '22023');
  END IF;
  multi := aq.dequeue_target(q, consumer, true);
  -- as a dequeue by message id: the ids are $3 (an array here), a WAITING message counts
  EXECUTE aq.dequeue_sql(q, 'REMOVE_NODATA', multi, is_exc, ' AND m.msgid = ANY($3)', '',
                         ARRAY['NULL::jsonb', 'NULL::bytea'], is_exc OR q.retention_time = 0,
                         CASE WHEN NOT is_exc THEN '{"states": "IN (0, 1)"}' ELSE '{}' END::jsonb)
    INTO result
    USING q.queue_name, CASE WHEN is_exc THEN 3 ELSE 0 END, p_ids, NULL::text, NULL::bigint[],
          NULL::bigint, cardinality(p_ids), NULL::text[], consumer, clock_timestamp(), p_agent;
  IF result IS NULL THEN RETURN 0; END IF;
  IF multi THEN
    PERFORM aq.finish_messages(q, ARRAY(SELECT (x).msgid FROM unnest(result) x));
    IF aq.has_audience(q) THEN
      PERFORM aq.advance_position(q.table_id, q.queue_name, consumer);  -- R__12_audience
    END IF;
  END IF;
  RETURN cardinality(result);
END $$;
