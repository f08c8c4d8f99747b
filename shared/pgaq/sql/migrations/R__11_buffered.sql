-- Buffered messages (Oracle's delivery_mode BUFFERED): the same queues, but stored in an
-- UNLOGGED companion of each queue table, so they cost no WAL and no fsync and are gone
-- after a crash of PostgreSQL, as Oracle's are after an instance crash.
--
--   queue table        persistent messages    buffered messages (UNLOGGED)
--   s.qt               s.qt                   s."aq$_qt_b"
--   its recipients     s."aq$_qt_r"           s."aq$_aq$_qt_b_r"
--   generated fns      s."aq$_qt_enq", ...    s."aq$_aq$_qt_b_enq", ...
--
-- The companion is made by the same code as the queue table itself (aq.create_queue_table_
-- objects given aq.buffered_table(t)), so every statement the engine generates serves it:
-- the engine's functions, handed aq.buffered_info(q) instead of q, work on it unchanged.
-- What Oracle does not support for buffered messages is refused (Oracle Streams Advanced
-- Queuing User's Guide and Reference 10g Release 2 (10.2), "Introducing Oracle Streams AQ",
-- "Buffered Messaging Restrictions"): delay, transaction grouping, ON_COMMIT visibility
-- from SQL, remote subscribers (no propagation of buffered messages here); retention and
-- retries do not apply (a buffered message goes when it is dequeued). An expired buffered
-- message is moved to its exception queue as a persistent message
-- (aq.persist_buffered_exceptions).

-- The companion's catalog row: the queue table's, under the companion's name.
CREATE OR REPLACE FUNCTION aq.buffered_table(t aq.queue_tables) RETURNS aq.queue_tables
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  t.table_name := ('aq$_' || t.table_name || '_b')::name;
  t.message_grouping := 'NONE';
  t.comment := format('pgaq buffered messages of queue table %s.%s (UNLOGGED)', t.schema_name,
                      substr(t.table_name, 5, length(t.table_name) - 6));
  RETURN t;
END $$;

-- Whether a catalog row is a companion's (its name is not the queue table's own).
CREATE OR REPLACE FUNCTION aq.is_buffered(t aq.queue_tables) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT t.table_name IS DISTINCT FROM (SELECT x.table_name FROM aq.queue_tables x WHERE x.id = t.id)
$$;

-- Whether the queue table has its companion (tables made before buffered messaging get one
-- from R__99).
CREATE OR REPLACE FUNCTION aq.has_buffered(t aq.queue_tables) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT to_regclass(format('%I.%I', t.schema_name, 'aq$_' || t.table_name || '_b')) IS NOT NULL
$$;

-- The queue as the engine sees it for buffered messages: the companion's tables, no
-- retention.
CREATE OR REPLACE FUNCTION aq.buffered_info(q aq.queue_info) RETURNS aq.queue_info
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  q.table_name := ('aq$_' || q.table_name || '_b')::name;
  q.recipients_table := ('aq$_' || q.table_name || '_r')::name;
  q.retention_time := 0;
  RETURN q;
END $$;

CREATE OR REPLACE FUNCTION aq.create_buffered_objects(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT aq.has_buffered(t) THEN
    PERFORM aq.create_queue_table_objects(aq.buffered_table(t));
  END IF;
END $$;

-- A delivery mode, checked as every option taking one is (aq.check_delivery_mode,
-- R__14_options: Oracle's names or its constants' numbers; ORA-25299 otherwise).
CREATE OR REPLACE FUNCTION aq.delivery_mode(p text, p_allowed text[], p_what text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN aq.check_delivery_mode(p, p_what, p_allowed);
END $$;

-- What Oracle refuses for a buffered enqueue (AQ User's Guide (10.2), "Buffered Messaging":
-- "You cannot specify delay when enqueuing buffered messages"; "Transaction grouping queues
-- ... are not supported for buffered messages"; no Messaging Gateway, and no propagation of
-- buffered messages here).
CREATE OR REPLACE FUNCTION aq.check_buffered_enqueue(q aq.queue_info, p_props jsonb) RETURNS void
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF q.queue_type = 'EXCEPTION_QUEUE' THEN
    RETURN;  -- refused as for persistent messages (ORA-25207)
  END IF;
  IF q.message_grouping = 'TRANSACTIONAL' THEN
    PERFORM aq.err(25293, format('buffered messages are not supported on queue %s.%s: its queue table groups messages by transaction',
                                 q.schema_name, q.queue_name), '0A000');
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_props) p WHERE (p ->> 'delay')::integer > 0) THEN
    PERFORM aq.err(25293, 'a buffered message cannot have a delay', '0A000');
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_props) p, jsonb_array_elements(
               CASE WHEN jsonb_typeof(p -> 'recipients') = 'array' THEN p -> 'recipients' ELSE '[]' END) r
             WHERE r ->> 'address' <> '' OR (r ->> 'protocol')::integer <> 0) THEN
    PERFORM aq.err(25293, 'a buffered message cannot have a remote recipient: buffered messages are not propagated',
                   '0A000');
  END IF;
