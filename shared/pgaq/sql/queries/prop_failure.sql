-- A failed attempt: the retry state, the error, the log. $1 schedule, $2 propagator,
-- $3 failures, $4 next run, $5 aligned, $6 disable, $7 error, $8 now, $9 event.
-- LAST_RUN_DATE stays the last successful run's.
WITH s AS (
  UPDATE aq.schedules x SET failures = $3, next_run = $4, aligned = $5,
         disabled = x.disabled OR $6, last_error_msg = left($7, 2000), last_error_date = $8
  WHERE x.id = $1 AND x.lease_owner = $2
  RETURNING x.id, x.queue_id, x.destination, x.destination_queue, x.window_start
)
INSERT INTO aq.propagation_log (schedule_id, queue_name, destination, window_start, started_at,
                                finished_at, error, event)
SELECT s.id, q.schema_name || '.' || q.queue_name,
       coalesce(nullif(s.destination_queue, ''), '') || coalesce('@' || nullif(s.destination, ''), ''),
       s.window_start, $8, $8, left($7, 2000), $9
FROM s JOIN aq.queues q ON q.id = s.queue_id
