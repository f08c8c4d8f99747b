-- /dashboard: notification outcomes per bucket: DELIVERED and FAILED by when they
-- finished, PENDING and SENDING by when they were created. $1 grain ('minute' | 'hour'),
-- $2 the range (interval).
SELECT state, date_trunc($1::text, coalesce(finished_at, created_at), 'UTC') AS bucket,
       count(*) AS notifications
  FROM aq.notifications
 WHERE coalesce(finished_at, created_at) >= date_trunc($1::text, now() - $2::interval, 'UTC')
 GROUP BY state, bucket
 ORDER BY state, bucket
