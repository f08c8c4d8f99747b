-- The engine's generated SQL, as named templates (filled by aq.render, R__09). Read top to
-- bottom: the statements first (enqueue, dequeue, the one-statement REMOVE, the monitor's
-- due time), then the functions generated for each queue table from them
-- (aq.create_queue_table_functions, R__13_codegen.sql, says which table gets which).
--
-- Placeholders name what they hold. Parameter references are placeholders too ({{queue}},
-- {{batch}}, ...): the dynamic path passes $1, $7, ..., a generated function its
-- parameter's name, a single-message branch the literal 1.

-- ---------------------------------------------------------------------------------------
-- Enqueue: the INSERT of an array of messages (aq.enqueue_sql).
-- queue, props, now, agent: references to the queue name, the normalised properties
-- (a jsonb array), the enqueue time and the agent; payload: the user_data expression
-- (aq.payload_input_expr); audience: the generation of the queue's audience a message p goes
-- to (R__12_audience), or NULL; returning, recipients, counted: what the publish of the
-- generated _send adds (the recipient rows in the same statement); into: the PL/pgSQL
-- INTO clause of a generated function, or nothing.
SELECT aq.define_template('enqueue.insert', $tpl$
      WITH ins AS (
        -- the columns' order is the order the properties are checked in when the lateral
        -- below is pulled up (aq.normalise_props's: expiration, priority, delay, then the
        -- correlation), so every route reports the same error first
        INSERT INTO {{schema:ident}}.{{table:ident}} AS m (q_name, msgid, expiration, priority, state, delay,
            ready_time, expire_at, corrid, enq_seq, enq_time, enq_uid, enq_agent, enq_tid,
            exception_qschema, exception_queue, sender_name, sender_address, sender_protocol,
            original_msgid, original_queue_name, txn_group, audience, user_data)
        SELECT {{queue}}, aq.new_msgid({{now}}), v.exp, v.pri,
               CASE WHEN v.dly > 0 THEN 1 ELSE 0 END,
               v.dly,
               {{now}} + make_interval(secs => v.dly),
               {{now}} + make_interval(secs => v.dly) + make_interval(secs => v.exp),
               v.corr,
               nextval('aq.enq_seq'), {{now}}, current_user, {{agent}}, pg_current_xact_id()::text,
               p ->> 'exception_qschema', p ->> 'exception_queue',
               p ->> 'sender_name', p ->> 'sender_address', (p ->> 'sender_protocol')::integer,
               decode(p ->> 'original_msgid', 'hex'), p ->> 'original_queue_name',
               pg_current_xact_id()::text::bigint,
               {{audience}},
               {{payload}}
        FROM jsonb_array_elements({{props}}) WITH ORDINALITY AS e(p, i)
        CROSS JOIN LATERAL (SELECT
               nullif(aq.int_prop(p, 'expiration', NULL, -1, 25209, 'EXPIRATION'), -1) AS exp,
               aq.int_prop(p, 'priority', 1, -2147483648, 24005, 'PRIORITY') AS pri,
               aq.int_prop(p, 'delay', 0, 0, 25208, 'DELAY') AS dly,
               aq.corr_prop(p) AS corr) v
        ORDER BY e.i
        RETURNING m.msgid, m.enq_seq, m.state{{returning}}){{recipients}}
      SELECT array_agg(msgid ORDER BY enq_seq), bool_or(state = 0), bool_or(state = 1){{counted}}
      {{into}}FROM ins
    $tpl$);

-- The implicit recipients of a publish: one row per message of `from` (aliased m) and
-- subscriber (sub) that `where` selects (aq.subscriber_recipients_sql).
SELECT aq.define_template('enqueue.subscriber_recipients', $tpl$
    INSERT INTO {{schema:ident}}.{{recipients:ident}} (msgid, consumer_name, address, protocol, subscriber_id, q_name, state,
                       priority, enq_seq, enq_time, ready_time, txn_group)
    SELECT m.msgid, coalesce(sub.name, ''), coalesce(sub.address, ''), sub.protocol, sub.id,
           m.q_name, m.state, m.priority, m.enq_seq, m.enq_time, m.ready_time, m.txn_group
    FROM {{from}} CROSS JOIN aq.subscribers sub
    WHERE {{where}}$tpl$);

-- ---------------------------------------------------------------------------------------
-- Dequeue (aq.dequeue_sql): the candidates (c), the action of the mode, the result array;
-- one statement per action, each made of the parts it includes ({{> part}}).
-- queue, consumer, batch, now, agent: references; filters and selection: fragments the
-- engine built from fixed text and compiled conditions (or nothing); position: the sort
-- key as a bigint[] and order: the sort columns (aq.sort_key_expr, aq.sort_columns);
-- lock: FOR UPDATE ... SKIP LOCKED, or nothing for BROWSE; floor: where a READY scan starts
-- (aq.scan_floor_expr, R__12_scan_floor), or nothing; states: the states a candidate
-- may be in ('= 0' READY; 'IN (0, 1)' by message id, which overrides a delay; '= 3' on an
-- exception queue); default_exception_queue: the table's, which a dequeue gives as NULL
-- (Oracle Streams Advanced Queuing User's Guide 11g Release 1 (11.1), "Internet Access to
-- Oracle Streams AQ", exception_queue: "If the default exception queue is used, then the
-- parameter returns a NULL value at dequeue time").

-- The candidates of a multi-consumer queue: the consumer's recipient rows
SELECT aq.define_template('dequeue.recipients.candidates', $tpl$
        WITH c AS (
          SELECT r.msgid, r.retry_count, r.state, {{position}} AS pos
          FROM {{schema:ident}}.{{recipients:ident}} r JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = r.msgid
          WHERE r.q_name = {{queue}} AND r.consumer_name = {{consumer}} AND r.address = '' AND r.state {{states}} {{filters}} {{selection}}
          ORDER BY {{order}}
          LIMIT {{batch}} {{lock}})$tpl$);

-- The start of both windows below: the audience messages of the consumer's window in the
-- states the dequeue may take, as rows r of the recipients' columns
SELECT aq.define_template('dequeue.audience.window.rows', $tpl$
          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, {{position}} AS pos
          FROM sub CROSS JOIN {{schema:ident}}.{{table:ident}} m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = {{queue}} AND {{window}} AND m.state {{states}}$tpl$);

-- The window of an audience read whole (win), by the *_audience index from the position on,
-- and the consumer's rows among it (mine: the table's _mine, by the primary key)
SELECT aq.define_template('dequeue.audience.window.whole', $tpl${{> dequeue.audience.window.rows}}
            AND m.txn_group >= (SELECT coalesce(pg_snapshot_xmin(s0.pos)::text::bigint, 0) FROM sub s0)
            {{filters}} {{selection}})
          , mine AS MATERIALIZED (
          SELECT {{schema:ident}}.{{mine:ident}}({{consumer}}, ARRAY(SELECT w.msgid FROM win w)) AS ids)$tpl$);

-- The window of a queue sorted by enqueue time (aq.ordered_audience): its first messages in
-- queue order without a row of the consumer, read on the READY index from the consumer's
-- floor on (floor: that bound, or nothing for a look by message id, which may take a
-- WAITING message below it), as many as the candidates need; mine is then empty. The
-- consumer's row is looked up per message by the primary key (OFFSET 0: not an anti-join,
-- which a plan made with an empty recipients table's statistics makes a read of them all).
SELECT aq.define_template('dequeue.audience.window.ordered', $tpl${{> dequeue.audience.window.rows}} {{floor}}
            AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} x
                            WHERE x.msgid = m.msgid AND x.consumer_name = {{consumer}} AND x.address = ''
                            OFFSET 0)
            {{filters}} {{selection}}
          ORDER BY {{order}}
          LIMIT ({{batch}}) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)$tpl$);

-- Whether an implicit candidate w is taken (not for BROWSE): the consumer's shared lock and
-- the message's advisory lock, then the table's _take (take_fn).
SELECT aq.define_template('dequeue.audience.take', $tpl$CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key({{queue}}, {{consumer}})) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key({{queue}}, {{consumer}}, w.msgid)) THEN {{schema:ident}}.{{take_fn:ident}}({{queue}}, {{consumer}}, w.msgid) ELSE false END$tpl$);

-- The candidates of a multi-consumer queue with an audience (R__12_audience): the
-- consumer's recipient rows (e), and its implicit ones (i): the audience messages of its
-- window (win: as rows r of the recipients' columns, so that filters, selection and order
-- read both alike) without a row of the consumer (mine: its rows among them). An
-- implicit candidate is taken (take: the table's _take behind the advisory lock, or true
-- for BROWSE) in queue order, after the sort, until the batch is full: the SKIP LOCKED of
-- rows that do not exist; of the first candidates only (twice the batch and 16, a top-N
-- sort; those other sessions of the consumer hold beyond them are left to the next
-- dequeue). The batch is the first of both in queue order.
-- table_id: the queue table's; window: aq.audience_window_expr over sub and m; win: the
-- window's messages (win) and the consumer's rows among them (mine), one of the two
-- dequeue.audience.window templates above.
SELECT aq.define_template('dequeue.audience.candidates', $tpl$
        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, {{position}} AS pos, false AS implicit
          FROM {{schema:ident}}.{{recipients:ident}} r JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = r.msgid
          WHERE r.q_name = {{queue}} AND r.consumer_name = {{consumer}} AND r.address = '' AND r.state {{states}} {{filters}} {{selection}}
          ORDER BY {{order}}
          LIMIT {{batch}} {{lock}})
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = {{table_id}} AND x.queue_name = {{queue}} AND s.name = {{consumer}}
            AND s.address IS NULL AND s.since IS NOT NULL)
{{win}}
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT ({{batch}}) * 2 + 16) w
          WHERE {{take}}
          LIMIT {{batch}})
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT {{batch}})$tpl$);

-- The candidates of a single-consumer queue, or an exception queue: the message rows in
-- the states the dequeue may take
SELECT aq.define_template('dequeue.messages.candidates', $tpl$
        WITH c AS (
          SELECT m.msgid, {{position}} AS pos
          FROM {{schema:ident}}.{{table:ident}} m
          WHERE m.q_name = {{queue}} AND m.state {{states}}{{floor}} {{filters}} {{selection}}
          ORDER BY {{order}}
          LIMIT {{batch}} {{lock}})$tpl$);

-- What every dequeue returns: the messages (o) as one array in queue order
SELECT aq.define_template('dequeue.result', $tpl$
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) {{into}}FROM o
      $tpl$);

