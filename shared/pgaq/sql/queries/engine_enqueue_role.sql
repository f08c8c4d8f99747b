-- engine_enqueue run as role $7 in one statement (see engine_send1_fast_role)
SELECT CASE WHEN set_config('role', $7::text, true) IS NOT NULL THEN
  aq.enqueue_array($1::text, $2::jsonb, $3::jsonb, $4::bytea[], $5::text, $6::text)
END AS ids
