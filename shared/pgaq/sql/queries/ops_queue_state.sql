-- After pgaq start/stop: the queue ($1) and whether it takes enqueues and dequeues.
SELECT q.schema_name || '.' || q.queue_name AS queue, q.queue_type,
       CASE WHEN q.enqueue_enabled THEN 'YES' ELSE 'NO' END AS enqueue,
       CASE WHEN q.dequeue_enabled THEN 'YES' ELSE 'NO' END AS dequeue
  FROM aq.resolve_queue($1::text) q
