SELECT q.queue_id, q.schema_name, q.queue_name, q.queue_type, q.payload_kind,
       q.multiple_consumers, q.payload_type::regtype::text AS payload_type
FROM aq.resolve_queue($1::text) q
