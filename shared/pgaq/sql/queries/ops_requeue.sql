-- pgaq requeue: one batch out of an exception queue ($1), to $2 (NULL: where each came
-- from), the dequeue condition $3, batch size $4, dry run $5 (R__92). Run in a transaction
-- of its own: a batch moves whole or not at all.
SELECT * FROM aq.requeue($1::text, $2::text, $3::text, $4::integer, $5::boolean)