-- REMOVE from a multi-consumer queue: the recipient row is processed; the message is
-- settled once every recipient is done (aq.finish_messages)
SELECT aq.define_template('dequeue.recipients.remove', $tpl${{> dequeue.recipients.candidates}}
          , u AS (UPDATE {{schema:ident}}.{{recipients:ident}} r SET state = 2, deq_time = {{now}}, deq_uid = current_user,
                         deq_agent = {{agent}}, deq_tid = pg_current_xact_id()::text
                  FROM c WHERE r.msgid = c.msgid AND r.consumer_name = {{consumer}} AND r.address = ''
                  RETURNING r.msgid)
          , o AS (SELECT m.msgid, m.q_name, {{consumer}}, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', c.retry_count, nullif(m.exception_queue, {{default_exception_queue:literal}}), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, {{payload_json}}, {{payload_raw}}
          FROM c JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = c.msgid){{> dequeue.result}}$tpl$);

-- BROWSE or LOCKED on a multi-consumer queue
SELECT aq.define_template('dequeue.recipients.look', $tpl${{> dequeue.recipients.candidates}}
          , o AS (SELECT m.msgid, m.q_name, {{consumer}}, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(c.state), c.retry_count, nullif(m.exception_queue, {{default_exception_queue:literal}}), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, {{payload_json}}, {{payload_raw}}
          FROM c JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = c.msgid){{> dequeue.result}}$tpl$);

-- REMOVE from a queue with an audience: the consumer's rows are processed, its implicit
-- candidates get their row, PROCESSED (one a concurrent dequeue of the consumer wrote
-- first is left out)
SELECT aq.define_template('dequeue.audience.remove', $tpl${{> dequeue.audience.candidates}}
          , u AS (UPDATE {{schema:ident}}.{{recipients:ident}} r SET state = 2, deq_time = {{now}}, deq_uid = current_user,
                         deq_agent = {{agent}}, deq_tid = pg_current_xact_id()::text
                  FROM c WHERE r.msgid = c.msgid AND r.consumer_name = {{consumer}} AND r.address = '' AND NOT c.implicit
                  RETURNING r.msgid)
          , t AS (INSERT INTO {{schema:ident}}.{{recipients:ident}} AS r (msgid, consumer_name, address, protocol, subscriber_id,
                         q_name, state, priority, enq_seq, commit_seq, txn_group, enq_time, ready_time, deq_time, deq_uid,
                         deq_agent, deq_tid)
                  SELECT m.msgid, sub.name, '', sub.protocol, sub.id, m.q_name, 2, m.priority, m.enq_seq, m.commit_seq,
                         m.txn_group, m.enq_time, m.ready_time, {{now}}, current_user, {{agent}}, pg_current_xact_id()::text
                  FROM c JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = c.msgid CROSS JOIN sub
                  WHERE c.implicit
                  ON CONFLICT DO NOTHING RETURNING r.msgid)
          , o AS (SELECT m.msgid, m.q_name, {{consumer}}, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', c.retry_count, nullif(m.exception_queue, {{default_exception_queue:literal}}), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, {{payload_json}}, {{payload_raw}}
          FROM c JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = c.msgid
          WHERE NOT c.implicit OR c.msgid IN (SELECT t.msgid FROM t)){{> dequeue.result}}$tpl$);

-- BROWSE or LOCKED on a queue with an audience (a LOCKED implicit candidate is held by its
-- take until the transaction ends)
SELECT aq.define_template('dequeue.audience.look', $tpl${{> dequeue.audience.candidates}}
          , o AS (SELECT m.msgid, m.q_name, {{consumer}}, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(c.state), c.retry_count, nullif(m.exception_queue, {{default_exception_queue:literal}}), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, {{payload_json}}, {{payload_raw}}
          FROM c JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = c.msgid){{> dequeue.result}}$tpl$);

-- REMOVE with retention 0 (and from exception queues): the row goes. The rows are found by
-- their ids as an index condition on the primary key, never by a join: a queue emptied by
-- its consumers looks like a one-row table to the planner, and its join plan then walks the
-- whole primary key (every entry a pinned xmin horizon keeps) for one message.
SELECT aq.define_template('dequeue.messages.delete', $tpl${{> dequeue.messages.candidates}}
          , d AS (DELETE FROM {{schema:ident}}.{{table:ident}} m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, {{position}} AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, {{default_exception_queue:literal}}), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, {{payload_json}}, {{payload_raw}}
          FROM d m){{> dequeue.result}}$tpl$);

-- REMOVE with a retention time: the row stays, PROCESSED
SELECT aq.define_template('dequeue.messages.retain', $tpl${{> dequeue.messages.candidates}}
          , d AS (UPDATE {{schema:ident}}.{{table:ident}} m SET state = 2, deq_time = {{now}}, deq_uid = current_user,
                         deq_agent = {{agent}}, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, {{position}} AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, {{default_exception_queue:literal}}), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, {{payload_json}}, {{payload_raw}}
          FROM d m){{> dequeue.result}}$tpl$);

-- BROWSE or LOCKED on a single-consumer or exception queue (each row by its id, as above:
-- a LIMIT keeps the lookup a parameterised index scan, not a join)
SELECT aq.define_template('dequeue.messages.look', $tpl${{> dequeue.messages.candidates}}
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, {{default_exception_queue:literal}}), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, {{payload_json}}, {{payload_raw}}
          FROM c CROSS JOIN LATERAL (SELECT * FROM {{schema:ident}}.{{table:ident}} x WHERE x.msgid = c.msgid LIMIT 1) m){{> dequeue.result}}$tpl$);

-- A transactionally grouped queue: a call returns messages of one group only, the first
-- candidate's (a selection fragment of aq.dequeue_array): of recipient rows r with their
-- messages m, or of messages m. ready: the WHERE of the candidates.
SELECT aq.define_template('dequeue.first_group.recipients', $tpl$ AND r.txn_group = (
          SELECT r.txn_group FROM {{schema:ident}}.{{recipients:ident}} r JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = r.msgid WHERE {{ready}} {{filters}} {{selection}}
          ORDER BY {{order}} LIMIT 1 {{lock}})$tpl$);
SELECT aq.define_template('dequeue.first_group.messages', $tpl$ AND m.txn_group = (
          SELECT m.txn_group FROM {{schema:ident}}.{{table:ident}} m WHERE {{ready}} {{filters}} {{selection}}
          ORDER BY {{order}} LIMIT 1 {{lock}})$tpl$);

-- ---------------------------------------------------------------------------------------
-- The one-statement REMOVE (aq.fast_remove_sql): the most frequent dequeue (single
-- consumer, REMOVE, one message, retention 0) with no PL/pgSQL between it and the table.
-- ok says whether it applied (the queue exists, is a normal queue enabled for dequeue with
-- retention 0, and the acting role may dequeue it); suited = false says the queue's
-- retention keeps it on the general path. queue and after: references to the queue name
-- and the position to start after (when after_position is not empty); acting: the role
-- whose rights are checked; floor: where the READY scan starts (aq.scan_floor_expr), or
-- nothing.
SELECT aq.define_template('fast_remove', $tpl$-- aq.fast_remove_sql: REMOVE one message from {{schema:ident}}.{{table:ident}}
    WITH q AS (
      SELECT x.id FROM aq.queues x
      WHERE x.queue_table_id = {{table_id}} AND x.queue_name = {{queue}} AND x.queue_type = 'NORMAL_QUEUE'
        AND x.dequeue_enabled AND x.retention_time = 0
        AND ({{acting}} = {{owner:literal}} OR pg_has_role({{acting}}, {{owner:literal}}, 'MEMBER')
             OR aq.may_access(x.id, 'DEQUEUE', {{acting}}))),
    c AS (
      SELECT m.msgid, {{position}} AS pos FROM {{schema:ident}}.{{table:ident}} m
      WHERE m.q_name = {{queue}} AND m.state = 0{{floor}} {{after_position}} AND EXISTS (SELECT 1 FROM q)
      ORDER BY {{order}} LIMIT {{limit}} FOR UPDATE OF m SKIP LOCKED),
    d AS (DELETE FROM {{schema:ident}}.{{table:ident}} m {{delete}})
    SELECT k.ok, k.ok OR NOT EXISTS (SELECT 1 FROM aq.queues x WHERE x.queue_table_id = {{table_id}}
                                       AND x.queue_name = {{queue}} AND x.retention_time <> 0) AS suited,
           o.*
    FROM (SELECT EXISTS (SELECT 1 FROM q) AS ok) k LEFT JOIN (
      SELECT m.msgid, m.q_name::text AS queue_name, NULL::text AS consumer_name, m.corrid AS correlation,
             m.priority, m.delay, m.expiration, m.enq_time, 'PROCESSED'::text AS state,
             m.retry_count AS attempts,
             nullif(m.exception_queue, {{default_exception_queue:literal}})::text AS exception_queue, m.sender_name,
             m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position,
             {{payload_json}} AS payload_json, {{payload_raw}} AS payload_raw
      FROM d m) o ON true{{final_order}}$tpl$);

