-- Each schedule's queue and destination, written as the propagation log writes them.
SELECT s.id AS schedule_id, q.schema_name || '.' || q.queue_name AS cat_queue_name,
       coalesce(nullif(s.destination_queue, ''), '') || coalesce('@' || nullif(s.destination, ''), '')
         AS cat_destination
  FROM aq.schedules s JOIN aq.queues q ON q.id = s.queue_id
