-- In the procedure's transaction, after the call, back as the notifier: delivered exactly
-- once with it. $1 notification id, $2 claimer, $3 now
UPDATE aq.notifications
SET state = 'DELIVERED', finished_at = $3, lease_until = NULL, last_error = NULL
WHERE id = $1 AND claimed_by = $2 AND state = 'SENDING'