-- One ENQUEUE of one undelayed RAW message as a plain statement (aq.fast_send_sql; $1
-- queue name, $2 priority, $3 expiration (-1: none), $4 correlation, $5 agent, $6 payload):
-- no PL/pgSQL around the INSERT. It returns no row, having touched nothing, when the queue
-- is not a normal queue of this table enabled for enqueue, the caller may not enqueue to
-- it, the queue has notification registrations, or a value is one the generated _send1
-- refuses: the client then takes _send1, which raises the proper error. (The library
-- leaves such values to _send1 without running this; the statement still declines them
-- for a client of the previous release during a rolling upgrade.)
-- One INSERT .. SELECT from the queue's row (its unique key), no CTEs: every plan node is
-- set up on each execution, and the statement costs about as much again as the bare
-- INSERT of its row. The wake-up (aq.wake inline, R__11_wakeups: the statement's snapshot,
-- taken after the lock on the table its plan took, no lock of its own and no PL/pgSQL
-- call) rides on the expression of a constant column (state), evaluated once, for the row
-- about to be inserted, after the queue's checks passed: a node of its own would cost
-- more, and RETURNING cannot see the queue's id. (CASE evaluates its WHENs in order: the
-- NOTIFY only where a waiter's row was seen.)
-- The message id: the enqueue time in microseconds, as aq.new_msgid's first half, then the
-- message's enq_seq instead of 8 random bytes: unique by construction, and
-- gen_random_uuid (OpenSSL's generator) cost 6-7% of this statement's throughput.
SELECT aq.define_template('fast_send', $tpl$-- aq.fast_send_sql: ENQUEUE one message into {{schema:ident}}.{{table:ident}}
    INSERT INTO {{schema:ident}}.{{table:ident}} (q_name, msgid, corrid, priority, state, delay, expiration, ready_time,
                             expire_at, enq_seq, enq_time, enq_uid, enq_agent, enq_tid, txn_group, user_data)
    SELECT $1::name, int8send((extract(epoch FROM t.now_ts) * 1000000)::bigint) || int8send(t.seq), $4::text,
           $2::integer,
           CASE WHEN NOT EXISTS (SELECT 1 FROM aq.waiters w WHERE w.queue_id = x.id) THEN 0
                WHEN pg_notify('aq_' || x.id, '') IS NULL THEN 0 ELSE 0 END,
           0, nullif($3::integer, -1), t.now_ts, t.now_ts + make_interval(secs => nullif($3::integer, -1)),
           t.seq, t.now_ts, current_user, $5::text, pg_current_xact_id()::text,
           pg_current_xact_id()::text::bigint, $6::bytea
    FROM aq.queues x, (SELECT clock_timestamp() AS now_ts, nextval('aq.enq_seq') AS seq) t
    WHERE x.schema_name = {{queue_schema:literal}} AND x.queue_name = $1::name AND x.queue_table_id = {{table_id}}
      AND x.queue_type = 'NORMAL_QUEUE' AND x.enqueue_enabled AND NOT x.notify
      AND $3::integer >= -1 AND coalesce(length($4::text), 0) <= 128
      AND (current_user = {{owner:literal}} OR pg_has_role(current_user, {{owner:literal}}, 'MEMBER')
           OR aq.may_access(x.id, 'ENQUEUE', current_user)){{room}}
    RETURNING msgid$tpl$);

-- the buffered companion's flow control in aq.fast_send_sql (its own error, ORA-25307)
SELECT aq.define_template('fast_send.room', $tpl$
        AND aq.buffered_room({{schema:literal}}, {{table:literal}}, $1::name)$tpl$);

-- ---------------------------------------------------------------------------------------
-- The monitor's next due time of a queue table after {{after}} (aq.next_due_sql): the next
-- delay that ends, the next expiration, the next end of a retention; recipients: the
-- recipient rows' next delay on a multi-consumer table, or nothing.
SELECT aq.define_template('monitor.next_due', $tpl$
    SELECT least(
      (SELECT min(ready_time) FROM {{schema:ident}}.{{table:ident}} WHERE state = 1 AND ready_time > {{after}}),
      (SELECT min(expire_at) FROM {{schema:ident}}.{{table:ident}} WHERE state IN (0, 1) AND expire_at IS NOT NULL
                                              AND expire_at > {{after}}),
      (SELECT min(m.deq_time + make_interval(secs => q.retention_time))
         FROM {{schema:ident}}.{{table:ident}} m JOIN aq.queues q ON q.queue_table_id = {{table_id}}
          AND q.queue_name = coalesce(m.original_queue_name, m.q_name) AND q.schema_name = {{schema:literal}}
        WHERE m.state = 2 AND q.retention_time >= 0
          AND m.deq_time + make_interval(secs => q.retention_time) > {{after}})
      {{recipients}})
  $tpl$);

SELECT aq.define_template('monitor.next_due.recipients', $tpl$, (SELECT min(ready_time) FROM {{schema:ident}}.{{recipients:ident}} WHERE state = 1 AND ready_time > {{after}})$tpl$);

-- =======================================================================================
-- The functions generated for each queue table (schema, name: where each goes).

-- _enq: the INSERT of enqueue.insert with the queue's checks left to the caller
-- (aq.enqueue_array, which has made them).
SELECT aq.define_template('queue_table.enq', $tpl$
    CREATE OR REPLACE FUNCTION {{schema:ident}}.{{name:ident}}(p_queue name, p_props jsonb, p_payloads jsonb, p_raw bytea[],
                                     p_now timestamptz, p_agent text,
                                     OUT ids bytea[], OUT any_ready boolean, OUT any_wait boolean)
    LANGUAGE plpgsql AS $body$
    BEGIN
      {{insert}};
    END $body$
  $tpl$);

-- The checks every generated enqueue makes of its queue: it is a normal queue of this
-- table, enabled for enqueue, and the caller may enqueue to it. Leaves qrow set.
SELECT aq.define_template('queue_table.enqueue_checks', $tpl$SELECT q.id, q.queue_type, q.enqueue_enabled, q.notify INTO qrow
        FROM aq.queues q WHERE q.queue_table_id = {{table_id}} AND q.queue_name = p_queue;
        IF NOT FOUND OR qrow.queue_type <> 'NORMAL_QUEUE' OR NOT qrow.enqueue_enabled THEN
          IF NOT FOUND THEN
            PERFORM aq.err(24010, format('QUEUE %s.%s does not exist', {{schema:literal}}, p_queue), '42704');
          END IF;
          PERFORM aq.err(25207, format('enqueue failed, queue %s.%s is disabled from enqueueing', {{schema:literal}}, p_queue), '55000');
        END IF;
        IF current_user <> {{owner:literal}} AND NOT pg_has_role(current_user, {{owner:literal}}, 'MEMBER') THEN
          SELECT * INTO qi FROM aq.queue_info WHERE queue_id = qrow.id;
          PERFORM aq.check_access(qi, 'ENQUEUE');
        END IF;$tpl$);

-- The companion of buffered messages (R__11_buffered) adds publisher flow control.
SELECT aq.define_template('queue_table.buffered_checks', $tpl$
        PERFORM aq.check_buffered_backlog({{schema:literal}}, {{table:literal}}, p_queue, {{adding}});$tpl$);

-- _send: the library's fast path, the whole enqueue of simple messages (no recipients,
-- exception queue or transformation) on a table without message grouping. On a
-- multi-consumer table it covers the common publish: every message to all the queue's
-- subscribers, none of which has a rule; where rules or no subscribers apply it returns
-- NULL before touching anything and the client takes the general path
-- (aq.enqueue_array), which evaluates the rules or raises ORA-24033.
SELECT aq.define_template('queue_table.send', $tpl$
      CREATE OR REPLACE FUNCTION {{schema:ident}}.{{name:ident}}(p_queue name, p_props jsonb, p_payloads jsonb, p_raw bytea[],
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
        aud boolean := false;
        gen bigint;
      BEGIN
        {{queue_checks}}
        IF p_props IS NULL OR jsonb_typeof(p_props) <> 'array' OR jsonb_array_length(p_props) = 0 THEN
          PERFORM aq.err(24031, 'invalid value, message properties should be a non-empty array', '22023');
        END IF;
        {{subscribers}}
        {{payload_checks}}
        {{insert}}
        {{recipients_check}}
        IF qrow.notify THEN PERFORM aq.notify_enqueued(qrow.id, ids); END IF;
        IF any_ready  -- aq.wake (R__11) inline
           AND EXISTS (SELECT 1 FROM aq.waiters w WHERE w.queue_id = qrow.id) THEN
          PERFORM pg_notify('aq_' || qrow.id, '');
        END IF;
        IF any_wait THEN PERFORM pg_notify('aq_time', ''); END IF;
        RETURN ids;
      END $body$
    $tpl$);

-- a multi-consumer table's subscribers, all plain (no rule), or the general path
SELECT aq.define_template('queue_table.send.plain_subscribers', $tpl$
        -- (and the audience, whose members need no row per message, R__12_audience: gen
        -- NULL when it is too small to publish to)
        SELECT rc.plain_ids, aq.audience_at(qrow.id, x.audience_gen) INTO sub_ids, gen
        FROM aq.rule_cache rc JOIN aq.queues x ON x.id = rc.queue_id
        WHERE rc.queue_id = qrow.id AND rc.rules_sql IS NULL;
        IF coalesce(cardinality(sub_ids), 0) = 0 THEN
          RETURN NULL;  -- rules to evaluate, or nobody subscribed: aq.enqueue_array decides
        END IF;
        aud := gen IS NOT NULL;$tpl$);

-- every message got its recipients (a subscriber removed since the cache was read leaves
-- none)
SELECT aq.define_template('queue_table.send.every_message_has_recipients', $tpl$
        IF rec_rows < cardinality(ids) AND NOT aud THEN
          PERFORM aq.err(24033, format('no recipients for message %s on queue %s.%s',
                                       aq.msgid_hex(ids[1]), {{schema:literal}}, p_queue), '55000');
        END IF;$tpl$);

-- one RAW payload per message
SELECT aq.define_template('queue_table.send.raw_payloads', $tpl$
        IF p_raw IS NULL OR cardinality(p_raw) <> jsonb_array_length(p_props) THEN
          PERFORM aq.normalise_props((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id), p_props);
          PERFORM aq.err(25215, 'user_data type and queue type do not match: one RAW payload per message', '42804');
        END IF;$tpl$);

-- one object per message, of the payload type's attributes (payload_relid: its relation)
SELECT aq.define_template('queue_table.send.object_payloads', $tpl$
        IF p_payloads IS NULL OR jsonb_typeof(p_payloads) <> 'array'
           OR jsonb_array_length(p_payloads) <> jsonb_array_length(p_props)
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_payloads) x WHERE jsonb_typeof(x) <> 'object')
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_payloads) x, jsonb_object_keys(x) k
                      WHERE k NOT IN (SELECT a.attname FROM pg_attribute a
                                      WHERE a.attrelid = {{payload_relid}} AND a.attnum > 0 AND NOT a.attisdropped)) THEN
          -- the general route's order: every message's properties, then the payloads
          PERFORM aq.normalise_props((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id), p_props);
          PERFORM aq.check_payloads((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id),
                                    NULL::aq.transformations, jsonb_array_length(p_props), p_payloads, p_raw);
        END IF;$tpl$);

