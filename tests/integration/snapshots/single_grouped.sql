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
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
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
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
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
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
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
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 3   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
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
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 )
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
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
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 aq.state_name(m.state), m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name,
                 m.sender_address, m.sender_protocol, m.original_msgid, m.txn_group, c.pos AS position, NULL::jsonb, m.user_data
          FROM c CROSS JOIN LATERAL (SELECT * FROM gen.t x WHERE x.msgid = c.msgid LIMIT 1) m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
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
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
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
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, m.user_data
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
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
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (DELETE FROM gen.t m WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c))
                  RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
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
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_position IS NULL THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSIF p_batch = 1 THEN

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT 1 FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
          , o AS (SELECT m.msgid, m.q_name, NULL, m.corrid, m.priority, m.delay, m.expiration, m.enq_time,
                 'PROCESSED', m.retry_count, nullif(m.exception_queue, 'aq$_t_e'), m.sender_name, m.sender_address,
                 m.sender_protocol, m.original_msgid, m.txn_group, m.pos AS position, NULL::jsonb, NULL::bytea
          FROM d m)
        SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o
      ;
            ELSE

        WITH c AS (
          SELECT m.msgid, ARRAY[m.txn_group, m.enq_seq] AS pos
          FROM gen.t m
          WHERE m.q_name = p_queue AND m.state = 0   AND (m.txn_group, m.enq_seq) > ((p_position)[1], (p_position)[2])
          ORDER BY m.txn_group, m.enq_seq
          LIMIT p_batch FOR UPDATE OF m SKIP LOCKED)
          , d AS (UPDATE gen.t m SET state = 2, deq_time = p_now, deq_uid = current_user,
                         deq_agent = p_agent, deq_tid = pg_current_xact_id()::text
                  WHERE m.msgid = ANY (ARRAY(SELECT c.msgid FROM c)) RETURNING m.*, ARRAY[m.txn_group, m.enq_seq] AS pos)
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
