-- The statistics job's aggregates computed again with plain SQL over the same data, as
-- the correctness test's reference ($1 = the run's high watermark). One statement per
-- table, separated by lines of four dashes; each yields the table's columns.
SET TIME ZONE 'UTC';
---- schedule_windows
SELECT schedule_id, coalesce(window_start, 'epoch') AS window_start,
       (array_agg(queue_name ORDER BY id DESC))[1] AS queue_name,
       (array_agg(destination ORDER BY id DESC))[1] AS destination,
       count(*) FILTER (WHERE event = 'BATCH') AS batches,
       coalesce(sum(messages) FILTER (WHERE event = 'BATCH'), 0) AS messages,
       coalesce(sum(bytes) FILTER (WHERE event = 'BATCH'), 0) AS bytes,
       coalesce(sum(extract(epoch FROM finished_at - started_at)) FILTER (WHERE event = 'BATCH'), 0)::float8 AS seconds,
       count(*) FILTER (WHERE event = 'FAILURE') AS failures,
       count(*) FILTER (WHERE event = 'UNDELIVERABLE') AS undeliverable,
       count(*) FILTER (WHERE event = 'DISABLED') AS disabled,
       min(started_at) AS first_at, max(finished_at) AS last_at
  FROM aq.propagation_log WHERE finished_at < $1
 GROUP BY 1, 2
---- schedule_totals
WITH w AS (
  SELECT schedule_id, coalesce(window_start, 'epoch') AS window_start, max(id) AS last_id,
         coalesce(sum(messages) FILTER (WHERE event = 'BATCH'), 0) AS messages,
         coalesce(sum(bytes) FILTER (WHERE event = 'BATCH'), 0) AS bytes,
         coalesce(sum(extract(epoch FROM finished_at - started_at)) FILTER (WHERE event = 'BATCH'), 0)::float8 AS seconds,
         count(*) FILTER (WHERE event = 'BATCH') AS batches,
         count(*) FILTER (WHERE event = 'FAILURE') AS failures,
         count(*) FILTER (WHERE event = 'UNDELIVERABLE') AS undeliverable,
         count(*) FILTER (WHERE event = 'DISABLED') AS disabled,
         min(started_at) AS first_at, max(finished_at) AS last_at
    FROM aq.propagation_log WHERE finished_at < $1 GROUP BY 1, 2)
SELECT w.schedule_id,
       (SELECT l.queue_name FROM aq.propagation_log l WHERE l.id = max(w.last_id)) AS queue_name,
       (SELECT l.destination FROM aq.propagation_log l WHERE l.id = max(w.last_id)) AS destination,
       count(*) AS windows, sum(batches) AS batches, sum(messages) AS total_number,
       sum(bytes) AS total_bytes, sum(seconds) AS total_time, max(messages) AS max_number,
       max(bytes) AS max_bytes, sum(messages)::float8 / count(*) AS avg_number,
       sum(bytes)::float8 / count(*) AS avg_bytes,
       sum(bytes)::float8 / nullif(sum(messages), 0) AS avg_size,
       sum(seconds) / nullif(sum(messages), 0) AS avg_time,
       sum(failures) AS failures, sum(undeliverable) AS undeliverable, sum(disabled) AS disabled,
       min(first_at) AS first_at, max(last_at) AS last_at
  FROM w GROUP BY w.schedule_id
---- schedule_series
WITH g(grain) AS (VALUES ('minute'), ('hour')),
l AS (
  SELECT l.schedule_id, g.grain, date_trunc(g.grain, l.finished_at) AS bucket,
         (array_agg(l.queue_name ORDER BY l.id DESC))[1] AS queue_name,
         (array_agg(l.destination ORDER BY l.id DESC))[1] AS destination,
         count(*) FILTER (WHERE event = 'BATCH') AS batches,
         coalesce(sum(messages) FILTER (WHERE event = 'BATCH'), 0) AS messages,
         coalesce(sum(bytes) FILTER (WHERE event = 'BATCH'), 0) AS bytes,
         coalesce(sum(extract(epoch FROM finished_at - started_at)) FILTER (WHERE event = 'BATCH'), 0)::float8 AS seconds,
         count(*) FILTER (WHERE event = 'FAILURE') AS failures,
         count(*) FILTER (WHERE event = 'UNDELIVERABLE') AS undeliverable,
         count(*) FILTER (WHERE event = 'DISABLED') AS disabled,
         count(*) FILTER (WHERE error IS NOT NULL) AS errors,
         percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (
           ORDER BY 1000 * extract(epoch FROM finished_at - started_at)::float8) FILTER (WHERE event = 'BATCH') AS b
    FROM aq.propagation_log l CROSS JOIN g WHERE l.finished_at < $1 GROUP BY 1, 2, 3),
