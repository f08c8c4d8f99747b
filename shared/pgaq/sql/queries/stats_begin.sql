-- A run starts: its id, the database's clock, and where the last run stopped.
-- $1 lag (seconds)
WITH r AS (INSERT INTO aq_stats.runs DEFAULT VALUES RETURNING id, started_at)
SELECT r.id, r.started_at - make_interval(secs => $1) AS high,
       (SELECT w.high FROM aq_stats.watermarks w WHERE w.source = 'stats') AS low
  FROM r
