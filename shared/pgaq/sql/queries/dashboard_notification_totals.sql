-- /dashboard: the notification outbox now, by state, with retries and the oldest due row.
SELECT state, count(*) AS notifications, coalesce(sum(attempts), 0) AS attempts,
       extract(epoch FROM now() - min(due_at) FILTER (WHERE state = 'PENDING'))::float8
         AS oldest_pending_s
  FROM aq.notifications
 GROUP BY state
 ORDER BY state
