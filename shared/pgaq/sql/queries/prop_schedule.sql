-- A schedule as its runner needs it. $1 schedule id
SELECT s.*, q.schema_name || '.' || q.queue_name AS queue, q.queue_id,
       (SELECT i.uuid::text FROM aq.instance i) || ':' || current_database() || ':' || s.id AS key
FROM aq.schedules s JOIN aq.queue_info q ON q.queue_id = s.queue_id
WHERE s.id = $1
