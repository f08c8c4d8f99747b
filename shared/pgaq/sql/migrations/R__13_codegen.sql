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
    EXECUTE format('DROP FUNCTION %s', sig);
  END IF;
END $$;

-- The flow control of a buffered messages' companion (R__11_buffered) in a generated
-- enqueue; adding: the SQL expression of how many messages the function adds.
CREATE OR REPLACE FUNCTION aq.buffered_checks(t aq.queue_tables, p_buffered boolean, p_adding text)
RETURNS text LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN p_buffered THEN aq.render('queue_table.buffered_checks', jsonb_build_object(
           'schema', t.schema_name, 'table', t.table_name, 'adding', p_adding)) ELSE '' END
$$;

CREATE OR REPLACE FUNCTION aq.create_queue_table_functions(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info;
  fn jsonb;          -- where each function goes: schema and name
  outp text[];
  relid oid := (SELECT typrelid FROM pg_type WHERE oid = t.payload_type);
  is_raw boolean := t.payload_kind = 'RAW';
  ins text;
  checks text;       -- the enqueue functions' queue checks (queue exists, enabled, access)
  buffered boolean;
  -- the generated functions' parameters, by what the statements call them
  enq_refs jsonb := jsonb_build_object('queue', 'p_queue', 'props', 'p_props', 'payloads', 'p_payloads',
                                       'raw', 'p_raw', 'agent', 'p_agent');
  deq_refs jsonb := jsonb_build_object('queue', 'p_queue', 'consumer', '(p_consumer COLLATE "default")', 'now', 'p_now',
                                       'agent', 'p_agent', 'into', 'INTO result ');
  kinds text := '';
  kind text;
  modes text;
  mode text;
  del boolean;
  src text;
  after text;
BEGIN
  -- a queue_info for the table (queue-specific fields are unused by the builders)
  q := ROW(NULL, t.schema_name, NULL, 'NORMAL_QUEUE', 0, 0, 0, true, true,
           t.id, t.schema_name, t.table_name, t.owner, t.payload_type, t.payload_kind,
           t.sort_list, t.multiple_consumers, t.message_grouping,
           t.sort_list || CASE WHEN t.message_grouping = 'TRANSACTIONAL' THEN '+G' ELSE '' END,
           ('aq$_' || t.table_name || '_r')::name,
           -- (the queue table's own: t may be the companion of its buffered messages)
           ('aq$_' || (SELECT x.table_name FROM aq.queue_tables x WHERE x.id = t.id) || '_e')::name)::aq.queue_info;
  outp := aq.payload_output_expr(q, NULL::aq.transformations, 'm');
  checks := aq.render('queue_table.enqueue_checks', jsonb_build_object(
    'table_id', t.id, 'schema', t.schema_name, 'owner', t.owner));
  -- (the buffered companion's flow control counts the messages each function adds: its
  -- own expression, added below per function)
  buffered := aq.is_buffered(t);

  -- _enq
  fn := jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_enq');
  PERFORM aq.drop_if_renamed(t.schema_name, fn ->> 'name', 'name, jsonb, jsonb, bytea[], timestamptz, text', 'p_queue');
  EXECUTE aq.render('queue_table.enq', fn || jsonb_build_object(
    'insert', aq.enqueue_sql(q, NULL::aq.transformations, enq_refs || jsonb_build_object(
                'now', 'p_now', 'into', 'INTO ids, any_ready, any_wait '))));

  -- _send (grouping's first-message properties are aq.enqueue_array's)
  fn := jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_send');
  IF t.message_grouping = 'NONE' THEN
    ins := aq.enqueue_sql(q, NULL::aq.transformations, enq_refs || CASE
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
      'queue_checks', checks || aq.buffered_checks(t, buffered,
        'CASE WHEN jsonb_typeof(p_props) = ''array'' THEN jsonb_array_length(p_props) ELSE 1 END'),
      'subscribers', CASE WHEN t.multiple_consumers
                          THEN aq.render('queue_table.send.plain_subscribers') ELSE '' END,
      'payload_checks', CASE WHEN is_raw THEN aq.render('queue_table.send.raw_payloads')
                             ELSE aq.render('queue_table.send.object_payloads',
                                            jsonb_build_object('payload_relid', relid)) END,
      'insert', aq.render(CASE WHEN is_raw THEN 'queue_table.send.insert_raw'
                               ELSE 'queue_table.send.insert_objects' END,
                          jsonb_build_object('insert', ins)),
      'recipients_check', CASE WHEN t.multiple_consumers
        THEN aq.render('queue_table.send.every_message_has_recipients',
                       jsonb_build_object('schema', t.schema_name))
        ELSE '' END));
    EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, fn ->> 'name', t.owner);
  ELSE
    EXECUTE format('DROP FUNCTION IF EXISTS %I.%I(name, jsonb, jsonb, bytea[], text)',
                   t.schema_name, fn ->> 'name');
  END IF;

  -- _take (R__12_audience): a dequeue's implicit candidates (before _deq, which calls it)
  IF aq.has_audience(q) THEN
    fn := jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_take');
    EXECUTE aq.render('queue_table.take', fn || jsonb_build_object(
      'table', t.table_name, 'recipients', 'aq$_' || t.table_name || '_r'));
    EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, fn ->> 'name', t.owner);
    fn := jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_mine');
    EXECUTE aq.render('queue_table.mine', fn || jsonb_build_object('recipients', 'aq$_' || t.table_name || '_r'));
    EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, fn ->> 'name', t.owner);
  END IF;

  -- _deq: (exception | multi | single) x mode x (delete | keep) x (from the start | after
  -- a position) x (one | a batch)
  FOREACH kind IN ARRAY ARRAY['EXC', 'MULTI', 'SINGLE'] LOOP
    CONTINUE WHEN kind = 'MULTI' AND NOT t.multiple_consumers;
    src := CASE WHEN kind = 'MULTI' THEN 'r' ELSE 'm' END;
    after := ' AND ' || aq.after_position_expr(q.sort_key, src, 'p_position');
    modes := '';
    FOREACH mode IN ARRAY ARRAY['BROWSE', 'LOCKED', 'REMOVE', 'REMOVE_NODATA'] LOOP
      FOREACH del IN ARRAY ARRAY[true, false] LOOP
        CONTINUE WHEN NOT del AND (kind <> 'SINGLE' OR mode IN ('BROWSE', 'LOCKED'));
        modes := modes || aq.render('queue_table.deq.mode', jsonb_build_object(
          'mode', mode,
          -- keeping or deleting only shapes a single-consumer REMOVE: a recipient row is
          -- always kept, its message settled by aq.finish_messages
          'test', CASE WHEN kind = 'SINGLE'
                       THEN format('p_delete = %L OR p_mode IN (''BROWSE'', ''LOCKED'')', del) ELSE 'true' END,
          'first_one', aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', '', outp, del,
                                      deq_refs || '{"batch": "1"}'),
          'first_many', aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', '', outp, del,
                                       deq_refs || '{"batch": "p_batch"}'),
          'after_one', aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', after, outp, del,
                                      deq_refs || '{"batch": "1"}'),
          'after_many', aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', after, outp, del,
                                       deq_refs || '{"batch": "p_batch"}')));
      END LOOP;
    END LOOP;
    kinds := kinds || aq.render('queue_table.deq.kind', jsonb_build_object(
      'keyword', CASE WHEN kinds = '' THEN 'IF' ELSE 'ELSIF' END,
      'test', CASE kind WHEN 'EXC' THEN 'p_state = 3' WHEN 'MULTI' THEN 'p_multi' ELSE 'true' END,
      'modes', modes));
  END LOOP;
  fn := jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_deq');
  PERFORM aq.drop_if_renamed(t.schema_name, fn ->> 'name',
    'name, integer, bytea, text, bigint[], bigint, integer, text[], text, timestamptz, text, text, boolean, boolean',
    'p_queue');
  EXECUTE aq.render('queue_table.deq', fn || jsonb_build_object('kinds', kinds));

  -- _send1
  IF NOT t.multiple_consumers AND t.message_grouping = 'NONE' THEN
    fn := jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_send1');
    EXECUTE aq.render('queue_table.send1', fn || jsonb_build_object(
      'queue_checks', checks || aq.buffered_checks(t, buffered, '1'),
      'payload_check', CASE WHEN is_raw THEN ''
                            ELSE aq.render('queue_table.send1.object_payload',
                                           jsonb_build_object('payload_relid', relid)) END,
      'insert', aq.render(CASE WHEN is_raw THEN 'queue_table.send.insert_raw' ELSE 'queue_table.send1.insert_object' END,
        jsonb_build_object('insert', aq.render('queue_table.send1.insert', jsonb_build_object(
          'schema', t.schema_name, 'table', t.table_name,
          'user_data', CASE WHEN is_raw THEN 'p_raw'
                            ELSE format('jsonb_populate_record(NULL::%s, p_obj)', t.payload_type) END))))));
    EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, fn ->> 'name', t.owner);
  END IF;

  -- _sendn (where _send1 is)
  fn := jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_sendn');
  IF NOT t.multiple_consumers AND t.message_grouping = 'NONE' THEN
    EXECUTE aq.render('queue_table.sendn', fn || jsonb_build_object(
      'queue_checks', checks || aq.buffered_checks(t, buffered, 'n'),
      'payload_check', CASE WHEN is_raw THEN aq.render('queue_table.sendn.raw_payloads')
                            ELSE aq.render('queue_table.sendn.object_payloads',
                                           jsonb_build_object('payload_relid', relid)) END,
      'insert', aq.render(CASE WHEN is_raw THEN 'queue_table.send.insert_raw' ELSE 'queue_table.send1.insert_object' END,
        jsonb_build_object('insert', aq.render('queue_table.sendn.insert', jsonb_build_object(
          'schema', t.schema_name, 'table', t.table_name,
          'user_data', CASE WHEN is_raw THEN 'p_raw[i]'
                            ELSE format('jsonb_populate_record(NULL::%s, p_obj -> (i - 1)::integer)', t.payload_type) END))))));
    EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, fn ->> 'name', t.owner);
  ELSE
    EXECUTE format('DROP FUNCTION IF EXISTS %I.%I', t.schema_name, fn ->> 'name');
  END IF;

  -- _recv
  IF t.message_grouping = 'NONE' THEN
    fn := jsonb_build_object('schema', t.schema_name, 'name', 'aq$_' || t.table_name || '_recv');
    EXECUTE aq.render('queue_table.recv', fn || jsonb_build_object(
      'table_id', t.id, 'owner', t.owner, 'multi', t.multiple_consumers,
      'advance', CASE WHEN aq.has_audience(q)
                      THEN aq.render('queue_table.recv.advance', jsonb_build_object('table_id', t.id)) ELSE '' END,
      'delivery_mode', CASE WHEN aq.is_buffered(t) THEN 'BUFFERED' ELSE 'PERSISTENT' END,
      'deq', 'aq$_' || t.table_name || '_deq'));
    EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, fn ->> 'name', t.owner);
  END IF;
  EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, 'aq$_' || t.table_name || '_enq', t.owner);
  EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, 'aq$_' || t.table_name || '_deq', t.owner);
  PERFORM aq.create_monitor_functions(t);  -- R__30: the monitor's look at this table
  PERFORM aq.create_fast_remove_function(t, q);  -- R__15: REMOVE for a session acting as a role
END $$;
