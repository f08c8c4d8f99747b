-- A batch delivered: statistics and the log. $1 schedule, $2 propagator, $3 messages,
-- $4 bytes, $5 seconds, $6 started, $7 finished
WITH s AS (
  UPDATE aq.schedules x SET
    total_number = x.total_number + $3, total_bytes = x.total_bytes + $4,
    total_time = x.total_time + $5, last_run_date = $7,
    window_number = x.window_number + $3, window_bytes = x.window_bytes + $4,
    max_number = greatest(x.max_number, x.window_number + $3),
    max_bytes = greatest(x.max_bytes, x.window_bytes + $4),
    failures = 0, aligned = false, next_run = NULL
  WHERE x.id = $1 AND x.lease_owner = $2
  RETURNING x.id, x.queue_id, x.destination, x.destination_queue, x.window_start
)
INSERT INTO aq.propagation_log (schedule_id, queue_name, destination, window_start, started_at,
                                finished_at, messages, bytes)
SELECT s.id, q.schema_name || '.' || q.queue_name,
       coalesce(nullif(s.destination_queue, ''), '') || coalesce('@' || nullif(s.destination, ''), ''),
       s.window_start, $6, $7, $3, $4
FROM s JOIN aq.queues q ON q.id = s.queue_id
