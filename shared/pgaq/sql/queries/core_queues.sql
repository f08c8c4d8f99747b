SELECT owner, name, queue_table, qid, queue_type, max_retries, retry_delay, enqueue_enabled,
       dequeue_enabled, retention, user_comment
FROM aq.dba_queues ORDER BY owner, name
