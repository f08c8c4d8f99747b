-- ? queue, ? consumer, ? dequeue mode, ? navigation, ? msgid (hex), ? condition (a JMS
-- selector on JMS queues), ? position to go on from (NEXT_MESSAGE; NULL: the head), ? the
-- transaction group of the last message (NEXT_MESSAGE stays in it, NEXT_TRANSACTION goes past
-- it; NULL: none), ? delivery mode (PERSISTENT or BUFFERED); at most one row. No wrapping
-- back to the head at the end (p_wrap): a browser's enumeration ends there, a consumer
-- starts again from the head itself
SELECT upper(encode(d.msgid, 'hex')), d.queue_name, d.consumer_name, d.correlation, d.priority,
       d.delay, d.expiration, (extract(epoch FROM d.enq_time) * 1000000)::bigint, d.state,
       d.attempts, d.exception_queue, d.sender_name, d.sender_address, d.sender_protocol,
       upper(encode(d.original_msgid, 'hex')), d.payload_json::text, d.payload_raw, d.position,
       d.txn_group
FROM aq.dequeue_array(?, ?, ?, ?, decode(?, 'hex'), NULL, ?, 1, ?::bigint[], false, NULL, NULL, ?, ?) d
