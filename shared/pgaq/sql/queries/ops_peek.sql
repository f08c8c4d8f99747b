-- pgaq peek QUEUE: a BROWSE dequeue ($1 queue, $2 consumer, $3 how many): nothing is taken,
-- locked or counted as an attempt.
SELECT upper(encode(d.msgid, 'hex')) AS msgid, d.state, d.priority, d.correlation, d.enq_time,
       d.delay, d.expiration, d.attempts, d.consumer_name, d.exception_queue,
       upper(encode(d.original_msgid, 'hex')) AS original_msgid,
       d.payload_json::text AS payload_json, d.payload_raw
  FROM aq.dequeue_array($1::text, $2::text, 'BROWSE', 'FIRST_MESSAGE', NULL, NULL, NULL, $3::integer) d
