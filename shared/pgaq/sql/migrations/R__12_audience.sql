-- A topic without a row per subscriber.
--
-- Classic AQ writes one recipient row per message and subscriber; with a thousand
-- subscribers a publish wrote a thousand rows. Here a message published to a queue's
-- subscribers (no recipient list) records the generation of the queue's audience its
-- enqueuer saw (m.audience, V0017) and gets recipient rows only for the subscribers
-- outside that audience: those with a rule (evaluated at enqueue, as Oracle does), remote
-- ones (the propagator reads their rows) and buffered-only ones. A subscriber in the
-- audience at that generation is a recipient *implicitly*:
--
--   (m, s) is pending  <=>  m.state IN (0, 1) AND m.q_name is s's queue
--                           AND s.since <= m.audience < s.until (or no until)
--                           AND no recipient row (m, s) exists
--
-- Deciding by the generation the enqueuer saw, not by the subscribers at read time, keeps
-- Oracle's rule that recipients are decided at enqueue: a subscriber that joins or leaves
-- (a rule added) while a publish is in flight gets the message or not as the enqueuer saw.
--
-- A recipient row is written when s has something particular to record about m: a
-- dequeue (REMOVE writes it PROCESSED), a failed attempt (its retry count), a purge or an
-- expiry (aq.explicitise). A row, once there, is the truth for (m, s), so every reader of
-- recipient rows reads the implicit ones beside them.
--
-- Position: s.pos is a pg_snapshot; a message whose enqueuing transaction (txn_group) it
-- sees is behind s: s holds a row for it if it wanted it. A dequeue reads only s's
-- window (audience messages not visible in s.pos), range-scanned from the position's xmin
-- on the *_audience index; aq.advance_position moves it forward after a dequeue. On a
-- queue sorted by enqueue time the window is read in queue order from s.floor instead
-- (aq.audience_floor, below), and only the floor moves.
--
-- Tables with an audience: multi-consumer, persistent (not the buffered companion), no
-- message grouping (a transaction group keeps its rows: it is read a group at a time).

CREATE OR REPLACE FUNCTION aq.has_audience(q aq.queue_info) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT q.multiple_consumers AND q.message_grouping = 'NONE' AND q.queue_type = 'NORMAL_QUEUE'
         AND NOT aq.is_buffered_info(q)
$$;

-- Whether a subscriber belongs in the audience: local, no rule, persistent messages.
CREATE OR REPLACE FUNCTION aq.joins_audience(p_address text, p_rule text, p_delivery_mode text,
                                             p_table_id integer) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT p_address IS NULL AND nullif(btrim(p_rule), '') IS NULL
         AND p_delivery_mode IN ('PERSISTENT', 'PERSISTENT_OR_BUFFERED')
         AND EXISTS (SELECT 1 FROM aq.queue_tables t WHERE t.id = p_table_id AND t.multiple_consumers
                       AND t.message_grouping = 'NONE')
$$;

-- How many members an audience needs before a publish goes to it (the setting
-- pgaq.audience_min, default 16): below that, a publish writes a row per subscriber, as
-- classic AQ does, which costs less to read back than a topic's window when the rows are
-- few. Both forms are read everywhere, so the setting may differ between sessions.
CREATE OR REPLACE FUNCTION aq.audience_min() RETURNS integer
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN current_setting('pgaq.audience_min', true) ~ '^[0-9]{1,6}$'
              THEN greatest(current_setting('pgaq.audience_min', true)::integer, 1) ELSE 16 END
$$;

-- How many messages of its window a subscriber reads before it reads its backlog as rows
-- (the setting pgaq.audience_window, default 1,000; see aq.advance_position): a dequeue
-- sorts its whole window, so a subscriber far behind would pay its backlog on every call.
CREATE OR REPLACE FUNCTION aq.audience_window() RETURNS integer
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN current_setting('pgaq.audience_window', true) ~ '^[0-9]{1,9}$'
              THEN greatest(current_setting('pgaq.audience_window', true)::integer, 1) ELSE 1000 END
$$;

-- The generation a publish to queue p_queue_id goes to when its enqueuer sees p_gen: p_gen
-- when the audience then has aq.audience_min() members, else NULL (rows for everybody).
CREATE OR REPLACE FUNCTION aq.audience_at(p_queue_id integer, p_gen bigint) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN (SELECT count(*) FROM (
                      SELECT 1 FROM aq.subscribers s
                      WHERE s.queue_id = p_queue_id AND s.since IS NOT NULL AND s.since <= p_gen
                        AND (s.until IS NULL OR p_gen < s.until)
                      LIMIT aq.audience_min()) x) >= aq.audience_min()
              THEN p_gen END
