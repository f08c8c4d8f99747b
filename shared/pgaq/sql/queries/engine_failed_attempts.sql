-- $1 queue, $2 consumer, $3 message ids whose REMOVE was rolled back, $4 whether they are
-- buffered messages (in the queue table's companion, R__11_buffered)
SELECT aq.record_failed_attempts($1::text, $2::text, $3::bytea[], $4::boolean)
