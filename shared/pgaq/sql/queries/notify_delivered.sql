-- Delivered, recorded in batches. $1 ids, $2 claimer, $3 now
UPDATE aq.notifications
SET state = 'DELIVERED', finished_at = $3, lease_until = NULL, last_error = NULL
WHERE id = ANY($1::uuid[]) AND claimed_by = $2 AND state = 'SENDING'
