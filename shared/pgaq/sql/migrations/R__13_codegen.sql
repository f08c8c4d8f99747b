-- Generated functions per queue table: the engine's most frequent statements (enqueue,
-- and dequeue without selection criteria) compiled once as static SQL, so PostgreSQL
-- caches their plans. Their text is the templates of R__13_templates.sql; the statements
-- inside them come from the builders the dynamic path uses (aq.enqueue_sql,
-- aq.dequeue_sql), given the functions' parameter names instead of $n.
--
--   table                            _enq _deq _send _send1 _sendn _recv _rm1 _due
--   single consumer, no grouping      x    x    x     x      x      x     x    x
--   multi-consumer, no grouping       x    x    x                   x          x
--   transactionally grouped           x    x                                   x

-- upgrade (stays here: the generators call it for each queue table); release 435be0f
-- The table's generated function `fn`, dropped when its parameters were named otherwise
-- (a release before named parameters): CREATE OR REPLACE cannot rename a parameter. Only
-- the engine's own functions call _enq and _deq, and they are replaced in the same
-- transaction.
CREATE OR REPLACE FUNCTION aq.drop_if_renamed(p_schema name, p_fn name, p_args text, p_first_param text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  sig regprocedure := to_regprocedure(format('%I.%I(%s)', p_schema, p_fn, p_args));
BEGIN
  IF sig IS NOT NULL
     AND (SELECT p.proargnames[1] FROM pg_proc p WHERE p.oid = sig) IS DISTINCT FROM p_first_param THEN
    EXECUTE aq.sql('DROP FUNCTION {{sig}}', jsonb_build_object('sig', sig));
  END IF;
END $$;

-- The flow control of a buffered messages' companion (R__11_buffered) in a generated
-- enqueue; adding: the SQL expression of how many messages the function adds.
CREATE OR REPLACE FUNCTION aq.buffered_checks(t aq.queue_tables, p_buffered boolean, p_adding text)
RETURNS text LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN p_buffered THEN aq.render('queue_table.buffered_checks', jsonb_build_object(
           'schema', t.schema_name, 'table', t.table_name, 'adding', p_adding)) ELSE '' END
$$;

-- A queue_info for the table t, for the builders (its queue-specific fields are unused by
-- them: a normal queue, enabled, no retries or retention).
CREATE OR REPLACE FUNCTION aq.queue_table_info(t aq.queue_tables) RETURNS aq.queue_info
LANGUAGE plpgsql STABLE AS $$
DECLARE
  q aq.queue_info;
BEGIN
  q.schema_name := t.schema_name;
  q.queue_type := 'NORMAL_QUEUE';
  q.max_retries := 0;
  q.retry_delay := 0;
  q.retention_time := 0;
  q.enqueue_enabled := true;
  q.dequeue_enabled := true;
  q.table_id := t.id;
  q.table_schema := t.schema_name;
  q.table_name := t.table_name;
  q.owner := t.owner;
  q.payload_type := t.payload_type;
  q.payload_kind := t.payload_kind;
  q.sort_list := t.sort_list;
  q.multiple_consumers := t.multiple_consumers;
  q.message_grouping := t.message_grouping;
  q.sort_key := t.sort_list || CASE WHEN t.message_grouping = 'TRANSACTIONAL' THEN '+G' ELSE '' END;
  q.recipients_table := ('aq$_' || t.table_name || '_r')::name;
  -- (the queue table's own: t may be the companion of its buffered messages)
  q.default_exception_queue := ('aq$_' || (SELECT x.table_name FROM aq.queue_tables x WHERE x.id = t.id) || '_e')::name;
  RETURN q;
END $$;

-- The generated enqueue functions' parameters, by what the statements call them.
CREATE OR REPLACE FUNCTION aq.generated_enqueue_refs() RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('queue', 'p_queue', 'props', 'p_props', 'payloads', 'p_payloads',
                            'raw', 'p_raw', 'agent', 'p_agent')
$$;

-- The table's function `name` (schema t's) owned by the table's owner.
CREATE OR REPLACE FUNCTION aq.give_to_table_owner(t aq.queue_tables, p_name text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE aq.sql('ALTER FUNCTION {{schema:ident}}.{{name:ident}} OWNER TO {{owner:ident}}',
                 jsonb_build_object('schema', t.schema_name, 'name', p_name, 'owner', t.owner));
END $$;

-- _send: the library's enqueue of a batch (grouping's first-message properties are
-- aq.enqueue_array's, so a grouped table has none). checks: the queue checks; relid: the
-- payload type's relation.
CREATE OR REPLACE FUNCTION aq.create_send_function(t aq.queue_tables, q aq.queue_info, p_checks text,
                                                   p_relid oid)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  fn jsonb := jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_send');
  is_raw boolean := t.payload_kind = 'RAW';
  ins text;
BEGIN
  IF t.message_grouping <> 'NONE' THEN
    EXECUTE aq.sql('DROP FUNCTION IF EXISTS {{schema:ident}}.{{name:ident}}(name, jsonb, jsonb, bytea[], text)', fn);
    RETURN;
  END IF;
  ins := aq.enqueue_sql(q, NULL::aq.transformations, aq.generated_enqueue_refs() || CASE
    WHEN t.multiple_consumers THEN jsonb_build_object(
      -- the recipient rows in the same statement, from the rows just inserted (one row
      -- per message and subscriber, as aq.enqueue_array writes them)
      'now', 'now_ts',
      'returning', ', m.q_name, m.priority, m.enq_time, m.ready_time, m.txn_group, m.audience',
      'recipients', E',\n        rec AS (' || aq.subscriber_recipients_sql(
                      -- (the audience's subscribers need no row, R__12_audience: every
                      -- message of the call goes to the same generation, gen, so they are
                      -- left out before the subscribers meet the messages)
                      q, 'ins m' || CASE WHEN aq.has_audience(q) THEN ', (SELECT gen AS audience) g' ELSE '' END,
                      'sub.queue_id = qrow.id AND sub.id = ANY(sub_ids)'
                            || aq.subscriber_mode_filter(aq.is_buffered(t))
                            || CASE WHEN aq.has_audience(q) THEN ' AND NOT ' || aq.implicit_expr('sub', 'g') ELSE '' END)
                    || ' RETURNING 1)',
      'audience', CASE WHEN aq.has_audience(q) THEN 'gen' ELSE 'NULL::bigint' END,
      'counted', ', (SELECT count(*) FROM rec)',
      'into', 'INTO ids, any_ready, any_wait, rec_rows ')
    ELSE jsonb_build_object('now', 'now_ts', 'into', 'INTO ids, any_ready, any_wait ') END);
  EXECUTE aq.render('queue_table.send', fn || jsonb_build_object(
    'queue_checks', p_checks || aq.buffered_checks(t, aq.is_buffered(t),
      'CASE WHEN jsonb_typeof(p_props) = ''array'' THEN jsonb_array_length(p_props) ELSE 1 END'),
    'subscribers', CASE WHEN t.multiple_consumers
                        THEN aq.render('queue_table.send.plain_subscribers') ELSE '' END,
    'payload_checks', CASE WHEN is_raw THEN aq.render('queue_table.send.raw_payloads')
                           ELSE aq.render('queue_table.send.object_payloads',
                                          jsonb_build_object('payload_relid', p_relid)) END,
    'insert', aq.render(CASE WHEN is_raw THEN 'queue_table.send.insert_raw'
                             ELSE 'queue_table.send.insert_objects' END,
                        jsonb_build_object('insert', ins)),
    'recipients_check', CASE WHEN t.multiple_consumers
      THEN aq.render('queue_table.send.every_message_has_recipients',
                     jsonb_build_object('schema', t.schema_name))
      ELSE '' END));
  PERFORM aq.give_to_table_owner(t, fn ->> 'name');
END $$;

-- _take and _mine (R__12_audience): a dequeue's implicit candidates (made before _deq,
-- whose statements call them)
CREATE OR REPLACE FUNCTION aq.create_audience_functions(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE aq.render('queue_table.take', jsonb_build_object(
    'schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_take',
    'table', t.table_name, 'recipients', 'aq$_' || t.table_name || '_r'));
  PERFORM aq.give_to_table_owner(t, 'aq$_' || t.table_name || '_take');
  EXECUTE aq.render('queue_table.mine', jsonb_build_object(
    'schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_mine',
    'recipients', 'aq$_' || t.table_name || '_r'));
  PERFORM aq.give_to_table_owner(t, 'aq$_' || t.table_name || '_mine');
END $$;

-- _deq's cases: (exception | multi | single) x mode x (delete | keep) x (from the start |
-- after a position) x (one | a batch); outp: the payload output expressions
CREATE OR REPLACE FUNCTION aq.deq_function_cases(t aq.queue_tables, q aq.queue_info, outp text[])
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  -- the generated function's parameters, by what the statements call them
  refs jsonb := jsonb_build_object('queue', 'p_queue', 'consumer', '(p_consumer COLLATE "default")', 'now', 'p_now',
                                   'agent', 'p_agent', 'into', 'INTO result ');
  kinds text := '';
  kind text;
  modes text;
  mode text;
  del boolean;
  after text;
BEGIN
  FOREACH kind IN ARRAY ARRAY['EXC', 'MULTI', 'SINGLE'] LOOP
    CONTINUE WHEN kind = 'MULTI' AND NOT t.multiple_consumers;
    after := ' AND ' || aq.after_position_expr(q.sort_key, CASE WHEN kind = 'MULTI' THEN 'r' ELSE 'm' END, 'p_position');
    modes := '';
    FOREACH mode IN ARRAY ARRAY['BROWSE', 'LOCKED', 'REMOVE', 'REMOVE_NODATA'] LOOP
      FOREACH del IN ARRAY ARRAY[true, false] LOOP
        CONTINUE WHEN NOT del AND (kind <> 'SINGLE' OR mode IN ('BROWSE', 'LOCKED'));
        modes := modes || aq.render('queue_table.deq.mode', jsonb_build_object(
          'mode', mode,
          -- keeping or deleting only shapes a single-consumer REMOVE: a recipient row is
          -- always kept, its message settled by aq.finish_messages
          'test', CASE WHEN kind = 'SINGLE'
                       THEN aq.render('queue_table.deq.keep_test', jsonb_build_object(
                         'delete', CASE WHEN del THEN 't' ELSE 'f' END))
                       ELSE 'true' END,
          'first_one', aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', '', outp, del,
                                      refs || '{"batch": "1"}'),
          'first_many', aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', '', outp, del,
                                       refs || '{"batch": "p_batch"}'),
          'after_one', aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', after, outp, del,
                                      refs || '{"batch": "1"}'),
          'after_many', aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', after, outp, del,
                                       refs || '{"batch": "p_batch"}')));
      END LOOP;
    END LOOP;
    kinds := kinds || aq.render('queue_table.deq.kind', jsonb_build_object(
      'keyword', CASE WHEN kinds = '' THEN 'IF' ELSE 'ELSIF' END,
      'test', CASE kind WHEN 'EXC' THEN 'p_state = 3' WHEN 'MULTI' THEN 'p_multi' ELSE 'true' END,
      'modes', modes));
  END LOOP;
  RETURN kinds;
