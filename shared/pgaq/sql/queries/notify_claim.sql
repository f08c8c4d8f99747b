-- Claim due notifications: PENDING ones whose time came, and SENDING ones whose claimer's
-- lease ran out (it died between sending and recording: sent again, same id). At most $5
-- per destination, none for the destinations in $6 (this notifier's busy ones); only the
-- rows picked are locked, SKIP LOCKED, so several notifiers never claim the same row.
-- $1 claimer, $2 now, $3 lease seconds, $4 batch, $5 per destination, $6 skipped destinations
WITH cand AS (
  SELECT n.id, n.dest_key, n.due_at, n.seq
  FROM aq.notifications n
  WHERE ((n.state = 'PENDING' AND n.due_at <= $2) OR (n.state = 'SENDING' AND n.lease_until < $2))
    AND n.dest_key <> ALL($6::text[])
  ORDER BY n.due_at, n.seq
  LIMIT $4 * 4
), picked AS (
  SELECT id FROM (
    SELECT c.id, c.due_at, c.seq,
           row_number() OVER (PARTITION BY c.dest_key ORDER BY c.due_at, c.seq) AS nth
    FROM cand c
  ) x
  WHERE nth <= $5
  ORDER BY due_at, seq
  LIMIT $4
), locked AS (
  SELECT n.id FROM aq.notifications n
  WHERE n.id IN (SELECT id FROM picked)
    AND ((n.state = 'PENDING' AND n.due_at <= $2) OR (n.state = 'SENDING' AND n.lease_until < $2))
  FOR UPDATE SKIP LOCKED
)
UPDATE aq.notifications n
SET state = 'SENDING', attempts = n.attempts + 1, claimed_by = $1::text,
    lease_until = $2::timestamptz + make_interval(secs => $3::double precision)
FROM locked l
WHERE n.id = l.id
RETURNING n.id, n.event, n.queue_name, n.consumer_name, n.msgid, n.message, n.payload, n.reg_name,
          n.url, n.dest_key, n.presentation, n.owner, n.attempts