-- The errors an attribute's value wrong for its type raises in an INSERT (a property
-- check's own error, from aq.err, is raised again as it is)
SELECT aq.define_template('queue_table.payload_value_errors', $tpl$
          WHEN invalid_text_representation OR numeric_value_out_of_range OR datetime_field_overflow
            OR invalid_datetime_format OR string_data_right_truncation OR invalid_parameter_value
            OR datatype_mismatch OR invalid_binary_representation OR array_subscript_error
            OR not_null_violation OR check_violation OR invalid_escape_sequence THEN
            IF SQLERRM LIKE 'ORA-%' THEN RAISE; END IF;  -- a property check's own error (aq.err)$tpl$);

-- the INSERT where an attribute's value can be wrong for its type: that is ORA-25215,
-- after any bad property of any message (as the general route reports them)
SELECT aq.define_template('queue_table.send.insert_objects', $tpl$
        BEGIN
          {{insert}};
        EXCEPTION{{> queue_table.payload_value_errors}}
            -- a bad property of any message is reported first, as the general route does
            PERFORM aq.normalise_props((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id), p_props);
            PERFORM aq.err(25215, format('user_data type and queue type do not match: %s', SQLERRM), '42804');
        END;$tpl$);

SELECT aq.define_template('queue_table.send.insert_raw', $tpl$
        {{insert}};$tpl$);

-- _send1: one simple message with scalar arguments (no JSON to take apart), the most
-- frequent call, on single-consumer tables without message grouping. user_data: the
-- payload expression over p_raw or p_obj.
SELECT aq.define_template('queue_table.send1', $tpl$
      CREATE OR REPLACE FUNCTION {{schema:ident}}.{{name:ident}}(p_queue name, p_priority integer, p_delay integer,
                                           p_expiration integer, p_corr text, p_raw bytea,
                                           p_obj jsonb, p_agent text)
      RETURNS bytea LANGUAGE plpgsql AS $body$
      DECLARE
        qrow record;
        qi aq.queue_info;
        now_ts timestamptz := clock_timestamp();
        id bytea := aq.new_msgid(now_ts);  -- the id's first half is the enq_time
        d integer := coalesce(p_delay, 0);
        e integer := nullif(p_expiration, -1);
      BEGIN
        {{queue_checks}}
        IF d < 0 OR e < 0 OR length(p_corr) > 128 THEN  -- one test on the way of a valid call
          -- in the order aq.normalise_props checks them (the same error on every route)
          IF e < 0 THEN
            PERFORM aq.err(25209, format('invalid value %s, EXPIRATION is out of range', e), '22023');
          END IF;
          IF d < 0 THEN
            PERFORM aq.err(25208, format('invalid value %s, DELAY is out of range', d), '22023');
          END IF;
          PERFORM aq.err(24005, 'correlation identifier longer than 128 characters', '22023');
        END IF;
        {{payload_check}}
        {{insert}}
        IF qrow.notify THEN
          PERFORM aq.notify_enqueued(qrow.id, ARRAY[id]);
        END IF;
        IF d > 0 THEN
          PERFORM pg_notify('aq_time', '');
        ELSE  -- aq.wake (R__11) inline: this is the most frequent call
          IF EXISTS (SELECT 1 FROM aq.waiters w WHERE w.queue_id = qrow.id) THEN
            PERFORM pg_notify('aq_' || qrow.id, '');
          END IF;
        END IF;
        RETURN id;
      END $body$
    $tpl$);

SELECT aq.define_template('queue_table.send1.insert', $tpl$INSERT INTO {{schema:ident}}.{{table:ident}} (q_name, msgid, corrid, priority, state, delay, expiration, ready_time,
                               expire_at, enq_seq, enq_time, enq_uid, enq_agent, enq_tid, txn_group,
                               user_data)
        VALUES (p_queue, id, p_corr, coalesce(p_priority, 1), CASE WHEN d > 0 THEN 1 ELSE 0 END, d, e,
                now_ts + make_interval(secs => d),
                now_ts + make_interval(secs => d) + make_interval(secs => e),
                nextval('aq.enq_seq'), now_ts, current_user, p_agent, pg_current_xact_id()::text,
                pg_current_xact_id()::text::bigint, {{user_data}})$tpl$);

SELECT aq.define_template('queue_table.send1.object_payload', $tpl$
        IF p_obj IS NULL OR jsonb_typeof(p_obj) <> 'object'
           OR EXISTS (SELECT 1 FROM jsonb_object_keys(p_obj) k
                      WHERE k NOT IN (SELECT a.attname FROM pg_attribute a
                                      WHERE a.attrelid = {{payload_relid}} AND a.attnum > 0 AND NOT a.attisdropped)) THEN
          PERFORM aq.check_payloads((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id),
                                    NULL::aq.transformations, 1, jsonb_build_array(p_obj), NULL);
        END IF;$tpl$);

-- the object payload's value, of the payload type (type), from _send1's p_obj
SELECT aq.define_template('queue_table.send1.object_value', $tpl$jsonb_populate_record(NULL::{{type}}, p_obj)$tpl$);

SELECT aq.define_template('queue_table.send1.insert_object', $tpl$
        BEGIN
          {{insert}};
        EXCEPTION{{> queue_table.payload_value_errors}}
            PERFORM aq.err(25215, format('user_data type and queue type do not match: %s', SQLERRM), '42804');
        END;$tpl$);

-- _sendn: several simple messages with their properties as arrays (no JSON to take
-- apart), where _send1 serves one: a process's concurrent buffered sends written together
-- (pgaq.coalesce), and any array enqueue of simple messages. A value _send1 would refuse
-- (a negative delay or expiration, a correlation over 128 characters, a payload not of
-- the queue's type, arrays of different lengths) makes it return NULL before touching
-- anything: the next route reports it, in the general route's order and codes.
SELECT aq.define_template('queue_table.sendn', $tpl$
      CREATE OR REPLACE FUNCTION {{schema:ident}}.{{name:ident}}(p_queue name, p_priority integer[], p_delay integer[],
                                           p_expiration integer[], p_corr text[], p_raw bytea[],
                                           p_obj jsonb, p_agent text)
      RETURNS bytea[] LANGUAGE plpgsql AS $body$
      DECLARE
        qrow record;
        qi aq.queue_info;
        n integer := cardinality(p_priority);
        ids bytea[];
        now_ts timestamptz := clock_timestamp();
        any_wait boolean;
      BEGIN
        IF n IS NULL OR n = 0 OR cardinality(p_delay) IS DISTINCT FROM n
           OR cardinality(p_expiration) IS DISTINCT FROM n OR cardinality(p_corr) IS DISTINCT FROM n
           OR EXISTS (SELECT 1 FROM unnest(p_delay, p_expiration, p_corr) u(d, e, c)
                      WHERE d IS NULL OR d < 0 OR e < -1 OR length(c) > 128){{payload_check}} THEN
          RETURN NULL;
        END IF;
        {{queue_checks}}
        -- (unnest of a parameter, not generate_series(1, n): its row estimate does not
        -- depend on n, so PostgreSQL keeps one cached plan instead of planning every call)
        ids := ARRAY(SELECT aq.new_msgid(now_ts) FROM unnest(p_priority));
        {{insert}}
        any_wait := EXISTS (SELECT 1 FROM unnest(p_delay) d WHERE d > 0);
        IF qrow.notify THEN
          PERFORM aq.notify_enqueued(qrow.id, ids);
        END IF;
        IF any_wait THEN
          PERFORM pg_notify('aq_time', '');
        END IF;
        IF EXISTS (SELECT 1 FROM unnest(p_delay) d WHERE d = 0) THEN  -- aq.wake (R__11) inline
          IF EXISTS (SELECT 1 FROM aq.waiters w WHERE w.queue_id = qrow.id) THEN
            PERFORM pg_notify('aq_' || qrow.id, '');
          END IF;
        END IF;
        RETURN ids;
      END $body$
    $tpl$);

-- RAW: one payload per message
SELECT aq.define_template('queue_table.sendn.raw_payloads', $tpl$
           OR cardinality(p_raw) IS DISTINCT FROM n$tpl$);

-- objects: an array of one object per message, of the payload type's attributes
SELECT aq.define_template('queue_table.sendn.object_payloads', $tpl$
           OR p_obj IS NULL OR jsonb_typeof(p_obj) <> 'array' OR jsonb_array_length(p_obj) <> n
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_obj) x WHERE jsonb_typeof(x) <> 'object')
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_obj) x, jsonb_object_keys(x) k
                      WHERE k NOT IN (SELECT a.attname FROM pg_attribute a
                                      WHERE a.attrelid = {{payload_relid}} AND a.attnum > 0 AND NOT a.attisdropped))$tpl$);

-- the i-th object payload's value, of the payload type (type), from _sendn's p_obj array
SELECT aq.define_template('queue_table.sendn.object_value', $tpl$jsonb_populate_record(NULL::{{type}}, p_obj -> (i - 1)::integer)$tpl$);

SELECT aq.define_template('queue_table.sendn.insert', $tpl$INSERT INTO {{schema:ident}}.{{table:ident}} (q_name, msgid, corrid, priority, state, delay, expiration, ready_time,
                               expire_at, enq_seq, enq_time, enq_uid, enq_agent, enq_tid, txn_group,
                               user_data)
        SELECT p_queue, ids[i], p_corr[i], coalesce(p_priority[i], 1), CASE WHEN p_delay[i] > 0 THEN 1 ELSE 0 END,
               p_delay[i], nullif(p_expiration[i], -1),
               now_ts + make_interval(secs => p_delay[i]),
               now_ts + make_interval(secs => p_delay[i]) + make_interval(secs => nullif(p_expiration[i], -1)),
               nextval('aq.enq_seq'), now_ts, current_user, p_agent, pg_current_xact_id()::text,
               pg_current_xact_id()::text::bigint, {{user_data}}
        FROM unnest(ids) WITH ORDINALITY u(id, i) ORDER BY i$tpl$);

-- _deq: the dequeue without selection criteria, every case of it compiled once as static
-- SQL so PostgreSQL caches its plans: (exception | multi | single) x mode x (delete | keep)
-- x (from the start | after a position) x (one message | a batch). kinds: a
-- queue_table.deq.kind per case of the queue.
SELECT aq.define_template('queue_table.deq', $tpl$
    CREATE OR REPLACE FUNCTION {{schema:ident}}.{{name:ident}}(p_queue name, p_state integer, p_msgid bytea, p_correlation text,
                                     p_position bigint[], p_group bigint, p_batch integer,
                                     p_params text[], p_consumer text, p_now timestamptz,
                                     p_agent text, p_mode text, p_multi boolean, p_delete boolean)
    RETURNS aq.dequeued[] LANGUAGE plpgsql AS $body$
    DECLARE
      result aq.dequeued[];
    BEGIN
      {{kinds}}
      END IF;
      RETURN result;
    END $body$
  $tpl$);

-- keyword: IF for the first kind, ELSIF after; test: which calls it serves
SELECT aq.define_template('queue_table.deq.kind', $tpl$
      {{keyword}} {{test}} THEN
        IF false THEN NULL; {{modes}}
        END IF;$tpl$);

-- one mode (and, on single-consumer tables, deleting or keeping): the four statements.
-- A literal LIMIT 1 for single-message calls: with LIMIT p_batch the planner assumes a
-- tenth of the table and never settles on a cached (generic) plan.
SELECT aq.define_template('queue_table.deq.mode', $tpl$
          ELSIF p_mode = {{mode:literal}} AND ({{test}}) THEN
            IF p_position IS NULL AND p_batch = 1 THEN
              {{first_one}};
            ELSIF p_position IS NULL THEN
              {{first_many}};
            ELSIF p_batch = 1 THEN
              {{after_one}};
            ELSE
              {{after_many}};
            END IF;$tpl$);

-- a single-consumer REMOVE's branch that deletes (delete: 't') or keeps ('f') the message
SELECT aq.define_template('queue_table.deq.keep_test', $tpl$p_delete = {{delete:literal}} OR p_mode IN ('BROWSE', 'LOCKED')$tpl$);

