-- A run starts: its id, the database's clock, where the last run stopped and the oldest
-- log or snapshot row (the first run's lower bound for partitioned reads).
-- $1 lag (seconds)
WITH r AS (INSERT INTO aq_stats.runs DEFAULT VALUES RETURNING id, started_at)
SELECT r.id, r.started_at - make_interval(secs => $1) AS high,
       (SELECT w.high FROM aq_stats.watermarks w WHERE w.source = 'stats') AS low,
       least((SELECT min(finished_at) FROM aq.propagation_log),
             (SELECT min(taken_at) FROM aq.queue_snapshots)) AS oldest
  FROM r
