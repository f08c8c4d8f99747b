-- The library's fast path: for a queue, the generated functions it may call directly
-- (quoted with format('%I')), or NULL where only the general path applies.
DROP FUNCTION IF EXISTS aq.fast_path(text);
CREATE OR REPLACE FUNCTION aq.fast_path(p_queue text)
RETURNS TABLE (queue_id integer, queue_name text, multiple_consumers boolean, payload_kind text,
               send_fn text, recv_fn text, send1_fn text)
LANGUAGE sql STABLE AS $$
  SELECT q.queue_id, q.queue_name::text, q.multiple_consumers, q.payload_kind,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE'
              THEN format('%I.%I', q.table_schema, 'aq$_' || q.table_name || '_send') END,
         CASE WHEN q.message_grouping = 'NONE'
              THEN format('%I.%I', q.table_schema, 'aq$_' || q.table_name || '_recv') END,
         CASE WHEN NOT q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE' AND q.message_grouping = 'NONE'
              THEN format('%I.%I', q.table_schema, 'aq$_' || q.table_name || '_send1') END
  FROM aq.resolve_queue(p_queue) q
$$;
