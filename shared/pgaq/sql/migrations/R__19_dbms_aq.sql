-- dbms_aq: the SQL interface over the same engine the services use.
--   CALL dbms_aq.enqueue(queue_name => 's.q', payload => ROW(...)::s.typ, msgid => NULL);
--   CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => ROW('APP1', ...)::dbms_aq.dequeue_options_t,
--                        payload => NULL::s.typ, msgid => NULL);
-- Dequeue waits as dequeue_options.wait says (seconds; dbms_aq.forever(), -1, the default;
-- dbms_aq.no_wait(), 0): R__21. When nothing qualifies in time it raises ORA-25228.
-- IMMEDIATE visibility runs the operation in a transaction of its own, as in Oracle: through
-- the autonomous link (R__81), whatever the caller's transaction does next; refused
-- (ORA-25236) when dblink is not installed.

CREATE OR REPLACE FUNCTION aq.props_to_json(p dbms_aq.message_properties_t) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'priority', p.priority, 'delay', p.delay, 'expiration', p.expiration,
    'correlation', p.correlation, 'exception_queue', p.exception_queue,
    'sender_id', CASE WHEN p.sender_id IS NOT NULL THEN jsonb_build_object(
        'name', (p.sender_id).name, 'address', (p.sender_id).address,
        'protocol', (p.sender_id).protocol) END,
    'recipient_list', (SELECT jsonb_agg(jsonb_build_object('name', a.name, 'address', a.address,
                                                           'protocol', a.protocol))
                       FROM unnest(p.recipient_list) a),
    'original_msgid', upper(encode(p.original_msgid, 'hex'))))
$$;

