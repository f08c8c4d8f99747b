-- Enqueue, dequeue and propagation events in [{low}, {high}) (see aq.message_history), one
-- row per kind, queue, schedule, UTC minute and wait with `n` the events it stands for: an
-- hour of enqueues is a row per queue and minute, and percentiles weighted by `n` are
-- exactly those of the events themselves.
SELECT kind, queue_id, schedule_id, date_trunc('minute', t, 'UTC') AS t, wait_ms, count(*) AS n
  FROM aq.message_history({low}, {high})
 GROUP BY kind, queue_id, schedule_id, date_trunc('minute', t, 'UTC'), wait_ms
