-- A propagator's batch over IDAP, in the session's transaction: $1 schedule key, $2 queue,
-- $3 source ids, $4 properties, $5 JSON payloads, $6 RAW payloads, $7 agent
SELECT aq.receive_propagated($1::text, $2::text, $3::bytea[], $4::jsonb, $5::jsonb, $6::bytea[], $7::text)
