-- A topic without a row per subscriber (R__12_audience.sql says how it is read).
--
-- aq.queues.audience_gen: the generation of a queue's audience, one more each time a
-- subscriber joins it or leaves it. A message published to the audience records the
-- generation its enqueuer saw (m.audience); the subscribers that were in the audience at
-- that generation are its recipients without a row each.
-- aq.subscribers.since / until: the generations at which the subscriber joined the
-- audience and left it (a rule added). A subscriber joins when it needs no row of its own
-- (a local subscriber without a rule, taking persistent messages, on a table without
-- message grouping). NULL since: every message it gets has a recipient row, as before.
-- aq.subscribers.pos: how far the subscriber has read, a pg_snapshot: a message whose
-- enqueuing transaction it sees is behind it (it holds a row for each it wanted by then);
-- NULL: nothing is behind it yet.
ALTER TABLE aq.queues ADD COLUMN audience_gen bigint NOT NULL DEFAULT 0;
ALTER TABLE aq.subscribers ADD COLUMN since bigint, ADD COLUMN until bigint, ADD COLUMN pos pg_snapshot;

-- The subscribers of the previous release keep the recipient rows their messages have and
-- read new messages through the audience.
UPDATE aq.queues q SET audience_gen = 1
FROM aq.queue_tables t WHERE t.id = q.queue_table_id AND t.multiple_consumers;
UPDATE aq.subscribers s SET since = 1
FROM aq.queues q JOIN aq.queue_tables t ON t.id = q.queue_table_id
WHERE q.id = s.queue_id AND t.multiple_consumers AND t.message_grouping = 'NONE'
  AND s.address IS NULL AND s.rule IS NULL
  AND s.delivery_mode IN ('PERSISTENT', 'PERSISTENT_OR_BUFFERED');

-- The column on every existing queue table now, before the engine's code that reads it is
-- replaced (its index comes with the regenerated functions, aq.create_queue_table_indexes).
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT c.oid, n.nspname, c.relname FROM aq.queue_tables x
           JOIN pg_namespace n ON n.nspname = x.schema_name
           JOIN pg_class c ON c.relnamespace = n.oid AND c.relkind = 'r'
             AND c.relname IN (x.table_name, 'aq$_' || x.table_name || '_b') LOOP
    EXECUTE format('ALTER TABLE %I.%I ADD COLUMN IF NOT EXISTS audience bigint', t.nspname, t.relname);
  END LOOP;
END $$;

-- A dequeue finds its subscriber by name (the identity index is on coalesce(name, '')).
CREATE INDEX subscribers_queue_name ON aq.subscribers (queue_id, name);
