-- dbms_aqadm: Oracle's administrative interface, same procedure and parameter names.

CREATE OR REPLACE FUNCTION aq.payload_kind(p_type regtype) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_type = 'bytea'::regtype THEN 'RAW'
    WHEN p_type = 'sys.aq$_jms_text_message'::regtype THEN 'JMS_TEXT'
    WHEN p_type = 'sys.aq$_jms_bytes_message'::regtype THEN 'JMS_BYTES'
    WHEN p_type = 'sys.aq$_jms_map_message'::regtype THEN 'JMS_MAP'
    WHEN p_type = 'sys.aq$_jms_object_message'::regtype THEN 'JMS_OBJECT'
    WHEN p_type = 'sys.aq$_jms_stream_message'::regtype THEN 'JMS_STREAM'
    WHEN p_type = 'sys.aq$_jms_message'::regtype THEN 'JMS_MESSAGE'  -- every body (V0016)
    WHEN (SELECT typtype FROM pg_type WHERE oid = p_type) = 'c' THEN 'OBJECT'
  END
$$;

CREATE OR REPLACE FUNCTION aq.resolve_payload_type(p_text text) RETURNS regtype
LANGUAGE plpgsql STABLE AS $$
DECLARE
  t regtype;
BEGIN
  IF p_text IS NULL OR btrim(p_text) = '' THEN
    PERFORM aq.err(24031, 'invalid value, QUEUE_PAYLOAD_TYPE should be non-NULL', '22023');
  END IF;
  IF upper(btrim(p_text)) IN ('RAW', 'SYS.RAW') THEN
    RETURN 'bytea'::regtype;
  END IF;
  -- only a (possibly qualified) type name is accepted, nothing else of SQL's type syntax
  PERFORM aq.parse_name(p_text, 'QUEUE_PAYLOAD_TYPE');
  BEGIN
    t := to_regtype(p_text);
  EXCEPTION WHEN OTHERS THEN
    t := NULL;
  END;
  IF t IS NULL OR aq.payload_kind(t) IS NULL THEN
    PERFORM aq.err(902, format('invalid datatype %s: payload types are RAW, SYS.AQ$_JMS_*_MESSAGE or an object (composite) type',
                               quote_literal(p_text)), '42704');
  END IF;
  RETURN t;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.create_queue_table(
    queue_table text,
    queue_payload_type text,
    storage_clause text DEFAULT NULL,
    sort_list text DEFAULT NULL,
    multiple_consumers boolean DEFAULT false,
    message_grouping text DEFAULT 'NONE',
    comment text DEFAULT NULL,
    auto_commit boolean DEFAULT true,
    primary_instance integer DEFAULT 0,
    secondary_instance integer DEFAULT 0,
    compatible text DEFAULT NULL,
    secure boolean DEFAULT false)
LANGUAGE plpgsql AS $$
DECLARE
  n text[] := aq.qualify(queue_table, 'QUEUE_TABLE', 50);
  ptype regtype := aq.resolve_payload_type(queue_payload_type);
  sl text := upper(regexp_replace(coalesce(sort_list, 'ENQ_TIME'), '\s', '', 'g'));
  grp text := upper(btrim(coalesce(message_grouping, 'NONE')));
  owner name;
  t aq.queue_tables;
