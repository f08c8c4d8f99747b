-- A schedule's source queue: its payload signature and type (HTTP writes objects and JMS
-- messages as the type's XML), and whether it is transactionally grouped (each batch is one
-- group then). $1 queue
SELECT aq.queue_signature($1) AS signature, (aq.resolve_queue($1)).payload_type::text AS payload_type,
       (aq.resolve_queue($1)).message_grouping = 'TRANSACTIONAL' AS grouped
