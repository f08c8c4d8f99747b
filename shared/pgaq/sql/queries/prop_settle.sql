-- $1 schedule, $2 ids, $3 consumers, $4 addresses, $5 failure reason (NULL: delivered)
SELECT aq.propagation_settle($1, $2::bytea[], $3::text[], $4::text[], $5::text)
