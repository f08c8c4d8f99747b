-- A subscriber's floor in queue order (R__12_audience.sql, "Queues sorted by enqueue time").
--
-- aq.subscribers.floor: no message of the subscriber's window that is READY without a row
-- of its own lies below this enq_seq; a dequeue of a queue sorted by enqueue time reads
-- its window from there, in queue order, and stops at the batch. NULL: 0.
-- aq.subscribers.floor_seq / floor_writers: the round that raises it (aq.enq_seq's value
-- and the transactions then writing the queue table); once none of those writers is left,
-- every message at or below floor_seq is committed or gone.
ALTER TABLE aq.subscribers ADD COLUMN floor bigint, ADD COLUMN floor_seq bigint,
  ADD COLUMN floor_writers text[];
