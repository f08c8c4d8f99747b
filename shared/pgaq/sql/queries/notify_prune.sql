-- Delivered notifications older than $1 and failed ones older than $2 go, 10,000 a time
WITH gone AS (
  DELETE FROM aq.notifications
  WHERE id IN (SELECT id FROM aq.notifications
               WHERE finished_at < $1::timestamptz AND state = 'DELIVERED'
                  OR finished_at < $2::timestamptz AND state = 'FAILED'
               LIMIT 10000)
  RETURNING 1
)
SELECT count(*) FROM gone
