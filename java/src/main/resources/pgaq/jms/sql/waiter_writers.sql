-- ? queue id, ? the virtual transactions to look among (NULL: all): those writing the
-- queue's tables now, which may have checked for waiters before this connection registered
-- (R__11_wakeups.sql)
SELECT aq.waiter_writers(?, ?::text[])
