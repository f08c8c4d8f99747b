-- A topic without a row per subscriber (R__12_audience.sql says how it is read).
--
-- since: set for a subscriber whose messages need no row of their own (a local subscriber
-- without a rule, taking persistent messages, on a table without message grouping): the
-- enqueue sequence value when it became one. A message published to the audience
-- (m.audience) after that is the subscriber's without a recipient row until the subscriber
-- has something particular to record about it (a dequeue, a failed attempt, a delay it
-- waits out, a purge). NULL: every message it gets has a recipient row, as before.
-- pos: how far the subscriber has read, a pg_snapshot: messages whose enqueuing
-- transaction it sees are behind it (each it wanted has its own recipient row by then);
-- NULL: nothing is behind it yet.
ALTER TABLE aq.subscribers ADD COLUMN since bigint, ADD COLUMN pos pg_snapshot;

-- The subscribers of the previous release keep the recipient rows their messages have and
-- read new messages through the audience.
UPDATE aq.subscribers s SET since = (SELECT last_value FROM aq.enq_seq)
FROM aq.queues q JOIN aq.queue_tables t ON t.id = q.queue_table_id
WHERE q.id = s.queue_id AND t.multiple_consumers AND t.message_grouping = 'NONE'
  AND s.address IS NULL AND s.rule IS NULL
  AND s.delivery_mode IN ('PERSISTENT', 'PERSISTENT_OR_BUFFERED');
