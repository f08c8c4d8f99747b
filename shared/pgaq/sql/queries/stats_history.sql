-- Enqueue, dequeue and propagation events in [{low}, {high}) (see aq.message_history).
SELECT kind, queue_id, schedule_id, t, wait_ms FROM aq.message_history({low}, {high})
