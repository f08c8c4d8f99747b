-- Take (or keep) schedules: ours, free ones, and those whose propagator's lease ran out.
-- $1 propagator, $2 lease seconds, $3 most schedules one propagator runs
WITH mine AS (
  SELECT s.id FROM aq.schedules s
  WHERE s.lease_owner = $1 OR s.lease_owner IS NULL OR s.lease_until < clock_timestamp()
  ORDER BY (s.lease_owner = $1) DESC, s.id
  LIMIT $3
  FOR UPDATE SKIP LOCKED
)
UPDATE aq.schedules s SET lease_owner = $1,
       lease_until = clock_timestamp() + make_interval(secs => $2::double precision)
FROM mine WHERE s.id = mine.id
RETURNING s.id
