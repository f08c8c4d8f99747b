-- $1 queue, $2 consumer, $3 message ids whose REMOVE was rolled back
SELECT aq.record_failed_attempts($1::text, $2::text, $3::bytea[])
