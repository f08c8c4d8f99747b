-- see aq.dequeue_array for the meaning of each argument
SELECT msgid, queue_name, consumer_name, correlation, priority, delay, expiration, enq_time,
       state, attempts, exception_queue, sender_name, sender_address, sender_protocol,
       original_msgid, txn_group, position, payload_json, payload_raw
FROM aq.dequeue_array($1::text, $2::text, $3::text, $4::text, $5::bytea, $6::text, $7::text,
                      $8::integer, $9::bigint[], $10::boolean, $11::text, $12::text, $13::bigint, $14::text)
