-- Queue-table objects: the message table, the recipients table (multi-consumer), the
-- AQ$<table> views and the default exception queue. All names come from the catalog and
-- are quoted with format('%I').

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
BEGIN
  EXECUTE format($f$
    CREATE %s TABLE %I.%I (
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
      delivery_mode     text NOT NULL DEFAULT %L,
      user_data         %s
    )$f$, persistence, s, qt, CASE WHEN buffered THEN 'BUFFERED' ELSE 'PERSISTENT' END, t.payload_type);
  EXECUTE format('COMMENT ON TABLE %I.%I IS %L', s, qt,
                 coalesce(t.comment, 'pgaq queue table'));
  -- dequeue order for READY messages of a queue (and exception-queue messages)
  EXECUTE format('CREATE INDEX %I ON %I.%I (q_name, %s) WHERE state = 0',
                 qt || '_ready', s, qt, aq.sort_columns(sk, ''));
  EXECUTE format('CREATE INDEX %I ON %I.%I (q_name, enq_seq) WHERE state = 3',
                 qt || '_exc', s, qt);
  EXECUTE format('CREATE INDEX %I ON %I.%I (ready_time) WHERE state = 1',
                 qt || '_wait', s, qt);
  EXECUTE format('CREATE INDEX %I ON %I.%I (expire_at) WHERE expire_at IS NOT NULL AND state IN (0, 1)',
                 qt || '_expiry', s, qt);
  PERFORM aq.create_queue_table_indexes(t);
  IF t.message_grouping = 'TRANSACTIONAL' THEN
    EXECUTE format('CREATE INDEX %I ON %I.%I (txn_group) WHERE txn_group IS NOT NULL',
                   qt || '_grp', s, qt);
  END IF;

  IF t.multiple_consumers THEN
    EXECUTE format($f$
      CREATE %s TABLE %I.%I (
        msgid          bytea NOT NULL REFERENCES %I.%I (msgid) ON DELETE CASCADE,
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
      )$f$, persistence, s, rt, s, qt);
    EXECUTE format('CREATE INDEX %I ON %I.%I (q_name, consumer_name, %s) WHERE state = 0 AND address = %L',
                   rt || '_ready', s, rt, aq.sort_columns(sk, ''), '');
    EXECUTE format('CREATE INDEX %I ON %I.%I (q_name, address, %s) WHERE state = 0 AND address <> %L',
                   rt || '_remote', s, rt, aq.sort_columns(sk, ''), '');
    EXECUTE format('CREATE INDEX %I ON %I.%I (ready_time) WHERE state = 1', rt || '_wait', s, rt);
    EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', s, rt, t.owner);
  END IF;
  EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', s, qt, t.owner);
  PERFORM aq.create_scan_floor(t);  -- R__12_scan_floor
  IF t.sort_list = 'COMMIT_TIME' THEN
    EXECUTE format('CREATE CONSTRAINT TRIGGER %I AFTER INSERT ON %I.%I DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW EXECUTE FUNCTION aq.stamp_commit_seq(%L)',
                   qt || '_commit_seq', s, qt, CASE WHEN t.multiple_consumers THEN rt ELSE '' END);
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

