-- Enqueue: one statement inserts a whole array of messages; recipients come from the
-- message's recipient list or from the queue's subscribers and their compiled rules.

-- The general path, with every error: a value that is not a plain integer in range.
CREATE OR REPLACE FUNCTION aq.int_prop_checked(p jsonb, p_key text, p_default integer, p_min integer,
                                               p_code integer, p_what text)
RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v jsonb := p -> p_key;
  n numeric;
BEGIN
  IF v IS NULL OR v = 'null'::jsonb THEN RETURN p_default; END IF;
  BEGIN
    n := (v #>> '{}')::numeric;
  EXCEPTION WHEN OTHERS THEN
    PERFORM aq.err(p_code, format('invalid value %s, %s should be an integer', v::text, p_what), '22023');
  END;
  IF n <> trunc(n) OR n < p_min OR n > 2147483647 OR n < -2147483648 THEN
    PERFORM aq.err(p_code, format('invalid value %s, %s is out of range', v::text, p_what), '22023');
  END IF;
  RETURN n::integer;
END $$;

-- An integer property: plain values in range inline into the enqueue's statement (a SQL
-- function the planner expands, no call per row); anything else takes the checked path.
CREATE OR REPLACE FUNCTION aq.int_prop(p jsonb, p_key text, p_default integer, p_min integer,
                                       p_code integer, p_what text)
RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p -> p_key IS NULL OR jsonb_typeof(p -> p_key) = 'null' THEN p_default
    WHEN jsonb_typeof(p -> p_key) = 'number' AND (p ->> p_key) ~ '^-?[0-9]{1,10}$'
         AND (p ->> p_key)::bigint BETWEEN greatest(p_min, -2147483648) AND 2147483647
      THEN (p ->> p_key)::integer
    ELSE aq.int_prop_checked(p, p_key, p_default, p_min, p_code, p_what)
  END
$$;

