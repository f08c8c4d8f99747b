-- engine_sendn_fast run as role $9 in one statement (see engine_send1_fast_role)
SELECT CASE WHEN set_config('role', $9::text, true) IS NOT NULL THEN
  {fn}($1::name, $2::integer[], $3::integer[], $4::integer[], $5::text[], $6::bytea[], $7::jsonb, $8::text)
END
