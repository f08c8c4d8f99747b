-- The queue engine: name resolution, queue-table DDL, enqueue, dequeue, retries.
-- Everything runs as the caller (SECURITY INVOKER): PostgreSQL's own privileges and the
-- catalog's row-level security decide what a role may do. Dynamic SQL is built only from
-- catalog names quoted with format('%I') and fixed fragments; values travel as parameters.

-- ---------------------------------------------------------------------------------------
-- Errors with Oracle numbers
CREATE OR REPLACE FUNCTION aq.err(p_code integer, p_msg text, p_state text DEFAULT 'P0001')
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING MESSAGE = format('ORA-%s: %s', lpad(p_code::text, 5, '0'), p_msg),
                        ERRCODE = p_state;
END $$;

-- ---------------------------------------------------------------------------------------
-- Names: "[schema.]name", unquoted parts fold to lower case, quoted parts keep their case.
CREATE OR REPLACE FUNCTION aq.parse_name(p_text text, p_what text DEFAULT 'name',
                                         p_max integer DEFAULT 63)
RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  parts text[] := '{}';
  s text := btrim(coalesce(p_text, ''));
  m text[];
BEGIN
  IF s = '' THEN
    PERFORM aq.err(24031, format('invalid value, %s should be non-NULL', p_what), '22023');
  END IF;
  LOOP
    m := regexp_match(s, '^("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$#]*)(\.|$)');
    IF m IS NULL THEN
      PERFORM aq.err(25200, format('invalid value %s, %s should be [SCHEMA.]NAME',
                                   quote_literal(p_text), p_what), '22023');
    END IF;
    IF left(m[1], 1) = '"' THEN
      parts := parts || replace(substr(m[1], 2, length(m[1]) - 2), '""', '"');
    ELSE
      parts := parts || lower(m[1]);
    END IF;
    IF length(parts[array_length(parts, 1)]) > p_max THEN
      PERFORM aq.err(24019, format('identifier for %s too long, should not be greater than %s characters',
                                   p_what, p_max), '22023');
    END IF;
    s := substr(s, length(m[1]) + length(m[2]) + 1);
    EXIT WHEN m[2] = '';
    IF s = '' THEN
      PERFORM aq.err(25200, format('invalid value %s, %s should be [SCHEMA.]NAME',
                                   quote_literal(p_text), p_what), '22023');
    END IF;
  END LOOP;
  IF array_length(parts, 1) > 2 THEN
    PERFORM aq.err(25200, format('invalid value %s, %s should be [SCHEMA.]NAME',
                                 quote_literal(p_text), p_what), '22023');
  END IF;
  RETURN parts;
END $$;

-- Qualified name with the default schema (the current user's schema when it exists,
-- like Oracle, otherwise the first schema of the search path).
CREATE OR REPLACE FUNCTION aq.qualify(p_text text, p_what text DEFAULT 'name',
                                      p_max integer DEFAULT 63)
RETURNS text[] LANGUAGE plpgsql STABLE AS $$
DECLARE
  parts text[];
BEGIN
  -- the common spelling, schema.name in lower case, needs no parsing
  IF p_text ~ '^[a-z_][a-z0-9_$#]{0,62}\.[a-z_][a-z0-9_$#]{0,62}$' AND length(p_text) <= p_max * 2 + 1 THEN
    parts := string_to_array(p_text, '.');
    IF length(parts[2]) <= p_max THEN
      RETURN parts;
    END IF;
  END IF;
  parts := aq.parse_name(p_text, p_what, p_max);
  IF array_length(parts, 1) = 1 THEN
    IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = current_user) THEN
      RETURN ARRAY[current_user::text, parts[1]];
    END IF;
    RETURN ARRAY[current_schema()::text, parts[1]];
  END IF;
  RETURN parts;
END $$;