CREATE OR REPLACE FUNCTION aq.create_queue_table_views(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  s name := t.schema_name;
  qt name := t.table_name;
  rt name := ('aq$_' || t.table_name || '_r')::name;
  common text := $c$
      upper(encode(m.msgid, 'hex')) AS msg_id,
      m.corrid AS corr_id,
      m.priority AS msg_priority,
      aq.state_name(%1$s.state) AS msg_state,
      CASE WHEN m.delay > 0 THEN m.ready_time END AS delay,
      m.delay AS delay_seconds,
      m.expiration,
      m.enq_time,
      m.enq_uid AS enq_user_id,
      m.enq_agent,
      m.enq_tid AS enq_txn_id,
      %1$s.deq_time,
      %1$s.deq_uid AS deq_user_id,
      %1$s.deq_agent,
      %1$s.deq_tid AS deq_txn_id,
      %1$s.retry_count,
      m.exception_qschema AS exception_queue_owner,
      m.exception_queue,
      m.expiration_reason,
      upper(encode(m.original_msgid, 'hex')) AS original_msgid,
      m.original_queue_name,
      m.sender_name,
      m.sender_address,
      m.sender_protocol,
      m.user_data
  $c$;
  b aq.queue_tables := aq.buffered_table(t);
  -- buffered messages (R__11_buffered) show with Oracle's state IN-MEMORY
  buffered boolean := aq.has_buffered(t);
  -- implicit recipients (R__12_audience): a table that may have an audience shows them as
  -- the rows they would be, the message's state with nothing dequeued or retried yet
  audience boolean := t.multiple_consumers AND t.message_grouping = 'NONE';
BEGIN
  IF t.multiple_consumers THEN
    EXECUTE format($f$
      CREATE OR REPLACE VIEW %I.%I AS
      SELECT m.q_name AS queue, %s,
             nullif(r.consumer_name, '') AS consumer_name,
             nullif(r.address, '') AS address,
             r.protocol
      FROM %I.%I m JOIN %I.%I r ON r.msgid = m.msgid
    $f$, s, 'aq$' || qt,
         replace(format(common, 'r'), 'aq.state_name(r.state)',
                 'aq.state_name(CASE WHEN m.state = 3 THEN 3 ELSE r.state END)'),
         s, qt, s, rt)
      || CASE WHEN NOT audience THEN '' ELSE format($f$
      UNION ALL
      SELECT m.q_name AS queue, %s,
             sub.name AS consumer_name,
             NULL::text AS address,
             sub.protocol
      FROM %I.%I m
      JOIN aq.queues x ON x.queue_table_id = %s AND x.queue_name = m.q_name
      JOIN aq.subscribers sub ON sub.queue_id = x.id AND sub.address IS NULL AND %s
      CROSS JOIN LATERAL (SELECT m.state, NULL::timestamptz AS deq_time, NULL::name AS deq_uid,
                                 NULL::text AS deq_agent, NULL::text AS deq_tid, 0 AS retry_count) i
      WHERE m.state IN (0, 1)
        AND NOT EXISTS (SELECT 1 FROM %I.%I r WHERE r.msgid = m.msgid AND r.consumer_name = sub.name
                          AND r.address = '')
    $f$, format(common, 'i'), s, qt, t.id, aq.implicit_expr('sub', 'm'), s, rt) END
      || CASE WHEN NOT buffered THEN '' ELSE format($f$
      UNION ALL
      SELECT m.q_name AS queue, %s,
             nullif(r.consumer_name, '') AS consumer_name,
             nullif(r.address, '') AS address,
             r.protocol
      FROM %I.%I m JOIN %I.%I r ON r.msgid = m.msgid
    $f$, replace(format(common, 'r'), 'aq.state_name(r.state)', quote_literal('IN-MEMORY') || '::text'),
         s, b.table_name, s, 'aq$_' || b.table_name || '_r') END;
  ELSE
    EXECUTE format($f$
      CREATE OR REPLACE VIEW %I.%I AS
      SELECT m.q_name AS queue, %s
      FROM %I.%I m
    $f$, s, 'aq$' || qt, format(common, 'm'), s, qt)
      || CASE WHEN NOT buffered THEN '' ELSE format($f$
      UNION ALL
      SELECT m.q_name AS queue, %s
      FROM %I.%I m
    $f$, replace(format(common, 'm'), 'aq.state_name(m.state)', quote_literal('IN-MEMORY') || '::text'),
         s, b.table_name) END;
  END IF;
  EXECUTE format('ALTER VIEW %I.%I OWNER TO %I', s, 'aq$' || qt, t.owner);

  -- subscribers (AQ$<table>_S) and their rules (AQ$<table>_R)
  EXECUTE format($f$
    CREATE OR REPLACE VIEW %I.%I AS
    SELECT q.queue_name AS queue, s.name, s.address, s.protocol, s.transformation,
           s.delivery_mode, s.created_at AS subscriber_created
    FROM aq.subscribers s JOIN aq.queues q ON q.id = s.queue_id
    WHERE q.queue_table_id = %s
  $f$, s, 'aq$' || qt || '_s', t.id);
  EXECUTE format($f$
    CREATE OR REPLACE VIEW %I.%I AS
    SELECT q.queue_name AS queue, s.name, s.address, s.protocol, s.rule,
           format('%%s_%%s', q.queue_name, s.id) AS rule_set_name, s.transformation
    FROM aq.subscribers s JOIN aq.queues q ON q.id = s.queue_id
    WHERE q.queue_table_id = %s
  $f$, s, 'aq$' || qt || '_r', t.id);
  EXECUTE format('ALTER VIEW %I.%I OWNER TO %I', s, 'aq$' || qt || '_s', t.owner);
  EXECUTE format('ALTER VIEW %I.%I OWNER TO %I', s, 'aq$' || qt || '_r', t.owner);
END $$;

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
  EXECUTE format('UPDATE %I.%I SET commit_seq = $1 WHERE msgid = $2', TG_TABLE_SCHEMA, TG_TABLE_NAME)
    USING v, NEW.msgid;
  IF TG_ARGV[0] <> '' THEN
    EXECUTE format('UPDATE %I.%I SET commit_seq = $1 WHERE msgid = $2', TG_TABLE_SCHEMA, TG_ARGV[0])
      USING v, NEW.msgid;
  END IF;
  RETURN NULL;
END $$;

-- Indexes (and triggers) added after the first release, created on existing tables by R__99 too.
CREATE OR REPLACE FUNCTION aq.create_queue_table_indexes(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- the monitor's retention scan
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I (deq_time) WHERE state = 2',
                 t.table_name || '_done', t.schema_name, t.table_name);
  -- messages published to the subscribers without a row each (R__12_audience): a
  -- subscriber's window, by the enqueuing transaction
  -- upgrade (stays here: run for each queue table): a table made before the column gets it,
  -- as its last; release 435be0f
  -- (looked up first: ALTER TABLE locks the table even when the column is there)
  IF NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attname = 'audience' AND NOT a.attisdropped
                   AND a.attrelid = format('%I.%I', t.schema_name, t.table_name)::regclass) THEN
    EXECUTE format('ALTER TABLE %I.%I ADD COLUMN audience bigint',
                   t.schema_name, t.table_name);
  END IF;
  IF t.multiple_consumers AND t.message_grouping = 'NONE' AND NOT aq.is_buffered(t) THEN
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I (q_name, txn_group) WHERE audience IS NOT NULL AND state IN (0, 1)',
                   t.table_name || '_audience', t.schema_name, t.table_name);
    -- and, sorted by enqueue time, in queue order from the subscriber's floor (of these
    -- messages only: a topic publishing rows has none to walk past)
    IF t.sort_list = 'ENQ_TIME' THEN
      EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I (q_name, enq_seq) WHERE audience IS NOT NULL AND state = 0',
                     t.table_name || '_audience_order', t.schema_name, t.table_name);
    END IF;
  END IF;
  PERFORM aq.create_jms_provider_trigger(t);  -- R__52: JMSXUserID and JMSXAppID
END $$;
