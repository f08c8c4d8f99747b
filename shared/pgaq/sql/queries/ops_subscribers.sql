-- pgaq subscribers QUEUE: $1 the queue (ORA-24010 when it does not exist; R__92).
SELECT * FROM aq.queue_subscribers($1::text)
