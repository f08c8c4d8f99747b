-- pgaq stop QUEUE: $1 queue, $2 enqueue, $3 dequeue.
CALL dbms_aqadm.stop_queue($1::text, $2::boolean, $3::boolean)
