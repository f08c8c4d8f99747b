-- /dashboard: enqueue and dequeue rates and waits per queue and bucket (aq_stats, written
-- by the statistics job). $1 grain ('minute' | 'hour'), $2 the range (interval), $3
-- seconds per bucket.
SELECT queue_id, bucket, queue_schema, queue_name,
       enqueued, dequeued,
       enqueued / $3::float8 AS enqueued_per_s,
       dequeued / $3::float8 AS dequeued_per_s,
       wait_samples, wait_p50_ms, wait_p95_ms, wait_p99_ms
  FROM aq_stats.queue_series
 WHERE grain = $1::text
   AND bucket >= date_trunc($1::text, now() - $2::interval, 'UTC')
 ORDER BY queue_id, bucket