-- takes the properties so the planner never folds it into a constant error
CREATE OR REPLACE FUNCTION aq.corr_too_long(p jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  PERFORM aq.err(24005, 'correlation identifier longer than 128 characters', '22023');
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION aq.corr_prop(p jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN length(p ->> 'correlation') > 128 THEN aq.corr_too_long(p) ELSE p ->> 'correlation' END
$$;

CREATE OR REPLACE FUNCTION aq.sender_name(p text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF nullif(btrim(p), '') IS NULL THEN RETURN NULL; END IF;
  IF length(btrim(p)) > 128 THEN
    PERFORM aq.err(24047, 'invalid agent name: a sender name is at most 128 characters', '22023');
  END IF;
  RETURN btrim(p);
END $$;

-- Validate per-message properties once, returning them normalised.
CREATE OR REPLACE FUNCTION aq.normalise_props(q aq.queue_info, p_props jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  out jsonb[] := '{}';  -- an array grows in place; a jsonb `||` would copy it each time
  p jsonb;
  ex text[];
  exq aq.queue_info;
  rl jsonb;
  r jsonb;
  a sys.aq$_agent;
  recips jsonb;
  expiration integer;
BEGIN
  IF p_props IS NULL OR jsonb_typeof(p_props) <> 'array' OR jsonb_array_length(p_props) = 0 THEN
    PERFORM aq.err(24031, 'invalid value, message properties should be a non-empty array', '22023');
  END IF;

  FOR p IN SELECT * FROM jsonb_array_elements(p_props) LOOP
    IF jsonb_typeof(p) <> 'object' THEN
      PERFORM aq.err(24031, 'invalid value, message properties should be objects', '22023');
    END IF;
    expiration := aq.int_prop(p, 'expiration', NULL, -1, 25209, 'EXPIRATION');
    IF expiration = -1 THEN expiration := NULL; END IF;
    recips := NULL;
    rl := p -> 'recipient_list';
    IF rl IS NOT NULL AND rl <> 'null'::jsonb AND jsonb_array_length(rl) > 0 THEN
      IF NOT q.multiple_consumers THEN
        PERFORM aq.err(24039, format('Queue %s.%s not created in queue table for multiple consumers: recipient_list not allowed',
                                     q.schema_name, q.queue_name), '55000');
      END IF;
      recips := '[]';
      FOR r IN SELECT * FROM jsonb_array_elements(rl) LOOP
        a := aq.subscriber_key(ROW(r ->> 'name', r ->> 'address',
                                   aq.int_prop(r, 'protocol', 0, 0, 25216, 'PROTOCOL'))::sys.aq$_agent);
        PERFORM aq.check_protocol(a, 'recipient');  -- protocol 0 only (R__14_options)
        recips := recips || jsonb_build_object('name', coalesce(a.name, ''), 'address', coalesce(a.address, ''),
                                               'protocol', a.protocol);
      END LOOP;
      IF (SELECT count(*) FROM jsonb_array_elements(recips)) <>
         (SELECT count(DISTINCT e) FROM jsonb_array_elements(recips) e) THEN
        PERFORM aq.err(25232, 'duplicate recipients specified for message', '22023');
      END IF;
    END IF;
    ex := NULL;
    IF coalesce(p ->> 'exception_queue', '') <> '' THEN
      exq := aq.resolve_queue(p ->> 'exception_queue');
      IF exq.table_id <> q.table_id THEN
        PERFORM aq.err(24005, format('exception queue %s.%s must be in the queue table of %s.%s',
                                     exq.schema_name, exq.queue_name, q.schema_name, q.queue_name), '22023');
      END IF;
      IF exq.queue_type <> 'EXCEPTION_QUEUE' THEN
        -- Oracle's AQ guides (10.1, "Internet Access to Oracle Streams AQ", Table 17-1;
        -- 10.2, "Introducing Oracle Streams AQ", "Exception Queues"): the queue a message
        -- moves to when it expires or fails; a normal queue would strand it there in the
        -- EXPIRED state, where no dequeuer looks
        PERFORM aq.err(24005, format('exception queue %s.%s is not an EXCEPTION_QUEUE',
                                     exq.schema_name, exq.queue_name), '22023');
      END IF;
      ex := ARRAY[exq.schema_name::text, exq.queue_name::text];
    END IF;
    IF p ? 'original_msgid' AND coalesce(p ->> 'original_msgid', '') <> '' THEN
      PERFORM aq.msgid_from_hex(p ->> 'original_msgid');
    END IF;
    out := out || jsonb_build_object(
      'priority', aq.int_prop(p, 'priority', 1, -2147483648, 24005, 'PRIORITY'),
      'delay', aq.int_prop(p, 'delay', 0, 0, 25208, 'DELAY'),
      'expiration', expiration,
      'correlation', p ->> 'correlation',
      -- the sender's name as the producer gave it (the responses in Oracle's IDAP examples
      -- return 'scott'), unlike consumer names, which are identifiers
      'sender_name', aq.sender_name(p -> 'sender_id' ->> 'name'),
      'sender_address', p -> 'sender_id' ->> 'address',
      'sender_protocol', aq.int_prop(p -> 'sender_id', 'protocol', NULL, 0, 25216, 'PROTOCOL'),
      'exception_qschema', ex[1], 'exception_queue', ex[2],
      'original_msgid', nullif(p ->> 'original_msgid', ''),
      'original_queue_name', p ->> 'original_queue_name',
      'recipients', recips,
      -- enqueue_options.delivery_mode, given with each message (R__11_buffered)
      'delivery_mode', aq.delivery_mode(p ->> 'delivery_mode', ARRAY['PERSISTENT', 'BUFFERED'],
                                        'an enqueue'));
    IF length(p ->> 'correlation') > 128 THEN
      PERFORM aq.err(24005, 'correlation identifier longer than 128 characters', '22023');
    END IF;
  END LOOP;
  RETURN to_jsonb(out);
END $$;

-- The payload expression for the INSERT, chosen from the queue's payload kind.
-- p_payloads refers to the JSON payloads (objects and JMS), p_raw to the RAW payloads;
-- e.i is the 1-based ordinal of the message.
CREATE OR REPLACE FUNCTION aq.payload_input_expr(q aq.queue_info, tr aq.transformations,
                                                 p_payloads text, p_raw text)
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  input_type regtype := coalesce(tr.from_type, q.payload_type);
  e text;
BEGIN
  -- (payloads, raw: parameter references; type: regtype's name of the payload type;
  -- function: the transformation's, from the catalog)
  IF input_type = 'bytea'::regtype THEN
    e := aq.render_enqueue_payload_raw(jsonb_build_object('raw', p_raw));
  ELSE
    e := aq.render_enqueue_payload_object(jsonb_build_object('type', input_type::text, 'payloads', p_payloads));
  END IF;
  IF tr.id IS NOT NULL THEN
    e := aq.render_enqueue_payload_transformed(jsonb_build_object('function', tr.function_name::text, 'payload', e));
  END IF;
  RETURN e;
END $$;

CREATE OR REPLACE FUNCTION aq.check_payloads(q aq.queue_info, tr aq.transformations, n integer,
                                             p_json jsonb, p_raw bytea[])
RETURNS void LANGUAGE plpgsql STABLE AS $$
DECLARE
  input_type regtype := coalesce(tr.from_type, q.payload_type);
  bad text;
BEGIN
  IF input_type = 'bytea'::regtype THEN
    IF p_raw IS NULL OR coalesce(array_length(p_raw, 1), 0) <> n THEN
      PERFORM aq.err(25215, format('user_data type and queue type do not match: queue %s.%s takes RAW payloads, one per message',
                                   q.schema_name, q.queue_name), '42804');
    END IF;
    RETURN;
  END IF;
  IF p_json IS NULL OR jsonb_typeof(p_json) <> 'array' OR jsonb_array_length(p_json) <> n THEN
    PERFORM aq.err(25215, format('user_data type and queue type do not match: queue %s.%s takes %s payloads, one per message',
                                 q.schema_name, q.queue_name, input_type), '42804');
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_json) x WHERE jsonb_typeof(x) <> 'object') THEN
    PERFORM aq.err(25215, format('user_data type and queue type do not match: %s payloads are objects', input_type), '42804');
  END IF;
  SELECT k INTO bad
  FROM jsonb_array_elements(p_json) x, jsonb_object_keys(x) k
  WHERE k NOT IN (SELECT a.attname FROM pg_attribute a JOIN pg_type t ON t.typrelid = a.attrelid
                  WHERE t.oid = input_type AND a.attnum > 0 AND NOT a.attisdropped)
  LIMIT 1;
  IF bad IS NOT NULL THEN
    PERFORM aq.err(25215, format('user_data type and queue type do not match: %s has no attribute %s',
                                 input_type, quote_ident(bad)), '42804');
  END IF;
END $$;

-- The INSERT of an array of messages (template enqueue.insert). By default the statement
-- of the dynamic path, parameters $1 queue, $2 normalised properties, $3 JSON payloads,
-- $4 RAW payloads, $5 now, $6 agent; p_args overrides the template's arguments (a
-- generated function's parameter names, its INTO clause, the recipients of a publish).
-- No defaults, here and in the builders beside it: a previous release's migrations, run
-- again by one of its services during a rolling upgrade, recreate the two-argument form,
-- and a call must not be ambiguous between the two.
CREATE OR REPLACE FUNCTION aq.enqueue_sql(q aq.queue_info, tr aq.transformations, p_args jsonb)
RETURNS text LANGUAGE sql STABLE AS $sql$
  SELECT aq.render('enqueue.insert',
    jsonb_build_object('schema', q.table_schema, 'table', q.table_name,
                       'queue', '$1', 'props', '$2', 'now', '$5', 'agent', '$6',
                       'returning', '', 'recipients', '', 'counted', '', 'into', '',
                       -- a message without a recipient list goes to the audience (R__12_audience)
                       'audience', CASE WHEN aq.has_audience(q)
                                        THEN aq.render_enqueue_audience(jsonb_build_object(
                                               'table_id', q.table_id, 'queue', coalesce(p_args ->> 'queue', '$1')))
                                        ELSE 'NULL::bigint' END,
                       'payload', aq.payload_input_expr(q, tr, coalesce(p_args ->> 'payloads', '$3'),
                                                        coalesce(p_args ->> 'raw', '$4')))
    || (coalesce(p_args, '{}') - 'payloads' - 'raw'))
$sql$;

-- The implicit recipients of a publish: one row per message of `p_from` (aliased m) and
-- subscriber (sub) that `p_where` selects. aq.enqueue_array and the generated _send
-- (R__13) both write them with this statement. p_from and p_where are SQL built by the
-- callers (names quoted with quote_ident).
CREATE OR REPLACE FUNCTION aq.subscriber_recipients_sql(q aq.queue_info, p_from text, p_where text)
RETURNS text LANGUAGE sql STABLE AS $$
  SELECT aq.render('enqueue.subscriber_recipients',
                   jsonb_build_object('schema', q.table_schema, 'recipients', q.recipients_table,
                                      'from', p_from, 'where', p_where))
$$;

-- The steps of aq.enqueue_array below that only some calls take (a disabled queue, a
-- transformation, buffered messages, a grouped table): helpers called from their branch,
-- so the common enqueue pays no extra PL/pgSQL call.

-- ORA-25207: q takes no enqueues (an exception queue, or enqueue disabled).
CREATE OR REPLACE FUNCTION aq.enqueue_refused(q aq.queue_info) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.err(25207, format('enqueue failed, queue %s.%s is disabled from enqueueing',
                               q.schema_name, q.queue_name), '55000');
END $$;

-- The transformation p_name of an enqueue on q; it must produce q's payload type.
CREATE OR REPLACE FUNCTION aq.enqueue_transformation(q aq.queue_info, p_name text) RETURNS aq.transformations
LANGUAGE plpgsql STABLE AS $$
DECLARE
  tr aq.transformations := aq.resolve_transformation(p_name);
BEGIN
  IF tr.id IS NOT NULL AND tr.to_type <> q.payload_type THEN
    PERFORM aq.err(25215, format('transformation %s.%s does not produce %s', tr.schema_name, tr.name, q.payload_type), '42804');
  END IF;
  RETURN tr;
END $$;

-- Buffered messages (props, n of them) go to the queue table's UNLOGGED companion
-- (R__11_buffered): checked, and q as that companion's.
CREATE OR REPLACE FUNCTION aq.enqueue_buffered_queue(q aq.queue_info, props jsonb, n integer) RETURNS aq.queue_info
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.check_buffered_enqueue(q, props);
  q := aq.buffered_info(q);
  PERFORM aq.check_buffered_backlog(q.table_schema, q.table_name, q.queue_name, n);
  RETURN q;
END $$;

-- On a TRANSACTIONAL table, the group properties (priority, delay, expiration) of the
-- messages ids are those of the group's first message.
CREATE OR REPLACE FUNCTION aq.enqueue_group_properties(q aq.queue_info, ids bytea[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE aq.render_enqueue_group_properties(jsonb_build_object('schema', q.table_schema, 'table', q.table_name))
    USING q.queue_name, ids;
END $$;

CREATE OR REPLACE FUNCTION aq.enqueue_array(
    p_queue text,
    p_props jsonb,
    p_payloads jsonb DEFAULT NULL,
    p_raw bytea[] DEFAULT NULL,
    p_transformation text DEFAULT NULL,
    p_agent text DEFAULT NULL)
RETURNS bytea[] LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(p_queue);
  tr aq.transformations;
  props jsonb;
  n integer;
  now_ts timestamptz := clock_timestamp();
  ids bytea[];
  explicit_ids bytea[];
  implicit_ids bytea[];
  rc aq.rule_cache;
  missing bytea;
  any_ready boolean;
  any_wait boolean;
  buffered boolean;
  args jsonb;  -- the statements' (templates enqueue.*, R__13_templates)
BEGIN
  IF q.queue_type = 'EXCEPTION_QUEUE' OR NOT q.enqueue_enabled THEN
    PERFORM aq.enqueue_refused(q);
  END IF;
  PERFORM aq.check_access(q, 'ENQUEUE');
  IF p_transformation IS NOT NULL THEN
    tr := aq.enqueue_transformation(q, p_transformation);
  END IF;
  props := aq.normalise_props(q, p_props);
  n := jsonb_array_length(props);
  PERFORM aq.check_payloads(q, tr, n, p_payloads, p_raw);
  buffered := props -> 0 ->> 'delivery_mode' = 'BUFFERED';
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(props) p
             WHERE p ->> 'delivery_mode' IS DISTINCT FROM props -> 0 ->> 'delivery_mode') THEN
    PERFORM aq.err(25299, 'the messages of one enqueue call have one delivery mode', '22023');
  END IF;
  IF buffered THEN
    q := aq.enqueue_buffered_queue(q, props, n);
  END IF;

  BEGIN
    IF tr.id IS NULL THEN
      -- the queue table's generated function: the same statement with a cached plan
      EXECUTE aq.render_enqueue_call(jsonb_build_object('schema', q.table_schema, 'name', 'aq$_' || q.table_name || '_enq'))
        INTO ids, any_ready, any_wait
        USING q.queue_name, props, p_payloads, p_raw, now_ts, p_agent;
    ELSE
      EXECUTE aq.enqueue_sql(q, tr, '{}')
        INTO ids, any_ready, any_wait
        USING q.queue_name, props, p_payloads, p_raw, now_ts, p_agent;
    END IF;
  EXCEPTION
    WHEN invalid_text_representation OR numeric_value_out_of_range OR datetime_field_overflow
      OR invalid_datetime_format OR string_data_right_truncation OR invalid_parameter_value
      OR datatype_mismatch OR invalid_binary_representation OR array_subscript_error
      OR not_null_violation OR check_violation OR invalid_escape_sequence THEN
      PERFORM aq.err(25215, format('user_data type and queue type do not match: %s', SQLERRM), '42804');
  END;

  IF q.message_grouping = 'TRANSACTIONAL' THEN
    PERFORM aq.enqueue_group_properties(q, ids);
  END IF;

  IF q.multiple_consumers THEN
    args := jsonb_build_object('schema', q.table_schema, 'table', q.table_name, 'recipients', q.recipients_table);
    SELECT array_agg(ids[i]) FILTER (WHERE props -> (i - 1) -> 'recipients' <> 'null'::jsonb),
           array_agg(ids[i]) FILTER (WHERE props -> (i - 1) -> 'recipients' = 'null'::jsonb)
      INTO explicit_ids, implicit_ids
    FROM generate_subscripts(ids, 1) AS i;
    IF explicit_ids IS NOT NULL THEN
      EXECUTE aq.render_enqueue_explicit_recipients(args)
      USING explicit_ids, props, ids;
    END IF;
    IF implicit_ids IS NOT NULL THEN
      SELECT * INTO rc FROM aq.rule_cache WHERE queue_id = q.queue_id;
      IF FOUND AND (rc.rules_sql IS NOT NULL OR cardinality(rc.plain_ids) > 0) THEN
        EXECUTE aq.subscriber_recipients_sql(q, aq.render_enqueue_from(args),
                  'm.msgid = ANY($1) AND sub.queue_id = $3' || aq.subscriber_mode_filter(buffered)
                  -- (those reading the audience need no row: R__12_audience)
                  || CASE WHEN aq.has_audience(q) THEN ' AND NOT ' || aq.implicit_expr('sub', 'm') ELSE '' END
                  || ' AND (sub.id = ANY($4) '
                  || CASE WHEN rc.rules_sql IS NULL THEN '' ELSE 'OR ' || rc.rules_sql END || ')')
        USING implicit_ids, rc.rules_params, q.queue_id, rc.plain_ids;
      END IF;
    END IF;
    EXECUTE aq.render_enqueue_without_recipients(args || jsonb_build_object('implicit', aq.implicit_expr('s', 'm')))
      INTO missing USING ids, q.queue_id;
    IF missing IS NOT NULL THEN
      PERFORM aq.err(24033, format('no recipients for message %s on queue %s.%s',
                                   aq.msgid_hex(missing), q.schema_name, q.queue_name), '55000');
    END IF;
  END IF;

  IF (SELECT x.notify FROM aq.queues x WHERE x.id = q.queue_id) THEN
    PERFORM aq.notify_enqueued(q.queue_id, ids);  -- the outbox, in this transaction
  END IF;
  IF any_ready THEN
    PERFORM aq.wake(q.queue_id);
  END IF;
  IF any_wait THEN
    PERFORM pg_notify('aq_time', '');
  END IF;
  RETURN ids;
END $$;
