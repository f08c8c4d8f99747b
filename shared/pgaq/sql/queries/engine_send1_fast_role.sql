-- engine_send1_fast run as role $9 in one statement (autocommit): CASE evaluates the
-- condition first, so the role is set before the volatile call runs; set_config(..., true)
-- ends with the statement's own transaction
SELECT CASE WHEN set_config('role', $9::text, true) IS NOT NULL THEN
  {fn}($1::name, $2::integer, $3::integer, $4::integer, $5::text, $6::bytea, $7::jsonb, $8::text)
END
