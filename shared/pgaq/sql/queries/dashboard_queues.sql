-- /dashboard: every queue with what its empty charts depend on: the retention that keeps
-- its message history (dequeue waits, propagation latency are read from retained
-- messages), whether it is an exception queue and whether a schedule propagates from it.
SELECT q.id AS queue_id, q.schema_name || '.' || q.queue_name AS label,
       q.queue_type = 'EXCEPTION_QUEUE' AS exception,
       q.retention_time AS retention,
       EXISTS (SELECT 1 FROM aq.schedules s WHERE s.queue_id = q.id) AS propagates
  FROM aq.queues q
 ORDER BY q.id
