-- $1 queue, $2 consumer, $3 ids of messages this transaction holds LOCKED and has handed
-- out, $4 agent: removed together (aq.remove_held); how many were removed
SELECT aq.remove_held($1::text, $2::text, $3::bytea[], $4::text)