BEGIN
  -- storage_clause: accepted, not used (PostgreSQL places the table); the rest: R__14_options
  PERFORM aq.check_queue_table_options(compatible, secure, primary_instance, secondary_instance);
  IF sl NOT IN ('ENQ_TIME', 'PRIORITY', 'PRIORITY,ENQ_TIME', 'ENQ_TIME,PRIORITY', 'COMMIT_TIME') THEN
    PERFORM aq.err(24005, format('invalid SORT_LIST %s: use ENQ_TIME, PRIORITY, PRIORITY,ENQ_TIME, ENQ_TIME,PRIORITY or COMMIT_TIME',
                                 quote_literal(sort_list)), '22023');
  END IF;
  IF grp = '0' THEN grp := 'NONE'; ELSIF grp = '1' THEN grp := 'TRANSACTIONAL'; END IF;
  IF grp NOT IN ('NONE', 'TRANSACTIONAL') THEN
    PERFORM aq.err(24005, format('invalid MESSAGE_GROUPING %s: use NONE or TRANSACTIONAL',
                                 quote_literal(message_grouping)), '22023');
  END IF;
  SELECT pg_get_userbyid(nspowner) INTO owner FROM pg_namespace WHERE nspname = n[1];
  IF owner IS NULL THEN
    PERFORM aq.err(1918, format('schema %s does not exist', n[1]), '3F000');
  END IF;
  IF EXISTS (SELECT 1 FROM aq.queue_tables q WHERE q.schema_name = n[1] AND q.table_name = n[2])
     OR to_regclass(format('%I.%I', n[1], n[2])) IS NOT NULL THEN
    PERFORM aq.err(24001, format('cannot create QUEUE_TABLE, %s.%s already exists', n[1], n[2]), '42P07');
  END IF;
  IF NOT aq.may_manage(n[1]) THEN
    PERFORM aq.err(1031, format('insufficient privileges to create a queue table in schema %s', n[1]), '42501');
  END IF;
  INSERT INTO aq.queue_tables (schema_name, table_name, owner, payload_type, payload_kind, sort_list,
                               multiple_consumers, message_grouping, comment)
  VALUES (n[1], n[2], owner, ptype, aq.payload_kind(ptype), sl,
          coalesce(multiple_consumers, false), grp, create_queue_table.comment)
  RETURNING * INTO t;
  PERFORM aq.create_queue_table_objects(t);
  -- the default exception queue AQ$_<table>_E
  INSERT INTO aq.queues (queue_table_id, schema_name, queue_name, queue_type, max_retries,
                         dequeue_enabled, comment)
  VALUES (t.id, n[1], 'aq$_' || n[2] || '_e', 'EXCEPTION_QUEUE', 0, false,
          'exception queue for ' || n[1] || '.' || n[2]);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.drop_queue_table(
    queue_table text, force boolean DEFAULT false, auto_commit boolean DEFAULT true)
LANGUAGE plpgsql AS $$
DECLARE
  t aq.queue_tables := aq.resolve_queue_table(queue_table);
  args jsonb;
