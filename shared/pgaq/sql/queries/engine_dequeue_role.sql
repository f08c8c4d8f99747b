-- engine_dequeue run as role $15 in one statement (see engine_send1_fast_role): the role is
-- set in the function scan's argument, before the set-returning call runs
SELECT msgid, queue_name, consumer_name, correlation, priority, delay, expiration, enq_time,
       state, attempts, exception_queue, sender_name, sender_address, sender_protocol,
       original_msgid, txn_group, position, payload_json, payload_raw
FROM aq.dequeue_array(CASE WHEN set_config('role', $15::text, true) IS NOT NULL THEN $1::text END,
                      $2::text, $3::text, $4::text, $5::bytea, $6::text, $7::text,
                      $8::integer, $9::bigint[], $10::boolean, $11::text, $12::text, $13::bigint, $14::text)
