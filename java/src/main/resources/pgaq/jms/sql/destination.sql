-- a destination's queue: ? "owner.name" (or "name" in the search path)
SELECT q.queue_id, q.schema_name, q.queue_name, q.queue_type, q.payload_kind,
       q.multiple_consumers, q.message_grouping = 'TRANSACTIONAL'
FROM aq.resolve_queue(?) q
