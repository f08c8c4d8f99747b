-- idap_receive_propagated as its own transaction, run as role $8 (see engine_send1_fast_role)
SELECT CASE WHEN set_config('role', $8::text, true) IS NOT NULL THEN
  aq.receive_propagated($1::text, $2::text, $3::bytea[], $4::jsonb, $5::jsonb, $6::bytea[], $7::text)
END