-- _recv: the whole dequeue without selection criteria, the library's fast path, on tables
-- without message grouping. deq: the table's _deq; multi: whether the table is
-- multi-consumer.
SELECT aq.define_template('queue_table.recv', $tpl$
      CREATE OR REPLACE FUNCTION {{schema:ident}}.{{name:ident}}(p_queue name, p_consumer text, p_mode text, p_pos bigint[],
                                           p_batch integer, p_agent text, p_wrap boolean)
      RETURNS aq.dequeued[] LANGUAGE plpgsql AS $body$
      DECLARE
        qrow record;
        -- (COLLATE: a PL/pgSQL variable takes the call's collation, the queue name's "C",
        -- and the subscribers' name index is in the default one)
        consumer text COLLATE "default" := aq.agent_name(p_consumer);
        result aq.dequeued[];
        multi boolean;
        is_exc boolean;
        qi aq.queue_info;
        mode text := upper(coalesce(p_mode, 'REMOVE'));
        now_ts timestamptz := clock_timestamp();
      BEGIN
        SELECT q.id, q.queue_type, q.dequeue_enabled, q.retention_time INTO qrow
        FROM aq.queues q WHERE q.queue_table_id = {{table_id}} AND q.queue_name = p_queue;
        IF NOT FOUND THEN
          PERFORM aq.err(24010, format('QUEUE %s.%s does not exist', {{schema:literal}}, p_queue), '42704');
        END IF;
        IF mode NOT IN ('BROWSE', 'LOCKED', 'REMOVE', 'REMOVE_NODATA') THEN
          PERFORM aq.err(25239, format('invalid DEQUEUE_MODE %s', quote_literal(p_mode)), '22023');
        END IF;
        IF coalesce(p_batch, 1) < 1 OR p_batch > 10000 THEN
          PERFORM aq.err(25240, 'batch size must be between 1 and 10000', '22023');
        END IF;
        IF NOT qrow.dequeue_enabled THEN
          PERFORM aq.err(25226, format('dequeue failed, queue %s.%s is not enabled for dequeue', {{schema:literal}}, p_queue), '55000');
        END IF;
        is_exc := qrow.queue_type = 'EXCEPTION_QUEUE';
        multi := {{multi:literal}}::boolean AND NOT is_exc;
        IF is_exc AND consumer IS NOT NULL AND {{multi:literal}}::boolean THEN
          PERFORM aq.err(25231, format('exception queue %s.%s is dequeued with a NULL consumer name', {{schema:literal}}, p_queue), '22023');
        ELSIF multi AND consumer IS NULL THEN
          PERFORM aq.err(25231, format('cannot dequeue because CONSUMER_NAME not specified for multi-consumer queue %s.%s', {{schema:literal}}, p_queue), '22023');
        ELSIF NOT {{multi:literal}}::boolean AND consumer IS NOT NULL THEN
          PERFORM aq.err(24039, format('Queue %s.%s not created in queue table for multiple consumers: CONSUMER_NAME not allowed', {{schema:literal}}, p_queue), '22023');
        END IF;
        IF current_user <> {{owner:literal}} AND NOT pg_has_role(current_user, {{owner:literal}}, 'MEMBER') THEN
          SELECT * INTO qi FROM aq.queue_info WHERE queue_id = qrow.id;
          PERFORM aq.check_access(qi, 'DEQUEUE');
        END IF;
        IF multi AND EXISTS (SELECT 1 FROM aq.subscribers s WHERE s.queue_id = qrow.id
                               AND s.name = consumer AND s.transformation IS NOT NULL) THEN
          -- (dequeue_array returns a set, this function an array)
          RETURN ARRAY(SELECT d FROM aq.dequeue_array(quote_ident({{schema:literal}}) || '.' || quote_ident(p_queue), p_consumer, p_mode,
                                  'NEXT_MESSAGE', NULL, NULL, NULL, p_batch, p_pos, p_wrap, NULL, p_agent, NULL,
                                  {{delivery_mode:literal}}) d);
        END IF;
        result := {{schema:ident}}.{{deq:ident}}(p_queue, CASE WHEN is_exc THEN 3 ELSE 0 END, NULL, NULL, p_pos, NULL,
                            coalesce(p_batch, 1), NULL, consumer, now_ts, p_agent, mode, multi,
                            is_exc OR qrow.retention_time = 0 OR {{delivery_mode:literal}} = 'BUFFERED');
        IF result IS NULL AND p_pos IS NOT NULL AND coalesce(p_wrap, true) THEN
          result := {{schema:ident}}.{{deq:ident}}(p_queue, CASE WHEN is_exc THEN 3 ELSE 0 END, NULL, NULL, NULL, NULL,
                              coalesce(p_batch, 1), NULL, consumer, now_ts, p_agent, mode, multi,
                              is_exc OR qrow.retention_time = 0 OR {{delivery_mode:literal}} = 'BUFFERED');
        END IF;
        IF result IS NOT NULL AND multi AND mode IN ('REMOVE', 'REMOVE_NODATA') THEN
          SELECT * INTO qi FROM aq.queue_info WHERE queue_id = qrow.id;
          IF {{delivery_mode:literal}} = 'BUFFERED' THEN
            qi := aq.buffered_info(qi);  -- this table is the companion of buffered messages
          END IF;
          PERFORM aq.finish_messages(qi, ARRAY(SELECT (x).msgid FROM unnest(result) x));
        END IF;{{advance}}
        RETURN result;
      END $body$
    $tpl$);

-- after a REMOVE that took something on a table with an audience: the consumer's position
-- (R__12_audience; one that found nothing writes nothing, as a waiting dequeue's looks)
SELECT aq.define_template('queue_table.recv.advance', $tpl$
        IF multi AND mode IN ('REMOVE', 'REMOVE_NODATA') AND aq.time_to_advance(result, coalesce(p_batch, 1)) THEN
          PERFORM aq.advance_position({{table_id}}, p_queue, consumer);
        END IF;$tpl$);

-- _rm1: the one-statement REMOVE for a session acting as another role (a gateway agent's)
-- in autocommit, run as the queue table's owner, so no SET ROLE transaction (four round
-- trips) is needed, with every check made of the acting role explicitly. The acting role
-- is the `role` setting, which PostgreSQL let the caller take only if it could SET ROLE to
-- it (the caller sets it in the same statement: aq.fast_path's remove_role_sql); without
-- one the function does nothing (ok = false). The queue table's row-level security is
-- what the owner skips; the check of the queue (DEQUEUE privilege of the acting role on
-- exactly the queue named) is what it enforces. from_start, after: fast_remove over
-- p_queue, and p_after.
SELECT aq.define_template('queue_table.rm1', $tpl$
    CREATE OR REPLACE FUNCTION {{schema:ident}}.{{name:ident}}(p_queue name, p_after bigint[])
    RETURNS TABLE (ok boolean, suited boolean, msgid bytea, queue_name text, consumer_name text,
                   correlation text, priority integer, delay integer, expiration integer,
                   enq_time timestamptz, state text, attempts integer, exception_queue text,
                   sender_name text, sender_address text, sender_protocol integer,
                   original_msgid bytea, txn_group bigint, "position" bigint[],
                   payload_json jsonb, payload_raw bytea)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $body$
    #variable_conflict use_column
    DECLARE
      p_role name := nullif(current_setting('role'), 'none');
    BEGIN
      IF p_role IS NULL THEN
        RETURN QUERY SELECT false, false, NULL::bytea, NULL::text, NULL::text, NULL::text,
          NULL::integer, NULL::integer, NULL::integer, NULL::timestamptz, NULL::text,
          NULL::integer, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::bytea,
          NULL::bigint, NULL::bigint[], NULL::jsonb, NULL::bytea;
      ELSIF p_after IS NULL THEN
        RETURN QUERY {{from_start}};
      ELSE
        RETURN QUERY {{after}};
      END IF;
    END $body$
  $tpl$);

-- _take: whether a dequeue of p_consumer may take message p_msgid as an implicit recipient
-- (R__12_audience), called once the dequeue holds the advisory lock on (consumer, message)
-- (the SKIP LOCKED among the consumer's sessions, kept to the end of the transaction), so
-- it decides with a snapshot taken after the lock: the message is still READY or WAITING
-- and no recipient row of the consumer has appeared since the dequeue's snapshot (another
-- session's delivery committed meanwhile). The message row is held (FOR KEY SHARE) so that
-- it is not settled away before the row the dequeue writes refers to it. One statement.
-- (enable_seqscan off: its plan is cached for the session, and made while the recipients
-- table was small, one row to the planner, it walked the table for every message)
SELECT aq.define_template('queue_table.take', $tpl$
    CREATE OR REPLACE FUNCTION {{schema:ident}}.{{name:ident}}(p_queue name, p_consumer text, p_msgid bytea)
    RETURNS boolean LANGUAGE plpgsql SET enable_seqscan = off AS $body$
    BEGIN
      RETURN EXISTS (SELECT 1 FROM {{schema:ident}}.{{table:ident}} m
                     WHERE m.msgid = p_msgid AND m.state IN (0, 1) AND m.audience IS NOT NULL
                     FOR KEY SHARE SKIP LOCKED)
             AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} r
                             WHERE r.msgid = p_msgid AND r.consumer_name = p_consumer AND r.address = '');
    END $body$
  $tpl$);

-- _mine: of the messages p_ids, those p_consumer has a recipient row for (a dequeue's
-- window, R__12_audience), by the primary key (enable_seqscan off, as _take)
SELECT aq.define_template('queue_table.mine', $tpl$
    CREATE OR REPLACE FUNCTION {{schema:ident}}.{{name:ident}}(p_consumer text, p_ids bytea[])
    RETURNS bytea[] LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $body$
    BEGIN
      RETURN ARRAY(SELECT r.msgid FROM {{schema:ident}}.{{recipients:ident}} r
                   WHERE r.msgid = ANY (p_ids) AND r.consumer_name = p_consumer AND r.address = '');
    END $body$
  $tpl$);

-- _due: the monitor's next due time of the table (monitor.next_due with its plan cached)
SELECT aq.define_template('queue_table.due', $tpl$
    CREATE OR REPLACE FUNCTION {{schema:ident}}.{{name:ident}}(p_after timestamptz) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $body$
    BEGIN
      RETURN ({{next_due}});
    END $body$
  $tpl$);

-- ---------------------------------------------------------------------------------------
-- The statements other files build on their hot paths (R__09's rule: one compiled call
-- each, where aq.sql would parse the text on every call).


-- R__18_retries, aq.record_failed_attempts: a failed attempt of consumer $6 on messages $2
-- of queue $1 counted on its recipient rows (max_retries $3, retry_delay $4, now $5)
SELECT aq.define_template('retries.recipients', $tpl$
      WITH u AS (
        UPDATE {{schema:ident}}.{{recipients:ident}} r SET retry_count = r.retry_count + 1,
               state = CASE WHEN r.retry_count + 1 > $3 THEN 3 WHEN $4 > 0 THEN 1 ELSE 0 END,
               ready_time = CASE WHEN r.retry_count + 1 <= $3 AND $4 > 0
                                 THEN $5 + make_interval(secs => $4) ELSE r.ready_time END,
               failure_reason = CASE WHEN r.retry_count + 1 > $3 THEN 'MAX_RETRY_EXCEEDED' END
        WHERE r.q_name = $1 AND r.consumer_name = $6 AND r.address = '' AND r.msgid = ANY($2)
          AND r.state = 0
        RETURNING r.msgid, r.state)
      SELECT count(*), bool_or(state = 0), bool_or(state = 1),
             array_agg(msgid) FILTER (WHERE state = 3) FROM u
    $tpl$);
-- ... how many of a single-consumer queue's messages go to an exception queue dropped since
-- (exception_queue: aq.exception_target_expr, the queue they go to)
SELECT aq.define_template('retries.exception_queue_gone', $tpl$
      SELECT count(*) FROM {{schema:ident}}.{{table:ident}} m
      WHERE m.q_name = $1 AND m.msgid = ANY($2) AND m.state = 0 AND m.retry_count + 1 > $3
        AND m.exception_queue IS NOT NULL AND {{exception_queue}} <> m.exception_queue
    $tpl$);
-- ... and the attempt counted on their messages
SELECT aq.define_template('retries.messages', $tpl$
      WITH u AS (
        UPDATE {{schema:ident}}.{{table:ident}} m SET retry_count = m.retry_count + 1,
               state = CASE WHEN m.retry_count + 1 > $3 THEN 3 WHEN $4 > 0 THEN 1 ELSE 0 END,
               ready_time = CASE WHEN m.retry_count + 1 <= $3 AND $4 > 0
                                 THEN $5 + make_interval(secs => $4) ELSE m.ready_time END,
               original_queue_name = CASE WHEN m.retry_count + 1 > $3 THEN m.q_name
                                          ELSE m.original_queue_name END,
               exception_qschema = CASE WHEN m.retry_count + 1 > $3 THEN {{schema:literal}} ELSE m.exception_qschema END,
               exception_queue = CASE WHEN m.retry_count + 1 > $3 THEN {{exception_queue}} ELSE m.exception_queue END,
               q_name = CASE WHEN m.retry_count + 1 > $3 THEN {{exception_queue}} ELSE m.q_name END,
               expiration_reason = CASE WHEN m.retry_count + 1 > $3 THEN 'MAX_RETRY_EXCEEDED'
                                        ELSE m.expiration_reason END
        WHERE m.q_name = $1 AND m.msgid = ANY($2) AND m.state = 0
        RETURNING m.msgid, m.state, m.q_name)
      SELECT count(*), bool_or(state = 0), bool_or(state = 1), array_agg(DISTINCT q_name) FILTER (WHERE state = 3) FROM u
    $tpl$);

-- R__81_autonomous: the link's statements (dblink: the extension's schema). Whether the
-- link is open; one query run on it as the caller (role, application_name, lock_timeout),
-- its one text column the result; one statement run on it (R__80_pending_attempts)
SELECT aq.define_template('autonomous.is_open', $tpl$SELECT 'aq_attempts' = ANY (coalesce({{dblink:ident}}.dblink_get_connections(), '{}'))$tpl$);
SELECT aq.define_template('autonomous.as_caller', $tpl$SET LOCAL ROLE {{role:ident}}; SET LOCAL application_name = {{application_name:literal}}; SET LOCAL lock_timeout = {{lock_timeout:literal}}; {{query}}$tpl$);
SELECT aq.define_template('autonomous.fetch', $tpl$SELECT x FROM {{dblink:ident}}.dblink('aq_attempts', {{statement:literal}}) AS t(x text)$tpl$);
SELECT aq.define_template('autonomous.exec', $tpl$SELECT {{dblink:ident}}.dblink_exec('aq_attempts', {{statement:literal}})$tpl$);
-- the IMMEDIATE enqueue's and dequeue's call (aq.immediate_enqueue, aq.immediate_dequeue):
-- every argument a literal
SELECT aq.define_template('autonomous.enqueue', $tpl$SELECT aq.enqueue_array({{queue:literal}}, {{props:literal}}::jsonb, {{payloads:literal}}::jsonb, {{raw:literal}}::bytea[], {{transformation:literal}})::text$tpl$);
SELECT aq.define_template('autonomous.dequeue', $tpl$SELECT d::text FROM aq.dequeue_array({{queue:literal}}, {{consumer:literal}}, {{mode:literal}}, {{navigation:literal}}, {{msgid:literal}}::bytea, {{correlation:literal}}, {{condition:literal}}, 1, {{position:literal}}::bigint[], {{wrap:literal}}::boolean, {{transformation:literal}}, NULL, {{group:literal}}::bigint, {{delivery_mode:literal}}) d$tpl$);

-- R__15_fast_path: the DELETE's condition of fast_remove: one message, or those of c
SELECT aq.define_template('fast_remove.delete_one', $tpl$WHERE m.msgid = (SELECT c.msgid FROM c) RETURNING m.*, {{position}} AS pos$tpl$);
SELECT aq.define_template('fast_remove.delete_ids', $tpl$WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, {{position}} AS pos$tpl$);

-- R__18_retries, aq.exception_target_expr: a message's own exception queue when it still
-- exists, else the table's default
SELECT aq.define_template('retries.exception_target', $tpl$CASE WHEN EXISTS (SELECT 1 FROM aq.queues x
                        WHERE x.schema_name = m.exception_qschema AND x.queue_name = m.exception_queue
                          AND x.queue_table_id = {{table_id}} AND x.queue_type = 'EXCEPTION_QUEUE')
                   THEN m.exception_queue ELSE {{default:literal}}::name END$tpl$);

-- R__80_pending_attempts, aq.note_attempt: the dequeue attempt noted on the link
SELECT aq.define_template('pending_attempts.note', $tpl$INSERT INTO aq.pending_attempts (xid, queue_id, consumer, msgid, session_key) VALUES ({{xid:literal}}, {{queue_id}}, {{consumer:literal}}, {{msgid:literal}}, {{session_key}}) ON CONFLICT DO NOTHING; NOTIFY aq_attempt$tpl$);

-- R__60_notifications, aq.notify_enqueued (every enqueue on a queue with registrations):
-- what this transaction enqueued of messages $1, one row per recipient (consumer: its
-- name's expression; raw: the payload's, for RAW; join: its recipients)
SELECT aq.define_template('notify.messages', $tpl$
      SELECT m.msgid, {{consumer}} AS consumer, m.enq_seq,
             jsonb_build_object(
               'correlation', m.corrid, 'priority', m.priority, 'delay', m.delay,
               'expiration', m.expiration, 'enq_time', m.enq_time, 'state', m.state,
               'attempts', m.retry_count, 'exception_queue',
               CASE WHEN m.exception_queue IS NOT NULL THEN m.exception_qschema || '.' || m.exception_queue END,
               'sender_name', m.sender_name, 'sender_address', m.sender_address,
               'sender_protocol', m.sender_protocol,
               'original_msgid', upper(encode(m.original_msgid, 'hex')),
               'delivery_mode', m.delivery_mode) AS props,
             {{raw}} AS raw
      FROM {{schema:ident}}.{{table:ident}} m {{join}}
      WHERE m.msgid = ANY($1)
        AND m.enq_tid = pg_current_xact_id()::text  -- only what this transaction enqueued
  $tpl$);
-- the recipient rows
SELECT aq.define_template('notify.join.recipients', $tpl$JOIN {{schema:ident}}.{{recipients:ident}} rc ON rc.msgid = m.msgid$tpl$);
-- the implicit recipients (R__12_audience) with a registration
SELECT aq.define_template('notify.join.audience', $tpl$JOIN aq.subscribers rc ON rc.queue_id = {{queue_id}} AND rc.address IS NULL AND {{implicit}} AND EXISTS (SELECT 1 FROM aq.registrations g WHERE g.queue_id = rc.queue_id AND g.consumer_name = rc.name)$tpl$);
SELECT aq.define_template('notify.messages.implicit', $tpl${{> notify.messages}} AND m.state IN (0, 1) AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} x WHERE x.msgid = m.msgid AND x.consumer_name = rc.name AND x.address = '')$tpl$);
-- one notification per (registration, message) of queue $2 (named $3); msgs: the above,
-- UNION ALL
SELECT aq.define_template('notify.insert', $tpl$
    WITH msgs AS ({{msgs}}
    ), pairs AS (
      SELECT r.id AS reg_id, r.purge_on_notify, r.payload_delivery, r.notify_url, r.presentation,
             r.owner, r.agent_name, r.user_context, r.namespace, r.consumer_name,
             m.msgid, m.props, m.raw,
             row_number() OVER (PARTITION BY r.id ORDER BY m.enq_seq) AS nth
      FROM aq.registrations r JOIN msgs m ON r.consumer_name = coalesce(m.consumer, '')
      WHERE r.queue_id = $2 AND (r.expires_at IS NULL OR r.expires_at > clock_timestamp())
    ), ins AS (
      INSERT INTO aq.notifications (registration_id, event, queue_id, queue_name, consumer_name, msgid,
                                    message, payload, reg_name, namespace, url, dest_key, presentation,
                                    owner, agent_name, user_context)
      SELECT p.reg_id, 'MESSAGE', $2, $3, nullif(p.consumer_name, ''), p.msgid, p.props,
             CASE WHEN p.payload_delivery THEN p.raw END,
             $3 || coalesce(':' || nullif(p.consumer_name, ''), ''), p.namespace, p.notify_url,
             aq.notify_dest_key(p.notify_url), p.presentation, p.owner, p.agent_name, p.user_context
      FROM pairs p WHERE NOT p.purge_on_notify OR p.nth = 1
      ORDER BY p.reg_id, p.nth
      RETURNING registration_id
    ), purged AS (
      DELETE FROM aq.registrations r
      WHERE r.purge_on_notify AND r.id IN (SELECT registration_id FROM ins)
    )
    SELECT count(*) FROM ins
  $tpl$);
