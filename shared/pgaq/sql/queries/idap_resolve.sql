-- The queue an IDAP destination names and the agent's database user that may use it
-- $1 destination, $2 lookup type, $3 agent, $4 privilege (ENQUEUE | DEQUEUE)
SELECT q.queue_id, q.schema_name, q.queue_name, q.multiple_consumers, q.payload_kind,
       q.payload_type::text AS payload_type, q.queue_type,
       aq.gateway_role_for($3::text, q.queue_id, $4::text) AS role
FROM aq.resolve_destination($1::text, $2::text) q