END $$;

-- _send1 and _sendn: one message, and several, for single-consumer tables without
-- grouping (_sendn is dropped elsewhere)
CREATE OR REPLACE FUNCTION aq.create_send_one_functions(t aq.queue_tables, p_checks text, p_relid oid)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  is_raw boolean := t.payload_kind = 'RAW';
  buffered boolean := aq.is_buffered(t);
BEGIN
  IF t.multiple_consumers OR t.message_grouping <> 'NONE' THEN
    EXECUTE aq.sql('DROP FUNCTION IF EXISTS {{schema:ident}}.{{name:ident}}',
                   jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_sendn'));
    RETURN;
  END IF;
  EXECUTE aq.render('queue_table.send1', jsonb_build_object(
    'schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_send1',
    'queue_checks', p_checks || aq.buffered_checks(t, buffered, '1'),
    'payload_check', CASE WHEN is_raw THEN ''
                          ELSE aq.render('queue_table.send1.object_payload',
                                         jsonb_build_object('payload_relid', p_relid)) END,
    'insert', aq.render(CASE WHEN is_raw THEN 'queue_table.send.insert_raw' ELSE 'queue_table.send1.insert_object' END,
      jsonb_build_object('insert', aq.render('queue_table.send1.insert', jsonb_build_object(
        'schema', t.schema_name, 'table', t.table_name,
        'user_data', CASE WHEN is_raw THEN 'p_raw'
                          ELSE aq.render('queue_table.send1.object_value',
                                         jsonb_build_object('type', t.payload_type)) END))))));
  PERFORM aq.give_to_table_owner(t, 'aq$_' || t.table_name || '_send1');
  EXECUTE aq.render('queue_table.sendn', jsonb_build_object(
    'schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_sendn',
    'queue_checks', p_checks || aq.buffered_checks(t, buffered, 'n'),
    'payload_check', CASE WHEN is_raw THEN aq.render('queue_table.sendn.raw_payloads')
                          ELSE aq.render('queue_table.sendn.object_payloads',
                                         jsonb_build_object('payload_relid', p_relid)) END,
    'insert', aq.render(CASE WHEN is_raw THEN 'queue_table.send.insert_raw' ELSE 'queue_table.send1.insert_object' END,
      jsonb_build_object('insert', aq.render('queue_table.sendn.insert', jsonb_build_object(
        'schema', t.schema_name, 'table', t.table_name,
        'user_data', CASE WHEN is_raw THEN 'p_raw[i]'
                          ELSE aq.render('queue_table.sendn.object_value',
                                         jsonb_build_object('type', t.payload_type)) END))))));
  PERFORM aq.give_to_table_owner(t, 'aq$_' || t.table_name || '_sendn');
END $$;

-- _recv: the whole dequeue without selection criteria, on tables without grouping
CREATE OR REPLACE FUNCTION aq.create_recv_function(t aq.queue_tables, q aq.queue_info) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF t.message_grouping <> 'NONE' THEN RETURN; END IF;
  EXECUTE aq.render('queue_table.recv', jsonb_build_object(
    'schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_recv',
    'table_id', t.id, 'owner', t.owner, 'multi', t.multiple_consumers,
    'advance', CASE WHEN aq.has_audience(q)
                    THEN aq.render('queue_table.recv.advance', jsonb_build_object('table_id', t.id)) ELSE '' END,
    'delivery_mode', CASE WHEN aq.is_buffered(t) THEN 'BUFFERED' ELSE 'PERSISTENT' END,
    'deq', 'aq$_' || t.table_name || '_deq'));
  PERFORM aq.give_to_table_owner(t, 'aq$_' || t.table_name || '_recv');
END $$;

CREATE OR REPLACE FUNCTION aq.create_queue_table_functions(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.queue_table_info(t);
  relid oid := (SELECT typrelid FROM pg_type WHERE oid = t.payload_type);
  -- the enqueue functions' queue checks (queue exists, enabled, access)
  checks text := aq.render('queue_table.enqueue_checks', jsonb_build_object(
    'table_id', t.id, 'schema', t.schema_name, 'owner', t.owner));
  enq text := 'aq$_' || t.table_name || '_enq';
  deq text := 'aq$_' || t.table_name || '_deq';
BEGIN
  PERFORM aq.drop_if_renamed(t.schema_name, enq, 'name, jsonb, jsonb, bytea[], timestamptz, text', 'p_queue');
  EXECUTE aq.render('queue_table.enq', jsonb_build_object('schema', t.schema_name, 'name', enq,
    'insert', aq.enqueue_sql(q, NULL::aq.transformations, aq.generated_enqueue_refs() || jsonb_build_object(
                'now', 'p_now', 'into', 'INTO ids, any_ready, any_wait '))));
  PERFORM aq.create_send_function(t, q, checks, relid);
  IF aq.has_audience(q) THEN
    PERFORM aq.create_audience_functions(t);
  END IF;
  PERFORM aq.drop_if_renamed(t.schema_name, deq,
    'name, integer, bytea, text, bigint[], bigint, integer, text[], text, timestamptz, text, text, boolean, boolean',
    'p_queue');
  EXECUTE aq.render('queue_table.deq', jsonb_build_object('schema', t.schema_name, 'name', deq,
    'kinds', aq.deq_function_cases(t, q, aq.payload_output_expr(q, NULL::aq.transformations, 'm'))));
  PERFORM aq.create_send_one_functions(t, checks, relid);
  PERFORM aq.create_recv_function(t, q);
  PERFORM aq.give_to_table_owner(t, enq);
  PERFORM aq.give_to_table_owner(t, deq);
  PERFORM aq.create_monitor_functions(t);  -- R__30: the monitor's look at this table
  PERFORM aq.create_fast_remove_function(t, q);  -- R__15: REMOVE for a session acting as a role
END $$;