-- the callback login's call of an owner's trampoline (aq.invoke_callback), and the
-- trampoline's of the owner's procedure (aq.run_plsql_callback)
SELECT aq.define_template('callback.invoke', $tpl$SELECT aq_callbacks.{{runner:ident}}($1, $2)$tpl$);
SELECT aq.define_template('callback.call', $tpl$CALL {{schema:ident}}.{{procedure:ident}}($1, $2, $3, $4, $5)$tpl$);

-- R__70_propagation. A schedule's next_time function, called by the guard
-- (aq.eval_owned_next_time)
SELECT aq.define_template('next_time.call', $tpl$SELECT aq_next_time.{{fn:ident}}()$tpl$);
-- aq.propagation_batch: the CASE branches of a subscriber with a transformation (function:
-- the transformation's, from the catalog) ...
SELECT aq.define_template('propagation.when', $tpl$ WHEN r.subscriber_id = {{id}} THEN {{then}}$tpl$);
SELECT aq.define_template('propagation.when_literal', $tpl$ WHEN r.subscriber_id = {{id}} THEN {{then:literal}}$tpl$);
SELECT aq.define_template('propagation.transform', $tpl${{function}}(m.user_data)$tpl$);
SELECT aq.define_template('propagation.transform_json', $tpl$to_jsonb({{> propagation.transform}})$tpl$);
-- ... and the batch: up to $5 ready recipients of queue $1 whose address is like $2 ($3:
-- the destination queue, $4 the link), locked, in the order of the recipients' remote
-- index (no sort of the backlog); where: their condition, group: the first ready group's
-- only (its other recipients here included) or nothing
SELECT aq.define_template('propagation.batch', $tpl$
    SELECT r.msgid, r.consumer_name, r.address, r.protocol,
           CASE WHEN $3 <> '' THEN $3 ELSE lower(split_part(r.address, '@', 1)) END,
           jsonb_strip_nulls(jsonb_build_object(
             'priority', m.priority, 'delay', 0,
             'expiration', CASE WHEN m.expire_at IS NOT NULL
                                THEN greatest(1, ceil(extract(epoch FROM m.expire_at - clock_timestamp())))::integer END,
             'correlation', m.corrid,
             'sender_id', CASE WHEN m.sender_name IS NOT NULL OR m.sender_address IS NOT NULL THEN
                            jsonb_build_object('name', m.sender_name, 'address', m.sender_address,
                                               'protocol', m.sender_protocol) END,
             'recipient_list', CASE WHEN r.consumer_name <> '' THEN
                                 jsonb_build_array(jsonb_build_object('name', r.consumer_name)) END,
             'original_msgid', upper(encode(m.msgid, 'hex')))),
           {{payload_json}}, {{payload_raw}},
           coalesce(pg_column_size(m.user_data), 0) + coalesce(length(m.corrid), 0),
           {{signature}}, {{payload_type}}, m.txn_group
    FROM {{schema:ident}}.{{recipients:ident}} r JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = r.msgid
    WHERE {{where}} {{group}}
    ORDER BY r.address, {{order}}  -- the order of the recipients' remote index: no sort of the backlog
    LIMIT $5
    FOR UPDATE OF r SKIP LOCKED
  $tpl$);
SELECT aq.define_template('propagation.first_group', $tpl$AND r.txn_group = (SELECT r.txn_group FROM {{schema:ident}}.{{recipients:ident}} r JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = r.msgid WHERE {{where}} ORDER BY r.address, {{order}} LIMIT 1)$tpl$);
-- aq.propagation_settle: recipients ($1, $2, $3) PROCESSED, or UNDELIVERABLE for reason $4
SELECT aq.define_template('propagation.settle', $tpl$
    UPDATE {{schema:ident}}.{{recipients:ident}} r SET state = CASE WHEN $4 IS NULL THEN 2 ELSE 7 END, deq_time = clock_timestamp(),
           deq_uid = current_user, deq_agent = 'AQ$_PROPAGATOR', failure_reason = $4
    FROM unnest($1::bytea[], $2::text[], $3::text[]) AS k(msgid, consumer_name, address)
    WHERE r.msgid = k.msgid AND r.consumer_name = k.consumer_name AND r.address = k.address
      AND r.state = 0
  $tpl$);

-- R__16_enqueue. The payload of message e.i (aq.payload_input_expr): RAW from the array
-- raw, an object of type type from the JSON array payloads, or payload transformed by
-- function (references and names from the catalog)
SELECT aq.define_template('enqueue.payload.raw', $tpl$({{raw}})[e.i]$tpl$);
SELECT aq.define_template('enqueue.payload.object', $tpl$jsonb_populate_record(NULL::{{type}}, {{payloads}} -> (e.i::integer - 1))$tpl$);
SELECT aq.define_template('enqueue.payload.transformed', $tpl${{function}}({{payload}})$tpl$);
-- the generation of the audience a message p without a recipient list goes to (R__12_audience)
SELECT aq.define_template('enqueue.audience', $tpl$CASE WHEN coalesce(p -> 'recipients', 'null') = 'null'::jsonb THEN (SELECT aq.audience_at(x.id, x.audience_gen) FROM aq.queues x WHERE x.queue_table_id = {{table_id}} AND x.queue_name = {{queue}}) END$tpl$);
-- aq.enqueue_array: the call of the table's generated _enq (the same statement with a
-- cached plan)
SELECT aq.define_template('enqueue.call', $tpl$SELECT * FROM {{schema:ident}}.{{name:ident}}($1, $2, $3, $4, $5, $6)$tpl$);
-- the group properties (priority, delay, expiration) of messages $2 of queue $1: those of
-- the group's first message
SELECT aq.define_template('enqueue.group_properties', $tpl$
      UPDATE {{schema:ident}}.{{table:ident}} m SET priority = f.priority, delay = f.delay, expiration = f.expiration,
             ready_time = f.ready_time, expire_at = f.expire_at, state = f.state
      FROM (SELECT priority, delay, expiration, ready_time, expire_at, state FROM {{schema:ident}}.{{table:ident}}
            WHERE txn_group = pg_current_xact_id()::text::bigint AND q_name = $1
            ORDER BY enq_seq LIMIT 1) f
      WHERE m.msgid = ANY($2) AND (m.priority, m.delay, m.state) IS DISTINCT FROM (f.priority, f.delay, f.state)
    $tpl$);