END $$;

-- Publisher flow control: a queue whose buffered backlog (messages not yet dequeued by
-- every recipient) has reached pgaq.buffered_max_messages (default 100000; 0: no limit)
-- refuses more with ORA-25307 until consumers catch up, instead of growing without bound.
-- (Named templates, R__09_render.sql: defined here, before the functions that call them
-- are replaced in this file's transaction.)
-- aq.check_buffered_backlog (R__11_buffered): the companion's backlog, up to the limit ($2)
SELECT aq.define_template('buffered.backlog', $tpl$SELECT count(*) FROM (SELECT 1 FROM {{schema:ident}}.{{table:ident}} WHERE q_name = $1 AND state IN (0, 1) LIMIT $2) x$tpl$);

-- Exact but cheap: the backlog is counted (up to the limit, on the ready index) only when
-- the companion's size could hold that many rows.
-- upgrade (stays here: p_adding's default would make a call ambiguous): removes the 3-argument form; no release
DROP FUNCTION IF EXISTS aq.check_buffered_backlog(name, name, name);
-- p_adding: the messages the enqueue adds (all of them or none: the backlog after it must
-- not pass the limit, whether they come one call at a time or grouped, pgaq.coalesce)
CREATE OR REPLACE FUNCTION aq.check_buffered_backlog(p_schema name, p_table name, p_queue name,
                                                     p_adding integer DEFAULT 1) RETURNS void
LANGUAGE plpgsql STABLE AS $$
DECLARE
  lim bigint := coalesce(nullif(current_setting('pgaq.buffered_max_messages', true), '')::bigint, 100000);
  n bigint;
BEGIN
  IF lim <= 0 OR pg_relation_size(format('%I.%I', p_schema, p_table)::regclass) < (lim - p_adding + 1) * 48 THEN
    RETURN;  -- a row takes more than 48 bytes: the table cannot hold that many
  END IF;
  EXECUTE aq.render_buffered_backlog(jsonb_build_object('schema', p_schema, 'table', p_table))
    INTO n USING p_queue, lim;
  IF n + p_adding > lim THEN
    PERFORM aq.err(25307, format('Enqueue rate too high, flow control enabled: queue %s.%s holds %s buffered messages (pgaq.buffered_max_messages = %s)',
                                 p_schema, p_queue, n, lim), '53400');
  END IF;
END $$;

-- aq.check_buffered_backlog as a condition (the plain-SQL enqueue, aq.fast_send_sql)
CREATE OR REPLACE FUNCTION aq.buffered_room(p_schema name, p_table name, p_queue name) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  PERFORM aq.check_buffered_backlog(p_schema, p_table, p_queue, 1);
  RETURN true;
END $$;

-- Expired buffered messages (the monitor moved them to state 3 in the companion, as it does
-- in any queue table) go to their exception queue as persistent messages (AQ User's Guide
-- (10.2), "Exception Queues"), with their recipient rows, in the monitor's transaction.
CREATE OR REPLACE FUNCTION aq.persist_buffered_exceptions(t aq.queue_tables, p_limit integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  b aq.queue_tables := aq.buffered_table(t);
  cols text;
  rcols text;
  ids bytea[];
BEGIN
  EXECUTE aq.sql('SELECT array_agg(msgid) FROM (SELECT msgid FROM {{schema:ident}}.{{table:ident}} WHERE state = 3 LIMIT $1 FOR UPDATE SKIP LOCKED) x',
                 jsonb_build_object('schema', b.schema_name, 'table', b.table_name)) INTO ids USING p_limit;
  IF ids IS NULL THEN
    RETURN 0;
  END IF;
  SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
  FROM pg_attribute a WHERE a.attrelid = format('%I.%I', t.schema_name, t.table_name)::regclass
    AND a.attnum > 0 AND NOT a.attisdropped;
  -- (a persistent message now: its delivery mode says so)
  -- (cols, values: the catalog's column names, each quoted)
  EXECUTE aq.sql('INSERT INTO {{schema:ident}}.{{table:ident}} ({{cols}}) SELECT {{values}} FROM {{schema:ident}}.{{from:ident}} WHERE msgid = ANY($1)',
                 jsonb_build_object('schema', t.schema_name, 'table', t.table_name, 'from', b.table_name,
                                    'cols', cols, 'values', replace(cols, 'delivery_mode', '''PERSISTENT''')))
    USING ids;
  IF t.multiple_consumers THEN
    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO rcols
    FROM pg_attribute a WHERE a.attrelid = format('%I.%I', t.schema_name, 'aq$_' || t.table_name || '_r')::regclass
      AND a.attnum > 0 AND NOT a.attisdropped;
    EXECUTE aq.sql('INSERT INTO {{schema:ident}}.{{table:ident}} ({{cols}}) SELECT {{cols}} FROM {{schema:ident}}.{{from:ident}} WHERE msgid = ANY($1)',
                   jsonb_build_object('schema', t.schema_name, 'table', 'aq$_' || t.table_name || '_r',
                                      'from', 'aq$_' || b.table_name || '_r', 'cols', rcols)) USING ids;
  END IF;
  EXECUTE aq.sql('DELETE FROM {{schema:ident}}.{{table:ident}} WHERE msgid = ANY($1)',
                 jsonb_build_object('schema', b.schema_name, 'table', b.table_name)) USING ids;
  RETURN cardinality(ids);
END $$;

-- Oracle's V$BUFFERED_QUEUES: the buffered backlog of each queue. Nothing spills here (an
-- UNLOGGED table is on disk already), so SPILL_MSGS is 0.
CREATE OR REPLACE FUNCTION aq.buffered_queue_rows()
RETURNS TABLE (queue_id integer, queue_schema name, queue_name name, num_msgs bigint,
               spill_msgs bigint, oldest_msg_enqtm timestamptz)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  t aq.queue_tables;
BEGIN
  FOR t IN SELECT * FROM aq.queue_tables x ORDER BY x.id LOOP
    CONTINUE WHEN NOT aq.has_buffered(t);
    RETURN QUERY EXECUTE aq.sql($f$
      SELECT qi.queue_id, qi.schema_name, qi.queue_name,
             (SELECT count(*) FROM {{schema:ident}}.{{table:ident}} m WHERE m.q_name = qi.queue_name AND m.state IN (0, 1)),
             0::bigint,
             (SELECT min(m.enq_time) FROM {{schema:ident}}.{{table:ident}} m WHERE m.q_name = qi.queue_name AND m.state IN (0, 1))
      FROM aq.queue_info qi
      WHERE qi.table_id = $1 AND qi.queue_type = 'NORMAL_QUEUE' AND aq.has_access(qi, 'DEQUEUE')
      ORDER BY qi.queue_id
    $f$, jsonb_build_object('schema', t.schema_name, 'table', 'aq$_' || t.table_name || '_b')) USING t.id;
  END LOOP;
END $$;

CREATE OR REPLACE VIEW aq."v$buffered_queues" AS
SELECT * FROM aq.buffered_queue_rows();
GRANT SELECT ON aq."v$buffered_queues" TO PUBLIC;

-- dbms_aqadm.drop_queue_table: the companion's generated functions and tables go with it.
CREATE OR REPLACE FUNCTION aq.drop_buffered_objects(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  b aq.queue_tables := aq.buffered_table(t);
  fn text;
BEGIN
  FOREACH fn IN ARRAY ARRAY['_enq', '_deq', '_send', '_recv', '_send1', '_sendn', '_due', '_rm1'] LOOP
    EXECUTE aq.sql('DROP FUNCTION IF EXISTS {{schema:ident}}.{{name:ident}}',
                   jsonb_build_object('schema', b.schema_name, 'name', 'aq$_' || b.table_name || fn));
  END LOOP;
  EXECUTE aq.sql('DROP TABLE IF EXISTS {{schema:ident}}.{{table:ident}}',
                 jsonb_build_object('schema', b.schema_name, 'table', 'aq$_' || b.table_name || '_r'));
  EXECUTE aq.sql('DROP TABLE IF EXISTS {{schema:ident}}.{{table:ident}}',
                 jsonb_build_object('schema', b.schema_name, 'table', b.table_name));
END $$;

-- The subscribers a message of this delivery mode goes to (AQ User's Guide (10.2),
-- "Buffered Messaging": "an application [can] express interest in persistent messages only,
-- buffered messages only, or both"): a SQL fragment over aq.subscribers aliased sub, fixed
-- text. Remote subscribers take persistent messages only (buffered messages are not
-- propagated here).
CREATE OR REPLACE FUNCTION aq.subscriber_mode_filter(p_buffered boolean) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_buffered THEN ' AND sub.delivery_mode IN (''BUFFERED'', ''PERSISTENT_OR_BUFFERED'') AND sub.address IS NULL'
              ELSE ' AND sub.delivery_mode IN (''PERSISTENT'', ''PERSISTENT_OR_BUFFERED'')' END
$$;

-- Whether the engine was handed the buffered view of a queue (aq.buffered_info).
CREATE OR REPLACE FUNCTION aq.is_buffered_info(q aq.queue_info) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT q.table_name IS DISTINCT FROM (SELECT t.table_name FROM aq.queue_tables t WHERE t.id = q.table_id)
$$;

-- Oracle's constants for delivery modes (PostgreSQL needs the parentheses:
-- delivery_mode => dbms_aq.buffered()); as text, the form the options types hold.
CREATE OR REPLACE FUNCTION dbms_aq.persistent() RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'PERSISTENT' $$;
CREATE OR REPLACE FUNCTION dbms_aq.buffered() RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'BUFFERED' $$;
CREATE OR REPLACE FUNCTION dbms_aq.persistent_or_buffered() RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT 'PERSISTENT_OR_BUFFERED' $$;
-- and for visibility, which buffered messages need (visibility => dbms_aq.immediate())
CREATE OR REPLACE FUNCTION dbms_aq.immediate() RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'IMMEDIATE' $$;
CREATE OR REPLACE FUNCTION dbms_aq.on_commit() RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'ON_COMMIT' $$;
