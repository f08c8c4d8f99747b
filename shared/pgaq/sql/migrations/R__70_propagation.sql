-- Propagation: database links, dbms_aqadm's schedule procedures, the source-side batch
-- functions the propagator calls, the destination-side exactly-once receiver, and
-- DBA_QUEUE_SCHEDULES.

-- ---------------------------------------------------------------------------------------
-- Database links

CREATE OR REPLACE FUNCTION aq.check_link_url(p_url text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  u text := btrim(coalesce(p_url, ''));
BEGIN
  IF u !~* '^(postgres(ql)?|https?)://[^\s]+$' OR length(u) > 2000 THEN
    PERFORM aq.err(24957, format('unsupported database link URL %s: use postgresql://... for a PostgreSQL '
                                 'database or http(s)://host:port/aqserv/servlet for a pgaq gateway',
                                 quote_literal(left(aq.redact_url(u), 100))), '22023');
  END IF;
  RETURN u;
END $$;

CREATE OR REPLACE PROCEDURE aq.create_database_link(link_name text, url text, username text DEFAULT NULL,
                                                    password text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  n text := lower(btrim(coalesce(link_name, '')));
BEGIN
  PERFORM aq.require_admin('create_database_link');
  IF n !~ '^[a-z_][a-z0-9_$#.-]*$' OR length(n) > 128 THEN
    PERFORM aq.err(2010, format('invalid database link name %s', quote_literal(left(link_name, 100))), '22023');
  END IF;
  IF EXISTS (SELECT 1 FROM aq.db_links l WHERE l.name = n) THEN
    PERFORM aq.err(2011, format('duplicate database link name %s', n), '42710');
  END IF;
  INSERT INTO aq.db_links (name, url, username, password)
  VALUES (n, aq.check_link_url(url), username, password);
END $$;

CREATE OR REPLACE PROCEDURE aq.drop_database_link(link_name text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('drop_database_link');
  DELETE FROM aq.db_links l WHERE l.name = lower(btrim(link_name));
  IF NOT FOUND THEN
    PERFORM aq.err(2024, format('database link %s not found', quote_literal(left(link_name, 100))), '42704');
  END IF;
END $$;

-- links without their credentials, for everyone
CREATE OR REPLACE VIEW aq.dba_db_links AS
SELECT l.name AS db_link, l.owner, aq.redact_url(l.url) AS url,
       l.username, l.created_at AS created
FROM aq.db_links l;

-- ---------------------------------------------------------------------------------------
-- Schedules

-- 'SCHEMA.QUEUE@LINK' or 'SCHEMA.QUEUE': (queue, link or '')
CREATE OR REPLACE FUNCTION aq.split_address(p_address text, OUT queue text, OUT link text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT lower(split_part(btrim(p_address), '@', 1)), lower(coalesce(nullif(split_part(btrim(p_address), '@', 2), ''), ''))
$$;

-- The role that called: the session's role (SET ROLE) or else its login. The procedures
-- below run as their owner (they write aq.schedules, which takes no direct writes), so
-- current_user there is not the caller; the role setting still is.
CREATE OR REPLACE FUNCTION aq.caller() RETURNS name
LANGUAGE sql STABLE AS $$
  SELECT coalesce(nullif(current_setting('role'), 'none'), session_user)::name
$$;

-- aq.may_manage for a named role
CREATE OR REPLACE FUNCTION aq.may_manage_as(p_role name, p_schema name) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT pg_has_role(p_role, 'aq_administrator_role', 'MEMBER')
      OR EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n
                 WHERE n.nspname = p_schema AND pg_has_role(p_role, n.nspowner, 'MEMBER'))
$$;

CREATE OR REPLACE FUNCTION aq.schedule_for(p_queue text, p_destination text, p_destination_queue text)
RETURNS aq.schedules LANGUAGE plpgsql STABLE AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(p_queue);
  s aq.schedules;
BEGIN
  SELECT * INTO s FROM aq.schedules x
  WHERE x.queue_id = q.queue_id AND x.destination = lower(coalesce(btrim(p_destination), ''))
    AND x.destination_queue = lower(coalesce(btrim(p_destination_queue), ''));
  IF NOT FOUND THEN
    PERFORM aq.err(24042, format('no propagation schedule exists for QUEUE %s.%s and DESTINATION %s%s',
                                 q.schema_name, q.queue_name, coalesce(p_destination, 'this database'),
                                 coalesce(' (' || p_destination_queue || ')', '')), '42704');
  END IF;
  RETURN s;
END $$;

-- A schedule the caller may change (ORA-01031 otherwise)
CREATE OR REPLACE FUNCTION aq.schedule_to_manage(p_queue text, p_destination text, p_destination_queue text,
                                                 p_what text)
RETURNS aq.schedules LANGUAGE plpgsql STABLE AS $$
DECLARE
  s aq.schedules := aq.schedule_for(p_queue, p_destination, p_destination_queue);
BEGIN
  IF NOT aq.may_manage_as(aq.caller(), (SELECT q.schema_name FROM aq.queues q WHERE q.id = s.queue_id)) THEN
    PERFORM aq.err(1031, format('insufficient privileges to %s', p_what), '42501');
  END IF;
  RETURN s;
END $$;

CREATE OR REPLACE FUNCTION aq.check_next_time(p text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s text := nullif(btrim(coalesce(p, '')), '');
BEGIN
  IF s IS NULL THEN RETURN NULL; END IF;
  IF length(s) > 1000 OR s ~ ';' THEN
    PERFORM aq.err(24958, format('invalid next_time %s: an interval such as ''1 hour'' or one SQL expression '
                                 'returning a timestamp', quote_literal(left(p, 100))), '22023');
  END IF;
  RETURN s;
END $$;

-- next_time as an interval ('1 hour'), or NULL when it is an expression
CREATE OR REPLACE FUNCTION aq.next_time_interval(p_next_time text) RETURNS interval
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN p_next_time::interval;
EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR syntax_error
             OR invalid_text_representation OR interval_field_overflow THEN
  RETURN NULL;
END $$;

-- A schedule's next_time expression becomes a SECURITY DEFINER function its owner owns
-- (an interval, or none, needs no function). Its body is not checked here, as the
-- procedure's owner: it is compiled when first run, as the schedule's owner.
CREATE OR REPLACE FUNCTION aq.define_next_time(p_schedule integer, p_next_time text, p_owner name,
                                               p_schema name) RETURNS void
LANGUAGE plpgsql SET check_function_bodies = off SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  fn text := 's' || p_schedule;
  args jsonb := jsonb_build_object('fn', fn, 'schema', p_schema, 'owner', p_owner);
BEGIN
  EXECUTE aq.sql('DROP FUNCTION IF EXISTS aq_next_time.{{fn:ident}}()', args);
  IF p_next_time IS NULL OR aq.next_time_interval(p_next_time) IS NOT NULL THEN
    RETURN;
  END IF;
  -- (the owner's expression, checked, as the body: a literal)
  EXECUTE aq.sql('CREATE FUNCTION aq_next_time.{{fn:ident}}() RETURNS timestamptz LANGUAGE sql SECURITY DEFINER '
                 'SET search_path = pg_catalog, {{schema:ident}} AS {{body:literal}}',
                 args || jsonb_build_object('body', 'SELECT (' || aq.check_next_time(p_next_time) || ')::timestamptz'));
  EXECUTE aq.sql('REVOKE ALL ON FUNCTION aq_next_time.{{fn:ident}}() FROM PUBLIC', args);
  EXECUTE aq.sql('GRANT EXECUTE ON FUNCTION aq_next_time.{{fn:ident}}() TO aq_next_time_guard', args);
  EXECUTE aq.sql('ALTER FUNCTION aq_next_time.{{fn:ident}}() OWNER TO {{owner:ident}}', args);
END $$;
REVOKE ALL ON FUNCTION aq.define_next_time(integer, text, name, name) FROM PUBLIC;

-- The guard: runs a schedule's next_time function from a role with no rights of its own,
-- inside a security-definer call (so the expression cannot SET ROLE back to the
-- propagator's login, even if its owner made the function SECURITY INVOKER), and only in
-- a read-only transaction.
CREATE OR REPLACE FUNCTION aq.eval_owned_next_time(p_schedule integer) RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  t timestamptz;
BEGIN
  IF current_setting('transaction_read_only') <> 'on' THEN
    PERFORM aq.err(24958, 'a next_time expression is evaluated in a read-only transaction only', '25000');
  END IF;
  EXECUTE aq.render_next_time_call(jsonb_build_object('fn', 's' || p_schedule)) INTO t;
  RETURN t;
END $$;
ALTER FUNCTION aq.eval_owned_next_time(integer) OWNER TO aq_next_time_guard;
REVOKE ALL ON FUNCTION aq.eval_owned_next_time(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.eval_owned_next_time(integer) TO aq_administrator_role;

-- The next window's start after the window that began at p_window_start: an interval
-- after it (the first one ahead of now), or the owner's expression evaluated now.
CREATE OR REPLACE FUNCTION aq.next_window_start(p_schedule integer, p_window_start timestamptz)
RETURNS timestamptz LANGUAGE plpgsql AS $$
DECLARE
  nt text := (SELECT s.next_time FROM aq.schedules s WHERE s.id = p_schedule);
  iv interval := aq.next_time_interval(nt);
  t timestamptz;
BEGIN
  IF nt IS NULL THEN RETURN NULL; END IF;
  IF iv IS NULL THEN
    RETURN aq.eval_owned_next_time(p_schedule);
  END IF;
  IF iv <= interval '0' THEN
    PERFORM aq.err(24958, format('next_time %s must be a positive interval', nt), '22023');
  END IF;
  t := p_window_start + iv;
  WHILE t <= clock_timestamp() LOOP  -- windows missed while nobody ran: the next one ahead
    t := t + iv;
  END LOOP;
  RETURN t;
END $$;

-- A deleted schedule (unscheduled, or its queue dropped) takes its function along.
CREATE OR REPLACE FUNCTION aq.schedule_deleted() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq, pg_temp AS $$
BEGIN
  EXECUTE aq.sql('DROP FUNCTION IF EXISTS aq_next_time.{{fn:ident}}()', jsonb_build_object('fn', 's' || OLD.id));
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS schedule_deleted ON aq.schedules;
CREATE TRIGGER schedule_deleted AFTER DELETE ON aq.schedules
    FOR EACH ROW EXECUTE FUNCTION aq.schedule_deleted();

CREATE OR REPLACE PROCEDURE dbms_aqadm.schedule_propagation(
    queue_name text, destination text DEFAULT NULL, start_time timestamptz DEFAULT NULL,
    duration double precision DEFAULT NULL, next_time text DEFAULT NULL,
    latency double precision DEFAULT 60, destination_queue text DEFAULT NULL)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
  dest text := lower(coalesce(btrim(destination), ''));
  dq text := lower(coalesce(btrim(destination_queue), ''));
  target aq.queue_info;
  me name := aq.caller();
  sid integer;
BEGIN
  IF NOT aq.may_manage_as(me, q.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges to schedule propagation from %s.%s', q.schema_name, q.queue_name), '42501');
  END IF;
  IF NOT q.multiple_consumers THEN
    PERFORM aq.err(24039, format('Queue %s.%s not created in queue table for multiple consumers: '
                                 'propagation needs subscribers', q.schema_name, q.queue_name), '55000');
  END IF;
  IF dest <> '' AND NOT EXISTS (SELECT 1 FROM aq.db_links l WHERE l.name = dest) THEN
    PERFORM aq.err(2019, format('connection description for remote database not found: database link %s', dest), '42704');
  END IF;
  IF q.payload_kind = 'JMS_STREAM' AND EXISTS (SELECT 1 FROM aq.db_links l WHERE l.name = dest AND l.url ~* '^https?://') THEN
    PERFORM aq.err(24959, format('%s.%s holds JMS StreamMessages, which IDAP cannot carry: database link %s leads '
                                 'to a pgaq gateway (use a PostgreSQL link)', q.schema_name, q.queue_name, dest), '0A000');
  END IF;
  IF dest = '' AND dq <> '' THEN
    target := aq.resolve_queue(dq);
    IF target.queue_id = q.queue_id THEN
      PERFORM aq.err(24044, 'a queue cannot propagate to itself', '22023');
    END IF;
    dq := target.schema_name || '.' || target.queue_name;
  END IF;
  IF duration IS NOT NULL AND duration <= 0 OR latency IS NOT NULL AND latency < 0 THEN
    PERFORM aq.err(24958, 'duration must be positive and latency not negative', '22023');
  END IF;
  IF EXISTS (SELECT 1 FROM aq.schedules s WHERE s.queue_id = q.queue_id AND s.destination = dest
             AND s.destination_queue = dq) THEN
    PERFORM aq.err(24041, format('propagation schedule exists for QUEUE %s.%s and DESTINATION %s',
                                 q.schema_name, q.queue_name, coalesce(nullif(dest, ''), 'this database')), '42710');
  END IF;
  INSERT INTO aq.schedules (queue_id, destination, destination_queue, start_time, duration, next_time, latency, owner)
  VALUES (q.queue_id, dest, dq, coalesce(start_time, now()), duration, aq.check_next_time(next_time),
          coalesce(latency, 60), me)
  RETURNING id INTO sid;
  PERFORM aq.define_next_time(sid, aq.check_next_time(next_time), me, q.schema_name);
  PERFORM pg_notify('aq_propagation', '');
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.unschedule_propagation(
    queue_name text, destination text DEFAULT NULL, destination_queue text DEFAULT NULL)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  s aq.schedules := aq.schedule_to_manage(queue_name, destination, destination_queue,
                                          'unschedule this propagation');
BEGIN
  DELETE FROM aq.schedules x WHERE x.id = s.id;
  PERFORM pg_notify('aq_propagation', '');
END $$;

-- Whoever sets next_time becomes the schedule's owner: the expression runs with the
-- rights of the role that wrote it.
CREATE OR REPLACE PROCEDURE dbms_aqadm.alter_propagation_schedule(
    queue_name text, destination text DEFAULT NULL, duration double precision DEFAULT NULL,
    next_time text DEFAULT NULL, latency double precision DEFAULT 60, destination_queue text DEFAULT NULL)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  s aq.schedules := aq.schedule_to_manage(queue_name, destination, destination_queue,
                                          'alter this propagation schedule');
  me name := aq.caller();
BEGIN
  IF duration IS NOT NULL AND duration <= 0 OR latency IS NOT NULL AND latency < 0 THEN
    PERFORM aq.err(24958, 'duration must be positive and latency not negative', '22023');
  END IF;
  UPDATE aq.schedules x SET duration = alter_propagation_schedule.duration,
         next_time = aq.check_next_time(alter_propagation_schedule.next_time),
         latency = coalesce(alter_propagation_schedule.latency, 60),
         window_start = NULL, window_end = NULL, owner = me
  WHERE x.id = s.id;
  PERFORM aq.define_next_time(s.id, aq.check_next_time(next_time), me,
                              (SELECT q.schema_name FROM aq.queues q WHERE q.id = s.queue_id));
  PERFORM pg_notify('aq_propagation', '');
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.enable_propagation_schedule(
    queue_name text, destination text DEFAULT NULL, destination_queue text DEFAULT NULL)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  s aq.schedules := aq.schedule_to_manage(queue_name, destination, destination_queue,
                                          'enable this propagation schedule');
BEGIN
  UPDATE aq.schedules x SET disabled = false, failures = 0, next_run = NULL, aligned = false
  WHERE x.id = s.id;
  PERFORM pg_notify('aq_propagation', '');
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.disable_propagation_schedule(
    queue_name text, destination text DEFAULT NULL, destination_queue text DEFAULT NULL)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  s aq.schedules := aq.schedule_to_manage(queue_name, destination, destination_queue,
                                          'disable this propagation schedule');
BEGIN
  UPDATE aq.schedules x SET disabled = true WHERE x.id = s.id;
  PERFORM pg_notify('aq_propagation', '');
END $$;

-- Structural equivalence of two queues' payload types: the same kind and, for object
-- types, the same attribute names and types in the same order.
CREATE OR REPLACE FUNCTION aq.type_signature(p_type regtype) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT aq.payload_kind(p_type) || ':' || coalesce((
    SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum)
    FROM pg_attribute a JOIN pg_type t ON t.typrelid = a.attrelid
    WHERE t.oid = p_type AND a.attnum > 0 AND NOT a.attisdropped), p_type::text)
$$;

CREATE OR REPLACE FUNCTION aq.payload_signature(q aq.queue_info) RETURNS text
LANGUAGE sql STABLE AS $$ SELECT aq.type_signature(q.payload_type) $$;

CREATE OR REPLACE FUNCTION aq.queue_signature(p_queue text) RETURNS text
LANGUAGE sql STABLE AS $$ SELECT aq.payload_signature(aq.resolve_queue(p_queue)) $$;

-- Percent-encoding for a value placed in a connection URI's query
CREATE OR REPLACE FUNCTION aq.uri_encode(p text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(string_agg(CASE WHEN x.b BETWEEN 48 AND 57 OR x.b BETWEEN 65 AND 90 OR x.b BETWEEN 97 AND 122
                                       OR x.b IN (45, 46, 95, 126)
                                  THEN chr(x.b) ELSE '%' || lpad(upper(to_hex(x.b)), 2, '0') END, '' ORDER BY x.i), '')
  FROM (SELECT i, get_byte(convert_to(p, 'UTF8'), i - 1) AS b
        FROM generate_series(1, octet_length(convert_to(p, 'UTF8'))) i) x
$$;

-- A queue's payload signature at the far end of a PostgreSQL link, asked through dblink
-- (one short connection with the link's credentials). An HTTP link cannot be asked: IDAP
-- has no request that describes a queue's payload type.
CREATE OR REPLACE FUNCTION aq.remote_queue_signature(p_link text, p_queue text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  l aq.db_links;
  ext name := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
               WHERE e.extname = 'dblink');
  conninfo text;
  sig text;
  msg text;
BEGIN
  SELECT * INTO l FROM aq.db_links x WHERE x.name = lower(btrim(p_link));
  IF NOT FOUND THEN
    PERFORM aq.err(2019, format('connection description for remote database not found: database link %s',
                                quote_literal(left(p_link, 100))), '42704');
  END IF;
  IF l.url ~* '^https?://' THEN
    PERFORM aq.err(24959, format('verify_queue_types cannot check %s through database link %s: it leads to a pgaq '
                                 'gateway, and IDAP does not describe a queue''s payload type; the propagator checks '
                                 'each message at delivery instead (see docs/propagation.md)', p_queue, l.name), '0A000');
  END IF;
  IF ext IS NULL THEN
    PERFORM aq.err(24959, 'verify_queue_types through a PostgreSQL link needs the dblink extension', '0A000');
  END IF;
  conninfo := l.url || CASE WHEN strpos(l.url, '?') > 0 THEN '&' ELSE '?' END || 'connect_timeout=10'
              || coalesce('&user=' || aq.uri_encode(l.username), '')
              || coalesce('&password=' || aq.uri_encode(l.password), '');
  BEGIN
    EXECUTE aq.sql('SELECT t.sig FROM {{dblink:ident}}.dblink({{conninfo:literal}}, {{query:literal}}) AS t(sig text)',
                   jsonb_build_object('dblink', ext, 'conninfo', conninfo, 'query',
                     aq.sql('SELECT aq.queue_signature({{queue:literal}})', jsonb_build_object('queue', p_queue))))
      INTO sig;
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
    IF msg ~ 'ORA-24010' THEN
      PERFORM aq.err(24010, format('QUEUE %s does not exist at database link %s', p_queue, l.name), '42704');
    END IF;
    PERFORM aq.err(2019, format('database link %s could not be asked about %s: %s', l.name, p_queue,
                                left(split_part(msg, E'\n', 1), 300)), '08001');
  END;
  RETURN sig;
END $$;
REVOKE ALL ON FUNCTION aq.remote_queue_signature(text, text) FROM PUBLIC;

-- rc: 1 when the types are equivalent, 0 when not. destination: NULL for this database,
-- or a PostgreSQL link (the remote queue is asked through dblink); an HTTP link is refused
-- with ORA-24959. Runs as its owner (links and their credentials are administrators'), for
-- a caller who may manage the source queue.
CREATE OR REPLACE PROCEDURE dbms_aqadm.verify_queue_types(
    src_queue_name text, dest_queue_name text, destination text DEFAULT NULL, INOUT rc integer DEFAULT NULL)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(src_queue_name);
  dq text := lower(btrim(coalesce(dest_queue_name, '')));
BEGIN
  IF coalesce(btrim(destination), '') = '' THEN
    rc := CASE WHEN aq.payload_signature(q) = aq.queue_signature(dq) THEN 1 ELSE 0 END;
    RETURN;
  END IF;
  IF NOT aq.may_manage_as(aq.caller(), q.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges to verify %s.%s through a database link',
                                q.schema_name, q.queue_name), '42501');
  END IF;
  rc := CASE WHEN aq.payload_signature(q) = aq.remote_queue_signature(destination, dq) THEN 1 ELSE 0 END;
END $$;

-- ---------------------------------------------------------------------------------------
-- The propagator's source side (called by the propagator's own login)

-- Up to p_limit READY recipients of the schedule, locked SKIP LOCKED, each with what the
-- destination needs: its queue and consumer, the properties (delay spent, expiration
-- reduced by the time already spent, ORIGINAL_MSGID = the source message) and payload.
-- A remote subscriber's transformation (dbms_aqadm.add_subscriber ... transformation) is
-- applied here, to that subscriber's copies only: signature and payload_type are those of
-- the payload as it travels (the transformation's target type, else the queue's).
-- A transactionally grouped queue hands out one whole transaction group per batch, however
-- large (p_limit does not cut it), so that the destination, which enqueues a batch in one
-- transaction, receives it as one group and never two groups as one; txn_group is the
-- source's group.
-- upgrade (stays here: a changed result needs the old function gone): removes the form before
-- signature, payload_type and txn_group; release 435be0f
DROP FUNCTION IF EXISTS aq.propagation_batch(integer, integer);
CREATE OR REPLACE FUNCTION aq.propagation_batch(p_schedule integer, p_limit integer)
RETURNS TABLE (msgid bytea, consumer_name text, address text, protocol integer, dest_queue text,
               props jsonb, payload_json jsonb, payload_raw bytea, bytes integer,
               signature text, payload_type text, txn_group bigint)
LANGUAGE plpgsql AS $$
DECLARE
  s aq.schedules;
  q aq.queue_info;
  pattern text;
  grouped boolean;
  js text := '';   -- CASE branches per transforming subscriber: JSON payload, RAW payload,
  rw text := '';   -- signature and type of what travels
  sg text := '';
  ty text := '';
  tr record;
  where_ready text;
  args jsonb;  -- the statement's (templates propagation.*, R__13_templates)
BEGIN
  SELECT * INTO s FROM aq.schedules x WHERE x.id = p_schedule;
  SELECT * INTO q FROM aq.queue_info x WHERE x.queue_id = s.queue_id;
  IF q.queue_id IS NULL THEN
    RETURN;  -- the schedule or its queue was dropped meanwhile: nothing left to send
  END IF;
  grouped := q.message_grouping = 'TRANSACTIONAL';
  FOR tr IN SELECT sub.id AS sub_id, t.function_name, t.to_type
            FROM aq.subscribers sub
            JOIN aq.transformations t ON sub.transformation = t.schema_name || '.' || t.name
            WHERE sub.queue_id = q.queue_id AND sub.address IS NOT NULL AND sub.transformation IS NOT NULL
            ORDER BY sub.id LOOP
    -- (function: the transformation's, from the catalog)
    js := js || aq.render_propagation_when(jsonb_build_object('id', tr.sub_id, 'then',
                  CASE WHEN tr.to_type = 'bytea'::regtype THEN 'NULL::jsonb'
                       ELSE aq.render_propagation_transform_json(jsonb_build_object('function', tr.function_name::text)) END));
    rw := rw || aq.render_propagation_when(jsonb_build_object('id', tr.sub_id, 'then',
                  CASE WHEN tr.to_type = 'bytea'::regtype
                       THEN aq.render_propagation_transform(jsonb_build_object('function', tr.function_name::text))
                       ELSE 'NULL::bytea' END));
    sg := sg || aq.render_propagation_when_literal(jsonb_build_object('id', tr.sub_id, 'then', aq.type_signature(tr.to_type)));
    ty := ty || aq.render_propagation_when_literal(jsonb_build_object('id', tr.sub_id, 'then', tr.to_type::text));
  END LOOP;
  where_ready := $w$r.q_name = $1 AND r.state = 0 AND r.address <> '' AND r.protocol = 0
      AND m.state = 0 AND (m.expire_at IS NULL OR m.expire_at > clock_timestamp())
      AND lower(r.address) LIKE $2
      AND CASE WHEN $4 = '' THEN strpos(r.address, '@') = 0
               ELSE lower(split_part(r.address, '@', 2)) = $4 END$w$;
  args := jsonb_build_object('schema', q.table_schema, 'table', q.table_name, 'recipients', q.recipients_table,
                             'where', where_ready, 'order', aq.sort_columns(q.sort_key, 'r'));
  RETURN QUERY EXECUTE aq.render_propagation_batch(args || jsonb_build_object(
    'payload_json', CASE WHEN js = '' THEN '' ELSE 'CASE' || js || ' ELSE ' END
      || CASE WHEN q.payload_kind = 'RAW' THEN 'NULL::jsonb' ELSE 'to_jsonb(m.user_data)' END
      || CASE WHEN js = '' THEN '' ELSE ' END' END,
    'payload_raw', CASE WHEN rw = '' THEN '' ELSE 'CASE' || rw || ' ELSE ' END
      || CASE WHEN q.payload_kind = 'RAW' THEN 'm.user_data' ELSE 'NULL::bytea' END
      || CASE WHEN rw = '' THEN '' ELSE ' END' END,
    'signature', CASE WHEN sg = '' THEN '' ELSE 'CASE' || sg || ' ELSE ' END
      || quote_literal(aq.payload_signature(q)) || CASE WHEN sg = '' THEN '' ELSE ' END' END,
    'payload_type', CASE WHEN ty = '' THEN '' ELSE 'CASE' || ty || ' ELSE ' END
      || quote_literal(q.payload_type::text) || CASE WHEN ty = '' THEN '' ELSE ' END' END,
    -- the first ready group's messages only (its other recipients here included)
    'group', CASE WHEN grouped THEN aq.render_propagation_first_group(args) ELSE '' END))
  USING q.queue_name,
        CASE WHEN s.destination_queue <> '' THEN
          replace(replace(s.destination_queue, '_', '\_'), '%', '\%')
          || CASE WHEN s.destination <> '' THEN '@' || s.destination ELSE '' END
        ELSE '%' END,
        s.destination_queue, s.destination, CASE WHEN grouped THEN NULL ELSE p_limit END;
END $$;

-- The batch reached its destination: its recipients are PROCESSED (the message itself is
-- settled once all its recipients are), or UNDELIVERABLE with the reason.
CREATE OR REPLACE FUNCTION aq.propagation_settle(p_schedule integer, p_ids bytea[], p_consumers text[],
                                                 p_addresses text[], p_failure text DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info;
  n integer;
BEGIN
  SELECT qi.* INTO q FROM aq.queue_info qi JOIN aq.schedules s ON s.queue_id = qi.queue_id
  WHERE s.id = p_schedule;
  IF q.queue_id IS NULL THEN
    RETURN 0;  -- the schedule or its queue was dropped meanwhile (its messages with it)
  END IF;
  EXECUTE aq.render_propagation_settle(jsonb_build_object('schema', q.table_schema, 'recipients', q.recipients_table))
  USING p_ids, p_consumers, p_addresses, p_failure;
  GET DIAGNOSTICS n = ROW_COUNT;
  PERFORM aq.finish_messages(q, p_ids);
  RETURN n;
END $$;

-- ---------------------------------------------------------------------------------------
-- The destination side: what a schedule delivers is enqueued once, however often it comes

CREATE OR REPLACE FUNCTION aq.receive_propagated(p_key text, p_queue text, p_src bytea[],
                                                 p_props jsonb, p_payloads jsonb, p_raw bytea[],
                                                 p_agent text DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  fresh integer[];
  ids bytea[];
BEGIN
  WITH ins AS (
    INSERT INTO aq.propagated AS p (schedule_key, source_msgid)
    SELECT p_key, s FROM unnest(p_src) s
    ON CONFLICT DO NOTHING
    RETURNING p.source_msgid
  )
  SELECT array_agg(x.i ORDER BY x.i) INTO fresh
  FROM unnest(p_src) WITH ORDINALITY AS x(s, i) WHERE x.s IN (SELECT source_msgid FROM ins);
  IF fresh IS NULL THEN
    RETURN 0;
  END IF;
  -- a JMS message keeps the JMSXUserID and JMSXAppID its source set (R__52)
  PERFORM set_config('pgaq.receiving_propagated', 'on', true);
  ids := aq.enqueue_array(
    p_queue,
    (SELECT jsonb_agg(p_props -> (i - 1) ORDER BY i) FROM unnest(fresh) i),
    CASE WHEN p_payloads IS NULL THEN NULL
         ELSE (SELECT jsonb_agg(p_payloads -> (i - 1) ORDER BY i) FROM unnest(fresh) i) END,
    CASE WHEN p_raw IS NULL THEN NULL
         ELSE (SELECT array_agg(p_raw[i] ORDER BY i) FROM unnest(fresh) i) END,
    NULL, p_agent);
  PERFORM set_config('pgaq.receiving_propagated', '', true);
  RETURN cardinality(ids);
END $$;
GRANT SELECT, INSERT ON aq.propagated TO PUBLIC;  -- keys are unguessable message ids

-- ---------------------------------------------------------------------------------------
-- DBA_QUEUE_SCHEDULES

-- The first start of a window after p_after for an interval next_time; NULL for an
-- expression (known only once the propagator evaluates it, as its owner) or none.
CREATE OR REPLACE FUNCTION aq.next_interval_start(p_next_time text, p_window_start timestamptz,
                                                  p_after timestamptz) RETURNS timestamptz
LANGUAGE plpgsql STABLE AS $$
DECLARE
  iv interval := aq.next_time_interval(p_next_time);
  t timestamptz := p_window_start;
BEGIN
  IF iv IS NULL OR iv <= interval '0' OR t IS NULL THEN
    RETURN NULL;
  END IF;
  t := t + iv;
  IF t <= p_after THEN  -- skip the windows missed, in one step
    t := t + iv * ceil(extract(epoch FROM p_after - t) / extract(epoch FROM iv) + 1e-9);
  END IF;
  RETURN t;
END $$;

-- Column semantics (Oracle's): PROCESS_NAME the propagator that holds (or last held) the
-- schedule; SESSION_ID that propagator while it is running the schedule (inside an open
-- window, its lease alive, not waiting for a retry), else NULL; LAST_RUN_DATE the last
-- successful batch; CURRENT_START_DATE the start of the window open now (NULL between
-- windows and when disabled); NEXT_RUN_DATE when the schedule runs next: a pending retry,
-- else the next window's start (NULL when disabled, or when that is not known yet: an
-- endless window, or a next_time expression before the current window ends).
CREATE OR REPLACE VIEW aq.dba_queue_schedules WITH (security_invoker = true) AS
SELECT q.schema_name AS schema, q.queue_name AS qname,
       CASE WHEN s.destination = '' THEN coalesce(nullif(s.destination_queue, ''), 'AQ$_LOCAL')
            WHEN s.destination_queue <> '' THEN '"' || s.destination_queue || '"@' || s.destination
            ELSE s.destination END AS destination,
       s.start_time::date AS start_date, to_char(s.start_time, 'HH24:MI:SS') AS start_time,
       s.duration AS propagation_window, s.next_time, s.latency,
       CASE WHEN s.disabled THEN 'Y' ELSE 'N' END AS schedule_disabled,
       s.lease_owner AS process_name,
       CASE WHEN st.open AND s.lease_until > now() AND (s.next_run IS NULL OR s.next_run <= now())
            THEN s.lease_owner END AS session_id,
       NULL::text AS instance,
       s.last_run_date, s.last_run_date::time AS last_run_time,
       CASE WHEN st.open THEN s.window_start END AS current_start_date,
       CASE WHEN st.open THEN s.window_start::time END AS current_start_time,
       st.next_run AS next_run_date, st.next_run::time AS next_run_time,
       s.total_time, s.total_number, s.total_bytes, s.max_number, s.max_bytes,
       CASE WHEN s.windows > 0 THEN s.total_number::double precision / s.windows END AS avg_number,
       CASE WHEN s.total_number > 0 THEN s.total_bytes::double precision / s.total_number END AS avg_size,
       CASE WHEN s.total_number > 0 THEN s.total_time / s.total_number END AS avg_time,
       s.failures, s.last_error_date, s.last_error_date::time AS last_error_time, s.last_error_msg,
       CASE WHEN s.destination_queue <> '' THEN 'QUEUE_TO_QUEUE' ELSE 'QUEUE_TO_DBLINK' END AS message_delivery_mode,
       s.id AS schedule_id
FROM aq.schedules s JOIN aq.queues q ON q.id = s.queue_id
CROSS JOIN LATERAL (SELECT NOT s.disabled AND s.window_start <= now()
                           AND (s.window_end IS NULL OR now() < s.window_end) AS open) o
CROSS JOIN LATERAL (SELECT o.open AS open, CASE
         WHEN s.disabled THEN NULL
         WHEN s.next_run IS NOT NULL THEN s.next_run
         WHEN s.window_start IS NULL THEN greatest(s.start_time, now())
         WHEN s.window_start > now() THEN s.window_start
         WHEN s.window_end IS NULL THEN NULL
         ELSE aq.next_interval_start(s.next_time, s.window_start, now()) END AS next_run) st;
GRANT SELECT ON aq.dba_queue_schedules TO PUBLIC;
CREATE OR REPLACE VIEW public.dba_queue_schedules WITH (security_invoker = true) AS
SELECT * FROM aq.dba_queue_schedules;
CREATE OR REPLACE VIEW public.user_queue_schedules WITH (security_invoker = true) AS
SELECT * FROM aq.dba_queue_schedules d WHERE d.schema = current_user
   OR pg_has_role(current_user, (SELECT n.nspowner FROM pg_namespace n WHERE n.nspname = d.schema), 'MEMBER');
GRANT SELECT ON public.dba_queue_schedules, public.user_queue_schedules TO PUBLIC;
