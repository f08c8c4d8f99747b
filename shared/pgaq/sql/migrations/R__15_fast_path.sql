-- The library's fast path: for a queue, the generated functions it may call directly
-- (quoted with format('%I')), or NULL where only the general path applies.
-- remove_sql / remove_after_sql: the most frequent dequeue (single consumer, REMOVE, one
-- message, retention 0) as one plain statement the client prepares, with no PL/pgSQL
-- between it and the table (the function layers cost more than the dequeue itself).
-- One REMOVE of the first READY message ($1 queue name; $2 the position to start after).
-- The first column, ok, says whether the statement applied: the queue exists, is a
-- normal queue enabled for dequeue with retention 0, and the caller may dequeue it. When
-- it is false nothing was touched and the client takes the general path, which raises
-- the proper error or handles the case; suited = false says the queue's settings
-- (retention) keep it on the general path, so the client stops trying this statement. The queue's row is read in the statement itself,
-- so an alter_queue or stop_queue takes effect at once.
CREATE OR REPLACE FUNCTION aq.fast_remove_sql(q aq.queue_info, p_after boolean) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  outp text[] := aq.payload_output_expr(q, NULL::aq.transformations, 'm');
BEGIN
  RETURN format($f$-- aq.fast_remove_sql: REMOVE one message from %1$I.%2$I
    WITH q AS (
      SELECT x.id FROM aq.queues x
      WHERE x.queue_table_id = %3$s AND x.queue_name = $1::name AND x.queue_type = 'NORMAL_QUEUE'
        AND x.dequeue_enabled AND x.retention_time = 0
        AND (current_user = %4$L OR pg_has_role(current_user, %4$L, 'MEMBER')
             OR aq.has_access_as((SELECT i FROM aq.queue_info i WHERE i.queue_id = x.id), 'DEQUEUE', current_user))),
    c AS (
      SELECT m.msgid, %5$s AS pos FROM %1$I.%2$I m
      WHERE m.q_name = $1::name AND m.state = 0 %6$s AND EXISTS (SELECT 1 FROM q)
      ORDER BY %7$s LIMIT 1 FOR UPDATE OF m SKIP LOCKED),
    d AS (DELETE FROM %1$I.%2$I m USING c WHERE m.msgid = c.msgid RETURNING m.*, c.pos)
    SELECT k.ok, k.ok OR NOT EXISTS (SELECT 1 FROM aq.queues x WHERE x.queue_table_id = %3$s
                                       AND x.queue_name = $1::name AND x.retention_time <> 0) AS suited,
           o.*
    FROM (SELECT EXISTS (SELECT 1 FROM q) AS ok) k LEFT JOIN (
      SELECT m.msgid, m.q_name::text AS queue_name, NULL::text AS consumer_name, m.corrid AS correlation,
             m.priority, m.delay, m.expiration, m.enq_time, 'PROCESSED'::text AS state,
             m.retry_count AS attempts, m.exception_queue::text AS exception_queue, m.sender_name,
             m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position,
             %8$s AS payload_json, %9$s AS payload_raw
      FROM d m) o ON true$f$,
    q.table_schema, q.table_name, q.table_id, q.owner,
    aq.sort_key_expr(q.sort_key, 'm'),
    CASE WHEN p_after THEN ' AND ' || replace(aq.after_position_expr(q.sort_key, 'm', 2), '($2)', '($2::bigint[])')
         ELSE '' END,
    aq.sort_columns(q.sort_key, 'm'), outp[1], outp[2]);
END $$;

