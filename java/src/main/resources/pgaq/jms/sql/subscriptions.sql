-- ? subscriber name: the topics it is a subscriber of, as "schema.name"
SELECT q.schema_name || '.' || q.queue_name FROM aq.subscribers s
JOIN aq.queue_info q ON q.queue_id = s.queue_id
WHERE upper(s.name) = upper(?) AND s.address IS NULL AND q.multiple_consumers
ORDER BY q.schema_name, q.queue_name
