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
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'LOCKED' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE_NODATA' AND (true) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
        END IF;
      ELSIF true THEN
        IF false THEN NULL;
          ELSIF p_mode = 'BROWSE' AND (p_delete = 't' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'LOCKED' AND (p_delete = 't' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE' AND (p_delete = 't' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE' AND (p_delete = 'f' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, to_jsonb(m.user_data), NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            END IF;
          ELSIF p_mode = 'REMOVE_NODATA' AND (p_delete = 't' OR p_mode IN ('BROWSE', 'LOCKED')) THEN
            IF p_position IS NULL AND p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
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
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.priority, m.enq_seq) > ((p_position)[1]::integer, (p_position)[2])
          ORDER BY m.priority, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
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
      )
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
               NULL::bigint,
               jsonb_populate_record(NULL::gen.obj, p_payloads -> (e.i::integer - 1))
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
        multi := 'false'::boolean AND NOT is_exc;
        IF is_exc AND consumer IS NOT NULL AND 'false'::boolean THEN
          PERFORM aq.err(25231, format('exception queue %s.%s is dequeued with a NULL consumer name', 'gen', p_queue), '22023');
        ELSIF multi AND consumer IS NULL THEN
          PERFORM aq.err(25231, format('cannot dequeue because CONSUMER_NAME not specified for multi-consumer queue %s.%s', 'gen', p_queue), '22023');
        ELSIF NOT 'false'::boolean AND consumer IS NOT NULL THEN
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
        RETURN result;
      END $function$

-- aq$_t_rm1
CREATE OR REPLACE FUNCTION gen."aq$_t_rm1"(p_queue name, p_after bigint[])
 RETURNS TABLE(ok boolean, suited boolean, msgid bytea, queue_name text, consumer_name text, correlation text, priority integer, delay integer, expiration integer, enq_time timestamp with time zone, state text, attempts integer, exception_queue text, sender_name text, sender_address text, sender_protocol integer, original_msgid bytea, txn_group bigint, "position" bigint[], payload_json jsonb, payload_raw bytea)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'aq'
AS $function$
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
        RETURN QUERY -- aq.fast_remove_sql: REMOVE one message from gen.t
    WITH q AS (
      SELECT x.id FROM aq.queues x
      WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND x.queue_type = 'NORMAL_QUEUE'
        AND x.dequeue_enabled AND x.retention_time = 0
        AND (p_role = 'postgres' OR pg_has_role(p_role, 'postgres', 'MEMBER')
             OR aq.may_access(x.id, 'DEQUEUE', p_role))),
    c AS (
      SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos FROM gen.t m
      WHERE m.q_name = p_queue AND m.state = 0  AND EXISTS (SELECT 1 FROM q)
      ORDER BY m.priority, m.enq_seq LIMIT 1 FOR UPDATE OF m SKIP LOCKED),
    d AS (DELETE FROM gen.t m WHERE m.msgid = (SELECT c.msgid FROM c) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
    SELECT k.ok, k.ok OR NOT EXISTS (SELECT 1 FROM aq.queues x WHERE x.queue_table_id = <table id>
                                       AND x.queue_name = p_queue AND x.retention_time <> 0) AS suited,
           o.*
    FROM (SELECT EXISTS (SELECT 1 FROM q) AS ok) k LEFT JOIN (
      SELECT m.msgid, m.q_name::text AS queue_name, NULL::text AS consumer_name, m.corrid AS correlation,
             m.priority, m.delay, m.expiration, m.enq_time, 'PROCESSED'::text AS state,
             m.retry_count AS attempts,
             nullif(m.exception_queue, 'aq$_t_e')::text AS exception_queue, m.sender_name,
             m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position,
             to_jsonb(m.user_data) AS payload_json, NULL::bytea AS payload_raw
      FROM d m) o ON true;
      ELSE
        RETURN QUERY -- aq.fast_remove_sql: REMOVE one message from gen.t
    WITH q AS (
      SELECT x.id FROM aq.queues x
      WHERE x.queue_table_id = <table id> AND x.queue_name = p_queue AND x.queue_type = 'NORMAL_QUEUE'
        AND x.dequeue_enabled AND x.retention_time = 0
        AND (p_role = 'postgres' OR pg_has_role(p_role, 'postgres', 'MEMBER')
             OR aq.may_access(x.id, 'DEQUEUE', p_role))),
    c AS (
      SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos FROM gen.t m
      WHERE m.q_name = p_queue AND m.state = 0  AND (m.priority, m.enq_seq) > ((p_after)[1]::integer, (p_after)[2]) AND EXISTS (SELECT 1 FROM q)
      ORDER BY m.priority, m.enq_seq LIMIT 1 FOR UPDATE OF m SKIP LOCKED),
    d AS (DELETE FROM gen.t m WHERE m.msgid = (SELECT c.msgid FROM c) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
    SELECT k.ok, k.ok OR NOT EXISTS (SELECT 1 FROM aq.queues x WHERE x.queue_table_id = <table id>
                                       AND x.queue_name = p_queue AND x.retention_time <> 0) AS suited,
           o.*
    FROM (SELECT EXISTS (SELECT 1 FROM q) AS ok) k LEFT JOIN (
      SELECT m.msgid, m.q_name::text AS queue_name, NULL::text AS consumer_name, m.corrid AS correlation,
             m.priority, m.delay, m.expiration, m.enq_time, 'PROCESSED'::text AS state,
             m.retry_count AS attempts,
             nullif(m.exception_queue, 'aq$_t_e')::text AS exception_queue, m.sender_name,
             m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position,
             to_jsonb(m.user_data) AS payload_json, NULL::bytea AS payload_raw
      FROM d m) o ON true;
      END IF;
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


        IF p_payloads IS NULL OR jsonb_typeof(p_payloads) <> 'array'
           OR jsonb_array_length(p_payloads) <> jsonb_array_length(p_props)
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_payloads) x WHERE jsonb_typeof(x) <> 'object')
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_payloads) x, jsonb_object_keys(x) k
                      WHERE k NOT IN (SELECT a.attname FROM pg_attribute a
                                      WHERE a.attrelid = <payload relid> AND a.attnum > 0 AND NOT a.attisdropped)) THEN
          -- the general route's order: every message's properties, then the payloads
          PERFORM aq.normalise_props((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id), p_props);
          PERFORM aq.check_payloads((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id),
                                    NULL::aq.transformations, jsonb_array_length(p_props), p_payloads, p_raw);
        END IF;

        BEGIN

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
               NULL::bigint,
               jsonb_populate_record(NULL::gen.obj, p_payloads -> (e.i::integer - 1))
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
        EXCEPTION
          WHEN invalid_text_representation OR numeric_value_out_of_range OR datetime_field_overflow
            OR invalid_datetime_format OR string_data_right_truncation OR invalid_parameter_value
            OR datatype_mismatch OR invalid_binary_representation OR array_subscript_error
            OR not_null_violation OR check_violation OR invalid_escape_sequence THEN
            IF SQLERRM LIKE 'ORA-%' THEN RAISE; END IF;  -- a property check's own error (aq.err)
            -- a bad property of any message is reported first, as the general route does
            PERFORM aq.normalise_props((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id), p_props);
            PERFORM aq.err(25215, format('user_data type and queue type do not match: %s', SQLERRM), '42804');
        END;

        IF qrow.notify THEN PERFORM aq.notify_enqueued(qrow.id, ids); END IF;
        IF any_ready  -- aq.wake (R__11) inline
           AND EXISTS (SELECT 1 FROM aq.waiters w WHERE w.queue_id = qrow.id) THEN
          PERFORM pg_notify('aq_' || qrow.id, '');
        END IF;
        IF any_wait THEN PERFORM pg_notify('aq_time', ''); END IF;
        RETURN ids;
      END $function$

