-- The per-window figures of earlier runs.
SELECT schedule_id, window_start, queue_name, destination, batches, messages, bytes, seconds,
       failures, undeliverable, disabled, first_at, last_at
  FROM aq_stats.schedule_windows
