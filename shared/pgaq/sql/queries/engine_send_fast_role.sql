-- engine_send_fast run as role $6 in one statement (see engine_send1_fast_role)
SELECT CASE WHEN set_config('role', $6::text, true) IS NOT NULL THEN
  {fn}($1::name, $2::jsonb, $3::jsonb, $4::bytea[], $5::text)
END
