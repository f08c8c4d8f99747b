-- The library's fast path: for a queue, the generated functions it may call directly
-- (quoted with format('%I')), or NULL where only the general path applies.
-- remove_sql / remove_after_sql: the most frequent dequeue (single consumer, REMOVE, one
-- message, retention 0) as one plain statement the client prepares, with no PL/pgSQL
-- between it and the table (the function layers cost more than the dequeue itself).
-- The privilege check of the statements below for callers other than the owner: a call,
-- not a subquery, so the statement's plan stays small (each execution initialises every
-- node of it, used or not).
DROP FUNCTION IF EXISTS aq.may_access(integer, text);
CREATE OR REPLACE FUNCTION aq.may_access(p_queue_id integer, p_priv text, p_role name DEFAULT current_user)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE
  q aq.queue_info;
BEGIN
  SELECT * INTO q FROM aq.queue_info WHERE queue_id = p_queue_id;
  RETURN FOUND AND aq.has_access_as(q, p_priv, p_role);
END $$;

-- One REMOVE of the first READY message ($1 queue name; $2 the position to start after).
-- The first column, ok, says whether the statement applied: the queue exists, is a
-- normal queue enabled for dequeue with retention 0, and the caller may dequeue it. When
-- it is false nothing was touched and the client takes the general path, which raises
-- the proper error or handles the case; suited = false says the queue's settings
-- (retention) keep it on the general path, so the client stops trying this statement. The queue's row is read in the statement itself,
-- so an alter_queue or stop_queue takes effect at once.
-- p_acting: the role to check instead of current_user (an expression over p_role in the
-- definer function below); the queue's name is then p_queue and the position p_after.
DROP FUNCTION IF EXISTS aq.fast_remove_sql(aq.queue_info, boolean);
CREATE OR REPLACE FUNCTION aq.fast_remove_sql(q aq.queue_info, p_after boolean, p_acting boolean DEFAULT false)
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  outp text[] := aq.payload_output_expr(q, NULL::aq.transformations, 'm');
  body text;
BEGIN
  body := format($f$-- aq.fast_remove_sql: REMOVE one message from %1$I.%2$I
    WITH q AS (
      SELECT x.id FROM aq.queues x
      WHERE x.queue_table_id = %3$s AND x.queue_name = $1::name AND x.queue_type = 'NORMAL_QUEUE'
        AND x.dequeue_enabled AND x.retention_time = 0
        AND (%10$s = %4$L OR pg_has_role(%10$s, %4$L, 'MEMBER')
             OR aq.may_access(x.id, 'DEQUEUE', %10$s))),
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
    aq.sort_columns(q.sort_key, 'm'), outp[1], outp[2],
    CASE WHEN p_acting THEN 'p_role' ELSE 'current_user' END);
  RETURN body;
END $$;

-- The one-statement REMOVE for a session acting as another role (a gateway agent's) in
-- autocommit: the statement above in a function that runs as the queue table's owner, so
-- no SET ROLE transaction (four round trips) is needed, with every check made of the
-- acting role explicitly. The acting role is the `role` setting, which PostgreSQL let the
-- caller take only if it could SET ROLE to it (the caller sets it in the same statement:
-- aq.fast_path's remove_role_sql); without one the function does nothing (ok = false).
-- The queue table's row-level security is what the owner skips; the check of the queue
-- (DEQUEUE privilege of the acting role on exactly the queue named) is what it enforces.
CREATE OR REPLACE FUNCTION aq.create_fast_remove_function(t aq.queue_tables, q aq.queue_info) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  fn name := ('aq$_' || t.table_name || '_rm1')::name;
BEGIN
  IF t.multiple_consumers OR t.message_grouping <> 'NONE' THEN
    EXECUTE format('DROP FUNCTION IF EXISTS %I.%I(name, bigint[])', t.schema_name, fn);
    RETURN;
  END IF;
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION %1$I.%2$I(p_queue name, p_after bigint[])
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
        RETURN QUERY %3$s;
      ELSE
        RETURN QUERY %4$s;
      END IF;
    END $body$
  $f$, t.schema_name, fn,
       replace(aq.fast_remove_sql(q, false, true), '$1::name', 'p_queue'),
       replace(replace(aq.fast_remove_sql(q, true, true), '$1::name', 'p_queue'), '$2::bigint[]', 'p_after'));
  EXECUTE format('ALTER FUNCTION %I.%I(name, bigint[]) OWNER TO %I', t.schema_name, fn, t.owner);
  EXECUTE format('REVOKE ALL ON FUNCTION %I.%I(name, bigint[]) FROM PUBLIC', t.schema_name, fn);
  EXECUTE format('GRANT EXECUTE ON FUNCTION %I.%I(name, bigint[]) TO PUBLIC', t.schema_name, fn);
END $$;

DROP FUNCTION IF EXISTS aq.fast_path(text);
CREATE OR REPLACE FUNCTION aq.fast_path(p_queue text)
RETURNS TABLE (queue_id integer, queue_name text, multiple_consumers boolean, payload_kind text,
               send_fn text, recv_fn text, send1_fn text, remove_sql text, remove_after_sql text,
               remove_fn text)
LANGUAGE sql STABLE AS $$
  SELECT q.queue_id, q.queue_name::text, q.multiple_consumers, q.payload_kind,
         CASE WHEN q.queue_type = 'NORMAL_QUEUE' AND q.message_grouping = 'NONE'
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
                   AND to_regprocedure(format('%I.%I(name,bigint[])', q.table_schema,
                                              'aq$_' || q.table_name || '_rm1')) IS NOT NULL
              THEN format('%I.%I', q.table_schema, 'aq$_' || q.table_name || '_rm1') END
  FROM aq.resolve_queue(p_queue) q
$$;