-- aq$_t_send1
CREATE OR REPLACE FUNCTION gen."aq$_t_send1"(p_queue name, p_priority integer, p_delay integer, p_expiration integer, p_corr text, p_raw bytea, p_obj jsonb, p_agent text)
 RETURNS bytea
 LANGUAGE plpgsql
AS $function$
      DECLARE
        qrow record;
        qi aq.queue_info;
        now_ts timestamptz := clock_timestamp();
        id bytea := aq.new_msgid(now_ts);  -- the id's first half is the enq_time
        d integer := coalesce(p_delay, 0);
        e integer := nullif(p_expiration, -1);
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

        IF p_obj IS NULL OR jsonb_typeof(p_obj) <> 'object'
           OR EXISTS (SELECT 1 FROM jsonb_object_keys(p_obj) k
                      WHERE k NOT IN (SELECT a.attname FROM pg_attribute a
                                      WHERE a.attrelid = <payload relid> AND a.attnum > 0 AND NOT a.attisdropped)) THEN
          PERFORM aq.check_payloads((SELECT x FROM aq.queue_info x WHERE x.queue_id = qrow.id),
                                    NULL::aq.transformations, 1, jsonb_build_array(p_obj), NULL);
        END IF;

        BEGIN
          INSERT INTO gen.t (q_name, msgid, corrid, priority, state, delay, expiration, ready_time,
                               expire_at, enq_seq, enq_time, enq_uid, enq_agent, enq_tid, txn_group,
                               user_data)
        VALUES (p_queue, id, p_corr, coalesce(p_priority, 1), CASE WHEN d > 0 THEN 1 ELSE 0 END, d, e,
                now_ts + make_interval(secs => d),
                now_ts + make_interval(secs => d) + make_interval(secs => e),
                nextval('aq.enq_seq'), now_ts, current_user, p_agent, pg_current_xact_id()::text,
                pg_current_xact_id()::text::bigint, jsonb_populate_record(NULL::gen.obj, p_obj));
        EXCEPTION
          WHEN invalid_text_representation OR numeric_value_out_of_range OR datetime_field_overflow
            OR invalid_datetime_format OR string_data_right_truncation OR invalid_parameter_value
            OR datatype_mismatch OR invalid_binary_representation OR array_subscript_error
            OR not_null_violation OR check_violation OR invalid_escape_sequence THEN
            IF SQLERRM LIKE 'ORA-%' THEN RAISE; END IF;  -- a property check's own error (aq.err)
            PERFORM aq.err(25215, format('user_data type and queue type do not match: %s', SQLERRM), '42804');
        END;
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
      END $function$