BEGIN
  IF NOT aq.may_manage(t.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges to drop queue table %s.%s', t.schema_name, t.table_name), '42501');
  END IF;
  IF NOT coalesce(force, false) AND EXISTS (
       SELECT 1 FROM aq.queues q WHERE q.queue_table_id = t.id AND q.queue_type = 'NORMAL_QUEUE') THEN
    PERFORM aq.err(24005, format('queue table %s.%s has queues: drop them first or use force => true',
                                 t.schema_name, t.table_name), '2BP01');
  END IF;
  IF NOT coalesce(force, false) AND EXISTS (
       SELECT 1 FROM aq.queues q WHERE q.queue_table_id = t.id
         AND (q.enqueue_enabled OR q.dequeue_enabled)) THEN
    PERFORM aq.err(24011, format('cannot drop queue table %s.%s: stop its queues first', t.schema_name, t.table_name), '55006');
  END IF;
  -- (names: the table's own, aq$<table>.. for views, aq$_<table>.. for the rest)
  args := jsonb_build_object('schema', t.schema_name, 'table', t.table_name,
                             'view', 'aq$' || t.table_name, 'fn', 'aq$_' || t.table_name);
  EXECUTE aq.sql($s$DROP VIEW IF EXISTS {{schema:ident}}.{{view:ident}}, {{schema:ident}}.{{view_s:ident}}, {{schema:ident}}.{{view_r:ident}}$s$,
                 args || jsonb_build_object('view_s', 'aq$' || t.table_name || '_s', 'view_r', 'aq$' || t.table_name || '_r'));
  EXECUTE aq.sql($s$DROP FUNCTION IF EXISTS {{schema:ident}}.{{a:ident}}, {{schema:ident}}.{{b:ident}}, {{schema:ident}}.{{c:ident}}, {{schema:ident}}.{{d:ident}}, {{schema:ident}}.{{e:ident}}$s$,
                 args || jsonb_build_object('a', 'aq$_' || t.table_name || '_enq', 'b', 'aq$_' || t.table_name || '_deq',
                                            'c', 'aq$_' || t.table_name || '_send', 'd', 'aq$_' || t.table_name || '_recv',
                                            'e', 'aq$_' || t.table_name || '_send1'));
  PERFORM aq.drop_buffered_objects(t);  -- R__11_buffered
  EXECUTE aq.sql('DROP TABLE IF EXISTS {{schema:ident}}.{{table:ident}}',
                 args || jsonb_build_object('table', 'aq$_' || t.table_name || '_r'));
  EXECUTE aq.sql('DROP TABLE IF EXISTS {{schema:ident}}.{{table:ident}}', args);
  -- by name, whatever their arguments (the due function takes one now): generated code of
  -- a dropped table must not outlive it
  EXECUTE aq.sql($s$DROP FUNCTION IF EXISTS {{schema:ident}}.{{a:ident}}, {{schema:ident}}.{{b:ident}}, {{schema:ident}}.{{c:ident}}, {{schema:ident}}.{{d:ident}}, {{schema:ident}}.{{e:ident}}$s$,
                 args || jsonb_build_object('a', 'aq$_' || t.table_name || '_due', 'b', 'aq$_' || t.table_name || '_rm1',
                                            'c', 'aq$_' || t.table_name || '_sendn', 'd', 'aq$_' || t.table_name || '_take',
                                            'e', 'aq$_' || t.table_name || '_mine'));
  DELETE FROM aq.queue_tables WHERE id = t.id;
END $$;

CREATE OR REPLACE FUNCTION aq.retention_value(p numeric) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p IS NULL THEN RETURN NULL; END IF;
  IF p = -1 THEN RETURN -1; END IF;
  IF p < 0 THEN
    PERFORM aq.err(24005, format('invalid retention_time %s: seconds >= 0 or -1 (INFINITE)', p), '22023');
  END IF;
  RETURN p;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.create_queue(
    queue_name text,
    queue_table text,
    queue_type text DEFAULT 'NORMAL_QUEUE',
    max_retries integer DEFAULT 5,
    retry_delay numeric DEFAULT 0,
    retention_time numeric DEFAULT 0,
    dependency_tracking boolean DEFAULT false,
    comment text DEFAULT NULL,
    auto_commit boolean DEFAULT true)
LANGUAGE plpgsql AS $$
DECLARE
  t aq.queue_tables := aq.resolve_queue_table(queue_table);
  n text[] := aq.qualify(queue_name, 'QUEUE_NAME');
  qtype text := upper(btrim(coalesce(queue_type, 'NORMAL_QUEUE')));
BEGIN
  IF coalesce(dependency_tracking, false) THEN  -- Oracle: reserved, TRUE not permitted
    PERFORM aq.err(3001, 'unimplemented feature: DEPENDENCY_TRACKING => TRUE (reserved by Oracle)', '0A000');
  END IF;
  IF qtype = '0' THEN qtype := 'NORMAL_QUEUE'; ELSIF qtype = '1' THEN qtype := 'EXCEPTION_QUEUE'; END IF;
  IF qtype NOT IN ('NORMAL_QUEUE', 'EXCEPTION_QUEUE') THEN
    PERFORM aq.err(24005, format('invalid QUEUE_TYPE %s: use NORMAL_QUEUE or EXCEPTION_QUEUE', quote_literal(queue_type)), '22023');
  END IF;
  IF n[1] <> t.schema_name THEN
    PERFORM aq.err(24005, format('queue %s.%s must be in the schema of its queue table (%s)', n[1], n[2], t.schema_name), '22023');
  END IF;
  IF coalesce(max_retries, 0) < 0 OR coalesce(retry_delay, 0) < 0 THEN
    PERFORM aq.err(24005, 'max_retries and retry_delay must not be negative', '22023');
  END IF;
  IF NOT aq.may_manage(t.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges to create a queue in schema %s', t.schema_name), '42501');
  END IF;
  IF EXISTS (SELECT 1 FROM aq.queues q WHERE q.schema_name = n[1] AND q.queue_name = n[2]) THEN
    PERFORM aq.err(24006, format('cannot create QUEUE, %s.%s already exists', n[1], n[2]), '42710');
  END IF;
  INSERT INTO aq.queues (queue_table_id, schema_name, queue_name, queue_type, max_retries,
                         retry_delay, retention_time, comment)
  VALUES (t.id, n[1], n[2], qtype, coalesce(max_retries, 5), coalesce(retry_delay, 0),
          coalesce(aq.retention_value(retention_time), 0), create_queue.comment);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.alter_queue(
    queue_name text,
    max_retries integer DEFAULT NULL,
    retry_delay numeric DEFAULT NULL,
    retention_time numeric DEFAULT NULL,
    auto_commit boolean DEFAULT true,
    comment text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
BEGIN
  IF NOT aq.may_manage(q.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges to alter queue %s.%s', q.schema_name, q.queue_name), '42501');
  END IF;
  IF coalesce(max_retries, 0) < 0 OR coalesce(retry_delay, 0) < 0 THEN
    PERFORM aq.err(24005, 'max_retries and retry_delay must not be negative', '22023');
  END IF;
  UPDATE aq.queues SET
    max_retries = coalesce(alter_queue.max_retries, queues.max_retries),
    retry_delay = coalesce(alter_queue.retry_delay, queues.retry_delay),
    retention_time = coalesce(aq.retention_value(alter_queue.retention_time), queues.retention_time),
    comment = coalesce(alter_queue.comment, queues.comment)
  WHERE id = q.queue_id;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.drop_queue(queue_name text, auto_commit boolean DEFAULT true)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
BEGIN
  IF NOT aq.may_manage(q.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges to drop queue %s.%s', q.schema_name, q.queue_name), '42501');
  END IF;
  IF q.enqueue_enabled OR q.dequeue_enabled THEN
    PERFORM aq.err(24011, format('cannot drop QUEUE, %s.%s should be stopped first', q.schema_name, q.queue_name), '55006');
  END IF;
  IF q.queue_name = q.default_exception_queue THEN
    PERFORM aq.err(24005, 'the default exception queue is dropped with its queue table', '55006');
  END IF;
  EXECUTE aq.sql('DELETE FROM {{schema:ident}}.{{table:ident}} WHERE q_name = $1',
                 jsonb_build_object('schema', q.table_schema, 'table', q.table_name)) USING q.queue_name;
  DELETE FROM aq.queues WHERE id = q.queue_id;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.start_queue(
    queue_name text, enqueue boolean DEFAULT true, dequeue boolean DEFAULT true)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
BEGIN
  IF NOT aq.may_manage(q.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges to start queue %s.%s', q.schema_name, q.queue_name), '42501');
  END IF;
  IF q.queue_type = 'EXCEPTION_QUEUE' AND coalesce(enqueue, false) THEN
    -- Oracle: an exception queue can only be enabled for dequeue
    RAISE NOTICE 'exception queue %.% is enabled for dequeue only', q.schema_name, q.queue_name;
  END IF;
  UPDATE aq.queues SET
    enqueue_enabled = queues.enqueue_enabled OR (coalesce(start_queue.enqueue, false) AND q.queue_type = 'NORMAL_QUEUE'),
    dequeue_enabled = queues.dequeue_enabled OR coalesce(start_queue.dequeue, false)
  WHERE id = q.queue_id;
  PERFORM aq.wake(q.queue_id);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.stop_queue(
    queue_name text, enqueue boolean DEFAULT true, dequeue boolean DEFAULT true,
    wait boolean DEFAULT true)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
BEGIN
  IF NOT aq.may_manage(q.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges to stop queue %s.%s', q.schema_name, q.queue_name), '42501');
  END IF;
  UPDATE aq.queues SET
    enqueue_enabled = queues.enqueue_enabled AND NOT coalesce(stop_queue.enqueue, false),
    dequeue_enabled = queues.dequeue_enabled AND NOT coalesce(stop_queue.dequeue, false)
  WHERE id = q.queue_id;
END $$;

-- ---------------------------------------------------------------------------------------
-- Subscribers

CREATE OR REPLACE FUNCTION aq.rule_dialect(q aq.queue_info) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN q.payload_kind LIKE 'JMS%' THEN 'JMS' ELSE 'AQ' END
$$;

-- Recompile the rules of a queue's subscribers into one cached CASE expression.
-- Runs as its owner so the cache holds only compiler output.
CREATE OR REPLACE FUNCTION aq.rebuild_rules(p_queue_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  q aq.queue_info;
  s record;
  c aq.compiled_condition;
  parts text := '';
  params text[] := '{}';
  plain integer[] := '{}';
BEGIN
  SELECT * INTO q FROM aq.queue_info WHERE queue_id = p_queue_id;
  IF NOT FOUND THEN RETURN; END IF;
  FOR s IN SELECT id, rule FROM aq.subscribers WHERE queue_id = p_queue_id ORDER BY id LOOP
    IF s.rule IS NULL OR btrim(s.rule) = '' THEN
      plain := plain || s.id;
      CONTINUE;
    END IF;
    c := aq.compile_condition(s.rule, aq.rule_dialect(q), q.payload_type, 2,
                              coalesce(array_length(params, 1), 0));
    IF c.sql IS NULL THEN
      plain := plain || s.id;
      CONTINUE;
    END IF;
    -- (condition: the compiled rule, user text only as parameters and quoted literals)
    parts := parts || aq.sql(' WHEN {{id}} THEN coalesce(({{condition}}), false)',
                             jsonb_build_object('id', s.id, 'condition', c.sql));
    params := params || coalesce(c.params, '{}');
  END LOOP;
  INSERT INTO aq.rule_cache (queue_id, rules_sql, rules_params, plain_ids)
  VALUES (p_queue_id, CASE WHEN parts = '' THEN NULL ELSE 'CASE sub.id' || parts || ' ELSE false END' END,
          params, plain)
  ON CONFLICT (queue_id) DO UPDATE
    SET rules_sql = EXCLUDED.rules_sql, rules_params = EXCLUDED.rules_params,
        plain_ids = EXCLUDED.plain_ids;
END $$;
-- Harmless for anybody to call: it only recompiles rules already in the catalog.
GRANT EXECUTE ON FUNCTION aq.rebuild_rules(integer) TO PUBLIC;

-- A subscriber just added: its rule compiled alone and appended to the queue's cache, which
-- then reads as aq.rebuild_rules would write it (subscribers in id order, the new one last;
-- one added concurrently with a lower id only changes the order of the CASE's branches).
-- Rebuilding the whole cache on every add compiled every rule again: adding 1,000
-- subscribers with a rule each took 187 s, quadratic in their number.
CREATE OR REPLACE FUNCTION aq.append_rule(p_queue_id integer, p_subscriber_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  q aq.queue_info;
  rc aq.rule_cache;
  s aq.subscribers;
  c aq.compiled_condition;
BEGIN
  SELECT * INTO rc FROM aq.rule_cache WHERE queue_id = p_queue_id FOR UPDATE;
  -- only a subscriber this transaction inserted (add_subscriber's) and not in the cache yet;
  -- anything else rebuilds, as anybody may (a rule whose text looks like its branch too:
  -- a rebuild is never wrong)
  SELECT x.* INTO s FROM aq.subscribers x
  WHERE x.id = p_subscriber_id AND x.queue_id = p_queue_id AND x.xmin = xid(pg_current_xact_id())
    AND NOT x.id = ANY (rc.plain_ids)
    AND coalesce(strpos(rc.rules_sql, aq.sql(' WHEN {{id}} THEN ', jsonb_build_object('id', x.id))), 0) = 0;
  IF rc.queue_id IS NULL OR s.id IS NULL THEN
    PERFORM aq.rebuild_rules(p_queue_id);
    RETURN;
  END IF;
  IF s.rule IS NOT NULL AND btrim(s.rule) <> '' THEN
    SELECT * INTO q FROM aq.queue_info WHERE queue_id = p_queue_id;
    c := aq.compile_condition(s.rule, aq.rule_dialect(q), q.payload_type, 2,
                              coalesce(array_length(rc.rules_params, 1), 0));
  END IF;
  IF c.sql IS NULL THEN
    UPDATE aq.rule_cache SET plain_ids = plain_ids || s.id WHERE queue_id = p_queue_id;
  ELSE
    UPDATE aq.rule_cache
    SET rules_sql = coalesce(left(rules_sql, -length(' ELSE false END')), 'CASE sub.id')
                    || aq.sql(' WHEN {{id}} THEN coalesce(({{condition}}), false)',
                              jsonb_build_object('id', s.id, 'condition', c.sql)) || ' ELSE false END',
        rules_params = coalesce(rules_params, '{}') || coalesce(c.params, '{}')
    WHERE queue_id = p_queue_id;
  END IF;
END $$;

-- Harmless for anybody to call, as aq.rebuild_rules.
GRANT EXECUTE ON FUNCTION aq.append_rule(integer, integer) TO PUBLIC;

CREATE OR REPLACE FUNCTION aq.refresh_rules(q aq.queue_info) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.rebuild_rules(q.queue_id);
END $$;

CREATE OR REPLACE FUNCTION aq.check_subscriber_queue(q aq.queue_info, p_has_rule boolean)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT q.multiple_consumers THEN
    PERFORM aq.err(24039, format('Queue %s.%s not created in queue table for multiple consumers',
                                 q.schema_name, q.queue_name), '55000');
  END IF;
  IF q.queue_type = 'EXCEPTION_QUEUE' THEN
    PERFORM aq.err(24039, format('cannot add subscribers to exception queue %s.%s',
                                 q.schema_name, q.queue_name), '55000');
  END IF;
  IF NOT aq.may_manage(q.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges on queue %s.%s', q.schema_name, q.queue_name), '42501');
  END IF;
END $$;

CREATE OR REPLACE FUNCTION aq.check_rule(q aq.queue_info, p_rule text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF p_rule IS NOT NULL AND btrim(p_rule) <> '' THEN
    PERFORM aq.compile_condition(p_rule, aq.rule_dialect(q), q.payload_type, 2, 0);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION aq.resolve_transformation(p_name text) RETURNS aq.transformations
LANGUAGE plpgsql STABLE AS $$
DECLARE
  n text[];
  t aq.transformations;
BEGIN
  IF p_name IS NULL OR btrim(p_name) = '' THEN RETURN NULL; END IF;
  n := aq.qualify(p_name, 'TRANSFORMATION');
  SELECT * INTO t FROM aq.transformations x WHERE x.schema_name = n[1] AND x.name = n[2];
  IF NOT FOUND THEN
    PERFORM aq.err(24185, format('transformation %s.%s not found', n[1], n[2]), '42704');
  END IF;
  RETURN t;
END $$;

CREATE OR REPLACE FUNCTION aq.subscriber_key(p sys.aq$_agent)
RETURNS sys.aq$_agent LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  nm text := aq.agent_name(p.name);
  addr text := nullif(btrim(p.address), '');
BEGIN
  IF nm IS NULL AND addr IS NULL THEN
    PERFORM aq.err(25216, 'invalid recipient, either NAME or ADDRESS must be specified', '22023');
  END IF;
  IF addr IS NOT NULL AND length(addr) > 1024 THEN
    PERFORM aq.err(25216, 'invalid recipient address: too long', '22023');
  END IF;
  RETURN ROW(nm, addr, coalesce(p.protocol, 0))::sys.aq$_agent;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.add_subscriber(
    queue_name text,
    subscriber sys.aq$_agent,
    rule text DEFAULT NULL,
    transformation text DEFAULT NULL,
    queue_to_queue boolean DEFAULT false,
    delivery_mode text DEFAULT 'PERSISTENT')
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
  a sys.aq$_agent := aq.subscriber_key(subscriber);
  tr aq.transformations := aq.resolve_transformation(transformation);
  -- the messages it gets: persistent, buffered or both (R__11_buffered)
  dmode text := aq.check_delivery_mode(delivery_mode, 'a subscriber',
                                       '{PERSISTENT,BUFFERED,PERSISTENT_OR_BUFFERED}');
  added integer;
BEGIN
  PERFORM aq.check_protocol(a, 'subscriber');
  IF nullif(btrim(a.address), '') IS NOT NULL AND dmode <> 'PERSISTENT' THEN
    PERFORM aq.err(25299, format('invalid message delivery mode %s for remote subscriber %s: buffered messages '
                                 'are not propagated, a remote subscriber takes PERSISTENT messages',
                                 dmode, a.address), '22023');
  END IF;
  PERFORM aq.check_subscriber_queue(q, rule IS NOT NULL);
  PERFORM aq.check_rule(q, rule);
  IF tr.id IS NOT NULL AND tr.from_type <> q.payload_type THEN
    PERFORM aq.err(25215, format('transformation %s.%s does not take %s', tr.schema_name, tr.name, q.payload_type), '42804');
  END IF;
  IF EXISTS (SELECT 1 FROM aq.subscribers s WHERE s.queue_id = q.queue_id
               AND coalesce(s.name, '') = coalesce(a.name, '')
               AND coalesce(s.address, '') = coalesce(a.address, '')
               AND s.protocol = a.protocol) THEN
    PERFORM aq.err(24034, format('application %s is already a subscriber for queue %s.%s',
                                 coalesce(a.name, a.address), q.schema_name, q.queue_name), '42710');
  END IF;
  INSERT INTO aq.subscribers (queue_id, name, address, protocol, rule, transformation, delivery_mode, since)
  VALUES (q.queue_id, a.name, a.address, a.protocol, nullif(btrim(rule), ''),
          CASE WHEN tr.id IS NULL THEN NULL ELSE tr.schema_name || '.' || tr.name END,
          dmode,
          -- one needing no row per message joins the queue's audience (R__12_audience): the
          -- messages of enqueuers that see it are its own, none before
          CASE WHEN aq.joins_audience(a.address, rule, dmode, q.table_id) THEN aq.next_audience(q.queue_id) END)
  RETURNING id INTO added;
  PERFORM aq.append_rule(q.queue_id, added);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.alter_subscriber(
    queue_name text,
    subscriber sys.aq$_agent,
    rule text DEFAULT NULL,
    transformation text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
  a sys.aq$_agent := aq.subscriber_key(subscriber);
  tr aq.transformations := aq.resolve_transformation(transformation);
BEGIN
  PERFORM aq.check_subscriber_queue(q, rule IS NOT NULL);
  PERFORM aq.check_rule(q, rule);
  UPDATE aq.subscribers s SET
    rule = nullif(btrim(alter_subscriber.rule), ''),
    transformation = CASE WHEN tr.id IS NULL THEN NULL ELSE tr.schema_name || '.' || tr.name END,
    -- (R__12_audience) a rule takes the subscriber out of the audience: the messages of
    -- enqueuers that saw it there stay its own, later ones get a row when its rule says so.
    -- One that never was in it joins; one that left it stays out (its rows say the rest).
    since = CASE WHEN s.since IS NULL AND aq.joins_audience(s.address, alter_subscriber.rule, s.delivery_mode, q.table_id)
                 THEN aq.next_audience(q.queue_id) ELSE s.since END,
    until = CASE WHEN s.since IS NOT NULL AND s.until IS NULL
                      AND NOT aq.joins_audience(s.address, alter_subscriber.rule, s.delivery_mode, q.table_id)
                 THEN aq.next_audience(q.queue_id) ELSE s.until END
  WHERE s.queue_id = q.queue_id
    AND coalesce(s.name, '') = coalesce(a.name, '')
    AND coalesce(s.address, '') = coalesce(a.address, '')
    AND s.protocol = a.protocol;
  IF NOT FOUND THEN
    PERFORM aq.err(24035, format('AQ agent %s is not a subscriber for queue %s.%s',
                                 coalesce(a.name, a.address), q.schema_name, q.queue_name), '42704');
  END IF;
  PERFORM aq.refresh_rules(q);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.remove_subscriber(queue_name text, subscriber sys.aq$_agent)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
  a sys.aq$_agent := aq.subscriber_key(subscriber);
  sid integer;
  gone bytea[];
  explicit_gone bytea[];
  args jsonb := jsonb_build_object('schema', q.table_schema, 'table', q.table_name,
                                   'recipients', q.recipients_table, 'implicit', aq.implicit_expr('s', 'm'));
BEGIN
  PERFORM aq.check_subscriber_queue(q, false);
  -- its implicit messages (R__12_audience), which it leaves with the rows below
  IF aq.has_audience(q) THEN
    EXECUTE aq.sql($f$
      SELECT array_agg(m.msgid) FROM aq.subscribers s JOIN {{schema:ident}}.{{table:ident}} m ON m.q_name = $2
        AND m.audience IS NOT NULL AND m.state IN (0, 1) AND {{implicit}}
      WHERE s.queue_id = $1 AND coalesce(s.name, '') = coalesce($3, '') AND s.address IS NULL AND $4 IS NULL
        AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.msgid = m.msgid AND r.consumer_name = s.name AND r.address = '')
    $f$, args)
    INTO gone USING q.queue_id, q.queue_name, a.name, a.address;
  END IF;
  DELETE FROM aq.subscribers s
  WHERE s.queue_id = q.queue_id
    AND coalesce(s.name, '') = coalesce(a.name, '')
    AND coalesce(s.address, '') = coalesce(a.address, '')
    AND s.protocol = a.protocol
  RETURNING s.id INTO sid;
  IF sid IS NULL THEN
    PERFORM aq.err(24035, format('AQ agent %s is not a subscriber for queue %s.%s',
                                 coalesce(a.name, a.address), q.schema_name, q.queue_name), '42704');
  END IF;
  -- the removed subscriber's pending messages are no longer intended for it
  EXECUTE aq.sql('WITH d AS (DELETE FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.q_name = $1 AND r.subscriber_id = $2
                               AND r.state IN (0, 1) RETURNING r.msgid)
                  SELECT array_agg(DISTINCT msgid) FROM d', args)
    INTO explicit_gone USING q.queue_name, sid;
  gone := coalesce(gone, '{}') || coalesce(explicit_gone, '{}');
  IF cardinality(gone) > 0 THEN
    -- Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2 (10.2),
    -- "Introducing Oracle Streams AQ", "Cleaning Up Message Queues": "Removing the
    -- subscriber removes all the messages for that subscriber": a message no other
    -- recipient was left for leaves the queue
    EXECUTE aq.sql('DELETE FROM {{schema:ident}}.{{table:ident}} m WHERE m.msgid = ANY($1) AND m.state IN (0, 1)
                      AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.msgid = m.msgid)
                      AND NOT EXISTS (SELECT 1 FROM aq.subscribers s WHERE s.queue_id = $2 AND {{implicit}})', args)
      USING gone, q.queue_id;
    PERFORM aq.finish_messages(q, gone);
  END IF;
  PERFORM aq.refresh_rules(q);
END $$;