$$;

-- Subscriber `sub` is an implicit recipient of message `m` (aliases; a row (m, sub) overrides)
CREATE OR REPLACE FUNCTION aq.implicit_expr(p_sub text, p_msg text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  -- (never NULL: callers negate it)
  SELECT format('(%1$s.since IS NOT NULL AND %2$s.audience IS NOT NULL AND %1$s.since <= %2$s.audience'
                ' AND (%1$s.until IS NULL OR %2$s.audience < %1$s.until))', p_sub, p_msg)
$$;

-- The window of subscriber `sub` over message `m` (aliases): its implicit messages still
-- READY or WAITING whose transaction its position does not see. The lower bound on
-- txn_group uses the *_audience index.
CREATE OR REPLACE FUNCTION aq.audience_window_expr(p_sub text, p_msg text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT format('%2$s.audience IS NOT NULL AND %2$s.state IN (0, 1) AND %3$s'
                ' AND %2$s.txn_group >= coalesce(pg_snapshot_xmin(%1$s.pos)::text::bigint, 0)'
                ' AND (%1$s.pos IS NULL OR NOT pg_visible_in_snapshot(%2$s.txn_group::text::xid8, %1$s.pos))',
                p_sub, p_msg, aq.implicit_expr(p_sub, p_msg))
$$;

-- The advisory lock a session holds on (consumer, message) while it takes a message
-- implicitly (the SKIP LOCKED of implicit recipients): a 64-bit hash, so two pairs share a
-- lock only by a collision, which makes one of them wait for a later dequeue.
CREATE OR REPLACE FUNCTION aq.recipient_lock_key(p_queue name, p_consumer text, p_msgid bytea)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT hashtextextended(p_queue || '/' || p_consumer || '/' || encode(p_msgid, 'hex'), 1885823345)
$$;

-- The advisory lock of consumer p_consumer of queue p_queue as a whole: every implicit take
-- holds it shared, so the session holding it exclusively knows no other session of the
-- consumer holds a message it took without a row (aq.advance_position's catch-up).
CREATE OR REPLACE FUNCTION aq.consumer_lock_key(p_queue name, p_consumer text)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT hashtextextended(p_queue || '/' || p_consumer, 1885823346)
$$;

-- (Named templates, R__09_render.sql: defined here, before the functions that call them
-- are replaced in this file's transaction.)
-- R__12_audience (implicit: aq.implicit_expr('sub', 'm'), window: aq.audience_window_expr
-- ('sub', 'm'), fixed text). aq.materialise_recipients: the rows that are implicit now of
-- consumer $4 (NULL: every subscriber reading the audience) for messages $2 of queue $3 ($1)
SELECT aq.define_template('audience.materialise', $tpl$
    WITH i AS (
      INSERT INTO {{schema:ident}}.{{recipients:ident}} (msgid, consumer_name, address, protocol, subscriber_id, q_name, state,
                             priority, enq_seq, commit_seq, enq_time, ready_time, txn_group)
      SELECT m.msgid, sub.name, '', sub.protocol, sub.id, m.q_name, m.state, m.priority, m.enq_seq,
             m.commit_seq, m.enq_time, m.ready_time, m.txn_group
      FROM {{schema:ident}}.{{table:ident}} m JOIN aq.subscribers sub ON sub.queue_id = $1 AND {{implicit}}
      WHERE m.msgid = ANY ($2) AND m.q_name = $3 AND m.audience IS NOT NULL AND m.state IN (0, 1)
        AND ($4::text IS NULL OR sub.name = $4) AND sub.address IS NULL
        AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.msgid = m.msgid AND r.consumer_name = sub.name
                          AND r.address = '')
      ORDER BY m.msgid, sub.id
      ON CONFLICT DO NOTHING RETURNING 1)
    SELECT count(*) FROM i
  $tpl$);

-- aq.audience_floor: anything of the audience READY from the floor $2 on in queue $1
SELECT aq.define_template('audience.floor.any_ready', $tpl$SELECT EXISTS (SELECT 1 FROM {{schema:ident}}.{{table:ident}} m WHERE m.q_name = $1 AND m.audience IS NOT NULL AND m.state = 0 AND m.enq_seq >= $2)$tpl$);

-- aq.audience_floor: the first READY message from $4 on of subscriber $1 ($3) in queue $2
-- without a row of its own
SELECT aq.define_template('audience.floor.first_ready', $tpl$
    SELECT m.enq_seq FROM aq.subscribers sub JOIN {{schema:ident}}.{{table:ident}} m ON m.q_name = $2 AND {{window}}
    WHERE sub.id = $1 AND m.state = 0 AND m.enq_seq >= $4
      AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.msgid = m.msgid AND r.consumer_name = $3
                        AND r.address = '' OFFSET 0)
    ORDER BY m.enq_seq LIMIT 1
  $tpl$);

-- aq.advance_position: anything of the audience READY or WAITING from transaction $2 on
-- in queue $1
SELECT aq.define_template('audience.any_in_window', $tpl$SELECT EXISTS (SELECT 1 FROM {{schema:ident}}.{{table:ident}} m WHERE m.q_name = $1 AND m.audience IS NOT NULL AND m.state IN (0, 1) AND m.txn_group >= $2)$tpl$);

-- aq.advance_position: the window's messages subscriber $1 (consumer $2) has no row for in
-- queue $3, from transaction $5 on ($5: the window's start as a value, for the index: with
-- a plan made while the table was small the planner would read it from the subscriber row
-- after walking the index. A row of the subscriber is looked up per message, by the
-- primary key (OFFSET 0: not an anti-join, which with the recipients' statistics of an
-- empty table reads them all); one written by another session after one statement only
-- makes a later one see less pending.) The statements below complete it.
SELECT aq.define_template('audience.pending', $tpl$
      FROM aq.subscribers sub JOIN {{schema:ident}}.{{table:ident}} m ON m.q_name = $3 AND {{window}} AND m.txn_group >= $5
      WHERE sub.id = $1 AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.msgid = m.msgid
                                          AND r.consumer_name = $2 AND r.address = '' OFFSET 0)
    $tpl$);
-- the first READY one
SELECT aq.define_template('audience.pending.first_ready', $tpl$SELECT m.txn_group {{> audience.pending}} AND m.state = 0 ORDER BY m.txn_group LIMIT 1$tpl$);
-- the delayed ones in front of $4 (64 at most)
SELECT aq.define_template('audience.pending.delayed', $tpl$SELECT array_agg(w.msgid) FROM (SELECT m.msgid {{> audience.pending}} AND m.state = 1 AND m.txn_group < coalesce($4, 9223372036854775807) ORDER BY m.txn_group LIMIT 64 FOR KEY SHARE OF m SKIP LOCKED) w$tpl$);
-- how many are READY, up to $4
SELECT aq.define_template('audience.pending.count', $tpl$SELECT count(*) FROM (SELECT 1 {{> audience.pending}} AND m.state = 0 LIMIT $4) x$tpl$);
-- the oldest $4 READY ones get their rows
SELECT aq.define_template('audience.pending.catch_up', $tpl$
        WITH w AS (
          SELECT m.msgid, m.q_name, m.priority, m.enq_seq, m.commit_seq, m.enq_time, m.ready_time,
                 m.txn_group, sub.name, sub.protocol, sub.id {{> audience.pending}} AND m.state = 0
          ORDER BY m.txn_group LIMIT $4 FOR KEY SHARE OF m SKIP LOCKED)
        , i AS (
          INSERT INTO {{schema:ident}}.{{recipients:ident}} (msgid, consumer_name, address, protocol, subscriber_id, q_name, state,
                                 priority, enq_seq, commit_seq, enq_time, ready_time, txn_group)
          SELECT w.msgid, w.name, '', w.protocol, w.id, w.q_name, 0, w.priority, w.enq_seq,
                 w.commit_seq, w.enq_time, w.ready_time, w.txn_group
          FROM w ORDER BY w.msgid
          ON CONFLICT DO NOTHING RETURNING msgid)
        SELECT array_agg(i.msgid) FROM i
      $tpl$);
-- anything in the window, the first pending, and the snapshot the position becomes: one
-- statement, so the window is read with that snapshot
SELECT aq.define_template('audience.pending.position', $tpl$
      SELECT EXISTS (SELECT 1 FROM aq.subscribers sub JOIN {{schema:ident}}.{{table:ident}} m ON m.q_name = $3 AND {{window}} AND m.txn_group >= $5
                     WHERE sub.id = $1),
             (SELECT m.txn_group {{> audience.pending}} ORDER BY m.txn_group LIMIT 1),
             pg_current_snapshot()
    $tpl$);

-- Writes the recipient rows that are implicit now, for consumer p_consumer (NULL: every
-- subscriber reading the audience) and the messages p_ids of queue q: their state, delay
-- and order as the message has them. Returns how many it wrote. A row being written by a
-- concurrent dequeue of the same consumer is waited for and left as that dequeue wrote it.
CREATE OR REPLACE FUNCTION aq.materialise_recipients(q aq.queue_info, p_consumer text, p_ids bytea[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer := 0;
BEGIN
  IF NOT aq.has_audience(q) OR p_ids IS NULL OR cardinality(p_ids) = 0 THEN RETURN 0; END IF;
  EXECUTE aq.render_audience_materialise(jsonb_build_object('schema', q.table_schema, 'table', q.table_name, 'recipients', q.recipients_table,
                                                    'implicit', aq.implicit_expr('sub', 'm')))
  INTO n USING q.queue_id, p_ids, q.queue_name, p_consumer;
  RETURN n;
END $$;

-- Gives messages explicit recipients only: a row for every implicit recipient, then the
-- message leaves the audience. For what acts on a message as a whole (expiry into the
-- exception queue, purge), which then finds every recipient as a row, as before.
CREATE OR REPLACE FUNCTION aq.explicitise(q aq.queue_info, p_ids bytea[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT aq.has_audience(q) OR p_ids IS NULL OR cardinality(p_ids) = 0 THEN RETURN; END IF;
  PERFORM aq.materialise_recipients(q, NULL, p_ids);
  EXECUTE aq.sql('UPDATE {{schema:ident}}.{{table:ident}} m SET audience = NULL WHERE m.msgid = ANY ($1) AND m.q_name = $2 AND m.audience IS NOT NULL',
                 jsonb_build_object('schema', q.table_schema, 'table', q.table_name)) USING p_ids, q.queue_name;
END $$;

-- A subscriber joins the audience of its queue: one more generation, from which on the
-- enqueuers that see it publish to the subscriber without a row. Returns the generation.
CREATE OR REPLACE FUNCTION aq.next_audience(p_queue_id integer) RETURNS bigint
LANGUAGE sql AS $$
  UPDATE aq.queues SET audience_gen = audience_gen + 1 WHERE id = p_queue_id RETURNING audience_gen
$$;

-- Whether a REMOVE that returned `result` (of at most p_batch) moves its consumer's
-- position: one that took something and ran out (it caught up), a batch (the statements
-- are few beside it), or about every 32nd message of single ones (a byte of the id), so
-- that a one-at-a-time consumer's window stays short without two more statements per
-- message. A look that found nothing writes nothing (a waiting dequeue stays read-only).
CREATE OR REPLACE FUNCTION aq.time_to_advance(result aq.dequeued[], p_batch integer) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT result IS NOT NULL AND (cardinality(result) < p_batch OR p_batch >= 16
         OR EXISTS (SELECT 1 FROM unnest(result) x WHERE get_byte((x).msgid, 15) < 8))
$$;

-- Whether q's dequeues read a subscriber's window in queue order from its floor (below):
-- a queue sorted by enqueue time, whose READY index (q_name, enq_seq) is that order.
CREATE OR REPLACE FUNCTION aq.ordered_audience(q aq.queue_info) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT aq.has_audience(q) AND q.sort_key = 'ENQ_TIME'
$$;

-- Queues sorted by enqueue time: the floor.
--
-- A dequeue there reads its window on the READY index in queue order, from the
-- subscriber's floor (aq.subscribers.floor, V0018) on, and stops once it has its batch:
-- O(batch), whatever the backlog and however many subscribers. The invariant: no READY
-- message the subscriber may take without a row of its own (of its window, no row) has an
-- enq_seq below its floor. What could break it:
--  * a message committed later with a position drawn earlier: a transaction draws its
--    enq_seq inside its INSERT into the queue table, holding RowExclusiveLock on it from
--    before the draw to its end. A round (as the scan floor's, R__12_scan_floor) reads
--    aq.enq_seq (V), then the transactions holding that lock (W); once none of W is left,
--    every position <= V is committed or gone, and the floor may rise to V + 1 (at once
--    when W is empty). The first READY message of the window then bounds it, read in a
--    later statement, after W was seen gone (READ COMMITTED; otherwise it stays);
--  * a message made READY again: a delay's end gives the message its rows (the monitor,
--    aq.explicitise_held), so it is read as rows; a rolled-back dequeue of the subscriber
--    leaves a row (its attempt) or, in the same transaction, rolls back the floor too;
--    another session's take not yet committed has no row to see, so it holds the floor.
CREATE OR REPLACE FUNCTION aq.audience_floor(q aq.queue_info, p_sid integer, p_consumer text,
                                             p_floor bigint, p_seq bigint, p_writers text[],
                                             OUT new_floor bigint, OUT new_seq bigint, OUT new_writers text[])
LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
  w text[];
  settled bigint;  -- every position below it is committed or gone
  first_ready bigint;
  any_ready boolean;
  args jsonb;  -- the statements' (templates audience.floor.*, R__13_templates)
BEGIN
  new_floor := p_floor;
  new_seq := p_seq;
  new_writers := p_writers;
  -- nothing of the audience at or above it (a topic publishing rows): nothing to pass over
  args := jsonb_build_object('schema', q.table_schema, 'table', q.table_name, 'recipients', q.recipients_table,
                             'window', aq.audience_window_expr('sub', 'm'));
  EXECUTE aq.render_audience_floor_any_ready(args) INTO any_ready USING q.queue_name, coalesce(p_floor, 0);
  IF NOT any_ready THEN
    RETURN;
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed'
     OR NOT EXISTS (SELECT 1 FROM pg_sequence s WHERE s.seqrelid = 'aq.enq_seq'::regclass AND s.seqcache = 1) THEN
    RETURN;  -- no sound round: the floor stays
  END IF;
  v := coalesce(pg_sequence_last_value('aq.enq_seq'), 0);  -- V before W
  w := aq.scan_floor_writers(format('%I.%I', q.table_schema, q.table_name)::regclass);
  IF cardinality(w) = 0 THEN
    settled := v + 1;
  ELSIF p_seq IS NOT NULL AND NOT (coalesce(p_writers, '{}') && w) AND NOT ('prepared' = ANY (w)) THEN
    settled := p_seq + 1;
  END IF;
  IF settled IS NULL THEN
    IF p_seq IS NULL THEN
      new_seq := v;  -- a round starts
      new_writers := w;
    END IF;
    RETURN;
  END IF;
  new_seq := v;  -- the next round starts
  new_writers := w;
  EXECUTE aq.render_audience_floor_first_ready(args)
    INTO first_ready USING p_sid, q.queue_name, p_consumer, coalesce(p_floor, 0);
  new_floor := greatest(coalesce(p_floor, 0), least(coalesce(first_ready, settled), settled));
END $$;

-- Moves subscriber p_consumer's position past what it has done: to the snapshot of this
-- statement when nothing of its window is pending, else to just before the first
-- transaction with a message still pending ('X:X:', every transaction below X behind). A
-- pending message waiting out a delay gets its row first (it keeps its place in the
-- recipient rows' order and would hold the position back for the whole delay). Nothing is
-- locked or written unless the position moves (a waiting dequeue's looks stay read-only);
-- a second session of the consumer moving it meanwhile is not waited for (SKIP LOCKED),
-- nor is a message another transaction holds. On a queue sorted by enqueue time the floor
-- moves instead (aq.audience_floor), as cheaply.
-- Harmless for anybody to call: the position only says where the subscriber's rows are,
-- and it is computed here from the table.
CREATE OR REPLACE FUNCTION aq.advance_position(p_table_id integer, p_queue name, p_consumer text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  q aq.queue_info;
  ids bytea[];
  sid integer;
  old pg_snapshot;
  any_in boolean;
  lo bigint;
  target pg_snapshot;
  moved pg_snapshot;
  args jsonb;  -- the statements' (templates audience.*, R__13_templates)
  start bigint;
  n bigint;
  fl bigint;
  fseq bigint;
  fw text[];
  nf bigint;
  ns bigint;
  nw text[];
BEGIN
  SELECT * INTO q FROM aq.queue_info x WHERE x.table_id = p_table_id AND x.queue_name = p_queue;
  IF NOT FOUND OR NOT aq.has_audience(q) OR p_consumer IS NULL THEN RETURN; END IF;
  -- (COLLATE: the caller's consumer may come as a name, and the index is in the default one)
  SELECT x.id, x.pos, x.floor, x.floor_seq, x.floor_writers INTO sid, old, fl, fseq, fw FROM aq.subscribers x
  WHERE x.queue_id = q.queue_id AND x.name = p_consumer COLLATE "default" AND x.address IS NULL
    AND x.since IS NOT NULL;
  IF sid IS NULL THEN RETURN; END IF;
  IF aq.ordered_audience(q) THEN
    -- its window is read from the floor, which is all that moves (the position stays where
    -- it is: NULL, or where the release before left it)
    SELECT * INTO nf, ns, nw FROM aq.audience_floor(q, sid, p_consumer, fl, fseq, fw);
    IF nf IS DISTINCT FROM fl OR ns IS DISTINCT FROM fseq THEN
      UPDATE aq.subscribers x SET floor = nf, floor_seq = ns, floor_writers = nw
      WHERE x.id = (SELECT y.id FROM aq.subscribers y WHERE y.id = sid FOR NO KEY UPDATE SKIP LOCKED);
    END IF;
    RETURN;
  END IF;
  start := coalesce(pg_snapshot_xmin(old)::text::bigint, 0);
  -- nothing in its window (a topic publishing rows, below the audience's threshold): the
  -- position stays
  args := jsonb_build_object('schema', q.table_schema, 'table', q.table_name, 'recipients', q.recipients_table,
                             'window', aq.audience_window_expr('sub', 'm'));
  EXECUTE aq.render_audience_any_in_window(args) INTO any_in USING q.queue_name, start;
  IF any_in THEN
    -- (the window's messages the subscriber has no row for, in transaction order: the
    -- template audience.pending, parameters $1 sid, $2 consumer, $3 queue, $5 start)
    -- delayed messages in front of the first READY one get their rows (64 at most per call)
    EXECUTE aq.render_audience_pending_first_ready(args)
      INTO lo USING sid, p_consumer, q.queue_name, NULL::bigint, start;
    EXECUTE aq.render_audience_pending_delayed(args)
      INTO ids USING sid, p_consumer, q.queue_name, lo, start;
    IF ids IS NOT NULL THEN
      PERFORM aq.materialise_recipients(q, p_consumer, ids);
    END IF;
    -- A subscriber with more than aq.audience_window() messages pending in its window is
    -- behind: the oldest of them (transaction order, twenty windows at most a call) get
    -- their READY rows, so that its dequeues read its backlog by index, O(batch), as with
    -- rows written at publish, and the position moves past them. (Not on a queue sorted by
    -- enqueue time: its dequeues read from the floor, O(batch) already.)
    IF NOT aq.ordered_audience(q) THEN
      EXECUTE aq.render_audience_pending_count(args)
        INTO n USING sid, p_consumer, q.queue_name, aq.audience_window() + 1, start;
    END IF;
    -- (while no other session of the consumer holds a message it took without a row: one
    -- holding it LOCKED would otherwise find it READY again. The messages are held FOR KEY
    -- SHARE before any row is written, and one an expiry or purge holds is left: that one
    -- writes rows of its own and would wait for ours while we waited for its message.)
    IF n > aq.audience_window()
       AND pg_try_advisory_xact_lock(aq.consumer_lock_key(q.queue_name, p_consumer)) THEN
      EXECUTE aq.render_audience_pending_catch_up(args)
        INTO ids USING sid, p_consumer, q.queue_name, 20 * aq.audience_window(), start;
      IF ids IS NOT NULL THEN
        -- (a waiting session of the consumer that skipped them while this ran looks again)
        PERFORM aq.wake(q.queue_id);
      END IF;
    END IF;
    -- one statement: the window is read with the snapshot the position becomes
    EXECUTE aq.render_audience_pending_position(args)
    INTO any_in, lo, target USING sid, p_consumer, q.queue_name, NULL::bigint, start;
    IF NOT any_in THEN
      NULL;  -- nothing in its window: nothing to move past
    ELSIF lo IS NULL THEN
      moved := target;
    ELSE
      lo := least(lo, pg_snapshot_xmin(target)::text::bigint);
      IF old IS NULL OR lo > pg_snapshot_xmin(old)::text::bigint THEN  -- (else held back where it is)
        moved := (lo::text || ':' || lo::text || ':')::pg_snapshot;
      END IF;
    END IF;
  END IF;
  IF moved IS NULL THEN
    RETURN;
  END IF;
  UPDATE aq.subscribers x SET pos = moved
  WHERE x.id = (SELECT y.id FROM aq.subscribers y WHERE y.id = sid FOR NO KEY UPDATE SKIP LOCKED);
END $$;
GRANT EXECUTE ON FUNCTION aq.advance_position(integer, name, text) TO PUBLIC;
