-- {fn} is a function name PostgreSQL quoted with format('%I.%I') (aq.fast_path)
SELECT (x).msgid, (x).queue_name, (x).consumer_name, (x).correlation, (x).priority, (x).delay,
       (x).expiration, (x).enq_time, (x).state, (x).attempts, (x).exception_queue,
       (x).sender_name, (x).sender_address, (x).sender_protocol, (x).original_msgid,
       (x).txn_group, (x).position, (x).payload_json, (x).payload_raw
FROM unnest({fn}($1::name, $2::text, $3::text, $4::bigint[], $5::integer, $6::text, $7::boolean)) x
