-- What schedules delivered here is remembered for $1 seconds (a batch sent again after a
-- crash comes within that), then forgotten, 10,000 rows a time
WITH gone AS (
  DELETE FROM aq.propagated
  WHERE ctid = ANY (ARRAY(SELECT ctid FROM aq.propagated
                          WHERE received_at < clock_timestamp() - make_interval(secs => $1::double precision)
                          LIMIT 10000))
  RETURNING 1
)
SELECT count(*) FROM gone
