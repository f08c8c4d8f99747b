-- aq$_t_deq
CREATE OR REPLACE FUNCTION gen."aq$_t_deq"(p_queue name, p_state integer, p_msgid bytea, p_correlation text, p_position bigint[], p_group bigint, p_batch integer, p_params text[], p_consumer text, p_now timestamp with time zone, p_agent text, p_mode text, p_multi boolean, p_delete boolean)
 RETURNS aq.dequeued[]
 LANGUAGE plpgsql
AS $function$
    DECLARE
      result aq.dequeued[];
    BEGIN

      IF p_state = 3 THEN
        IF false THEN NULL;
          ELSIF p_mode = 'BROWSE' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.enq_seq
          LIMIT p_batch )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT p_batch )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'LOCKED' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE_NODATA' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
        END IF;
      ELSIF p_multi THEN
        IF false THEN NULL;
          ELSIF p_mode = 'BROWSE' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0
          ORDER BY r.enq_seq
          LIMIT 1 )
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)

          ORDER BY r.enq_seq
          LIMIT (1) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (1) * 2 + 16) w
          WHERE true
          LIMIT 1)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT 1)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(c.state), c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0
          ORDER BY r.enq_seq
          LIMIT p_batch )
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)

          ORDER BY r.enq_seq
          LIMIT (p_batch) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (p_batch) * 2 + 16) w
          WHERE true
          LIMIT p_batch)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT p_batch)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(c.state), c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0   AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT 1 )
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)
              AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT (1) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (1) * 2 + 16) w
          WHERE true
          LIMIT 1)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT 1)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(c.state), c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0   AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT p_batch )
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)
              AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT (p_batch) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (p_batch) * 2 + 16) w
          WHERE true
          LIMIT p_batch)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT p_batch)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(c.state), c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'LOCKED' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0
          ORDER BY r.enq_seq
          LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)

          ORDER BY r.enq_seq
          LIMIT (1) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (1) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT 1)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT 1)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(c.state), c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0
          ORDER BY r.enq_seq
          LIMIT p_batch FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)

          ORDER BY r.enq_seq
          LIMIT (p_batch) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (p_batch) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT p_batch)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT p_batch)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(c.state), c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0   AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)
              AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT (1) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (1) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT 1)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT 1)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(c.state), c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0   AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT p_batch FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)
              AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT (p_batch) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (p_batch) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT p_batch)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT p_batch)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(c.state), c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0
          ORDER BY r.enq_seq
          LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)

          ORDER BY r.enq_seq
          LIMIT (1) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (1) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT 1)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT 1)
          , u AS (UPDATE gen."aq$_t_r" r SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  FROM c WHERE r.msgid = c.msgid AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND NOT c.implicit
                  RETURNING r.msgid)
          , t AS (INSERT INTO gen."aq$_t_r" AS r (msgid, consumer_name, address, protocol, subscriber_id,
                         q_name, state, priority, enq_seq, commit_seq, txn_group, enq_time, ready_time, deq_time, deq_uid,
                         deq_agent, deq_tid)
                  SELECT m.msgid, sub.name, '', sub.protocol, sub.id, m.q_name, 2, m.priority, m.enq_seq, m.commit_seq,
                         m.txn_group, m.enq_time, m.ready_time, p_now, current_user, p_agent, pg_current_xact_id()::text
                  FROM c JOIN gen.t m ON m.msgid = c.msgid CROSS JOIN sub
                  WHERE c.implicit
                  ON CONFLICT DO NOTHING RETURNING r.msgid)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid
          WHERE NOT c.implicit OR c.msgid IN (SELECT t.msgid FROM t))
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0
          ORDER BY r.enq_seq
          LIMIT p_batch FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)

          ORDER BY r.enq_seq
          LIMIT (p_batch) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (p_batch) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT p_batch)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT p_batch)
          , u AS (UPDATE gen."aq$_t_r" r SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  FROM c WHERE r.msgid = c.msgid AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND NOT c.implicit
                  RETURNING r.msgid)
          , t AS (INSERT INTO gen."aq$_t_r" AS r (msgid, consumer_name, address, protocol, subscriber_id,
                         q_name, state, priority, enq_seq, commit_seq, txn_group, enq_time, ready_time, deq_time, deq_uid,
                         deq_agent, deq_tid)
                  SELECT m.msgid, sub.name, '', sub.protocol, sub.id, m.q_name, 2, m.priority, m.enq_seq, m.commit_seq,
                         m.txn_group, m.enq_time, m.ready_time, p_now, current_user, p_agent, pg_current_xact_id()::text
                  FROM c JOIN gen.t m ON m.msgid = c.msgid CROSS JOIN sub
                  WHERE c.implicit
                  ON CONFLICT DO NOTHING RETURNING r.msgid)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid
          WHERE NOT c.implicit OR c.msgid IN (SELECT t.msgid FROM t))
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0   AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)
              AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT (1) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (1) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT 1)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT 1)
          , u AS (UPDATE gen."aq$_t_r" r SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  FROM c WHERE r.msgid = c.msgid AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND NOT c.implicit
                  RETURNING r.msgid)
          , t AS (INSERT INTO gen."aq$_t_r" AS r (msgid, consumer_name, address, protocol, subscriber_id,
                         q_name, state, priority, enq_seq, commit_seq, txn_group, enq_time, ready_time, deq_time, deq_uid,
                         deq_agent, deq_tid)
                  SELECT m.msgid, sub.name, '', sub.protocol, sub.id, m.q_name, 2, m.priority, m.enq_seq, m.commit_seq,
                         m.txn_group, m.enq_time, m.ready_time, p_now, current_user, p_agent, pg_current_xact_id()::text
                  FROM c JOIN gen.t m ON m.msgid = c.msgid CROSS JOIN sub
                  WHERE c.implicit
                  ON CONFLICT DO NOTHING RETURNING r.msgid)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid
          WHERE NOT c.implicit OR c.msgid IN (SELECT t.msgid FROM t))
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0   AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT p_batch FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)
              AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT (p_batch) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (p_batch) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT p_batch)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT p_batch)
          , u AS (UPDATE gen."aq$_t_r" r SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  FROM c WHERE r.msgid = c.msgid AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND NOT c.implicit
                  RETURNING r.msgid)
          , t AS (INSERT INTO gen."aq$_t_r" AS r (msgid, consumer_name, address, protocol, subscriber_id,
                         q_name, state, priority, enq_seq, commit_seq, txn_group, enq_time, ready_time, deq_time, deq_uid,
                         deq_agent, deq_tid)
                  SELECT m.msgid, sub.name, '', sub.protocol, sub.id, m.q_name, 2, m.priority, m.enq_seq, m.commit_seq,
                         m.txn_group, m.enq_time, m.ready_time, p_now, current_user, p_agent, pg_current_xact_id()::text
                  FROM c JOIN gen.t m ON m.msgid = c.msgid CROSS JOIN sub
                  WHERE c.implicit
                  ON CONFLICT DO NOTHING RETURNING r.msgid)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c JOIN gen.t m ON m.msgid = c.msgid
          WHERE NOT c.implicit OR c.msgid IN (SELECT t.msgid FROM t))
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE_NODATA' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0
          ORDER BY r.enq_seq
          LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)

          ORDER BY r.enq_seq
          LIMIT (1) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (1) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT 1)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT 1)
          , u AS (UPDATE gen."aq$_t_r" r SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  FROM c WHERE r.msgid = c.msgid AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND NOT c.implicit
                  RETURNING r.msgid)
          , t AS (INSERT INTO gen."aq$_t_r" AS r (msgid, consumer_name, address, protocol, subscriber_id,
                         q_name, state, priority, enq_seq, commit_seq, txn_group, enq_time, ready_time, deq_time, deq_uid,
                         deq_agent, deq_tid)
                  SELECT m.msgid, sub.name, '', sub.protocol, sub.id, m.q_name, 2, m.priority, m.enq_seq, m.commit_seq,
                         m.txn_group, m.enq_time, m.ready_time, p_now, current_user, p_agent, pg_current_xact_id()::text
                  FROM c JOIN gen.t m ON m.msgid = c.msgid CROSS JOIN sub
                  WHERE c.implicit
                  ON CONFLICT DO NOTHING RETURNING r.msgid)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, NULL::bytea
          FROM c JOIN gen.t m ON m.msgid = c.msgid
          WHERE NOT c.implicit OR c.msgid IN (SELECT t.msgid FROM t))
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0
          ORDER BY r.enq_seq
          LIMIT p_batch FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)

          ORDER BY r.enq_seq
          LIMIT (p_batch) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (p_batch) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT p_batch)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT p_batch)
          , u AS (UPDATE gen."aq$_t_r" r SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  FROM c WHERE r.msgid = c.msgid AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND NOT c.implicit
                  RETURNING r.msgid)
          , t AS (INSERT INTO gen."aq$_t_r" AS r (msgid, consumer_name, address, protocol, subscriber_id,
                         q_name, state, priority, enq_seq, commit_seq, txn_group, enq_time, ready_time, deq_time, deq_uid,
                         deq_agent, deq_tid)
                  SELECT m.msgid, sub.name, '', sub.protocol, sub.id, m.q_name, 2, m.priority, m.enq_seq, m.commit_seq,
                         m.txn_group, m.enq_time, m.ready_time, p_now, current_user, p_agent, pg_current_xact_id()::text
                  FROM c JOIN gen.t m ON m.msgid = c.msgid CROSS JOIN sub
                  WHERE c.implicit
                  ON CONFLICT DO NOTHING RETURNING r.msgid)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, NULL::bytea
          FROM c JOIN gen.t m ON m.msgid = c.msgid
          WHERE NOT c.implicit OR c.msgid IN (SELECT t.msgid FROM t))
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0   AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)
              AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT (1) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (1) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT 1)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT 1)
          , u AS (UPDATE gen."aq$_t_r" r SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  FROM c WHERE r.msgid = c.msgid AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND NOT c.implicit
                  RETURNING r.msgid)
          , t AS (INSERT INTO gen."aq$_t_r" AS r (msgid, consumer_name, address, protocol, subscriber_id,
                         q_name, state, priority, enq_seq, commit_seq, txn_group, enq_time, ready_time, deq_time, deq_uid,
                         deq_agent, deq_tid)
                  SELECT m.msgid, sub.name, '', sub.protocol, sub.id, m.q_name, 2, m.priority, m.enq_seq, m.commit_seq,
                         m.txn_group, m.enq_time, m.ready_time, p_now, current_user, p_agent, pg_current_xact_id()::text
                  FROM c JOIN gen.t m ON m.msgid = c.msgid CROSS JOIN sub
                  WHERE c.implicit
                  ON CONFLICT DO NOTHING RETURNING r.msgid)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, NULL::bytea
          FROM c JOIN gen.t m ON m.msgid = c.msgid
          WHERE NOT c.implicit OR c.msgid IN (SELECT t.msgid FROM t))
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH e AS (
          SELECT r.msgid, r.retry_count, r.state, ARRAY[r.enq_seq] AS pos, false AS implicit
          FROM gen."aq$_t_r" r JOIN gen.t m ON m.msgid = r.msgid
          WHERE r.q_name = p_queue AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND r.state = 0   AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT p_batch FOR UPDATE OF r SKIP LOCKED)
          , sub AS (
          SELECT s.id, s.name, s.protocol, s.since, s.until, s.pos, s.floor FROM aq.subscribers s JOIN aq.queues x ON x.id = s.queue_id
          WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND s.name = (p_consumer COLLATE "default")
            AND s.address IS NULL AND s.since IS NOT NULL)

          , win AS MATERIALIZED (
          SELECT r.msgid, r.state, ARRAY[r.enq_seq] AS pos
          FROM sub CROSS JOIN gen.t m
          CROSS JOIN LATERAL (SELECT m.msgid, m.q_name, m.state, m.priority, m.enq_seq, m.commit_seq, m.txn_group,
                                     m.enq_time, m.ready_time, 0 AS retry_count) r
          WHERE m.q_name = p_queue AND m.audience IS NOT NULL AND m.state IN (0, 1) AND (sub.since IS NOT NULL AND m.audience IS NOT NULL AND sub.since <= m.audience AND (sub.until IS NULL OR m.audience < sub.until)) AND m.txn_group >= coalesce(pg_snapshot_xmin(sub.pos)::text::bigint, 0) AND (sub.pos IS NULL OR NOT pg_visible_in_snapshot(m.txn_group::text::xid8, sub.pos)) AND m.state = 0  AND m.enq_seq >= (SELECT coalesce(s0.floor, 0) FROM sub s0)
            AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" x
                            WHERE x.msgid = m.msgid AND x.consumer_name = (p_consumer COLLATE "default") AND x.address = ''
                            OFFSET 0)
              AND (r.enq_seq) > ((p_position)[1])
          ORDER BY r.enq_seq
          LIMIT (p_batch) * 2 + 16)
          , mine AS (SELECT '{}'::bytea[] AS ids)
          , i AS (
          SELECT w.msgid, 0 AS retry_count, w.state, w.pos, true AS implicit FROM (
            SELECT win.msgid, win.state, win.pos FROM win CROSS JOIN mine WHERE NOT (win.msgid = ANY (mine.ids))
            ORDER BY win.pos LIMIT (p_batch) * 2 + 16) w
          WHERE CASE WHEN NOT pg_try_advisory_xact_lock_shared(aq.consumer_lock_key(p_queue, (p_consumer COLLATE "default"))) THEN false WHEN pg_try_advisory_xact_lock(aq.recipient_lock_key(p_queue, (p_consumer COLLATE "default"), w.msgid)) THEN gen."aq$_t_take"(p_queue, (p_consumer COLLATE "default"), w.msgid) ELSE false END
          LIMIT p_batch)
          , c AS (SELECT * FROM e UNION ALL SELECT * FROM i ORDER BY pos LIMIT p_batch)
          , u AS (UPDATE gen."aq$_t_r" r SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  FROM c WHERE r.msgid = c.msgid AND r.consumer_name = (p_consumer COLLATE "default") AND r.address = '' AND NOT c.implicit
                  RETURNING r.msgid)
          , t AS (INSERT INTO gen."aq$_t_r" AS r (msgid, consumer_name, address, protocol, subscriber_id,
                         q_name, state, priority, enq_seq, commit_seq, txn_group, enq_time, ready_time, deq_time, deq_uid,
                         deq_agent, deq_tid)
                  SELECT m.msgid, sub.name, '', sub.protocol, sub.id, m.q_name, 2, m.priority, m.enq_seq, m.commit_seq,
                         m.txn_group, m.enq_time, m.ready_time, p_now, current_user, p_agent, pg_current_xact_id()::text
                  FROM c JOIN gen.t m ON m.msgid = c.msgid CROSS JOIN sub
                  WHERE c.implicit
                  ON CONFLICT DO NOTHING RETURNING r.msgid)
          , o AS (SELECT m.msgid, m.q_name, (p_consumer COLLATE "default"), m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', c.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, NULL::bytea
          FROM c JOIN gen.t m ON m.msgid = c.msgid
          WHERE NOT c.implicit OR c.msgid IN (SELECT t.msgid FROM t))
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
        END IF;
      ELSIF true THEN
        IF false THEN NULL;
          ELSIF p_mode = 'BROWSE' AND (p_delete = 't' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT p_batch )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT p_batch )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'LOCKED' AND (p_delete = 't' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE' AND (p_delete = 't' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE' AND (p_delete = 'f' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE_NODATA' AND (p_delete = 't' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE_NODATA' AND (p_delete = 'f' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.enq_seq) > ((p_position)[1])
          ORDER BY m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
        END IF;
      END IF;
      RETURN result;
    END $function$

-- aq$_t_due
CREATE OR REPLACE FUNCTION gen."aq$_t_due"(p_after timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE
AS $function$
    BEGIN
      RETURN (
    SELECT least(
      (SELECT min(ready_time) FROM gen.t WHERE state = 1 AND ready_time > p_after),
      (SELECT min(expire_at) FROM gen.t WHERE state IN (0, 1) AND expire_at IS NOT NULL
                                              AND expire_at > p_after),
      (SELECT min(m.deq_time + make_interval(secs => q.retention_time))
         FROM gen.t m JOIN aq.queues q ON q.queue_table_id = <table id>
          AND q.queue_name = coalesce(m.original_queue_name, m.q_name) AND q.schema_name = 'gen'
        WHERE m.state = 2 AND q.retention_time >= 0
          AND m.deq_time + make_interval(secs => q.retention_time) > p_after)
      , (SELECT min(ready_time) FROM gen."aq$_t_r" WHERE state = 1 AND ready_time > p_after))
  );
    END $function$

-- aq$_t_enq
CREATE OR REPLACE FUNCTION gen."aq$_t_enq"(p_queue name, p_props jsonb, p_payloads jsonb, p_raw bytea[], p_now timestamp with time zone, p_agent text, OUT ids bytea[], OUT any_ready boolean, OUT any_wait boolean)
 RETURNS record
 LANGUAGE plpgsql
AS $function$
    BEGIN

      WITH ins AS (
        -- the columns' order is the order the properties are checked in when the lateral
        -- below is pulled up (aq.normalise_props's: expiration, priority, delay, then the
        -- correlation), so every route reports the same error first
        INSERT INTO gen.t AS m (q_name, msgid, expiration, priority, state, delay,
            ready_time, expire_at, corrid, enq_seq, enq_time, enq_uid, enq_agent, enq_tid,
            exception_qschema, exception_queue, sender_name, sender_address, sender_protocol,
            original_msgid, original_queue_name, txn_group, audience, user_data)
        SELECT p_queue, aq.new_msgid(p_now), v.exp, v.pri,
               CASE WHEN v.dly > 0 THEN 1 ELSE 0 END,
               v.dly,
               p_now + make_interval(secs => v.dly),
               p_now + make_interval(secs => v.dly) + make_interval(secs => v.exp),
               v.corr,
               nextval('aq.enq_seq'), p_now, current_user, p_agent, pg_current_xact_id()::text,
               p ->> 'exception_qschema', p ->> 'exception_queue',
               p ->> 'sender_name', p ->> 'sender_address', (p ->> 'sender_protocol')::integer,
               decode(p ->> 'original_msgid', 'hex'), p ->> 'original_queue_name',
               pg_current_xact_id()::text::bigint,
               CASE WHEN coalesce(p -> 'recipients', 'null') = 'null'::jsonb THEN (SELECT aq.audience_at(x.id, x.audience_gen) FROM aq.queues x WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue) END,
               (p_raw)[e.i]
        FROM jsonb_array_elements(p_props) WITH ORDINALITY AS e(p, i)
        CROSS JOIN LATERAL (SELECT
               nullif(aq.int_prop(p, 'expiration', NULL, -1, 25209, 'EXPIRATION'), -1) AS exp,
               aq.int_prop(p, 'priority', 1, -2147483648, 24005, 'PRIORITY') AS pri,
               aq.int_prop(p, 'delay', 0, 0, 25208, 'DELAY') AS dly,
               aq.corr_prop(p) AS corr) v
        ORDER BY e.i
        RETURNING m.msgid, m.enq_seq, m.state)
      SELECT array_agg(msgid ORDER BY enq_seq), bool_or(state = 0), bool_or(state = 1)
      INTO ids, any_ready, any_wait FROM ins
    ;
    END $function$

-- aq$_t_mine
CREATE OR REPLACE FUNCTION gen."aq$_t_mine"(p_consumer text, p_ids bytea[])
 RETURNS bytea[]
 LANGUAGE plpgsql
 STABLE
 SET enable_seqscan TO 'off'
AS $function$
    BEGIN
      RETURN ARRAY(SELECT r.msgid FROM gen."aq$_t_r" r
                   WHERE r.msgid = ANY (p_ids) AND r.consumer_name = p_consumer AND r.address = '');
    END $function$

-- aq$_t_recv
CREATE OR REPLACE FUNCTION gen."aq$_t_recv"(p_queue name, p_consumer text, p_mode text, p_pos bigint[], p_batch integer, p_agent text, p_wrap boolean)
 RETURNS aq.dequeued[]
 LANGUAGE plpgsql
AS $function$
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
        FROM aq.queues q WHERE q.queue_table_id = <table id> AND q.queue_name = p_queue;
        IF NOT FOUND THEN
          PERFORM aq.err(24010, format('QUEUE %s.%s does not exist', 'gen', p_queue), '42704');
        END IF;
        IF mode NOT IN ('BROWSE', 'LOCKED', 'REMOVE', 'REMOVE_NODATA') THEN
          PERFORM aq.err(25239, format('invalid DEQUEUE_MODE %s', quote_literal(p_mode)), '22023');
        END IF;
        IF coalesce(p_batch, 1) < 1 OR p_batch > 10000 THEN
          PERFORM aq.err(25240, 'batch size must be between 1 and 10000', '22023');
        END IF;
        IF NOT qrow.dequeue_enabled THEN
          PERFORM aq.err(25226, format('dequeue failed, queue %s.%s is not enabled for dequeue', 'gen', p_queue), '55000');
        END IF;
        is_exc := qrow.queue_type = 'EXCEPTION_QUEUE';
        multi := 'true'::boolean AND NOT is_exc;
        IF is_exc AND consumer IS NOT NULL AND 'true'::boolean THEN
          PERFORM aq.err(25231, format('exception queue %s.%s is dequeued with a NULL consumer name', 'gen', p_queue), '22023');
        ELSIF multi AND consumer IS NULL THEN
          PERFORM aq.err(25231, format('cannot dequeue because CONSUMER_NAME not specified for multi-consumer queue %s.%s', 'gen', p_queue), '22023');
        ELSIF NOT 'true'::boolean AND consumer IS NOT NULL THEN
          PERFORM aq.err(24039, format('Queue %s.%s not created in queue table for multiple consumers: CONSUMER_NAME not allowed', 'gen', p_queue), '22023');
        END IF;
        IF current_user <> 'postgres' AND NOT pg_has_role(current_user, 'postgres', 'MEMBER') THEN
          SELECT * INTO qi FROM aq.queue_info WHERE queue_id = qrow.id;
          PERFORM aq.check_access(qi, 'DEQUEUE');
        END IF;
        IF multi AND EXISTS (SELECT 1 FROM aq.subscribers s WHERE s.queue_id = qrow.id
                               AND s.name = consumer AND s.transformation IS NOT NULL) THEN
          -- (dequeue_array returns a set, this function an array)
          RETURN ARRAY(SELECT d FROM aq.dequeue_array(quote_ident('gen') || '.' || quote_ident(p_queue), p_consumer, p_mode,
                                  'NEXT_MESSAGE', NULL, NULL, NULL, p_batch, p_pos, p_wrap, NULL, p_agent, NULL,
                                  'PERSISTENT') d);
        END IF;
        result := gen."aq$_t_deq"(p_queue, CASE WHEN is_exc THEN 3 ELSE 0 END, NULL, NULL, p_pos, NULL,
                            coalesce(p_batch, 1), NULL, consumer, now_ts, p_agent, mode, multi,
                            is_exc OR qrow.retention_time = 0 OR 'PERSISTENT' = 'BUFFERED');
        IF result IS NULL AND p_pos IS NOT NULL AND coalesce(p_wrap, true) THEN
          result := gen."aq$_t_deq"(p_queue, CASE WHEN is_exc THEN 3 ELSE 0 END, NULL, NULL, NULL, NULL,
                              coalesce(p_batch, 1), NULL, consumer, now_ts, p_agent, mode, multi,
                              is_exc OR qrow.retention_time = 0 OR 'PERSISTENT' = 'BUFFERED');
        END IF;
        IF result IS NOT NULL AND multi AND mode IN ('REMOVE', 'REMOVE_NODATA') THEN
          SELECT * INTO qi FROM aq.queue_info WHERE queue_id = qrow.id;
          IF 'PERSISTENT' = 'BUFFERED' THEN
            qi := aq.buffered_info(qi);  -- this table is the companion of buffered messages
          END IF;
          PERFORM aq.finish_messages(qi, ARRAY(SELECT (x).msgid FROM unnest(result) x));
        END IF;
        IF multi AND mode IN ('REMOVE', 'REMOVE_NODATA') AND aq.time_to_advance(result, coalesce(p_batch, 1)) THEN
          PERFORM aq.advance_position(1, p_queue, consumer);
        END IF;
        RETURN result;
      END $function$

-- aq$_t_send
CREATE OR REPLACE FUNCTION gen."aq$_t_send"(p_queue name, p_props jsonb, p_payloads jsonb, p_raw bytea[], p_agent text)
 RETURNS bytea[]
 LANGUAGE plpgsql
AS $function$
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
        SELECT q.id, q.queue_type, q.enqueue_enabled, q.notify INTO qrow
        FROM aq.queues q WHERE q.queue_table_id = <table id> AND q.queue_name = p_queue;
        IF NOT FOUND OR qrow.queue_type <> 'NORMAL_QUEUE' OR NOT qrow.enqueue_enabled THEN
          IF NOT FOUND THEN
            PERFORM aq.err(24010, format('QUEUE %s.%s does not exist', 'gen', p_queue), '42704');
          END IF;
          PERFORM aq.err(25207, format('enqueue failed, queue %s.%s is disabled from enqueueing', 'gen', p_queue), '55000');
        END IF;
        IF current_user <> 'postgres' AND NOT pg_has_role(current_user, 'postgres', 'MEMBER') THEN
          SELECT * INTO qi FROM aq.queue_info WHERE queue_id = qrow.id;
          PERFORM aq.check_access(qi, 'ENQUEUE');
        END IF;
        IF p_props IS NULL OR jsonb_typeof(p_props) <> 'array' OR jsonb_array_length(p_props) = 0 THEN
          PERFORM aq.err(24031, 'invalid value, message properties should be a non-empty array', '22023');
        END IF;

        -- (and the audience, whose members need no row per message, R__12_audience: gen
        -- NULL when it is too small to publish to)
        SELECT rc.plain_ids, aq.audience_at(qrow.id, x.audience_gen) INTO sub_ids, gen
        FROM aq.rule_cache rc JOIN aq.queues x ON x.id = rc.queue_id
        WHERE rc.queue_id = qrow.id AND rc.rules_sql IS NULL;
        IF coalesce(cardinality(sub_ids), 0) = 0 THEN
          RETURN NULL;  -- rules to evaluate, or nobody subscribed: aq.enqueue_array decides
        END IF;
        aud := gen IS NOT NULL;

        IF p_raw IS NULL OR cardinality(p_raw) <> jsonb_array_length(p_props) THEN
          PERFORM aq.normalise_props((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id), p_props);
          PERFORM aq.err(25215, 'user_data type and queue type do not match: one RAW payload per message', '42804');
        END IF;


      WITH ins AS (
        -- the columns' order is the order the properties are checked in when the lateral
        -- below is pulled up (aq.normalise_props's: expiration, priority, delay, then the
        -- correlation), so every route reports the same error first
        INSERT INTO gen.t AS m (q_name, msgid, expiration, priority, state, delay,
            ready_time, expire_at, corrid, enq_seq, enq_time, enq_uid, enq_agent, enq_tid,
            exception_qschema, exception_queue, sender_name, sender_address, sender_protocol,
            original_msgid, original_queue_name, txn_group, audience, user_data)
        SELECT p_queue, aq.new_msgid(now_ts), v.exp, v.pri,
               CASE WHEN v.dly > 0 THEN 1 ELSE 0 END,
               v.dly,
               now_ts + make_interval(secs => v.dly),
               now_ts + make_interval(secs => v.dly) + make_interval(secs => v.exp),
               v.corr,
               nextval('aq.enq_seq'), now_ts, current_user, p_agent, pg_current_xact_id()::text,
               p ->> 'exception_qschema', p ->> 'exception_queue',
               p ->> 'sender_name', p ->> 'sender_address', (p ->> 'sender_protocol')::integer,
               decode(p ->> 'original_msgid', 'hex'), p ->> 'original_queue_name',
               pg_current_xact_id()::text::bigint,
               gen,
               (p_raw)[e.i]
        FROM jsonb_array_elements(p_props) WITH ORDINALITY AS e(p, i)
        CROSS JOIN LATERAL (SELECT
               nullif(aq.int_prop(p, 'expiration', NULL, -1, 25209, 'EXPIRATION'), -1) AS exp,
               aq.int_prop(p, 'priority', 1, -2147483648, 24005, 'PRIORITY') AS pri,
               aq.int_prop(p, 'delay', 0, 0, 25208, 'DELAY') AS dly,
               aq.corr_prop(p) AS corr) v
        ORDER BY e.i
        RETURNING m.msgid, m.enq_seq, m.state, m.q_name, m.priority, m.enq_time, m.ready_time, m.txn_group, m.audience),
        rec AS (
    INSERT INTO gen."aq$_t_r" (msgid, consumer_name, address, protocol, subscriber_id, q_name, state,
                       priority, enq_seq, enq_time, ready_time, txn_group)
    SELECT m.msgid, coalesce(sub.name, ''), coalesce(sub.address, ''), sub.protocol, sub.id,
           m.q_name, m.state, m.priority, m.enq_seq, m.enq_time, m.ready_time, m.txn_group
    FROM ins m, (SELECT gen AS audience) g CROSS JOIN aq.subscribers sub
    WHERE sub.queue_id = qrow.id AND sub.id = ANY(sub_ids) AND sub.delivery_mode IN ('PERSISTENT', 'PERSISTENT_OR_BUFFERED') AND NOT (sub.since IS NOT NULL AND g.audience IS NOT NULL AND sub.since <= g.audience AND (sub.until IS NULL OR g.audience < sub.until)) RETURNING 1)
      SELECT array_agg(msgid ORDER BY enq_seq), bool_or(state = 0), bool_or(state = 1), (SELECT count(*) FROM rec)
      INTO ids, any_ready, any_wait, rec_rows FROM ins
    ;

        IF rec_rows < cardinality(ids) AND NOT aud THEN
          PERFORM aq.err(24033, format('no recipients for message %s on queue %s.%s',
                                       aq.msgid_hex(ids[1]), 'gen', p_queue), '55000');
        END IF;
        IF qrow.notify THEN PERFORM aq.notify_enqueued(qrow.id, ids); END IF;
        IF any_ready  -- aq.wake (R__11) inline
           AND EXISTS (SELECT 1 FROM aq.waiters w WHERE w.queue_id = qrow.id) THEN
          PERFORM pg_notify('aq_' || qrow.id, '');
        END IF;
        IF any_wait THEN PERFORM pg_notify('aq_time', ''); END IF;
        RETURN ids;
      END $function$

-- aq$_t_take
CREATE OR REPLACE FUNCTION gen."aq$_t_take"(p_queue name, p_consumer text, p_msgid bytea)
 RETURNS boolean
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
    BEGIN
      RETURN EXISTS (SELECT 1 FROM gen.t m
                     WHERE m.msgid = p_msgid AND m.state IN (0, 1) AND m.audience IS NOT NULL
                     FOR KEY SHARE SKIP LOCKED)
             AND NOT EXISTS (SELECT 1 FROM gen."aq$_t_r" r
                             WHERE r.msgid = p_msgid AND r.consumer_name = p_consumer AND r.address = '');
    END $function$

-- aq.fast_path('gen.q').remove_sql
NULL

-- aq.fast_path('gen.q').remove_after_sql
NULL

-- aq.fast_path('gen.q').remove_n_sql
NULL

-- aq.fast_path('gen.q').send_sql
NULL

-- aq.fast_path('gen.q').remove_ids_sql
NULL