-- aq$_t_sendn
CREATE OR REPLACE FUNCTION gen."aq$_t_sendn"(p_queue name, p_priority integer[], p_delay integer[], p_expiration integer[], p_corr text[], p_raw bytea[], p_obj jsonb, p_agent text)
 RETURNS bytea[]
 LANGUAGE plpgsql
AS $function$
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
                      WHERE d IS NULL OR d < 0 OR e < -1 OR length(c) > 128)
           OR p_obj IS NULL OR jsonb_typeof(p_obj) <> 'array' OR jsonb_array_length(p_obj) <> n
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_obj) x WHERE jsonb_typeof(x) <> 'object')
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_obj) x, jsonb_object_keys(x) k
                      WHERE k NOT IN (SELECT a.attname FROM pg_attribute a
                                      WHERE a.attrelid = <payload relid> AND a.attnum > 0 AND NOT a.attisdropped)) THEN
          RETURN NULL;
        END IF;
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
        -- (unnest of a parameter, not generate_series(1, n): its row estimate does not
        -- depend on n, so PostgreSQL keeps one cached plan instead of planning every call)
        ids := ARRAY(SELECT aq.new_msgid(now_ts) FROM unnest(p_priority));

        BEGIN
          INSERT INTO gen.t (q_name, msgid, corrid, priority, state, delay, expiration, ready_time,
                               expire_at, enq_seq, enq_time, enq_uid, enq_agent, enq_tid, txn_group,
                               user_data)
        SELECT p_queue, ids[i], p_corr[i], coalesce(p_priority[i], 1), CASE WHEN p_delay[i] > 0 THEN 1 ELSE 0 END,
               p_delay[i], nullif(p_expiration[i], -1),
               now_ts + make_interval(secs => p_delay[i]),
               now_ts + make_interval(secs => p_delay[i]) + make_interval(secs => nullif(p_expiration[i], -1)),
               nextval('aq.enq_seq'), now_ts, current_user, p_agent, pg_current_xact_id()::text,
               pg_current_xact_id()::text::bigint, jsonb_populate_record(NULL::gen.obj, p_obj -> (i - 1)::integer)
        FROM unnest(ids) WITH ORDINALITY u(id, i) ORDER BY i;
        EXCEPTION
          WHEN invalid_text_representation OR numeric_value_out_of_range OR datetime_field_overflow
            OR invalid_datetime_format OR string_data_right_truncation OR invalid_parameter_value
            OR datatype_mismatch OR invalid_binary_representation OR array_subscript_error
            OR not_null_violation OR check_violation OR invalid_escape_sequence THEN
            IF SQLERRM LIKE 'ORA-%' THEN RAISE; END IF;  -- a property check's own error (aq.err)
            PERFORM aq.err(25215, format('user_data type and queue type do not match: %s', SQLERRM), '42804');
        END;
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
      END $function$

