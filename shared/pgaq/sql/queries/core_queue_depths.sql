-- Prometheus pgaq_queue_messages, read at scrape time.
SELECT queue_schema, queue_name, state, messages FROM aq.queue_depths
