-- Generated functions per queue table: the engine's most frequent statements (enqueue,
-- and dequeue without selection criteria) compiled once as static SQL, so PostgreSQL
-- caches their plans. The SQL text comes from the same builders the dynamic path uses
-- (aq.enqueue_sql, aq.dequeue_sql); names are quoted with format('%I').

CREATE OR REPLACE FUNCTION aq.create_queue_table_functions(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info;
  modes text[] := ARRAY['BROWSE', 'LOCKED', 'REMOVE', 'REMOVE_NODATA'];
  mode text;
  del boolean;
  body text := '';
  branch text;
  outp text[];
  after text;
  into_result text := 'SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o';
  plain text := 'SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) FROM o';
  kind text;
  enq_checks text;  -- the enqueue functions' queue checks (queue exists, enabled, access)
  send_sql text;    -- the fast path's statement
BEGIN
  -- a queue_info for the table (queue-specific fields are unused by the builders)
  q := ROW(NULL, t.schema_name, NULL, 'NORMAL_QUEUE', 0, 0, 0, true, true,
           t.id, t.schema_name, t.table_name, t.owner, t.payload_type, t.payload_kind,
           t.sort_list, t.multiple_consumers, t.message_grouping,
           t.sort_list || CASE WHEN t.message_grouping = 'TRANSACTIONAL' THEN '+G' ELSE '' END,
           ('aq$_' || t.table_name || '_r')::name, ('aq$_' || t.table_name || '_e')::name)::aq.queue_info;
  outp := aq.payload_output_expr(q, NULL::aq.transformations, 'm');
  enq_checks := format($c$SELECT q.id, q.queue_type, q.enqueue_enabled, q.notify INTO qrow
        FROM aq.queues q WHERE q.queue_table_id = %1$s AND q.queue_name = p_queue;
        IF NOT FOUND OR qrow.queue_type <> 'NORMAL_QUEUE' OR NOT qrow.enqueue_enabled THEN
          IF NOT FOUND THEN
            PERFORM aq.err(24010, format('QUEUE %%s.%%s does not exist', %2$L, p_queue), '42704');
          END IF;
          PERFORM aq.err(25207, format('enqueue failed, queue %%s.%%s is disabled from enqueueing', %2$L, p_queue), '55000');
        END IF;
        IF current_user <> %3$L AND NOT pg_has_role(current_user, %3$L, 'MEMBER') THEN
          SELECT * INTO qi FROM aq.queue_info WHERE queue_id = qrow.id;
          PERFORM aq.check_access(qi, 'ENQUEUE');
        END IF;$c$, t.id, t.schema_name, t.owner);

  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION %I.%I(p1 name, p2 jsonb, p3 jsonb, p4 bytea[], p5 timestamptz, p6 text,
                                     OUT ids bytea[], OUT any_ready boolean, OUT any_wait boolean)
    LANGUAGE plpgsql AS $body$
    BEGIN
      %s;
    END $body$
  $f$, t.schema_name, 'aq$_' || t.table_name || '_enq',
       replace(aq.enqueue_sql(q, NULL::aq.transformations),
               'SELECT array_agg(msgid ORDER BY enq_seq), bool_or(state = 0), bool_or(state = 1) FROM ins',
               'SELECT array_agg(msgid ORDER BY enq_seq), bool_or(state = 0), bool_or(state = 1) INTO ids, any_ready, any_wait FROM ins'));

  -- the whole enqueue of simple messages (no recipients, exception queue or
  -- transformation) on tables without message grouping: the library's fast path. On a
  -- multi-consumer table it covers the common publish: every message to all the queue's subscribers,
  -- none of which has a rule. Where rules or no subscribers apply it returns NULL before
  -- touching anything and the client takes the general path (aq.enqueue_array), which
  -- evaluates the rules or raises ORA-24033.
  IF t.message_grouping = 'NONE' THEN  -- grouping's first-message properties: aq.enqueue_array
    send_sql := replace(aq.enqueue_sql(q, NULL::aq.transformations),
      'SELECT array_agg(msgid ORDER BY enq_seq), bool_or(state = 0), bool_or(state = 1) FROM ins',
      'SELECT array_agg(msgid ORDER BY enq_seq), bool_or(state = 0), bool_or(state = 1) INTO ids, any_ready, any_wait FROM ins');
    IF t.multiple_consumers THEN
      -- the recipient rows in the same statement, from the rows just inserted (one row per
      -- message and subscriber, as aq.enqueue_array writes them)
      send_sql := replace(replace(send_sql, 'RETURNING m.msgid, m.enq_seq, m.state)',
          'RETURNING m.msgid, m.enq_seq, m.state, m.q_name, m.priority, m.enq_time, m.ready_time, m.txn_group),
        rec AS (' || aq.subscriber_recipients_sql(q, 'ins m', 'sub.queue_id = qrow.id AND sub.id = ANY(sub_ids)')
          || ' RETURNING 1)'),
        'INTO ids, any_ready, any_wait FROM ins',
        ', (SELECT count(*) FROM rec) INTO ids, any_ready, any_wait, rec_rows FROM ins');
    END IF;
    EXECUTE format($f$
      CREATE OR REPLACE FUNCTION %1$I.%2$I(p_queue name, p_props jsonb, p_payloads jsonb, p_raw bytea[],
                                           p_agent text)
      RETURNS bytea[] LANGUAGE plpgsql AS $body$
      DECLARE
        qrow record;
        ids bytea[];
        any_ready boolean;
        any_wait boolean;
        qi aq.queue_info;
        now_ts timestamptz := clock_timestamp();
        sub_ids integer[];
        rec_rows bigint;
      BEGIN
        %8$s
        IF p_props IS NULL OR jsonb_typeof(p_props) <> 'array' OR jsonb_array_length(p_props) = 0 THEN
          PERFORM aq.err(24031, 'invalid value, message properties should be a non-empty array', '22023');
        END IF;
        %9$s
        %7$s
        %6$s
        %10$s
        IF qrow.notify THEN PERFORM aq.notify_enqueued(qrow.id, ids); END IF;
        IF any_ready THEN PERFORM aq.wake(qrow.id); END IF;
        IF any_wait THEN PERFORM pg_notify('aq_time', ''); END IF;
        RETURN ids;
      END $body$
    $f$, t.schema_name, 'aq$_' || t.table_name || '_send', t.id, t.schema_name, t.owner,
         replace(replace(replace(replace(replace(replace(send_sql,
           '$1', 'p_queue'), '$2', 'p_props'), '$3', 'p_payloads'), '$4', 'p_raw'),
           '$5', 'now_ts'), '$6', 'p_agent') || ';'
         || CASE WHEN t.payload_kind = 'RAW' THEN '' ELSE $x$
        EXCEPTION
          WHEN invalid_text_representation OR numeric_value_out_of_range OR datetime_field_overflow
            OR invalid_datetime_format OR string_data_right_truncation OR invalid_parameter_value
            OR datatype_mismatch OR invalid_binary_representation OR array_subscript_error
            OR not_null_violation OR check_violation OR invalid_escape_sequence THEN
            IF SQLERRM LIKE 'ORA-%' THEN RAISE; END IF;  -- a property check's own error (aq.err)
            -- a bad property of any message is reported first, as the general route does
            PERFORM aq.normalise_props((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id), p_props);
            PERFORM aq.err(25215, format('user_data type and queue type do not match: %s', SQLERRM), '42804');
        END;$x$ END,
         CASE WHEN t.payload_kind = 'RAW' THEN $x$
        IF p_raw IS NULL OR cardinality(p_raw) <> jsonb_array_length(p_props) THEN
          PERFORM aq.normalise_props((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id), p_props);
          PERFORM aq.err(25215, 'user_data type and queue type do not match: one RAW payload per message', '42804');
        END IF;$x$
         ELSE format($x$
        IF p_payloads IS NULL OR jsonb_typeof(p_payloads) <> 'array'
           OR jsonb_array_length(p_payloads) <> jsonb_array_length(p_props)
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_payloads) x WHERE jsonb_typeof(x) <> 'object')
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_payloads) x, jsonb_object_keys(x) k
                      WHERE k NOT IN (SELECT a.attname FROM pg_attribute a
                                      WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped)) THEN
          -- the general route's order: every message's properties, then the payloads
          PERFORM aq.normalise_props((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id), p_props);
          PERFORM aq.check_payloads((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id),
                                    NULL::aq.transformations, jsonb_array_length(p_props), p_payloads, p_raw);
        END IF;
        BEGIN$x$, (SELECT typrelid FROM pg_type WHERE oid = t.payload_type)) END,
         enq_checks,
         -- %9$s: a multi-consumer table's subscribers, all plain (no rule), or the general path
         CASE WHEN t.multiple_consumers THEN $x$
        SELECT rc.plain_ids INTO sub_ids FROM aq.rule_cache rc
        WHERE rc.queue_id = qrow.id AND rc.rules_sql IS NULL;
        IF coalesce(cardinality(sub_ids), 0) = 0 THEN
          RETURN NULL;  -- rules to evaluate, or nobody subscribed: aq.enqueue_array decides
        END IF;$x$ ELSE '' END,
         -- %10$s: every message got its recipients (a subscriber removed since the cache
         -- was read leaves none)
         CASE WHEN t.multiple_consumers THEN format($x$
        IF rec_rows < cardinality(ids) THEN
          PERFORM aq.err(24033, format('no recipients for message %%s on queue %%s.%%s',
                                       aq.msgid_hex(ids[1]), %L, p_queue), '55000');
        END IF;$x$, t.schema_name)
         ELSE '' END);
    EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, 'aq$_' || t.table_name || '_send', t.owner);
  ELSE
    EXECUTE format('DROP FUNCTION IF EXISTS %I.%I(name, jsonb, jsonb, bytea[], text)',
                   t.schema_name, 'aq$_' || t.table_name || '_send');
  END IF;

  -- dequeue: (exception | multi | single) x mode x (delete | keep) x (from start | after position)
  FOREACH kind IN ARRAY ARRAY['EXC', 'MULTI', 'SINGLE'] LOOP
    CONTINUE WHEN kind = 'MULTI' AND NOT t.multiple_consumers;
    branch := '';
    FOREACH mode IN ARRAY modes LOOP
      FOREACH del IN ARRAY ARRAY[true, false] LOOP
        CONTINUE WHEN NOT del AND (kind <> 'SINGLE' OR mode IN ('BROWSE', 'LOCKED'));
        after := ' AND ' || aq.after_position_expr(q.sort_key, CASE WHEN kind = 'MULTI' THEN 'r' ELSE 'm' END, 5);
        -- a literal LIMIT 1 for single-message calls: with LIMIT $7 the planner assumes a
        -- tenth of the table and never settles on a cached (generic) plan
        branch := branch || format($b$
          ELSIF p12 = %L AND (%s) THEN
            IF p5 IS NULL AND p7 = 1 THEN
              %s;
            ELSIF p5 IS NULL THEN
              %s;
            ELSIF p7 = 1 THEN
              %s;
            ELSE
              %s;
            END IF;$b$, mode,
          -- keeping or deleting (p14) only shapes a single-consumer REMOVE: a recipient row
          -- is always kept, its message settled by aq.finish_messages
          CASE WHEN kind = 'SINGLE' THEN format('p14 = %L OR p12 IN (''BROWSE'', ''LOCKED'')', del) ELSE 'true' END,
          replace(replace(aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', '', outp, del), plain, into_result), 'LIMIT $7', 'LIMIT 1'),
          replace(aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', '', outp, del), plain, into_result),
          replace(replace(aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', after, outp, del), plain, into_result), 'LIMIT $7', 'LIMIT 1'),
          replace(aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', after, outp, del), plain, into_result));
      END LOOP;
    END LOOP;
    body := body || format($b$
      %s %s THEN
        IF false THEN NULL; %s
        END IF;$b$,
      CASE WHEN body = '' THEN 'IF' ELSE 'ELSIF' END,
      CASE kind WHEN 'EXC' THEN 'p2 = 3' WHEN 'MULTI' THEN 'p13' ELSE 'true' END, branch);
  END LOOP;
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION %I.%I(p1 name, p2 integer, p3 bytea, p4 text, p5 bigint[], p6 bigint,
                                     p7 integer, p8 text[], p9 text, p10 timestamptz, p11 text,
                                     p12 text, p13 boolean, p14 boolean)
    RETURNS aq.dequeued[] LANGUAGE plpgsql AS $body$
    DECLARE
      result aq.dequeued[];
    BEGIN
      %s
      END IF;
      RETURN result;
    END $body$
  $f$, t.schema_name, 'aq$_' || t.table_name || '_deq', body);
  -- one simple message with scalar arguments (no JSON to take apart): the most frequent call
  IF NOT t.multiple_consumers AND t.message_grouping = 'NONE' THEN
    EXECUTE format($f$
      CREATE OR REPLACE FUNCTION %1$I.%2$I(p_queue name, p_priority integer, p_delay integer,
                                           p_expiration integer, p_corr text, p_raw bytea,
                                           p_obj jsonb, p_agent text)
      RETURNS bytea LANGUAGE plpgsql AS $body$
      DECLARE
        qrow record;
        qi aq.queue_info;
        id bytea := uuid_send(gen_random_uuid());
        now_ts timestamptz := clock_timestamp();
        d integer := coalesce(p_delay, 0);
        e integer := nullif(p_expiration, -1);
      BEGIN
        %10$s
        IF d < 0 OR e < 0 OR length(p_corr) > 128 THEN  -- one test on the way of a valid call
          -- in the order aq.normalise_props checks them (the same error on every route)
          IF e < 0 THEN
            PERFORM aq.err(25209, format('invalid value %%s, EXPIRATION is out of range', e), '22023');
          END IF;
          IF d < 0 THEN
            PERFORM aq.err(25208, format('invalid value %%s, DELAY is out of range', d), '22023');
          END IF;
          PERFORM aq.err(24005, 'correlation identifier longer than 128 characters', '22023');
        END IF;
        %6$s
        INSERT INTO %1$I.%7$I (q_name, msgid, corrid, priority, state, delay, expiration, ready_time,
                               expire_at, enq_seq, enq_time, enq_uid, enq_agent, enq_tid, txn_group,
                               user_data)
        VALUES (p_queue, id, p_corr, coalesce(p_priority, 1), CASE WHEN d > 0 THEN 1 ELSE 0 END, d, e,
                now_ts + make_interval(secs => d),
                now_ts + make_interval(secs => d) + make_interval(secs => e),
                nextval('aq.enq_seq'), now_ts, current_user, p_agent, pg_current_xact_id()::text,
                pg_current_xact_id()::text::bigint, %8$s);
        %9$s
        IF qrow.notify THEN
          PERFORM aq.notify_enqueued(qrow.id, ARRAY[id]);
        END IF;
        IF d > 0 THEN
          PERFORM pg_notify('aq_time', '');
        ELSE  -- aq.wake (R__11) inline: this is the most frequent call
          PERFORM pg_advisory_xact_lock_shared(1885823345, qrow.id);
          IF EXISTS (SELECT 1 FROM aq.waiters w WHERE w.queue_id = qrow.id) THEN
            PERFORM pg_notify('aq_' || qrow.id, '');
          END IF;
        END IF;
        RETURN id;
      END $body$
    $f$, t.schema_name, 'aq$_' || t.table_name || '_send1', t.id, t.schema_name, t.owner,
         CASE WHEN t.payload_kind = 'RAW' THEN '' ELSE format($x$
        IF p_obj IS NULL OR jsonb_typeof(p_obj) <> 'object'
           OR EXISTS (SELECT 1 FROM jsonb_object_keys(p_obj) k
                      WHERE k NOT IN (SELECT a.attname FROM pg_attribute a
                                      WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped)) THEN
          PERFORM aq.check_payloads((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id),
                                    NULL::aq.transformations, 1, jsonb_build_array(p_obj), NULL);
        END IF;
        BEGIN$x$, (SELECT typrelid FROM pg_type WHERE oid = t.payload_type)) END,
         t.table_name,
         CASE WHEN t.payload_kind = 'RAW' THEN 'p_raw'
              ELSE format('jsonb_populate_record(NULL::%s, p_obj)', t.payload_type) END,
         CASE WHEN t.payload_kind = 'RAW' THEN '' ELSE $x$
        EXCEPTION
          WHEN invalid_text_representation OR numeric_value_out_of_range OR datetime_field_overflow
            OR invalid_datetime_format OR string_data_right_truncation OR invalid_parameter_value
            OR datatype_mismatch OR invalid_binary_representation OR array_subscript_error
            OR not_null_violation OR check_violation OR invalid_escape_sequence THEN
            IF SQLERRM LIKE 'ORA-%' THEN RAISE; END IF;  -- a property check's own error (aq.err)
            PERFORM aq.err(25215, format('user_data type and queue type do not match: %s', SQLERRM), '42804');
        END;$x$ END,
         enq_checks);
    EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, 'aq$_' || t.table_name || '_send1', t.owner);
  END IF;

  -- the whole dequeue without selection criteria: the library's fast path
  IF t.message_grouping = 'NONE' THEN
    EXECUTE format($f$
      CREATE OR REPLACE FUNCTION %1$I.%2$I(p_queue name, p_consumer text, p_mode text, p_pos bigint[],
                                           p_batch integer, p_agent text, p_wrap boolean)
      RETURNS aq.dequeued[] LANGUAGE plpgsql AS $body$
      DECLARE
        qrow record;
        consumer text := aq.agent_name(p_consumer);
        result aq.dequeued[];
        multi boolean;
        is_exc boolean;
        qi aq.queue_info;
        mode text := upper(coalesce(p_mode, 'REMOVE'));
        now_ts timestamptz := clock_timestamp();
      BEGIN
        SELECT q.id, q.queue_type, q.dequeue_enabled, q.retention_time INTO qrow
        FROM aq.queues q WHERE q.queue_table_id = %3$s AND q.queue_name = p_queue;
        IF NOT FOUND THEN
          PERFORM aq.err(24010, format('QUEUE %%s.%%s does not exist', %4$L, p_queue), '42704');
        END IF;
        IF mode NOT IN ('BROWSE', 'LOCKED', 'REMOVE', 'REMOVE_NODATA') THEN
          PERFORM aq.err(25239, format('invalid DEQUEUE_MODE %%s', quote_literal(p_mode)), '22023');
        END IF;
        IF coalesce(p_batch, 1) < 1 OR p_batch > 10000 THEN
          PERFORM aq.err(25240, 'batch size must be between 1 and 10000', '22023');
        END IF;
        IF NOT qrow.dequeue_enabled THEN
          PERFORM aq.err(25226, format('dequeue failed, queue %%s.%%s is not enabled for dequeue', %4$L, p_queue), '55000');
        END IF;
        is_exc := qrow.queue_type = 'EXCEPTION_QUEUE';
        multi := %5$L::boolean AND NOT is_exc;
        IF is_exc AND consumer IS NOT NULL AND %5$L::boolean THEN
          PERFORM aq.err(25231, format('exception queue %%s.%%s is dequeued with a NULL consumer name', %4$L, p_queue), '22023');
        ELSIF multi AND consumer IS NULL THEN
          PERFORM aq.err(25231, format('cannot dequeue because CONSUMER_NAME not specified for multi-consumer queue %%s.%%s', %4$L, p_queue), '22023');
        ELSIF NOT %5$L::boolean AND consumer IS NOT NULL THEN
          PERFORM aq.err(24039, format('Queue %%s.%%s not created in queue table for multiple consumers: CONSUMER_NAME not allowed', %4$L, p_queue), '22023');
        END IF;
        IF current_user <> %6$L AND NOT pg_has_role(current_user, %6$L, 'MEMBER') THEN
          SELECT * INTO qi FROM aq.queue_info WHERE queue_id = qrow.id;
          PERFORM aq.check_access(qi, 'DEQUEUE');
        END IF;
        IF multi AND EXISTS (SELECT 1 FROM aq.subscribers s WHERE s.queue_id = qrow.id
                               AND s.name = consumer AND s.transformation IS NOT NULL) THEN
          -- (dequeue_array returns a set, this function an array)
          RETURN ARRAY(SELECT d FROM aq.dequeue_array(quote_ident(%4$L) || '.' || quote_ident(p_queue), p_consumer, p_mode,
                                  'NEXT_MESSAGE', NULL, NULL, NULL, p_batch, p_pos, p_wrap, NULL, p_agent, NULL) d);
        END IF;
        result := %1$I.%7$I(p_queue, CASE WHEN is_exc THEN 3 ELSE 0 END, NULL, NULL, p_pos, NULL,
                            coalesce(p_batch, 1), NULL, consumer, now_ts, p_agent, mode, multi,
                            is_exc OR qrow.retention_time = 0);
        IF result IS NULL AND p_pos IS NOT NULL AND coalesce(p_wrap, true) THEN
          result := %1$I.%7$I(p_queue, CASE WHEN is_exc THEN 3 ELSE 0 END, NULL, NULL, NULL, NULL,
                              coalesce(p_batch, 1), NULL, consumer, now_ts, p_agent, mode, multi,
                              is_exc OR qrow.retention_time = 0);
        END IF;
        IF result IS NOT NULL AND multi AND mode IN ('REMOVE', 'REMOVE_NODATA') THEN
          SELECT * INTO qi FROM aq.queue_info WHERE queue_id = qrow.id;
          PERFORM aq.finish_messages(qi, ARRAY(SELECT (x).msgid FROM unnest(result) x));
        END IF;
        RETURN result;
      END $body$
    $f$, t.schema_name, 'aq$_' || t.table_name || '_recv', t.id, t.schema_name,
         t.multiple_consumers, t.owner, 'aq$_' || t.table_name || '_deq');
    EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, 'aq$_' || t.table_name || '_recv', t.owner);
  END IF;
  EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, 'aq$_' || t.table_name || '_enq', t.owner);
  EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, 'aq$_' || t.table_name || '_deq', t.owner);
  PERFORM aq.create_monitor_functions(t);  -- R__30: the monitor's look at this table
  PERFORM aq.create_fast_remove_function(t, q);  -- R__15: REMOVE for a session acting as a role
END $$;
