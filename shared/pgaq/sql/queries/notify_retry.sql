-- A failed attempt: try again at $4, or give up ($5 = true: FAILED). $1 id, $2 claimer,
-- $3 error, $4 next attempt, $5 final, $6 now
UPDATE aq.notifications
SET state = CASE WHEN $5::boolean THEN 'FAILED' ELSE 'PENDING' END,
    due_at = CASE WHEN $5::boolean THEN due_at ELSE $4::timestamptz END,
    finished_at = CASE WHEN $5::boolean THEN $6::timestamptz END,
    last_error = left($3::text, 2000), lease_until = NULL
WHERE id = $1::uuid AND claimed_by = $2::text AND state = 'SENDING'