CREATE OR REPLACE FUNCTION aq.check_visibility(p text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v text := upper(coalesce(p, 'ON_COMMIT'));
BEGIN
  IF v NOT IN ('ON_COMMIT', 'IMMEDIATE') THEN
    PERFORM aq.err(25236, format('invalid VISIBILITY %s: use ON_COMMIT or IMMEDIATE', quote_literal(p)), '22023');
  END IF;
  RETURN v;
END $$;

CREATE OR REPLACE FUNCTION aq.check_payload_type(q aq.queue_info, p_transformation text, p_type regtype,
                                                 p_dequeue boolean)
RETURNS void LANGUAGE plpgsql STABLE AS $$
DECLARE
  tr aq.transformations := aq.resolve_transformation(p_transformation);
  expected regtype := CASE WHEN tr.id IS NULL THEN q.payload_type
                           WHEN p_dequeue THEN tr.to_type ELSE tr.from_type END;
BEGIN
  IF p_type IS DISTINCT FROM expected THEN
    PERFORM aq.err(25215, format('user_data type and queue type do not match: %s.%s expects %s, got %s',
                                 q.schema_name, q.queue_name, expected, coalesce(p_type::text, 'NULL')), '42804');
  END IF;
END $$;

-- Resolved names as text the autonomous session reads the same way whatever its search_path.
CREATE OR REPLACE FUNCTION aq.queue_text(q aq.queue_info) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT quote_ident(q.schema_name) || '.' || quote_ident(q.queue_name) $$;

CREATE OR REPLACE FUNCTION aq.transformation_text(p text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  tr aq.transformations;
BEGIN
  IF p IS NULL THEN RETURN NULL; END IF;
  tr := aq.resolve_transformation(p);
  RETURN quote_ident(tr.schema_name) || '.' || quote_ident(tr.name);
END $$;

-- enqueue_options.delivery_mode as a message property for aq.enqueue_array; BUFFERED
-- only with IMMEDIATE visibility (Oracle Streams Advanced Queuing User's Guide and
-- Reference 10g Release 2 (10.2), "Introducing Oracle Streams AQ", "Buffered Messaging":
-- "Both enqueue and dequeue buffered messaging operations must be with IMMEDIATE
-- visibility mode").
CREATE OR REPLACE FUNCTION aq.enqueue_delivery_mode(o dbms_aq.enqueue_options_t) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  m text := aq.delivery_mode(o.delivery_mode, ARRAY['PERSISTENT', 'BUFFERED'], 'an enqueue');
BEGIN
  IF m = 'BUFFERED' AND aq.check_visibility(o.visibility) <> 'IMMEDIATE' THEN
    PERFORM aq.err(25293, 'a buffered message is enqueued with IMMEDIATE visibility (dbms_aq.immediate()), '
                          'it cannot be part of the caller''s transaction', '0A000');
  END IF;
  RETURN jsonb_build_object('delivery_mode', m);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aq.enqueue(
    queue_name text,
    enqueue_options dbms_aq.enqueue_options_t DEFAULT NULL,
    message_properties dbms_aq.message_properties_t DEFAULT NULL,
    payload anyelement DEFAULT NULL::bytea,
    INOUT msgid bytea DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
  ids bytea[];
  props jsonb;
  objs jsonb;
  raw bytea[];
BEGIN
  PERFORM aq.check_visibility((enqueue_options).visibility);
  PERFORM aq.check_enqueue_options(q, enqueue_options);  -- R__14_options
  PERFORM aq.check_message_properties(q, message_properties);
  PERFORM aq.check_payload_type(q, (enqueue_options).transformation, pg_typeof(payload)::regtype, false);
  props := jsonb_build_array(coalesce(aq.props_to_json(message_properties), '{}')
                             || aq.enqueue_delivery_mode(enqueue_options));
  IF pg_typeof(payload) = 'bytea'::regtype THEN
    raw := ARRAY[payload::text::bytea];
  ELSE
    objs := jsonb_build_array(to_jsonb(payload));
  END IF;
  IF aq.check_visibility((enqueue_options).visibility) = 'IMMEDIATE' AND aq.immediate_needs_link() THEN
    ids := aq.immediate_enqueue(aq.queue_text(q), props, objs, raw,
                                aq.transformation_text((enqueue_options).transformation));
  ELSE
    ids := aq.enqueue_array(queue_name, props, objs, raw, (enqueue_options).transformation);
  END IF;
  msgid := ids[1];
END $$;

CREATE OR REPLACE PROCEDURE dbms_aq.enqueue_array(
    queue_name text,
    enqueue_options dbms_aq.enqueue_options_t,
    array_size integer,
    message_properties_array dbms_aq.message_properties_t[],
    payload_array anyarray,
    INOUT msgid_array bytea[] DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
  n integer := coalesce(array_size, cardinality(payload_array));
  props jsonb;
  objs jsonb;
  raw bytea[];
  elem_type regtype;
BEGIN
  PERFORM aq.check_visibility((enqueue_options).visibility);
  PERFORM aq.check_enqueue_options(q, enqueue_options);  -- R__14_options
  PERFORM aq.check_message_properties(q, p) FROM unnest(message_properties_array) p;
  IF n IS NULL OR n < 1 OR n > cardinality(payload_array) THEN
    PERFORM aq.err(25274, format('invalid array_size %s for %s payloads', array_size, cardinality(payload_array)), '22023');
  END IF;
  SELECT typelem::regtype INTO elem_type FROM pg_type WHERE oid = pg_typeof(payload_array);
  PERFORM aq.check_payload_type(q, (enqueue_options).transformation, elem_type, false);
  SELECT jsonb_agg(coalesce(aq.props_to_json(message_properties_array[i]), '{}')
                   || aq.enqueue_delivery_mode(enqueue_options) ORDER BY i)
    INTO props FROM generate_series(1, n) i;
  IF elem_type = 'bytea'::regtype THEN
    raw := (SELECT array_agg(x::text::bytea ORDER BY i) FROM unnest(payload_array) WITH ORDINALITY u(x, i) WHERE i <= n);
  ELSE
    -- by subscript: unnest would spread an object's attributes into columns
    objs := (SELECT jsonb_agg(to_jsonb(payload_array[i]) ORDER BY i) FROM generate_series(1, n) i);
  END IF;
  IF aq.check_visibility((enqueue_options).visibility) = 'IMMEDIATE' AND aq.immediate_needs_link() THEN
    msgid_array := aq.immediate_enqueue(aq.queue_text(q), props, objs, raw,
                                        aq.transformation_text((enqueue_options).transformation));
  ELSE
    msgid_array := aq.enqueue_array(queue_name, props, objs, raw, (enqueue_options).transformation);
  END IF;
END $$;

-- NEXT_MESSAGE positions live in session settings (per queue and consumer).
CREATE OR REPLACE FUNCTION aq.position_setting(q aq.queue_info, p_consumer text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT format('pgaq.nav_%s_%s', q.queue_id, md5(coalesce(p_consumer, '')))
$$;

-- The delivery modes a dequeue_options_t asks for, in the order dbms_aq's dequeues try
-- them (buffered messages first: Oracle orders each class on its own, R__11_buffered); any
-- but PERSISTENT needs IMMEDIATE visibility (AQ User's Guide (10.2), "Buffered Messaging").
CREATE OR REPLACE FUNCTION aq.dequeue_classes(o dbms_aq.dequeue_options_t) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  m text := aq.delivery_mode(o.delivery_mode, ARRAY['PERSISTENT', 'BUFFERED', 'PERSISTENT_OR_BUFFERED'], 'a dequeue');
BEGIN
  IF m <> 'PERSISTENT' AND aq.check_visibility(o.visibility) <> 'IMMEDIATE' THEN
    PERFORM aq.err(25293, format('a dequeue of %s messages has IMMEDIATE visibility (dbms_aq.immediate())', m),
                   '0A000');
  END IF;
  RETURN CASE m WHEN 'PERSISTENT_OR_BUFFERED' THEN ARRAY['BUFFERED', 'PERSISTENT'] ELSE ARRAY[m] END;
END $$;

-- The NEXT_MESSAGE position this session saved for the queue, consumer and delivery mode
-- (each class has its own: each is ordered on its own), when saved for the same criteria.
CREATE OR REPLACE FUNCTION aq.saved_position(q aq.queue_info, p_consumer text, p_mode text, p_criteria text,
                                             OUT setting text, OUT pos bigint[], OUT grp bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  saved text;
BEGIN
  setting := aq.position_setting(q, aq.agent_name(p_consumer)) || CASE WHEN p_mode = 'BUFFERED' THEN '_b' ELSE '' END;
  saved := nullif(current_setting(setting, true), '');
  IF saved IS NOT NULL AND split_part(saved, '|', 3) = p_criteria THEN
    pos := split_part(saved, '|', 1)::bigint[];
    grp := nullif(split_part(saved, '|', 2), '')::bigint;
  END IF;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aq.dequeue(
    queue_name text,
    dequeue_options dbms_aq.dequeue_options_t DEFAULT NULL,
    INOUT message_properties dbms_aq.message_properties_t DEFAULT NULL,
    INOUT payload anyelement DEFAULT NULL::bytea,
    INOUT msgid bytea DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
  o dbms_aq.dequeue_options_t := dequeue_options;
  setting text;
  pos bigint[];
  grp bigint;
  d aq.dequeued;
  nav text := upper(coalesce(o.navigation, 'NEXT_MESSAGE'));
  criteria text;
  since timestamptz;  -- the wait's state between looks (R__21)
  retry integer;
  more boolean;
  classes text[] := aq.dequeue_classes(o);  -- delivery modes, R__11_buffered
  got_mode text;
BEGIN
  PERFORM aq.check_visibility(o.visibility);
  PERFORM aq.check_wait(o.wait);
  PERFORM aq.check_dequeue_options(q, o);  -- R__14_options
  IF upper(coalesce(o.dequeue_mode, 'REMOVE')) <> 'REMOVE_NODATA' THEN
    -- the payload is of the dequeue's mapping's target type, else the subscriber's (R__51)
    PERFORM aq.check_payload_type(q, coalesce(nullif(btrim(o.transformation), ''),
                                              aq.subscriber_transformation(q, o.consumer_name)),
                                  pg_typeof(payload)::regtype, true);
  END IF;
  criteria := md5(coalesce(o.correlation, '') || '|' || coalesce(o.deq_condition, ''));
  LOOP
    -- each delivery mode asked for, buffered messages first (R__11_buffered)
    FOREACH got_mode IN ARRAY classes LOOP
      SELECT * INTO setting, pos, grp FROM aq.saved_position(q, o.consumer_name, got_mode, criteria);
      IF upper(coalesce(o.visibility, 'ON_COMMIT')) = 'IMMEDIATE' AND aq.immediate_needs_link() THEN
        d := aq.immediate_dequeue(aq.queue_text(q), o.consumer_name, o.dequeue_mode, nav, o.msgid,
                                  o.correlation, o.deq_condition, pos, coalesce(o.wait, -1) <> 0,
                                  aq.transformation_text(o.transformation), grp, got_mode);
      ELSE
        SELECT * INTO d FROM aq.dequeue_array(queue_name, o.consumer_name, o.dequeue_mode, nav, o.msgid,
                                              o.correlation, o.deq_condition, 1, pos,
                                              coalesce(o.wait, -1) <> 0, o.transformation, NULL, grp, got_mode);
      END IF;
      EXIT WHEN d.msgid IS NOT NULL;
    END LOOP;
    EXIT WHEN d.msgid IS NOT NULL OR (q.message_grouping = 'TRANSACTIONAL' AND nav = 'NEXT_MESSAGE' AND grp IS NOT NULL);
    -- nothing yet: wait for a candidate, or for the end of the wait (R__21)
    -- (one line: the wait counts the lines of its call stack, R__21)
    CALL aq.await_classes(q, classes, o.consumer_name, o.msgid, o.wait, since, retry, more);
    EXIT WHEN NOT more;
  END LOOP;
  IF d.msgid IS NULL THEN
    IF q.message_grouping = 'TRANSACTIONAL' AND nav = 'NEXT_MESSAGE' AND grp IS NOT NULL THEN
      PERFORM aq.err(25235, format('fetched all messages in current transaction from %s.%s',
                                   q.schema_name, q.queue_name), 'P0002');
    END IF;
    PERFORM aq.err(25228, format('timeout or end-of-fetch during message dequeue from %s.%s',
                                 q.schema_name, q.queue_name), 'P0002');
  END IF;
  IF upper(coalesce(o.dequeue_mode, 'REMOVE')) IN ('REMOVE', 'REMOVE_NODATA')
     AND upper(coalesce(o.visibility, 'ON_COMMIT')) = 'ON_COMMIT' THEN
    -- a ROLLBACK must count this attempt: noted outside the transaction (R__80)
    PERFORM aq.note_attempt(q.queue_id, aq.agent_name(o.consumer_name), d.msgid);
  END IF;
  IF o.msgid IS NULL THEN  -- a dequeue by message id leaves the position where it was
    PERFORM set_config(setting, d.position::text || '|' || coalesce(d.txn_group::text, '') || '|' || criteria, false);
  END IF;
  msgid := d.msgid;
  message_properties := ROW(d.priority, d.delay, d.expiration, d.correlation, d.attempts, NULL,
                            d.exception_queue, d.enq_time,
                            CASE d.state WHEN 'READY' THEN 0 WHEN 'WAIT' THEN 1 WHEN 'PROCESSED' THEN 2 ELSE 3 END,
                            CASE WHEN d.sender_name IS NOT NULL OR d.sender_address IS NOT NULL
                                 THEN ROW(d.sender_name, d.sender_address, d.sender_protocol)::sys.aq$_agent END,
                            d.original_msgid, NULL, d.txn_group::text, NULL, got_mode)::dbms_aq.message_properties_t;
  IF d.payload_raw IS NOT NULL THEN
    payload := d.payload_raw::text::bytea;
  ELSIF d.payload_json IS NOT NULL THEN
    payload := jsonb_populate_record(payload, d.payload_json);
  ELSE
    payload := NULL;
  END IF;
END $$;

-- Constructors with Oracle's defaults, so SQL callers name only what they set:
--   dequeue_options => dbms_aq.dequeue_options(consumer_name => 'DEALS', wait => 0)
CREATE OR REPLACE FUNCTION dbms_aq.dequeue_options(
    consumer_name text DEFAULT NULL, dequeue_mode text DEFAULT 'REMOVE',
    navigation text DEFAULT 'NEXT_MESSAGE', visibility text DEFAULT 'ON_COMMIT',
    wait integer DEFAULT -1, msgid bytea DEFAULT NULL, correlation text DEFAULT NULL,
    deq_condition text DEFAULT NULL, signature text DEFAULT NULL,
    transformation text DEFAULT NULL, delivery_mode text DEFAULT 'PERSISTENT')
RETURNS dbms_aq.dequeue_options_t LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(consumer_name, dequeue_mode, navigation, visibility, wait, msgid, correlation,
             deq_condition, signature, transformation, delivery_mode)::dbms_aq.dequeue_options_t
$$;

CREATE OR REPLACE FUNCTION dbms_aq.enqueue_options(
    visibility text DEFAULT 'ON_COMMIT', relative_msgid bytea DEFAULT NULL,
    sequence_deviation text DEFAULT NULL, transformation text DEFAULT NULL,
    delivery_mode text DEFAULT 'PERSISTENT')
RETURNS dbms_aq.enqueue_options_t LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(visibility, relative_msgid, sequence_deviation, transformation,
             delivery_mode)::dbms_aq.enqueue_options_t
$$;

CREATE OR REPLACE FUNCTION dbms_aq.message_properties(
    priority integer DEFAULT 1, delay integer DEFAULT 0, expiration integer DEFAULT -1,
    correlation text DEFAULT NULL, recipient_list sys.aq$_agent[] DEFAULT NULL,
    exception_queue text DEFAULT NULL, sender_id sys.aq$_agent DEFAULT NULL,
    original_msgid bytea DEFAULT NULL)
RETURNS dbms_aq.message_properties_t LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(priority, delay, expiration, correlation, 0, recipient_list, exception_queue,
             NULL, NULL, sender_id, original_msgid, NULL, NULL, NULL,
             'PERSISTENT')::dbms_aq.message_properties_t
$$;
