-- Queue-table objects: the message table, the recipients table (multi-consumer), the
-- AQ$<table> views and the default exception queue. All names come from the catalog and
-- are quoted as identifiers ({{name:ident}}, R__09_render.sql).

-- The message table of t with its comment and indexes. args: the names and texts of the
-- statements, from aq.create_queue_table_objects.
CREATE OR REPLACE FUNCTION aq.create_message_table(t aq.queue_tables, args jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  qt name := t.table_name;
BEGIN
  EXECUTE aq.sql($f$
    CREATE {{persistence}} TABLE {{schema:ident}}.{{table:ident}} (
      q_name            name NOT NULL,
      msgid             bytea NOT NULL PRIMARY KEY,
      corrid            text,
      priority          integer NOT NULL DEFAULT 1,
      state             smallint NOT NULL DEFAULT 0,
      delay             integer NOT NULL DEFAULT 0,
      expiration        integer,
      ready_time        timestamptz NOT NULL,
      expire_at         timestamptz,
      enq_seq           bigint NOT NULL,
      commit_seq        bigint,
      enq_time          timestamptz NOT NULL,
      enq_uid           name NOT NULL DEFAULT current_user,
      enq_agent         text,
      enq_tid           text,
      deq_time          timestamptz,
      deq_uid           name,
      deq_agent         text,
      deq_tid           text,
      retry_count       integer NOT NULL DEFAULT 0,
      exception_qschema name,
      exception_queue   name,
      expiration_reason text,
      sender_name       text,
      sender_address    text,
      sender_protocol   integer,
      original_msgid    bytea,
      original_queue_name name,
      txn_group         bigint,
      audience          bigint,
      delivery_mode     text NOT NULL DEFAULT {{delivery_mode:literal}},
      user_data         {{payload_type}}
    )$f$, args || jsonb_build_object('delivery_mode', CASE WHEN aq.is_buffered(t) THEN 'BUFFERED' ELSE 'PERSISTENT' END));
  EXECUTE aq.sql('COMMENT ON TABLE {{schema:ident}}.{{table:ident}} IS {{comment:literal}}',
                 args || jsonb_build_object('comment', coalesce(t.comment, 'pgaq queue table')));
  -- dequeue order for READY messages of a queue (and exception-queue messages)
  EXECUTE aq.sql('CREATE INDEX {{index:ident}} ON {{schema:ident}}.{{table:ident}} (q_name, {{sort}}) WHERE state = 0',
                 args || jsonb_build_object('index', qt || '_ready'));
  EXECUTE aq.sql('CREATE INDEX {{index:ident}} ON {{schema:ident}}.{{table:ident}} (q_name, enq_seq) WHERE state = 3',
                 args || jsonb_build_object('index', qt || '_exc'));
  EXECUTE aq.sql('CREATE INDEX {{index:ident}} ON {{schema:ident}}.{{table:ident}} (ready_time) WHERE state = 1',
                 args || jsonb_build_object('index', qt || '_wait'));
  EXECUTE aq.sql('CREATE INDEX {{index:ident}} ON {{schema:ident}}.{{table:ident}} (expire_at) WHERE expire_at IS NOT NULL AND state IN (0, 1)',
                 args || jsonb_build_object('index', qt || '_expiry'));
  PERFORM aq.create_queue_table_indexes(t);
  IF t.message_grouping = 'TRANSACTIONAL' THEN
    EXECUTE aq.sql('CREATE INDEX {{index:ident}} ON {{schema:ident}}.{{table:ident}} (txn_group) WHERE txn_group IS NOT NULL',
                   args || jsonb_build_object('index', qt || '_grp'));
  END IF;
END $$;

-- The recipients table of a multi-consumer t with its indexes (args as above).
CREATE OR REPLACE FUNCTION aq.create_recipients_table(t aq.queue_tables, args jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  rt name := ('aq$_' || t.table_name || '_r')::name;
BEGIN
  EXECUTE aq.sql($f$
    CREATE {{persistence}} TABLE {{schema:ident}}.{{recipients:ident}} (
      msgid          bytea NOT NULL REFERENCES {{schema:ident}}.{{table:ident}} (msgid) ON DELETE CASCADE,
      consumer_name  text NOT NULL DEFAULT '',
      address        text NOT NULL DEFAULT '',
      protocol       integer NOT NULL DEFAULT 0,
      subscriber_id  integer,
      q_name         name NOT NULL,
      state          smallint NOT NULL DEFAULT 0,
      priority       integer NOT NULL,
      enq_seq        bigint NOT NULL,
      commit_seq     bigint,
      txn_group      bigint,
      enq_time       timestamptz NOT NULL,
      ready_time     timestamptz NOT NULL,
      retry_count    integer NOT NULL DEFAULT 0,
      deq_time       timestamptz,
      deq_uid        name,
      deq_agent      text,
      deq_tid        text,
      failure_reason text,
      PRIMARY KEY (msgid, consumer_name, address, protocol)
    )$f$, args);
  EXECUTE aq.sql($f$CREATE INDEX {{index:ident}} ON {{schema:ident}}.{{recipients:ident}} (q_name, consumer_name, {{sort}}) WHERE state = 0 AND address = ''$f$,
                 args || jsonb_build_object('index', rt || '_ready'));
  EXECUTE aq.sql($f$CREATE INDEX {{index:ident}} ON {{schema:ident}}.{{recipients:ident}} (q_name, address, {{sort}}) WHERE state = 0 AND address <> ''$f$,
                 args || jsonb_build_object('index', rt || '_remote'));
  EXECUTE aq.sql('CREATE INDEX {{index:ident}} ON {{schema:ident}}.{{recipients:ident}} (ready_time) WHERE state = 1',
                 args || jsonb_build_object('index', rt || '_wait'));
  EXECUTE aq.sql('ALTER TABLE {{schema:ident}}.{{recipients:ident}} OWNER TO {{owner:ident}}', args);
END $$;

CREATE OR REPLACE FUNCTION aq.create_queue_table_objects(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  s name := t.schema_name;
  qt name := t.table_name;
  rt name := ('aq$_' || t.table_name || '_r')::name;
  sk text := t.sort_list || CASE WHEN t.message_grouping = 'TRANSACTIONAL' THEN '+G' ELSE '' END;
  -- the companion of buffered messages (R__11_buffered): UNLOGGED, no views, grants or exception
  -- queue of its own (the queue table's cover it)
  buffered boolean := aq.is_buffered(t);
  persistence text := CASE WHEN buffered THEN 'UNLOGGED' ELSE '' END;
  -- the names of the statements below (sort: the READY indexes' columns, from the catalog's
  -- sort list; payload_type: the type's name as regtype gives it)
  args jsonb := jsonb_build_object('schema', s, 'table', qt, 'recipients', rt, 'owner', t.owner,
                                   'persistence', persistence, 'payload_type', t.payload_type::regtype::text,
                                   'sort', aq.sort_columns(sk, ''));
BEGIN
  PERFORM aq.create_message_table(t, args);
  IF t.multiple_consumers THEN
    PERFORM aq.create_recipients_table(t, args);
  END IF;
  EXECUTE aq.sql('ALTER TABLE {{schema:ident}}.{{table:ident}} OWNER TO {{owner:ident}}', args);
  PERFORM aq.create_scan_floor(t);  -- R__12_scan_floor
  IF t.sort_list = 'COMMIT_TIME' THEN
    EXECUTE aq.sql('CREATE CONSTRAINT TRIGGER {{trigger:ident}} AFTER INSERT ON {{schema:ident}}.{{table:ident}} DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW EXECUTE FUNCTION aq.stamp_commit_seq({{other:literal}})',
                   args || jsonb_build_object('trigger', qt || '_commit_seq',
                                              'other', CASE WHEN t.multiple_consumers THEN rt ELSE '' END));
  END IF;
  IF buffered THEN
    PERFORM aq.create_queue_table_functions(t);
    RETURN;
  END IF;
  PERFORM aq.create_buffered_objects(t);
  PERFORM aq.create_queue_table_views(t);
  PERFORM aq.create_queue_table_functions(t);
  PERFORM aq.apply_queue_grants(t.id);
END $$;

-- The columns every AQ$<table> view shows, of message m and row p_row (r, m or i);
-- p_state: the expression of msg_state.
CREATE OR REPLACE FUNCTION aq.queue_table_view_columns(p_row text, p_state text) RETURNS text
LANGUAGE sql STABLE AS $f$
  SELECT aq.sql($c$
      upper(encode(m.msgid, 'hex')) AS msg_id,
      m.corrid AS corr_id,
      m.priority AS msg_priority,
      {{state}} AS msg_state,
      CASE WHEN m.delay > 0 THEN m.ready_time END AS delay,
      m.delay AS delay_seconds,
      m.expiration,
      m.enq_time,
      m.enq_uid AS enq_user_id,
      m.enq_agent,
      m.enq_tid AS enq_txn_id,
      {{row}}.deq_time,
      {{row}}.deq_uid AS deq_user_id,
      {{row}}.deq_agent,
      {{row}}.deq_tid AS deq_txn_id,
      {{row}}.retry_count,
      m.exception_qschema AS exception_queue_owner,
      m.exception_queue,
      m.expiration_reason,
      upper(encode(m.original_msgid, 'hex')) AS original_msgid,
      m.original_queue_name,
      m.sender_name,
      m.sender_address,
      m.sender_protocol,
      m.user_data
  $c$, jsonb_build_object('row', p_row, 'state', p_state))
$f$;

-- The AQ$<table> view of t: a row per message, or per message and recipient on a
-- multi-consumer table, with the messages of its buffered companion.
CREATE OR REPLACE FUNCTION aq.create_queue_table_message_view(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  s name := t.schema_name;
  qt name := t.table_name;
  rt name := ('aq$_' || t.table_name || '_r')::name;
  b aq.queue_tables := aq.buffered_table(t);
  -- buffered messages (R__11_buffered) show with Oracle's state IN-MEMORY
  buffered boolean := aq.has_buffered(t);
  in_memory text := quote_literal('IN-MEMORY') || '::text';
  -- implicit recipients (R__12_audience): a table that may have an audience shows them as
  -- the rows they would be, the message's state with nothing dequeued or retried yet
  audience boolean := t.multiple_consumers AND t.message_grouping = 'NONE';
  args jsonb := jsonb_build_object('schema', s, 'table', qt, 'recipients', rt, 'owner', t.owner,
                                   'view', 'aq$' || qt, 'table_id', t.id,
                                   'buffered', b.table_name, 'buffered_recipients', 'aq$_' || b.table_name || '_r');
BEGIN
  IF t.multiple_consumers THEN
    EXECUTE aq.sql($f$
      CREATE OR REPLACE VIEW {{schema:ident}}.{{view:ident}} AS
      SELECT m.q_name AS queue, {{columns}},
             nullif(r.consumer_name, '') AS consumer_name,
             nullif(r.address, '') AS address,
             r.protocol
      FROM {{schema:ident}}.{{table:ident}} m JOIN {{schema:ident}}.{{recipients:ident}} r ON r.msgid = m.msgid
    $f$, args || jsonb_build_object('columns', aq.queue_table_view_columns(p_row => 'r', p_state => 'aq.state_name(CASE WHEN m.state = 3 THEN 3 ELSE r.state END)')))
      || CASE WHEN NOT audience THEN '' ELSE aq.sql($f$
      UNION ALL
      SELECT m.q_name AS queue, {{columns}},
             sub.name AS consumer_name,
             NULL::text AS address,
             sub.protocol
      FROM {{schema:ident}}.{{table:ident}} m
      JOIN aq.queues x ON x.queue_table_id = {{table_id}} AND x.queue_name = m.q_name
      JOIN aq.subscribers sub ON sub.queue_id = x.id AND sub.address IS NULL AND {{implicit}}
      CROSS JOIN LATERAL (SELECT m.state, NULL::timestamptz AS deq_time, NULL::name AS deq_uid,
                                 NULL::text AS deq_agent, NULL::text AS deq_tid, 0 AS retry_count) i
      WHERE m.state IN (0, 1)
        AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.msgid = m.msgid AND r.consumer_name = sub.name
                          AND r.address = '')
    $f$, args || jsonb_build_object('columns', aq.queue_table_view_columns(p_row => 'i', p_state => 'aq.state_name(i.state)'),
                                    'implicit', aq.implicit_expr('sub', 'm'))) END
      || CASE WHEN NOT buffered THEN '' ELSE aq.sql($f$
      UNION ALL
      SELECT m.q_name AS queue, {{columns}},
             nullif(r.consumer_name, '') AS consumer_name,
             nullif(r.address, '') AS address,
             r.protocol
      FROM {{schema:ident}}.{{buffered:ident}} m JOIN {{schema:ident}}.{{buffered_recipients:ident}} r ON r.msgid = m.msgid
    $f$, args || jsonb_build_object('columns', aq.queue_table_view_columns(p_row => 'r', p_state => in_memory))) END;
  ELSE
    EXECUTE aq.sql($f$
      CREATE OR REPLACE VIEW {{schema:ident}}.{{view:ident}} AS
      SELECT m.q_name AS queue, {{columns}}
      FROM {{schema:ident}}.{{table:ident}} m
    $f$, args || jsonb_build_object('columns', aq.queue_table_view_columns(p_row => 'm', p_state => 'aq.state_name(m.state)')))
      || CASE WHEN NOT buffered THEN '' ELSE aq.sql($f$
      UNION ALL
      SELECT m.q_name AS queue, {{columns}}
      FROM {{schema:ident}}.{{buffered:ident}} m
    $f$, args || jsonb_build_object('columns', aq.queue_table_view_columns(p_row => 'm', p_state => in_memory))) END;
  END IF;
  EXECUTE aq.sql('ALTER VIEW {{schema:ident}}.{{view:ident}} OWNER TO {{owner:ident}}', args);
END $$;

CREATE OR REPLACE FUNCTION aq.create_queue_table_views(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  qt name := t.table_name;
  args jsonb := jsonb_build_object('schema', t.schema_name, 'owner', t.owner, 'table_id', t.id);
BEGIN
  PERFORM aq.create_queue_table_message_view(t);

  -- subscribers (AQ$<table>_S) and their rules (AQ$<table>_R)
  EXECUTE aq.sql($f$
    CREATE OR REPLACE VIEW {{schema:ident}}.{{view:ident}} AS
    SELECT q.queue_name AS queue, s.name, s.address, s.protocol, s.transformation,
           s.delivery_mode, s.created_at AS subscriber_created
    FROM aq.subscribers s JOIN aq.queues q ON q.id = s.queue_id
    WHERE q.queue_table_id = {{table_id}}
  $f$, args || jsonb_build_object('view', 'aq$' || qt || '_s'));
  EXECUTE aq.sql($f$
    CREATE OR REPLACE VIEW {{schema:ident}}.{{view:ident}} AS
    SELECT q.queue_name AS queue, s.name, s.address, s.protocol, s.rule,
           format('%s_%s', q.queue_name, s.id) AS rule_set_name, s.transformation
    FROM aq.subscribers s JOIN aq.queues q ON q.id = s.queue_id
    WHERE q.queue_table_id = {{table_id}}
  $f$, args || jsonb_build_object('view', 'aq$' || qt || '_r'));
  EXECUTE aq.sql('ALTER VIEW {{schema:ident}}.{{view:ident}} OWNER TO {{owner:ident}}', args || jsonb_build_object('view', 'aq$' || qt || '_s'));
  EXECUTE aq.sql('ALTER VIEW {{schema:ident}}.{{view:ident}} OWNER TO {{owner:ident}}', args || jsonb_build_object('view', 'aq$' || qt || '_r'));
END $$;

-- (Named templates, R__09_render.sql: defined here, before the functions that call them
-- are replaced in this file's transaction.)
-- R__12_queue_tables, aq.stamp_commit_seq (COMMIT_TIME ordering, a row per message): the
-- commit position $1 of message $2
SELECT aq.define_template('commit_seq.stamp', $tpl$UPDATE {{schema:ident}}.{{table:ident}} SET commit_seq = $1 WHERE msgid = $2$tpl$);

-- COMMIT_TIME ordering: one sequence value per transaction, taken as it commits.
CREATE OR REPLACE FUNCTION aq.stamp_commit_seq() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v bigint := nullif(current_setting('pgaq.commit_seq', true), '')::bigint;
BEGIN
  IF v IS NULL THEN
    v := nextval('aq.commit_seq');
    PERFORM set_config('pgaq.commit_seq', v::text, true);
  END IF;
  -- (one row per message enqueued: the compiled template, R__13_templates)
  EXECUTE aq.render_commit_seq_stamp(jsonb_build_object('schema', TG_TABLE_SCHEMA, 'table', TG_TABLE_NAME))
    USING v, NEW.msgid;
  IF TG_ARGV[0] <> '' THEN
    EXECUTE aq.render_commit_seq_stamp(jsonb_build_object('schema', TG_TABLE_SCHEMA, 'table', TG_ARGV[0]))
      USING v, NEW.msgid;
  END IF;
  RETURN NULL;
END $$;

-- Indexes (and triggers) added after the first release, created on existing tables by R__99 too.
CREATE OR REPLACE FUNCTION aq.create_queue_table_indexes(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  args jsonb := jsonb_build_object('schema', t.schema_name, 'table', t.table_name);
BEGIN
  -- the monitor's retention scan
  EXECUTE aq.sql('CREATE INDEX IF NOT EXISTS {{index:ident}} ON {{schema:ident}}.{{table:ident}} (deq_time) WHERE state = 2',
                 args || jsonb_build_object('index', t.table_name || '_done'));
  -- messages published to the subscribers without a row each (R__12_audience): a
  -- subscriber's window, by the enqueuing transaction
  -- upgrade (stays here: run for each queue table): a table made before the column gets it,
  -- as its last; release 435be0f
  -- (looked up first: ALTER TABLE locks the table even when the column is there)
  IF NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attname = 'audience' AND NOT a.attisdropped
                   AND a.attrelid = format('%I.%I', t.schema_name, t.table_name)::regclass) THEN
    EXECUTE aq.sql('ALTER TABLE {{schema:ident}}.{{table:ident}} ADD COLUMN audience bigint', args);
  END IF;
  IF t.multiple_consumers AND t.message_grouping = 'NONE' AND NOT aq.is_buffered(t) THEN
    EXECUTE aq.sql('CREATE INDEX IF NOT EXISTS {{index:ident}} ON {{schema:ident}}.{{table:ident}} (q_name, txn_group) WHERE audience IS NOT NULL AND state IN (0, 1)',
                   args || jsonb_build_object('index', t.table_name || '_audience'));
    -- and, sorted by enqueue time, in queue order from the subscriber's floor (of these
    -- messages only: a topic publishing rows has none to walk past)
    IF t.sort_list = 'ENQ_TIME' THEN
      EXECUTE aq.sql('CREATE INDEX IF NOT EXISTS {{index:ident}} ON {{schema:ident}}.{{table:ident}} (q_name, enq_seq) WHERE audience IS NOT NULL AND state = 0',
                     args || jsonb_build_object('index', t.table_name || '_audience_order'));
    END IF;
  END IF;
  PERFORM aq.create_jms_provider_trigger(t);  -- R__52: JMSXUserID and JMSXAppID
END $$;
