-- pgaq queues: every queue with its depth, oldest READY age, rates, buffered backlog (R__92).
SELECT * FROM aq.queue_overview()