-- One RAW message enqueued ($1 queue, $2 priority, $3 delay, $4 expiration (-1 never),
-- $5 correlation, $6 payload, $7 agent), as aq$_<table>_send1 does it. ok is false (and
-- nothing is inserted) unless the queue is a normal queue enabled for enqueue, without
-- notification registrations, the caller may enqueue and the values are in range: the
-- general path then raises the proper error or does the rest (suited = false: the queue has
-- notification registrations, the client stops trying this statement).
CREATE OR REPLACE FUNCTION aq.fast_send_sql(q aq.queue_info) RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN format($f$-- aq.fast_send_sql: enqueue one RAW message into %1$I.%2$I
    WITH q AS (
      SELECT x.id FROM aq.queues x
      WHERE x.queue_table_id = %3$s AND x.queue_name = $1::name AND x.queue_type = 'NORMAL_QUEUE'
        AND x.enqueue_enabled AND NOT x.notify
        AND coalesce($3::integer, 0) >= 0 AND coalesce($4::integer, -1) >= -1
        AND coalesce(length($5::text), 0) <= 128
        AND (current_user = %4$L OR pg_has_role(current_user, %4$L, 'MEMBER')
             OR aq.has_access_as((SELECT i FROM aq.queue_info i WHERE i.queue_id = x.id), 'ENQUEUE', current_user))),
    ins AS (
      INSERT INTO %1$I.%2$I (q_name, msgid, corrid, priority, state, delay, expiration, ready_time,
                             expire_at, enq_seq, enq_time, enq_uid, enq_agent, enq_tid, txn_group, user_data)
      SELECT $1::name, uuid_send(gen_random_uuid()), $5::text, coalesce($2::integer, 1),
             CASE WHEN coalesce($3, 0) > 0 THEN 1 ELSE 0 END, coalesce($3, 0), nullif($4, -1),
             t.now + make_interval(secs => coalesce($3, 0)),
             t.now + make_interval(secs => coalesce($3, 0)) + make_interval(secs => nullif($4, -1)),
             nextval('aq.enq_seq'), t.now, current_user, $7::text, pg_current_xact_id()::text,
             pg_current_xact_id()::text::bigint, $6::bytea
      FROM q, (SELECT clock_timestamp() AS now) t
      RETURNING msgid, state),
    -- the same wake-ups as send1: the monitor for a delay, else the queue's waiters
    w AS (SELECT CASE WHEN i.state = 1 THEN pg_notify('aq_time', '') ELSE aq.wake(q.id) END FROM ins i, q)
    SELECT k.ok, k.ok OR NOT EXISTS (SELECT 1 FROM aq.queues x WHERE x.queue_table_id = %3$s
                                       AND x.queue_name = $1::name AND x.notify) AS suited,
           (SELECT msgid FROM ins) AS msgid, (SELECT count(*) FROM w) AS woken
    FROM (SELECT EXISTS (SELECT 1 FROM q) AS ok) k$f$,
    q.table_schema, q.table_name, q.table_id, q.owner);
END $$;

DROP FUNCTION IF EXISTS aq.fast_path(text);
CREATE OR REPLACE FUNCTION aq.fast_path(p_queue text)
RETURNS TABLE (queue_id integer, queue_name text, multiple_consumers boolean, payload_kind text,
               send_fn text, recv_fn text, send1_fn text, remove_sql text, remove_after_sql text,
               send_one_sql text)
LANGUAGE sql STABLE AS $$
  SELECT q.queue_id, q.queue_name::text, q.multiple_consumers, q.payload_kind,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE'
              THEN format('%I.%I', q.table_schema, 'aq$_' || q.table_name || '_send') END,
         CASE WHEN q.message_grouping = 'NONE'
              THEN format('%I.%I', q.table_schema, 'aq$_' || q.table_name || '_recv') END,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE' AND q.message_grouping = 'NONE'
              THEN format('%I.%I', q.table_schema, 'aq$_' || q.table_name || '_send1') END,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE' AND q.message_grouping = 'NONE'
              THEN aq.fast_remove_sql(q, false) END,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE' AND q.message_grouping = 'NONE'
              THEN aq.fast_remove_sql(q, true) END,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE' AND q.message_grouping = 'NONE'
                   AND q.payload_kind = 'RAW'
              THEN aq.fast_send_sql(q) END
  FROM aq.resolve_queue(p_queue) q
$$;