h AS (
  SELECT h.schedule_id, g.grain, date_trunc(g.grain, h.t) AS bucket, count(*) AS samples,
         percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY h.wait_ms) AS p
    FROM aq.message_history('-infinity', $1) h CROSS JOIN g
   WHERE h.kind = 'P' AND h.schedule_id IS NOT NULL GROUP BY 1, 2, 3),
names AS (
  SELECT s.id AS schedule_id, q.schema_name || '.' || q.queue_name AS queue_name,
         coalesce(nullif(s.destination_queue, ''), '') || coalesce('@' || nullif(s.destination, ''), '') AS destination
    FROM aq.schedules s JOIN aq.queues q ON q.id = s.queue_id)
SELECT coalesce(l.schedule_id, h.schedule_id) AS schedule_id, coalesce(l.grain, h.grain) AS grain,
       coalesce(l.bucket, h.bucket) AS bucket,
       coalesce(l.queue_name, n.queue_name) AS queue_name, coalesce(l.destination, n.destination) AS destination,
       coalesce(l.batches, 0) AS batches, coalesce(l.messages, 0) AS messages, coalesce(l.bytes, 0) AS bytes,
       coalesce(l.seconds, 0) AS seconds, coalesce(l.failures, 0) AS failures,
       coalesce(l.undeliverable, 0) AS undeliverable, coalesce(l.disabled, 0) AS disabled,
       coalesce(l.errors, 0) AS errors,
       l.b[1] AS batch_p50_ms, l.b[2] AS batch_p95_ms, l.b[3] AS batch_p99_ms,
       coalesce(h.samples, 0) AS latency_samples,
       h.p[1] AS latency_p50_ms, h.p[2] AS latency_p95_ms, h.p[3] AS latency_p99_ms
  FROM l FULL JOIN h ON (h.schedule_id, h.grain, h.bucket) = (l.schedule_id, l.grain, l.bucket)
  LEFT JOIN names n ON n.schedule_id = coalesce(l.schedule_id, h.schedule_id)
 WHERE coalesce(l.queue_name, n.queue_name) IS NOT NULL
---- queue_series
WITH g(grain) AS (VALUES ('minute'), ('hour')),
e AS (
  SELECT h.queue_id, g.grain, date_trunc(g.grain, h.t) AS bucket,
         count(*) FILTER (WHERE kind = 'E') AS enqueued, count(*) FILTER (WHERE kind = 'D') AS dequeued,
         percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY h.wait_ms) FILTER (WHERE kind = 'D') AS p
    FROM aq.message_history('-infinity', $1) h CROSS JOIN g WHERE h.kind IN ('E', 'D') GROUP BY 1, 2, 3),
s AS (
  SELECT s.queue_id, g.grain, date_trunc(g.grain, s.taken_at) AS bucket,
         (array_agg(s.queue_schema::text ORDER BY s.taken_at DESC))[1] AS queue_schema,
         (array_agg(s.queue_name::text ORDER BY s.taken_at DESC))[1] AS queue_name,
         count(*) AS snapshots, avg(ready)::float8 AS ready_avg, max(ready) AS ready_max,
         max(waiting) AS waiting_max, max(expired) AS expired_max,
         max(oldest_ready_age) AS oldest_ready_age_max
    FROM aq.queue_snapshots s CROSS JOIN g WHERE s.taken_at < $1 GROUP BY 1, 2, 3)
SELECT coalesce(e.queue_id, s.queue_id) AS queue_id, coalesce(e.grain, s.grain) AS grain,
       coalesce(e.bucket, s.bucket) AS bucket,
       coalesce(q.schema_name::text, s.queue_schema) AS queue_schema,
       coalesce(q.queue_name::text, s.queue_name) AS queue_name,
       coalesce(e.enqueued, 0) AS enqueued, coalesce(e.dequeued, 0) AS dequeued,
       coalesce(e.dequeued, 0) AS wait_samples,
       e.p[1] AS wait_p50_ms, e.p[2] AS wait_p95_ms, e.p[3] AS wait_p99_ms,
       coalesce(s.snapshots, 0) AS snapshots, s.ready_avg, s.ready_max, s.waiting_max, s.expired_max,
       s.oldest_ready_age_max
  FROM e FULL JOIN s ON (s.queue_id, s.grain, s.bucket) = (e.queue_id, e.grain, e.bucket)
  LEFT JOIN aq.queues q ON q.id = coalesce(e.queue_id, s.queue_id)
 WHERE coalesce(q.queue_name::text, s.queue_name) IS NOT NULL
