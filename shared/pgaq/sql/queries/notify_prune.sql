-- Delivered and failed notifications older than the retention go. $1 cutoff
WITH gone AS (
  DELETE FROM aq.notifications
  WHERE id IN (SELECT id FROM aq.notifications WHERE finished_at < $1 LIMIT 10000)
  RETURNING 1
)
SELECT count(*) FROM gone
