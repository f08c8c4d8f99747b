-- Each queue's schema and name.
SELECT id AS queue_id, schema_name::text AS cat_schema, queue_name::text AS cat_name FROM aq.queues