-- the recipient rows of messages $1 with a recipient list (properties $2, ids $3)
SELECT aq.define_template('enqueue.explicit_recipients', $tpl$
        INSERT INTO {{schema:ident}}.{{recipients:ident}} (msgid, consumer_name, address, protocol, q_name, state, priority,
                           enq_seq, enq_time, ready_time, txn_group)
        SELECT m.msgid, r ->> 'name', r ->> 'address', (r ->> 'protocol')::integer, m.q_name,
               m.state, m.priority, m.enq_seq, m.enq_time, m.ready_time, m.txn_group
        FROM unnest($1::bytea[]) WITH ORDINALITY AS x(id, i)
        JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = x.id
        CROSS JOIN LATERAL jsonb_array_elements($2 -> (array_position($3, x.id) - 1) -> 'recipients') AS r
      $tpl$);
-- the messages of the implicit recipients' statement (enqueue.subscriber_recipients)
SELECT aq.define_template('enqueue.from', $tpl${{schema:ident}}.{{table:ident}} m$tpl$);
-- a message of $1 with no recipient, neither a row nor of the audience of queue $2
SELECT aq.define_template('enqueue.without_recipients', $tpl$SELECT x.id FROM unnest($1::bytea[]) x(id) JOIN {{schema:ident}}.{{table:ident}} m ON m.msgid = x.id
                    WHERE NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.msgid = x.id)
                      AND NOT EXISTS (SELECT 1 FROM aq.subscribers s WHERE s.queue_id = $2 AND {{implicit}})
                    LIMIT 1$tpl$);

-- what an earlier release defined and this one does not
SELECT aq.forget_undefined_templates();

-- ---------------------------------------------------------------------------------------
-- Settling multi-consumer messages (R__17_dequeue.sql, aq.settle_messages and its
-- helpers): run for every dequeue of a multi-consumer queue that finishes a message.
-- schema, table, recipients: the queue table, its recipient rows.

-- of messages $1 whose recipient rows can all be locked at once, those (aq.lock_free_recipients)
SELECT aq.define_template('settle.free_recipients', $tpl$
    WITH mine AS (SELECT msgid FROM {{schema:ident}}.{{recipients:ident}} WHERE msgid = ANY($1) FOR UPDATE SKIP LOCKED),
         got AS (SELECT msgid, count(*) AS n FROM mine GROUP BY msgid),
         total AS (SELECT msgid, count(*) AS n FROM {{schema:ident}}.{{recipients:ident}} WHERE msgid = ANY($1) GROUP BY msgid)
    -- (a message without any row is free: its recipients were all implicit, R__12_audience)
    SELECT array_agg(x.id) FROM unnest($1::bytea[]) x(id) LEFT JOIN total t ON t.msgid = x.id
    LEFT JOIN got g ON g.msgid = x.id WHERE coalesce(g.n, 0) = coalesce(t.n, 0)
  $tpl$);

-- the message rows of $1 this transaction can lock now
SELECT aq.define_template('settle.lock_messages', $tpl$SELECT array_agg(msgid) FROM (SELECT msgid FROM {{schema:ident}}.{{table:ident}} WHERE msgid = ANY($1) ORDER BY msgid FOR NO KEY UPDATE SKIP LOCKED) x$tpl$);

-- of messages $1, those not locked ($2): another transaction holds them
SELECT aq.define_template('settle.held', $tpl$SELECT array_agg(msgid) FROM {{schema:ident}}.{{table:ident}} WHERE msgid = ANY($1) AND NOT (msgid = ANY($2))$tpl$);

