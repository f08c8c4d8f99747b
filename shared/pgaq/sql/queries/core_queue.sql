-- One queue (as listed by dba_queues) with its message counts by state; $1 owner, $2 name.
SELECT q.owner, q.name, q.queue_table, q.qid, q.queue_type, q.max_retries, q.retry_delay,
       q.enqueue_enabled, q.dequeue_enabled, q.retention, q.user_comment,
       coalesce((SELECT jsonb_object_agg(d.state, d.messages)
                 FROM aq.queue_depths d
                 WHERE d.queue_schema = q.owner AND d.queue_name = q.name), '{}'::jsonb)::text AS depths
FROM aq.dba_queues q
WHERE q.owner = $1 AND q.name = $2
