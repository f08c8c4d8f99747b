-- ? queue id: this listening connection waits on it, so the enqueue's wake-up check sends the
-- NOTIFY (R__11_wakeups.sql: it notifies only queues that have a registered waiter)
SELECT aq.register_waiter(?)