-- Consumer and agent names: Oracle upper-cases unquoted names.
CREATE OR REPLACE FUNCTION aq.agent_name(p_text text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s text := btrim(p_text);
BEGIN
  IF s IS NULL OR s = '' THEN
    RETURN NULL;
  END IF;
  IF s ~ '^"[^"]+"$' THEN
    RETURN substr(s, 2, length(s) - 2);
  END IF;
  IF s !~ '^[A-Za-z_][A-Za-z0-9_$#.]*$' OR length(s) > 128 THEN
    PERFORM aq.err(24047, format('invalid agent name %s, agent name should be of the form NAME',
                                 quote_literal(p_text)), '22023');
  END IF;
  RETURN upper(s);
END $$;

-- Oracle's constructor syntax: sys.aq$_agent('NAME', NULL, NULL)
CREATE OR REPLACE FUNCTION sys.aq$_agent(name text, address text, protocol integer)
RETURNS sys.aq$_agent LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(name, address, coalesce(protocol, 0))::sys.aq$_agent
$$;

-- ---------------------------------------------------------------------------------------
-- The catalog seen by the engine: one row per queue with its table's properties.
CREATE OR REPLACE VIEW aq.queue_info AS
SELECT q.id AS queue_id, q.schema_name, q.queue_name, q.queue_type, q.max_retries,
       q.retry_delay, q.retention_time, q.enqueue_enabled, q.dequeue_enabled,
       t.id AS table_id, t.schema_name AS table_schema, t.table_name, t.owner,
       t.payload_type, t.payload_kind, t.sort_list, t.multiple_consumers,
       t.message_grouping,
       t.sort_list || CASE WHEN t.message_grouping = 'TRANSACTIONAL' THEN '+G' ELSE '' END AS sort_key,
       ('aq$_' || t.table_name || '_r')::name AS recipients_table,
       ('aq$_' || t.table_name || '_e')::name AS default_exception_queue
FROM aq.queues q JOIN aq.queue_tables t ON t.id = q.queue_table_id;
GRANT SELECT ON aq.queue_info TO PUBLIC;

CREATE OR REPLACE FUNCTION aq.resolve_queue(p_queue text) RETURNS aq.queue_info
LANGUAGE plpgsql STABLE AS $$
DECLARE
  n text[] := aq.qualify(p_queue, 'QUEUE_NAME');
  r aq.queue_info;
BEGIN
  SELECT * INTO r FROM aq.queue_info WHERE schema_name = n[1] AND queue_name = n[2];
  IF NOT FOUND THEN
    PERFORM aq.err(24010, format('QUEUE %s.%s does not exist', n[1], n[2]), '42704');
  END IF;
  RETURN r;
END $$;

CREATE OR REPLACE FUNCTION aq.resolve_queue_table(p_table text) RETURNS aq.queue_tables
LANGUAGE plpgsql STABLE AS $$
DECLARE
  n text[] := aq.qualify(p_table, 'QUEUE_TABLE');
  r aq.queue_tables;
BEGIN
  SELECT * INTO r FROM aq.queue_tables WHERE schema_name = n[1] AND table_name = n[2];
  IF NOT FOUND THEN
    PERFORM aq.err(24002, format('QUEUE_TABLE %s.%s does not exist', n[1], n[2]), '42704');
  END IF;
  RETURN r;
END $$;

-- Sort order fragments: fixed strings chosen by sort_list, never user text. A '+G' suffix
-- marks transactionally grouped tables, whose groups stay together in dequeue order.
-- p_alias '' gives bare column names (for index definitions).
CREATE OR REPLACE FUNCTION aq.sort_columns(p_sort text, p_alias text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT replace(CASE p_sort
    WHEN 'ENQ_TIME' THEN '@enq_seq'
    WHEN 'PRIORITY' THEN '@priority, @enq_seq'
    WHEN 'PRIORITY,ENQ_TIME' THEN '@priority, @enq_seq'
    WHEN 'ENQ_TIME,PRIORITY' THEN '@enq_time, @priority, @enq_seq'
    WHEN 'COMMIT_TIME' THEN '@commit_seq, @enq_seq'
    WHEN 'ENQ_TIME+G' THEN '@txn_group, @enq_seq'
    WHEN 'PRIORITY+G' THEN '@priority, @txn_group, @enq_seq'
    WHEN 'PRIORITY,ENQ_TIME+G' THEN '@priority, @txn_group, @enq_seq'
    WHEN 'ENQ_TIME,PRIORITY+G' THEN '@txn_group, @enq_seq'
    WHEN 'COMMIT_TIME+G' THEN '@commit_seq, @txn_group, @enq_seq'
  END, '@', CASE WHEN p_alias = '' THEN '' ELSE p_alias || '.' END)
$$;

-- The same sort key as a bigint[] (a dequeue position for NEXT_MESSAGE navigation).
CREATE OR REPLACE FUNCTION aq.sort_key_expr(p_sort text, p_alias text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT 'ARRAY[' || replace(replace(replace(aq.sort_columns(p_sort, p_alias),
            p_alias || '.priority', p_alias || '.priority::bigint'),
            p_alias || '.enq_time', format('(extract(epoch FROM %s.enq_time) * 1000000)::bigint', p_alias)),
            '@', '') || ']'
$$;

-- "row after position" predicate, index-friendly (row comparison); p_ref refers to the
-- position, a bigint[] ($5 in a dynamic statement, a parameter's name in a function)
CREATE OR REPLACE FUNCTION aq.after_position_expr(p_sort text, p_alias text, p_ref text)
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  cols text[] := string_to_array(aq.sort_columns(p_sort, p_alias), ', ');
  rhs text[] := '{}';
  i integer;
BEGIN
  FOR i IN 1 .. array_length(cols, 1) LOOP
    rhs := rhs || CASE
      WHEN cols[i] LIKE '%.priority' THEN format('(%s)[%s]::integer', p_ref, i)
      WHEN cols[i] LIKE '%.enq_time' THEN format('to_timestamp((%s)[%s] / 1000000.0)', p_ref, i)
      ELSE format('(%s)[%s]', p_ref, i) END;
  END LOOP;
  RETURN format('(%s) > (%s)', array_to_string(cols, ', '), array_to_string(rhs, ', '));
END $$;

CREATE OR REPLACE FUNCTION aq.state_name(p_state integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_state WHEN 0 THEN 'READY' WHEN 1 THEN 'WAIT' WHEN 2 THEN 'PROCESSED'
                      WHEN 3 THEN 'EXPIRED' WHEN 7 THEN 'UNDELIVERABLE' END
$$;

-- A new message id (RAW(16), as Oracle's): the microseconds since 1970 (8 bytes, big
-- endian), then 8 random bytes. Ids in time order make every enqueue's primary-key
-- insert land on the index's rightmost page, as a sequence's would: a random id touches
-- a random leaf page, which after each checkpoint costs a full-page image in the WAL
-- (measured with 200,000 rows, one message per transaction: 1,751 WAL bytes per message
-- with random ids, 303 in time order, 280 for a bigserial). The random half keeps ids
-- unguessable and unique across sessions and databases.
-- The enqueue routes pass the message's enq_time (p_at), so that the id's first half is
-- exactly its enqueue time: a client that sent the message reads its enqueue time from
-- the id it gets back, with no other round trip (pgaq.jms's JMSTimestamp after a send,
-- which JMS 1.1 3.4.4 and Oracle's "JMS Message Headers" make the enqueue time).
CREATE OR REPLACE FUNCTION aq.new_msgid(p_at timestamptz) RETURNS bytea
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT int8send((extract(epoch FROM p_at) * 1000000)::bigint)
         || substring(uuid_send(gen_random_uuid()) FROM 9 FOR 8)
$$;

CREATE OR REPLACE FUNCTION aq.new_msgid() RETURNS bytea
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$ SELECT aq.new_msgid(clock_timestamp()) $$;

CREATE OR REPLACE FUNCTION aq.msgid_hex(p_msgid bytea) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT upper(encode(p_msgid, 'hex')) $$;

CREATE OR REPLACE FUNCTION aq.msgid_from_hex(p_text text) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s text := lower(regexp_replace(coalesce(p_text, ''), '\s', '', 'g'));
BEGIN
  IF s !~ '^[0-9a-f]{32}$' THEN
    PERFORM aq.err(25263, format('invalid message identifier %s', quote_literal(p_text)), '22023');
  END IF;
  RETURN decode(s, 'hex');
END $$;

-- ---------------------------------------------------------------------------------------
-- Access: the queue table's owner (or a member), a queue privilege, or a system privilege.
-- Like aq.has_access, for a given role rather than the current one. Cheapest tests first:
-- this runs on every enqueue and dequeue.
CREATE OR REPLACE FUNCTION aq.has_access_as(q aq.queue_info, p_priv text, p_role name) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF p_role = q.owner OR pg_has_role(p_role, q.owner, 'MEMBER') THEN
    RETURN true;
  END IF;
  IF pg_has_role(p_role, 'aq_administrator_role', 'MEMBER')
     OR (p_priv = 'ENQUEUE' AND pg_has_role(p_role, 'aq_enqueue_any', 'MEMBER'))
     OR (p_priv = 'DEQUEUE' AND pg_has_role(p_role, 'aq_dequeue_any', 'MEMBER')) THEN
    RETURN true;
  END IF;
  -- joined with pg_roles: a grantee dropped since its grant must not break the check
  RETURN EXISTS (SELECT 1 FROM aq.queue_privileges p JOIN pg_roles r ON r.rolname = p.grantee
                 WHERE p.queue_id = q.queue_id
                   AND CASE p_priv WHEN 'ENQUEUE' THEN p.enqueue ELSE p.dequeue END
                   AND pg_has_role(p_role, r.oid, 'MEMBER'));
END $$;

CREATE OR REPLACE FUNCTION aq.has_grant_option(p_queue_id integer, p_role name) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  SELECT EXISTS (SELECT 1 FROM aq.queue_privileges g JOIN pg_roles r ON r.rolname = g.grantee
                 WHERE g.queue_id = p_queue_id AND g.grant_option
                   AND pg_has_role(p_role, r.oid, 'MEMBER'))
$$;

CREATE OR REPLACE FUNCTION aq.has_access(q aq.queue_info, p_priv text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT aq.has_access_as(q, p_priv, current_user::name)
$$;

CREATE OR REPLACE FUNCTION aq.check_access(q aq.queue_info, p_priv text) RETURNS void
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF NOT aq.has_access(q, p_priv) THEN
    PERFORM aq.err(1031, format('insufficient privileges: %s on %s.%s for %s',
                                p_priv, q.schema_name, q.queue_name, current_user), '42501');
  END IF;
END $$;
