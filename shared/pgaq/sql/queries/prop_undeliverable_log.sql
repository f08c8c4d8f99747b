-- Messages marked UNDELIVERABLE, in the log. $1 schedule, $2 messages, $3 error, $4 now
INSERT INTO aq.propagation_log (schedule_id, queue_name, destination, window_start, started_at,
                                finished_at, messages, error, event)
SELECT s.id, q.schema_name || '.' || q.queue_name,
       coalesce(nullif(s.destination_queue, ''), '') || coalesce('@' || nullif(s.destination, ''), ''),
       s.window_start, $4, $4, $2, left($3, 2000), 'UNDELIVERABLE'
FROM aq.schedules s JOIN aq.queues q ON q.id = s.queue_id WHERE s.id = $1