-- aq.fast_path('gen.q').remove_sql
-- aq.fast_remove_sql: REMOVE one message from gen.t
    WITH q AS (
      SELECT x.id FROM aq.queues x
      WHERE x.queue_table_id = <table id> AND x.queue_name = $1::name AND x.queue_type = 'NORMAL_QUEUE'
        AND x.dequeue_enabled AND x.retention_time = 0
        AND (current_user = 'postgres' OR pg_has_role(current_user, 'postgres', 'MEMBER')
             OR aq.may_access(x.id, 'DEQUEUE', current_user))),
    c AS (
      SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos FROM gen.t m
      WHERE m.q_name = $1::name AND m.state = 0  AND EXISTS (SELECT 1 FROM q)
      ORDER BY m.priority, m.enq_seq LIMIT 1 FOR UPDATE OF m SKIP LOCKED),
    d AS (DELETE FROM gen.t m WHERE m.msgid = (SELECT c.msgid FROM c) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
    SELECT k.ok, k.ok OR NOT EXISTS (SELECT 1 FROM aq.queues x WHERE x.queue_table_id = <table id>
                                       AND x.queue_name = $1::name AND x.retention_time <> 0) AS suited,
           o.*
    FROM (SELECT EXISTS (SELECT 1 FROM q) AS ok) k LEFT JOIN (
      SELECT m.msgid, m.q_name::text AS queue_name, NULL::text AS consumer_name, m.corrid AS correlation,
             m.priority, m.delay, m.expiration, m.enq_time, 'PROCESSED'::text AS state,
             m.retry_count AS attempts,
             nullif(m.exception_queue, 'aq$_t_e')::text AS exception_queue, m.sender_name,
             m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position,
             to_jsonb(m.user_data) AS payload_json, NULL::bytea AS payload_raw
      FROM d m) o ON true

-- aq.fast_path('gen.q').remove_after_sql
-- aq.fast_remove_sql: REMOVE one message from gen.t
    WITH q AS (
      SELECT x.id FROM aq.queues x
      WHERE x.queue_table_id = <table id> AND x.queue_name = $1::name AND x.queue_type = 'NORMAL_QUEUE'
        AND x.dequeue_enabled AND x.retention_time = 0
        AND (current_user = 'postgres' OR pg_has_role(current_user, 'postgres', 'MEMBER')
             OR aq.may_access(x.id, 'DEQUEUE', current_user))),
    c AS (
      SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos FROM gen.t m
      WHERE m.q_name = $1::name AND m.state = 0  AND (m.priority, m.enq_seq) > (($2::bigint[])[1]::integer, ($2::bigint[])[2]) AND EXISTS (SELECT 1 FROM q)
      ORDER BY m.priority, m.enq_seq LIMIT 1 FOR UPDATE OF m SKIP LOCKED),
    d AS (DELETE FROM gen.t m WHERE m.msgid = (SELECT c.msgid FROM c) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
    SELECT k.ok, k.ok OR NOT EXISTS (SELECT 1 FROM aq.queues x WHERE x.queue_table_id = <table id>
                                       AND x.queue_name = $1::name AND x.retention_time <> 0) AS suited,
           o.*
    FROM (SELECT EXISTS (SELECT 1 FROM q) AS ok) k LEFT JOIN (
      SELECT m.msgid, m.q_name::text AS queue_name, NULL::text AS consumer_name, m.corrid AS correlation,
             m.priority, m.delay, m.expiration, m.enq_time, 'PROCESSED'::text AS state,
             m.retry_count AS attempts,
             nullif(m.exception_queue, 'aq$_t_e')::text AS exception_queue, m.sender_name,
             m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position,
             to_jsonb(m.user_data) AS payload_json, NULL::bytea AS payload_raw
      FROM d m) o ON true

-- aq.fast_path('gen.q').remove_n_sql
-- aq.fast_remove_sql: REMOVE one message from gen.t
    WITH q AS (
      SELECT x.id FROM aq.queues x
      WHERE x.queue_table_id = <table id> AND x.queue_name = $1::name AND x.queue_type = 'NORMAL_QUEUE'
        AND x.dequeue_enabled AND x.retention_time = 0
        AND (current_user = 'postgres' OR pg_has_role(current_user, 'postgres', 'MEMBER')
             OR aq.may_access(x.id, 'DEQUEUE', current_user))),
    c AS (
      SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos FROM gen.t m
      WHERE m.q_name = $1::name AND m.state = 0  AND EXISTS (SELECT 1 FROM q)
      ORDER BY m.priority, m.enq_seq LIMIT (SELECT $2::integer) FOR UPDATE OF m SKIP LOCKED),
    d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
    SELECT k.ok, k.ok OR NOT EXISTS (SELECT 1 FROM aq.queues x WHERE x.queue_table_id = <table id>
                                       AND x.queue_name = $1::name AND x.retention_time <> 0) AS suited,
           o.*
    FROM (SELECT EXISTS (SELECT 1 FROM q) AS ok) k LEFT JOIN (
      SELECT m.msgid, m.q_name::text AS queue_name, NULL::text AS consumer_name, m.corrid AS correlation,
             m.priority, m.delay, m.expiration, m.enq_time, 'PROCESSED'::text AS state,
             m.retry_count AS attempts,
             nullif(m.exception_queue, 'aq$_t_e')::text AS exception_queue, m.sender_name,
             m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position,
             to_jsonb(m.user_data) AS payload_json, NULL::bytea AS payload_raw
      FROM d m) o ON true
    ORDER BY o.position

-- aq.fast_path('gen.q').send_sql
NULL

-- aq.fast_path('gen.q').remove_ids_sql
-- aq.fast_remove_sql: REMOVE one message from gen.t
    WITH q AS (
      SELECT x.id FROM aq.queues x
      WHERE x.queue_table_id = <table id> AND x.queue_name = $1::name AND x.queue_type = 'NORMAL_QUEUE'
        AND x.dequeue_enabled AND x.retention_time = 0
        AND (current_user = 'postgres' OR pg_has_role(current_user, 'postgres', 'MEMBER')
             OR aq.may_access(x.id, 'DEQUEUE', current_user))),
    c AS (
      SELECT m.msgid, ARRAY[m.priority::bigint, m.enq_seq] AS pos FROM gen.t m
      WHERE m.q_name = $1::name AND m.state = 0  AND m.msgid = ANY ($2::bytea[]) AND EXISTS (SELECT 1 FROM q)
      ORDER BY m.msgid LIMIT (SELECT cardinality($2::bytea[])) FOR UPDATE OF m SKIP LOCKED),
    d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.priority::bigint, m.enq_seq] AS pos)
    SELECT k.ok, k.ok OR NOT EXISTS (SELECT 1 FROM aq.queues x WHERE x.queue_table_id = <table id>
                                       AND x.queue_name = $1::name AND x.retention_time <> 0) AS suited,
           o.*
    FROM (SELECT EXISTS (SELECT 1 FROM q) AS ok) k LEFT JOIN (
      SELECT m.msgid, m.q_name::text AS queue_name, NULL::text AS consumer_name, m.corrid AS correlation,
             m.priority, m.delay, m.expiration, m.enq_time, 'PROCESSED'::text AS state,
             m.retry_count AS attempts,
             nullif(m.exception_queue, 'aq$_t_e')::text AS exception_queue, m.sender_name,
             m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position,
             NULL::jsonb AS payload_json, NULL::bytea AS payload_raw
      FROM d m) o ON true
    ORDER BY o.position
