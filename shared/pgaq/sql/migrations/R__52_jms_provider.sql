-- JMS properties the provider sets (Oracle Database Advanced Queuing User's Guide,
-- "Introduction to Oracle Java Message Service", "JMS Message Properties"): JMSXUserID, "the
-- identity of the user sending the message", and JMSXAppID, "the identity of the
-- application sending the message", are "set by JMS after the Send method has completed".
-- They live in the payload's header (sys.aq$_jms_header.userid and .appid), which the JMS
-- selector reads (R__20_conditions_5), so every JMS queue table gets a row trigger that
-- writes them as a message is stored, whatever route stored it (dbms_aq.enqueue, the
-- library's generated functions, IDAP, propagation):
--   JMSXUserID: the enqueuing database user (the row's enq_uid, AQ$<table>.ENQ_USER_ID);
--     a value the client sent is replaced (the guide lists JMSXUserID among the properties a
--     client may get, not set). A propagated message keeps the JMSXUserID its source set
--     (the propagator is not the sender).
--   JMSXAppID: a value the client sent is kept (the guide lists JMSXAppID among the
--     properties "the client can set"); without one, the sender's name (sender_id.name),
--     else the IDAP agent that enqueued, else the session's application_name.

CREATE OR REPLACE FUNCTION aq.jms_provider_properties() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  h sys.aq$_jms_header := (NEW.user_data).header;
  -- what aq.receive_propagated enqueues, over any transport (R__70)
  propagated boolean := NEW.original_msgid IS NOT NULL
                        AND current_setting('pgaq.receiving_propagated', true) = 'on';
  uid text := CASE WHEN propagated AND h.userid IS NOT NULL THEN h.userid ELSE NEW.enq_uid END;
  app text := coalesce(nullif(h.appid, ''), NEW.sender_name,
                       CASE WHEN NOT propagated THEN nullif(NEW.enq_agent, '') END,
                       nullif(current_setting('application_name', true), ''));
BEGIN
  IF h.userid IS DISTINCT FROM uid OR h.appid IS DISTINCT FROM app THEN
    h.userid := uid;
    h.appid := app;
    NEW.user_data := jsonb_populate_record(NEW.user_data, jsonb_build_object('header', to_jsonb(h)));
  END IF;
  RETURN NEW;
END $$;

-- The trigger on a JMS queue table (called by aq.create_queue_table_indexes, R__12: at
-- creation, and for every existing table by R__99).
CREATE OR REPLACE FUNCTION aq.create_jms_provider_trigger(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF t.payload_kind LIKE 'JMS\_%' THEN
    EXECUTE aq.sql('CREATE OR REPLACE TRIGGER {{trigger:ident}} BEFORE INSERT ON {{schema:ident}}.{{table:ident}} FOR EACH ROW '
                   'EXECUTE FUNCTION aq.jms_provider_properties()',
                   jsonb_build_object('trigger', 'aq$_jms_provider', 'schema', t.schema_name, 'table', t.table_name));
  END IF;
END $$;

-- JMSPriority in Oracle JMS's two compliance modes (oracle.jms.j2eeCompliant; pgaq.jms's
-- ConnectionFactory(j2ee_compliant=...)), for every JMS client of these queues to map alike
-- (pgaq.jms.compliance does the same without a round trip; both are tested against
-- tests/integration/jms_priority_vectors.json). Oracle Database Advanced Queuing User's
-- Guide, "JMS Message Headers": in Java EE compliant mode JMSPriority is 0-9, 9 the
-- highest, 4 the default; non-compliant (the default mode) it is AQ's priority, where a
-- smaller number is more urgent and 1 the default. Compliant priorities are stored as
-- 9 - p, so AQ's priority ordering (smaller first) delivers higher JMS priorities first.
CREATE OR REPLACE FUNCTION aq.jms_priority_to_aq(p_priority integer, p_compliant boolean)
RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF NOT p_compliant THEN
    RETURN p_priority;
  END IF;
  IF p_priority IS NULL OR p_priority NOT BETWEEN 0 AND 9 THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = format('JMS-207: Invalid priority %s: 0 (lowest) to 9 (highest) in Java EE '
                       'compliant mode', coalesce(p_priority::text, 'NULL'));
  END IF;
  RETURN 9 - p_priority;
END $$;

-- The JMSPriority read for a stored AQ priority; compliant, an AQ priority outside 0-9 (an
-- enqueue that is not JMS's) reads as the nearest end of 0-9, keeping the order.
CREATE OR REPLACE FUNCTION aq.jms_priority_from_aq(p_priority integer, p_compliant boolean)
RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_compliant THEN least(9, greatest(0, 9 - p_priority::bigint))::integer
              ELSE p_priority END
$$;

CREATE OR REPLACE FUNCTION aq.jms_default_priority(p_compliant boolean)
RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_compliant THEN 4 ELSE 1 END
$$;

-- ---------------------------------------------------------------------------------------
-- Temporary queues and topics (JMS 1.1 section 4.4.3; Oracle Database Advanced Queuing
-- User's Guide, "Introduction to Oracle Java Message Service", "Java EE Compliance":
-- "Temporary queues and topics"), here so that every JMS client (pgaq.jms, a Java
-- provider) makes, names and drops them alike, with the caller's own rights.
--
-- Where they live: two queue tables of the generic JMS payload (SYS.AQ$_JMS_MESSAGE, so a
-- reply may be any message type) per schema, made on first use: aq$_jms_tmpq (single
-- consumer: temporary queues) and aq$_jms_tmpt (multi consumer: temporary topics). The
-- schema is the caller's choice, else the one named after the user, else current_schema();
-- the caller must manage it (as for dbms_aqadm.create_queue).
--
-- A temporary destination is a queue named aq$_tmp<q|t>_<lease>_<random>: the name says
-- its kind, so a JMSReplyTo naming one comes back as a TemporaryQueue / TemporaryTopic
-- even once it is dropped, and the lease of the connection that owns it: a session-level
-- advisory lock (class 1885823348, key <lease>) the owning JMS connection holds on one
-- database connection for as long as it lives. A destination whose lease is no longer held
-- (its process crashed, its database connection was lost) is an orphan: the next
-- aq.jms_create_temporary in that schema drops it, as does aq.jms_drop_orphaned_temporaries.

-- A new lease for a JMS connection: the advisory lock this database session now holds
-- until it ends (or pg_advisory_unlock(1885823348, key)). Keys are non-negative, as
-- pg_locks shows them (objid is an oid).
CREATE OR REPLACE FUNCTION aq.jms_temporary_lease() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  k integer;
BEGIN
  LOOP
    k := floor(random() * 2147483647)::integer;
    IF pg_try_advisory_lock(1885823348, k) THEN
      RETURN k;
    END IF;
  END LOOP;
END $$;

-- Whether some session of this database holds the lease (pg_locks: visible to every user).
CREATE OR REPLACE FUNCTION aq.jms_temporary_lease_alive(p_lease integer) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT p_lease IS NOT NULL AND p_lease >= 0 AND EXISTS (
    SELECT 1 FROM pg_catalog.pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
      AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = current_database())
      AND l.classid = 1885823348::oid AND l.objid = p_lease::oid)
$$;

-- 'TEMPORARY_QUEUE' / 'TEMPORARY_TOPIC' for a temporary destination's queue name (without
-- its schema), NULL for any other name.
CREATE OR REPLACE FUNCTION aq.jms_temporary_kind(p_queue_name text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE substring(p_queue_name FROM '^aq\$_tmp([qt])_[0-9a-f]{8}_[0-9a-f]{16}$')
           WHEN 'q' THEN 'TEMPORARY_QUEUE' WHEN 't' THEN 'TEMPORARY_TOPIC' END
$$;

-- The lease a temporary destination's queue name carries (NULL: not a temporary one).
CREATE OR REPLACE FUNCTION aq.jms_temporary_lease_of(p_queue_name text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT ('x' || substring(p_queue_name FROM '^aq\$_tmp[qt]_([0-9a-f]{8})_[0-9a-f]{16}$'))::bit(32)::integer
$$;

-- The kind of destination a JMSReplyTo agent names, for the receiving client to rebuild it:
-- NULL for an agent that is not a whole destination of this database (a name, an
-- address with a database link, a protocol other than 0: an AQjmsAgent); else
-- 'TEMPORARY_QUEUE' / 'TEMPORARY_TOPIC' by its name, 'TOPIC' for a multi-consumer queue,
-- 'QUEUE' for a single-consumer one or one that no longer exists. Never raises.
CREATE OR REPLACE FUNCTION aq.jms_reply_to_kind(p_agent sys.aq$_agent) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  n text[];
  multi boolean;
BEGIN
  IF p_agent IS NULL OR p_agent.name IS NOT NULL OR coalesce(p_agent.protocol, 0) <> 0
     OR p_agent.address IS NULL OR strpos(p_agent.address, '@') > 0 THEN
    RETURN NULL;
  END IF;
  BEGIN
    n := aq.qualify(p_agent.address, 'QUEUE_NAME');
  EXCEPTION WHEN OTHERS THEN
    RETURN NULL;
  END;
  IF aq.jms_temporary_kind(n[2]) IS NOT NULL THEN
    RETURN aq.jms_temporary_kind(n[2]);
  END IF;
  SELECT t.multiple_consumers INTO multi FROM aq.queues q JOIN aq.queue_tables t ON t.id = q.queue_table_id
  WHERE q.schema_name = n[1] AND q.queue_name = n[2];
  RETURN CASE WHEN multi THEN 'TOPIC' ELSE 'QUEUE' END;
END $$;

-- The schema temporary destinations of this caller go to (see above); ORA-01031 when the
-- caller may not manage it.
CREATE OR REPLACE FUNCTION aq.jms_temporary_schema(p_schema text DEFAULT NULL) RETURNS name
LANGUAGE plpgsql STABLE AS $$
DECLARE
  s name;
BEGIN
  IF p_schema IS NOT NULL THEN
    s := p_schema;
  ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = current_user) THEN
    s := current_user;
  ELSE
    s := current_schema();
  END IF;
  IF s IS NULL OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = s) THEN
    PERFORM aq.err(1918, format('schema %s for temporary destinations does not exist', coalesce(s, 'NULL')), '3F000');
  END IF;
  IF NOT aq.may_manage(s) THEN
    PERFORM aq.err(1031, format('insufficient privileges to create temporary destinations in schema %s '
                                '(give a schema of yours)', s), '42501');
  END IF;
  RETURN s;
END $$;

-- Stop and drop one temporary destination (its messages and subscribers go with it).
CREATE OR REPLACE FUNCTION aq.jms_drop_temporary_queue(p_schema name, p_queue name) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  qn text := format('%I.%I', p_schema, p_queue);
BEGIN
  CALL dbms_aqadm.stop_queue(queue_name => qn, wait => false);
  CALL dbms_aqadm.drop_queue(queue_name => qn);
END $$;

-- Drop the temporary destinations in schema p_schema (every schema the caller manages when
-- NULL) whose lease is no longer held: those of a crashed process or a lost connection.
-- Returns how many it dropped; one a concurrent call dropped first is skipped.
CREATE OR REPLACE FUNCTION aq.jms_drop_orphaned_temporaries(p_schema text DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  n integer := 0;
BEGIN
  FOR r IN SELECT q.schema_name, q.queue_name FROM aq.queues q
           WHERE aq.jms_temporary_kind(q.queue_name) IS NOT NULL
             AND (p_schema IS NULL OR q.schema_name = p_schema)
             AND aq.may_manage(q.schema_name)
             AND NOT aq.jms_temporary_lease_alive(aq.jms_temporary_lease_of(q.queue_name))
           ORDER BY q.id LOOP
    BEGIN
      PERFORM aq.jms_drop_temporary_queue(r.schema_name, r.queue_name);
      n := n + 1;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'orphaned temporary destination %.% not dropped: %', r.schema_name, r.queue_name, SQLERRM;
    END;
  END LOOP;
  RETURN n;
END $$;

-- A new temporary queue (p_topic false) or topic (true) owned by lease p_lease (from
-- aq.jms_temporary_lease, held by the owning JMS connection): its "schema.name", started.
-- Orphans of the schema are dropped first.
CREATE OR REPLACE FUNCTION aq.jms_create_temporary(p_topic boolean, p_lease integer,
                                                   p_schema text DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  s name := aq.jms_temporary_schema(p_schema);
  tbl text := CASE WHEN p_topic THEN 'aq$_jms_tmpt' ELSE 'aq$_jms_tmpq' END;
  qname text;
BEGIN
  IF p_topic IS NULL THEN
    PERFORM aq.err(24005, 'p_topic must be true (a temporary topic) or false (a temporary queue)', '22023');
  END IF;
  IF NOT aq.jms_temporary_lease_alive(p_lease) THEN
    PERFORM aq.err(24005, format('lease %s is not held: take one with aq.jms_temporary_lease() '
                                'and keep its session open', coalesce(p_lease::text, 'NULL')), '22023');
  END IF;
  -- one maker of the schema's queue tables at a time
  PERFORM pg_advisory_xact_lock(hashtextextended('aq.jms_temporary ' || s, 0));
  PERFORM aq.jms_drop_orphaned_temporaries(s);
  IF NOT EXISTS (SELECT 1 FROM aq.queue_tables t WHERE t.schema_name = s AND t.table_name = tbl) THEN
    CALL dbms_aqadm.create_queue_table(queue_table => format('%I.%I', s, tbl),
                                       queue_payload_type => 'SYS.AQ$_JMS_MESSAGE',
                                       multiple_consumers => p_topic,
                                       comment => 'JMS temporary destinations (aq.jms_create_temporary)');
  END IF;
  qname := format('aq$_tmp%s_%s_%s', CASE WHEN p_topic THEN 't' ELSE 'q' END,
                  lpad(to_hex(p_lease), 8, '0'), left(replace(gen_random_uuid()::text, '-', ''), 16));
  CALL dbms_aqadm.create_queue(queue_name => format('%I.%I', s, qname), queue_table => format('%I.%I', s, tbl),
                               comment => 'JMS temporary ' || CASE WHEN p_topic THEN 'topic' ELSE 'queue' END);
  CALL dbms_aqadm.start_queue(queue_name => format('%I.%I', s, qname));
  RETURN s || '.' || qname;
END $$;

-- Drop a temporary destination ("schema.name") of lease p_lease: TemporaryQueue.delete(),
-- or the owning connection closing. ORA-24010 when there is no such temporary
-- destination, ORA-01031 when another live connection owns it. (Whether consumers are
-- still open on it is the client's to check: JMS 1.1 makes that an error of delete().)
CREATE OR REPLACE FUNCTION aq.jms_drop_temporary(p_queue text, p_lease integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(p_queue);
  k integer := aq.jms_temporary_lease_of(q.queue_name);
BEGIN
  IF k IS NULL THEN
    PERFORM aq.err(24010, format('QUEUE %s.%s is not a temporary destination', q.schema_name, q.queue_name), '42704');
  END IF;
  IF k IS DISTINCT FROM p_lease AND aq.jms_temporary_lease_alive(k) THEN
    PERFORM aq.err(1031, format('temporary destination %s.%s belongs to another connection',
                                q.schema_name, q.queue_name), '42501');
  END IF;
  PERFORM aq.jms_drop_temporary_queue(q.schema_name, q.queue_name);
END $$;

-- Drop every temporary destination of lease p_lease (its connection closes); how many.
CREATE OR REPLACE FUNCTION aq.jms_drop_temporaries(p_lease integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  n integer := 0;
BEGIN
  FOR r IN SELECT q.schema_name, q.queue_name FROM aq.queues q
           WHERE aq.jms_temporary_lease_of(q.queue_name) = p_lease ORDER BY q.id LOOP
    PERFORM aq.jms_drop_temporary_queue(r.schema_name, r.queue_name);
    n := n + 1;
  END LOOP;
  RETURN n;
END $$;

-- TopicBrowser.purge (Oracle Database Advanced Queuing User's Guide, "Introduction to
-- Oracle Java Message Service", TopicBrowser): "A purge is equivalent to a destructive
-- receive of all of the seen messages (as if performed using a TopicSubscriber)". The
-- persistent messages p_ids the browser of durable subscriber p_subscriber has shown are
-- removed for that subscriber alone (REMOVE_NODATA by id, as aq.remove_held), in the
-- caller's transaction: stable at its commit, undone by its rollback, and not a failed
-- delivery attempt then (a purge is not a delivery). A message removed meanwhile, or locked
-- by another transaction, is passed over. Returns how many were removed. ORA-24035 when
-- p_subscriber is not a subscriber of p_topic.
CREATE OR REPLACE FUNCTION aq.jms_topic_browser_purge(p_topic text, p_subscriber text, p_ids bytea[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(p_topic);
BEGIN
  IF NOT q.multiple_consumers OR q.queue_type = 'EXCEPTION_QUEUE' THEN
    PERFORM aq.err(24039, format('Queue %s.%s not created in queue table for multiple consumers',
                                 q.schema_name, q.queue_name), '22023');
  END IF;
  IF NOT EXISTS (SELECT 1 FROM aq.subscribers s WHERE s.queue_id = q.queue_id
                 AND upper(s.name) = upper(p_subscriber) AND s.address IS NULL) THEN
    PERFORM aq.err(24035, format('AQ agent %s is not a subscriber for queue %s.%s',
                                 p_subscriber, q.schema_name, q.queue_name), '42704');
  END IF;
  RETURN aq.remove_held(p_topic, p_subscriber, p_ids);
END $$;

-- A JMS selector as the database evaluates it for a client in Oracle JMS's Java EE
-- compliant mode (oracle.jms.j2eeCompliant; pgaq.jms's j2ee_compliant): there JMSPriority
-- is 0-9 with 9 the highest and is stored as AQ priority 9 - p (aq.jms_priority_to_aq), so
-- each JMSPriority in the selector reads (9 - JMSPriority) of the stored value. Done on the
-- selector's tokens (aq._condition_tokenize), never inside a string literal or after a
-- '.' (an ADT attribute); the result is what a consumer's dequeue condition, a browser's
-- and a durable or non-durable subscriber's rule hold. Non-compliant, the text is kept.
-- (An AQ priority outside 0-9, from an enqueue that is not JMS's, reads as the nearest end
-- of 0-9 in the JMSPriority header but unclamped here.)
CREATE OR REPLACE FUNCTION aq.jms_selector_for_mode(p_selector text, p_compliant boolean)
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  toks aq._condition_token[];
  t aq._condition_token;
  out text := p_selector;
BEGIN
  IF NOT coalesce(p_compliant, false) OR p_selector IS NULL OR strpos(p_selector, 'JMSPriority') = 0 THEN
    RETURN p_selector;
  END IF;
  toks := aq._condition_tokenize(p_selector);
  FOR i IN REVERSE cardinality(toks) .. 1 LOOP  -- from the end: earlier positions stay put
    t := toks[i];
    IF t.kind = 'identifier' AND t.value = 'JMSPriority'
       AND (i = 1 OR toks[i - 1].kind <> 'operator' OR toks[i - 1].value <> '.') THEN
      out := overlay(out PLACING '(9 - JMSPriority)' FROM t.pos FOR length(t.value));
    END IF;
  END LOOP;
  RETURN out;
END $$;
