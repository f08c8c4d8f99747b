-- /dashboard: queue depth and age, live from the monitor's snapshots (one per queue per
-- PGAQ_SNAPSHOT_PERIOD), per queue and bucket. $1 grain ('minute' | 'hour'), $2 the
-- range (interval).
SELECT queue_id, date_trunc($1::text, taken_at, 'UTC') AS bucket,
       max(queue_schema) AS queue_schema, max(queue_name) AS queue_name,
       count(*) AS snapshots,
       avg(ready)::float8 AS ready, max(ready) AS ready_max,
       max(waiting) AS waiting, max(expired) AS expired,
       max(oldest_ready_age) AS oldest_ready_age
  FROM aq.queue_snapshots
 WHERE taken_at >= date_trunc($1::text, now() - $2::interval, 'UTC')
 GROUP BY queue_id, bucket
 ORDER BY queue_id, bucket
