-- The propagation log and the queue snapshots are kept $1 seconds, $2 rows of each a
-- time. While the statistics job runs, a row also stays until the job's watermark is a
-- day past it: the job recomputes series from (watermark - lookback)'s hour on, and a
-- row it still reads is never taken from under it.
WITH horizon AS (
  SELECT least(clock_timestamp() - make_interval(secs => $1::double precision),
               coalesce((SELECT w.high - interval '1 day' FROM aq_stats.watermarks w
                          WHERE w.source = 'stats'), 'infinity'::timestamptz)) AS t
), log AS (
  DELETE FROM aq.propagation_log
  WHERE id = ANY (ARRAY(SELECT l.id FROM aq.propagation_log l, horizon h
                        WHERE l.finished_at < h.t LIMIT $2::integer))
  RETURNING 1
), snaps AS (
  DELETE FROM aq.queue_snapshots
  WHERE ctid = ANY (ARRAY(SELECT s.ctid FROM aq.queue_snapshots s, horizon h
                          WHERE s.taken_at < h.t LIMIT $2::integer))
  RETURNING 1
)
SELECT (SELECT count(*) FROM log) AS log_rows, (SELECT count(*) FROM snaps) AS snapshot_rows
