-- The library's fast path: for a queue, the generated functions it may call directly
-- (quoted with format('%I')), or NULL where only the general path applies.
-- remove_sql / remove_after_sql: the most frequent dequeue (single consumer, REMOVE, one
-- message, retention 0) as one plain statement the client prepares, with no PL/pgSQL
-- between it and the table (the function layers cost more than the dequeue itself).
-- The privilege check of the statements below for callers other than the owner: a call,
-- not a subquery, so the statement's plan stays small (each execution initialises every
-- node of it, used or not).
-- upgrade (stays here: p_role's default would make a call ambiguous): removes the 2-argument form; no release
DROP FUNCTION IF EXISTS aq.may_access(integer, text);
CREATE OR REPLACE FUNCTION aq.may_access(p_queue_id integer, p_priv text, p_role name DEFAULT current_user)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE
  q aq.queue_info;
BEGIN
  SELECT * INTO q FROM aq.queue_info WHERE queue_id = p_queue_id;
  RETURN FOUND AND aq.has_access_as(q, p_priv, p_role);
END $$;

-- One REMOVE of the first READY message (template fast_remove; $1 queue name, $2 the
-- position to start after). The first column, ok, says whether the statement applied: the
-- queue exists, is a normal queue enabled for dequeue with retention 0, and the caller may
-- dequeue it. When it is false nothing was touched and the client takes the general path,
-- which raises the proper error or handles the case; suited = false says the queue's
-- settings (retention) keep it on the general path, so the client stops trying this
-- statement. The queue's row is read in the statement itself, so an alter_queue or
-- stop_queue takes effect at once.
-- p_acting: the role to check is p_role instead of current_user (the definer function
-- below), whose parameters p_queue and p_after are then the references.
-- p_limit: how many messages (SQL text: '1', or '(SELECT $2::integer)' for a REMOVE of up
-- to $2 messages from the first, returned in queue order: the library's batches and
-- grouped buffered REMOVEs, pgaq.coalesce). (A subquery, not $2 itself: a plan for a known
-- limit looks cheaper than the generic one, so PostgreSQL would plan every execution
-- again; a subquery's value is unknown to both, and the prepared statement keeps one plan.)
-- upgrade (stays here: the defaults would make a call ambiguous): removes the 2-argument form, no
-- release, and the 3-argument one, release 435be0f
DROP FUNCTION IF EXISTS aq.fast_remove_sql(aq.queue_info, boolean);
DROP FUNCTION IF EXISTS aq.fast_remove_sql(aq.queue_info, boolean, boolean);
CREATE OR REPLACE FUNCTION aq.fast_remove_sql(q aq.queue_info, p_after boolean, p_acting boolean DEFAULT false,
                                              p_limit text DEFAULT '1')
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  outp text[] := aq.payload_output_expr(q, NULL::aq.transformations, 'm');
BEGIN
  RETURN aq.render('fast_remove', jsonb_build_object(
    'limit', p_limit,
    'final_order', CASE WHEN p_limit = '1' THEN '' ELSE E'\n    ORDER BY o.position' END,
    -- several: by the ids (an index scan on the primary key whatever their number), not a
    -- join whose plan would follow the limit's estimate
    -- by its id as an index condition, never a join: a queue its consumers keep empty looks
    -- like a one-row table to the planner, whose join plan then walks the whole primary
    -- key (every entry a pinned xmin horizon keeps) for one message
    'delete', CASE WHEN p_limit = '1'
                   THEN aq.render_fast_remove_delete_one(jsonb_build_object('position', aq.sort_key_expr(q.sort_key, 'm')))
                   ELSE aq.render_fast_remove_delete_ids(jsonb_build_object('position', aq.sort_key_expr(q.sort_key, 'm'))) END,
    'schema', q.table_schema, 'table', q.table_name, 'table_id', q.table_id, 'owner', q.owner,
    'queue', CASE WHEN p_acting THEN 'p_queue' ELSE '$1::name' END,
    'acting', CASE WHEN p_acting THEN 'p_role' ELSE 'current_user' END,
    'position', aq.sort_key_expr(q.sort_key, 'm'), 'order', aq.sort_columns(q.sort_key, 'm'),
    'floor', aq.scan_floor_expr(q, 'm'),
    'after_position', CASE WHEN p_after
      THEN ' AND ' || aq.after_position_expr(q.sort_key, 'm', CASE WHEN p_acting THEN 'p_after' ELSE '$2::bigint[]' END)
      ELSE '' END,
    'payload_json', outp[1], 'payload_raw', outp[2],
    'default_exception_queue', q.default_exception_queue));
END $$;

-- REMOVE of messages the calling transaction holds LOCKED, by their ids ($2, bytea[]), in
-- one plain statement (template fast_remove): a transacted JMS session's commit. A held
-- message is READY (a LOCKED dequeue took it so, and the lock keeps it so), so the
-- template's state = 0 holds; SKIP LOCKED never skips the caller's own locks.
CREATE OR REPLACE FUNCTION aq.fast_remove_ids_sql(q aq.queue_info) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  outp text[] := aq.payload_output_expr(q, NULL::aq.transformations, 'm');
BEGIN
  RETURN aq.render('fast_remove', jsonb_build_object(
    'limit', '(SELECT cardinality($2::bytea[]))',
    'final_order', E'\n    ORDER BY o.position',
    'delete', aq.render_fast_remove_delete_ids(jsonb_build_object('position', aq.sort_key_expr(q.sort_key, 'm'))),
    'schema', q.table_schema, 'table', q.table_name, 'table_id', q.table_id, 'owner', q.owner,
    'queue', '$1::name', 'acting', 'current_user',
    -- by id: the primary key finds them (in the queue's order the planner would walk the
    -- queue to find a few), and the transaction has their locks already, so order is moot
    'position', aq.sort_key_expr(q.sort_key, 'm'), 'order', 'm.msgid',
    'after_position', ' AND m.msgid = ANY ($2::bytea[])', 'floor', '',
    'payload_json', 'NULL::jsonb', 'payload_raw', 'NULL::bytea',
    'default_exception_queue', q.default_exception_queue));
END $$;

-- The plain-SQL ENQUEUE of one RAW message (template fast_send), for single-consumer
-- tables without grouping; the buffered companion's adds its flow control.
CREATE OR REPLACE FUNCTION aq.fast_send_sql(q aq.queue_info) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT aq.render('fast_send', jsonb_build_object(
    'schema', q.table_schema, 'table', q.table_name, 'table_id', q.table_id, 'owner', q.owner,
    'queue_schema', q.schema_name,
    'room', CASE WHEN aq.is_buffered_info(q)
                 THEN aq.render('fast_send.room', jsonb_build_object('schema', q.table_schema, 'table', q.table_name))
                 ELSE '' END))
$$;

-- The one-statement REMOVE for a session acting as another role (template
-- queue_table.rm1 says how), on single-consumer tables without message grouping.
CREATE OR REPLACE FUNCTION aq.create_fast_remove_function(t aq.queue_tables, q aq.queue_info) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  fn name := ('aq$_' || t.table_name || '_rm1')::name;
BEGIN
  IF t.multiple_consumers OR t.message_grouping <> 'NONE' THEN
    EXECUTE aq.sql('DROP FUNCTION IF EXISTS {{schema:ident}}.{{name:ident}}(name, bigint[])',
                   jsonb_build_object('schema', t.schema_name, 'name', fn));
    RETURN;
  END IF;
  EXECUTE aq.render('queue_table.rm1', jsonb_build_object(
    'schema', t.schema_name, 'name', fn,
    'from_start', aq.fast_remove_sql(q, false, true),
    'after', aq.fast_remove_sql(q, true, true)));
  EXECUTE aq.sql('ALTER FUNCTION {{schema:ident}}.{{name:ident}}(name, bigint[]) OWNER TO {{owner:ident}}',
                 jsonb_build_object('schema', t.schema_name, 'name', fn, 'owner', t.owner));
  EXECUTE aq.sql('REVOKE ALL ON FUNCTION {{schema:ident}}.{{name:ident}}(name, bigint[]) FROM PUBLIC',
                 jsonb_build_object('schema', t.schema_name, 'name', fn));
  EXECUTE aq.sql('GRANT EXECUTE ON FUNCTION {{schema:ident}}.{{name:ident}}(name, bigint[]) TO PUBLIC',
                 jsonb_build_object('schema', t.schema_name, 'name', fn));
END $$;

-- upgrade (stays here: p_buffered's default would make a call ambiguous): removes aq.fast_path(text); release 435be0f
DROP FUNCTION IF EXISTS aq.fast_path(text);
-- upgrade (stays here: a new result column needs the old function gone): removes the form
-- before sendn_fn, remove_n_sql, send_sql and remove_ids_sql; no release
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_proc WHERE oid = to_regprocedure('aq.fast_path(text, boolean)')
               AND NOT 'remove_ids_sql' = ANY (proargnames)) THEN
    DROP FUNCTION aq.fast_path(text, boolean);
  END IF;
END $$;
-- p_buffered: the statements of the queue table's companion of buffered messages (R__11_buffered)
CREATE OR REPLACE FUNCTION aq.fast_path(p_queue text, p_buffered boolean DEFAULT false)
RETURNS TABLE (queue_id integer, queue_name text, multiple_consumers boolean, payload_kind text,
               send_fn text, recv_fn text, send1_fn text, remove_sql text, remove_after_sql text,
               remove_fn text, sendn_fn text, remove_n_sql text, send_sql text, remove_ids_sql text)
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
              THEN format('%I.%I', q.table_schema, 'aq$_' || q.table_name || '_rm1') END,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE' AND q.message_grouping = 'NONE'
                   AND to_regprocedure(format('%I.%I(name,integer[],integer[],integer[],text[],bytea[],jsonb,text)',
                                              q.table_schema, 'aq$_' || q.table_name || '_sendn')) IS NOT NULL
              THEN format('%I.%I', q.table_schema, 'aq$_' || q.table_name || '_sendn') END,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE' AND q.message_grouping = 'NONE'
              THEN aq.fast_remove_sql(q, false, false, '(SELECT $2::integer)') END,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE' AND q.message_grouping = 'NONE'
                   AND q.payload_kind = 'RAW'
              THEN aq.fast_send_sql(q) END,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE' AND q.message_grouping = 'NONE'
              THEN aq.fast_remove_ids_sql(q) END
  FROM (SELECT (CASE WHEN p_buffered THEN aq.buffered_info(r) ELSE r END).*
        FROM aq.resolve_queue(p_queue) r) q
$$;
