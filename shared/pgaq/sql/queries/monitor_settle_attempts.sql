-- SQL dequeues whose transaction rolled back count their attempt (aq.settle_pending_attempts)
SELECT aq.settle_pending_attempts()
