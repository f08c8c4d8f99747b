-- engine_recv_fast run as role $8 in one statement (see engine_send1_fast_role)
SELECT (x).msgid, (x).queue_name, (x).consumer_name, (x).correlation, (x).priority, (x).delay,
       (x).expiration, (x).enq_time, (x).state, (x).attempts, (x).exception_queue,
       (x).sender_name, (x).sender_address, (x).sender_protocol, (x).original_msgid,
       (x).txn_group, (x).position, (x).payload_json, (x).payload_raw
FROM unnest(CASE WHEN set_config('role', $8::text, true) IS NOT NULL THEN
  {fn}($1::name, $2::text, $3::text, $4::bigint[], $5::integer, $6::text, $7::boolean)
END) x
