-- /dashboard: propagation per schedule and bucket (aq_stats, written by the statistics
-- job). $1 grain ('minute' | 'hour'), $2 the range (interval), $3 seconds per bucket.
SELECT schedule_id, bucket, queue_name, destination,
       messages, bytes, batches, failures, undeliverable, disabled, errors,
       messages / $3::float8 AS messages_per_s,
       bytes / $3::float8 AS bytes_per_s,
       CASE WHEN messages > 0 THEN seconds * 1000 / messages END AS ms_per_message,
       batch_p50_ms, batch_p95_ms, batch_p99_ms,
       latency_samples, latency_p50_ms, latency_p95_ms, latency_p99_ms
  FROM aq_stats.schedule_series
 WHERE grain = $1::text
   AND bucket >= date_trunc($1::text, now() - $2::interval, 'UTC')
 ORDER BY schedule_id, bucket
