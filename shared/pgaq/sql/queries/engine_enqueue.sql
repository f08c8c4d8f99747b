-- $1 queue, $2 properties (jsonb array), $3 JSON payloads, $4 RAW payloads, $5 transformation, $6 agent
SELECT aq.enqueue_array($1::text, $2::jsonb, $3::jsonb, $4::bytea[], $5::text, $6::text) AS ids