-- the messages of $1 whose recipients are all done: those processed, and how many of the
-- failed ones name an exception queue that is gone ($2: the table's exception queues;
-- $3: the queue's id); the failed ones move to their exception queue (exception_queue: the
-- table's default; implicit: aq.implicit_expr of subscriber s and message m)
SELECT aq.define_template('settle.done', $tpl$    WITH done AS (
      SELECT m.msgid,
             coalesce(bool_or(r.state = 3), false) AS failed,
             -- the message's exception queue, or the table's default when it names none or
             -- one dropped since the enqueue (AQ guides 10.1, 10.2, 11.1, "Internet Access to
             -- Oracle Streams AQ", exception_queue: a warning is logged)
             CASE WHEN m.exception_queue = ANY ($2) THEN m.exception_queue ELSE {{exception_queue:literal}}::name END AS exq,
             m.exception_queue IS NOT NULL AND NOT (m.exception_queue = ANY ($2)) AS lost,
             {{schema:literal}}::name AS exs,
             min(r.failure_reason) FILTER (WHERE r.state = 3) AS reason
      FROM {{schema:ident}}.{{table:ident}} m LEFT JOIN {{schema:ident}}.{{recipients:ident}} r ON r.msgid = m.msgid
      WHERE m.msgid = ANY($1) AND m.state IN (0, 1)
        -- a recipient still to come ends the look at once (the first such row found), so
        -- a subscriber's dequeue costs the same however many others there are
        AND NOT EXISTS (SELECT FROM {{schema:ident}}.{{recipients:ident}} o WHERE o.msgid = m.msgid AND o.state NOT IN (2, 3))
        -- and so does an implicit recipient (R__12_audience): a subscriber reading the
        -- audience without a row for the message
        -- (OFFSET 0 keeps it a look per message that stops at the first such subscriber:
        -- made a join, its estimate for a thousand subscribers had PostgreSQL compile it with
        -- JIT, a second per call. ORDER BY: the queue's subscribers by their index, not a
        -- walk of the table past other queues' subscribers to the first of this one's)
        AND NOT EXISTS (
              SELECT FROM aq.subscribers s WHERE s.queue_id = $3 AND {{implicit}}
                AND NOT EXISTS (SELECT FROM {{schema:ident}}.{{recipients:ident}} o WHERE o.msgid = m.msgid AND o.consumer_name = s.name
                                  AND o.address = '')
              OFFSET 0)
      GROUP BY m.msgid
      -- (a message with no row left: its audience removed itself)
      HAVING coalesce(bool_and(r.state IN (2, 3)), true)
    ), moved AS (
      UPDATE {{schema:ident}}.{{table:ident}} m SET q_name = d.exq, exception_qschema = d.exs, exception_queue = d.exq,
             state = 3, expiration_reason = coalesce(d.reason, 'MAX_RETRY_EXCEEDED'),
             original_queue_name = m.q_name
      FROM done d WHERE m.msgid = d.msgid AND d.failed
      RETURNING m.msgid
    )
    SELECT array_agg(d.msgid) FILTER (WHERE NOT d.failed), count(*) FILTER (WHERE d.failed AND d.lost)
    FROM done d
  $tpl$);

-- of messages $1, those not settled ($2: the settled ones) and still to settle
SELECT aq.define_template('settle.unsettled', $tpl$SELECT array_agg(msgid) FROM {{schema:ident}}.{{table:ident}} WHERE msgid = ANY($1) AND state IN (0, 1) AND NOT (msgid = ANY($2))$tpl$);

SELECT aq.define_template('settle.delete', $tpl$DELETE FROM {{schema:ident}}.{{table:ident}} WHERE msgid = ANY($1)$tpl$);

-- messages $1 but $3 PROCESSED at $2
SELECT aq.define_template('settle.processed', $tpl$UPDATE {{schema:ident}}.{{table:ident}} SET state = 2, deq_time = $2 WHERE msgid = ANY($1) AND NOT (msgid = ANY($3))$tpl$);

-- notes for the monitor to settle messages $2 of queue table $1 ($3: buffered ones), and
-- how many (aq.defer_settlement)
SELECT aq.define_template('settle.defer', $tpl$    WITH ins AS (
      INSERT INTO aq.deferred_settlements (queue_id, msgid, buffered)
      SELECT x.id, m.msgid, $3 FROM {{schema:ident}}.{{table:ident}} m JOIN aq.queues x ON x.queue_table_id = $1 AND x.queue_name = m.q_name
      WHERE m.msgid = ANY($2)
      RETURNING 1)
    SELECT count(*) FROM ins
  $tpl$);

-- the call of a queue table's generated _deq (name) by position (aq.dequeue_array)
SELECT aq.define_template('dequeue.generated', $tpl$SELECT {{schema:ident}}.{{name:ident}}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)$tpl$);

-- ---------------------------------------------------------------------------------------
-- The queue monitor's statements (R__30_monitor.sql), run on its passes over each queue
-- table. schema, table, recipients: the queue table and its recipient rows.

-- 1. delays ended ($1: now; at most $2 rows): WAIT -> READY, the message rows
SELECT aq.define_template('monitor.end_delays.messages', $tpl$
    WITH due AS (SELECT msgid FROM {{schema:ident}}.{{table:ident}} WHERE state = 1 AND ready_time <= $1
                 ORDER BY ready_time LIMIT $2 FOR UPDATE SKIP LOCKED),
         u AS (UPDATE {{schema:ident}}.{{table:ident}} m SET state = 0 FROM due WHERE m.msgid = due.msgid
               RETURNING m.q_name, m.enq_seq, m.msgid, m.audience)
    SELECT count(*), array_agg(DISTINCT q_name), min(enq_seq),
           array_agg(msgid ORDER BY msgid) FILTER (WHERE audience IS NOT NULL) FROM u
  $tpl$);

-- and the recipient rows
SELECT aq.define_template('monitor.end_delays.recipients', $tpl$
      WITH due AS (SELECT msgid, consumer_name, address, protocol FROM {{schema:ident}}.{{recipients:ident}}
                   WHERE state = 1 AND ready_time <= $1 ORDER BY ready_time LIMIT $2
                   FOR UPDATE SKIP LOCKED),
           u AS (UPDATE {{schema:ident}}.{{recipients:ident}} r SET state = 0 FROM due
                 WHERE (r.msgid, r.consumer_name, r.address, r.protocol)
                     = (due.msgid, due.consumer_name, due.address, due.protocol)
                 RETURNING r.q_name)
      SELECT count(*), array_agg(DISTINCT q_name) FROM u
    $tpl$);

-- 2a. expired messages ($1: now; at most $2) of a multi-consumer table, their rows locked
SELECT aq.define_template('monitor.expire.lock_messages', $tpl$
    SELECT array_agg(msgid ORDER BY msgid) FROM (
      SELECT msgid FROM {{schema:ident}}.{{table:ident}} WHERE state IN (0, 1) AND expire_at <= $1
      ORDER BY expire_at LIMIT $2 FOR UPDATE SKIP LOCKED) x
  $tpl$);

-- their recipient rows not done ($1: the messages) to the exception queue, those free now
SELECT aq.define_template('monitor.expire.recipients', $tpl$
      WITH free AS (SELECT msgid, consumer_name, address, protocol FROM {{schema:ident}}.{{recipients:ident}}
                    WHERE msgid = ANY($1) AND state IN (0, 1) FOR UPDATE SKIP LOCKED),
           r AS (UPDATE {{schema:ident}}.{{recipients:ident}} r SET state = 3, failure_reason = 'TIME_EXPIRATION'
                 FROM free WHERE (r.msgid, r.consumer_name, r.address, r.protocol)
                               = (free.msgid, free.consumer_name, free.address, free.protocol)
                 RETURNING r.msgid)
      SELECT array_agg(DISTINCT msgid) FROM r
    $tpl$);

-- 2b. how many expired messages ($1: now) name an exception queue not among $2 (at most $3)
SELECT aq.define_template('monitor.expire.lost', $tpl$SELECT count(*) FROM (SELECT 1 FROM {{schema:ident}}.{{table:ident}} WHERE state IN (0, 1)
                    AND expire_at <= $1 AND exception_queue IS NOT NULL
                    AND NOT (exception_queue = ANY ($2)) LIMIT $3) x$tpl$);

-- expired messages ($1: now; at most $2) of a single-consumer table to their exception
-- queue when it is among $3, else the table's default (exception_queue)
SELECT aq.define_template('monitor.expire.messages', $tpl$
    WITH due AS (SELECT msgid FROM {{schema:ident}}.{{table:ident}} WHERE state IN (0, 1) AND expire_at <= $1
                 ORDER BY expire_at LIMIT $2 FOR UPDATE SKIP LOCKED),
         u AS (UPDATE {{schema:ident}}.{{table:ident}} m SET state = 3, expiration_reason = 'TIME_EXPIRATION',
                 original_queue_name = m.q_name,
                 exception_qschema = {{schema:literal}},
                 exception_queue = CASE WHEN m.exception_queue = ANY ($3) THEN m.exception_queue
                                        ELSE {{exception_queue:literal}}::name END,
                 q_name = CASE WHEN m.exception_queue = ANY ($3) THEN m.exception_queue
                               ELSE {{exception_queue:literal}}::name END
               FROM due WHERE m.msgid = due.msgid RETURNING m.q_name)
    SELECT count(*), array_agg(DISTINCT q_name) FROM u
  $tpl$);

-- 3. processed messages whose retention ended ($1: now; at most $2), locked
SELECT aq.define_template('monitor.retention.due', $tpl$
    SELECT array_agg(x.msgid) FROM (
      SELECT m.msgid FROM {{schema:ident}}.{{table:ident}} m JOIN aq.queues q
        ON q.queue_table_id = {{table_id}} AND q.queue_name = coalesce(m.original_queue_name, m.q_name)
        AND q.schema_name = {{schema:literal}}
      WHERE m.state = 2 AND q.retention_time >= 0
        AND m.deq_time + make_interval(secs => q.retention_time) <= $1
      LIMIT $2 FOR UPDATE OF m SKIP LOCKED) x
  $tpl$);

-- messages $1 but $2 (whose recipient rows are busy) due again a second after $3
SELECT aq.define_template('monitor.retention.postpone', $tpl$
      UPDATE {{schema:ident}}.{{table:ident}} m SET deq_time = $3 + interval '1 second' - make_interval(secs => q.retention_time)
      FROM aq.queues q
      WHERE m.msgid = ANY($1) AND NOT (m.msgid = ANY($2)) AND q.queue_table_id = {{table_id}}
        AND q.queue_name = coalesce(m.original_queue_name, m.q_name) AND q.schema_name = {{schema:literal}}
    $tpl$);

-- a message row still due at $1 (for the monitor to wait on)
SELECT aq.define_template('monitor.busy_message', $tpl$SELECT msgid FROM {{schema:ident}}.{{table:ident}} WHERE (state = 1 AND ready_time <= $1)
                        OR (state IN (0, 1) AND expire_at <= $1) LIMIT 1$tpl$);

-- the call of a table's generated _due (name) at $1 (aq.table_next_due)
SELECT aq.define_template('monitor.due_call', $tpl$SELECT {{schema:ident}}.{{name:ident}}($1)$tpl$);

-- the message $1's row, locked FOR SHARE without waiting and waiting (aq.await_row_lock)
SELECT aq.define_template('monitor.row_lock_nowait', $tpl$SELECT 1 FROM {{schema:ident}}.{{table:ident}} WHERE msgid = $1 FOR SHARE NOWAIT$tpl$);
SELECT aq.define_template('monitor.row_lock', $tpl$SELECT 1 FROM {{schema:ident}}.{{table:ident}} WHERE msgid = $1 FOR SHARE$tpl$);

-- gv$aq's rows of one queue table (aq.gv_aq_rows)
SELECT aq.define_template('monitor.gv_aq', $tpl$
      SELECT q.id, q.schema_name, q.queue_name,
             count(*) FILTER (WHERE m.state = 1),
             count(*) FILTER (WHERE m.state = 0),
             count(*) FILTER (WHERE m.state = 3),
             coalesce(sum(extract(epoch FROM now() - m.ready_time)) FILTER (WHERE m.state = 0), 0)::double precision,
             coalesce(avg(extract(epoch FROM now() - m.ready_time)) FILTER (WHERE m.state = 0), 0)::double precision,
             coalesce(avg(extract(epoch FROM now() - m.enq_time)) FILTER (WHERE m.state IN (0, 1)), 0)::double precision
      FROM aq.queues q LEFT JOIN {{schema:ident}}.{{table:ident}} m ON m.q_name = q.queue_name
      WHERE q.queue_table_id = {{table_id}}
      GROUP BY q.id, q.schema_name, q.queue_name
    $tpl$);
