-- What reads recipient rows beside the dequeue (R__12_audience): the AQ$ view, the wait's
-- look, notifications, failed attempts, purge and expiry see the implicit recipients too.
-- Those that act on a message as a whole (purge, expiry) give it explicit rows first.

-- Whether queue q has an audience whose messages the readers can look at: during an
-- upgrade, a table made by the previous release gets its column m.audience only when
-- R__99 regenerates it (R__12_queue_tables), and a reader running before then reads rows
-- only, as that release did.
CREATE OR REPLACE FUNCTION aq.audience_readable(q aq.queue_info) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT aq.has_audience(q) AND EXISTS (
    SELECT 1 FROM pg_attribute a WHERE a.attname = 'audience' AND NOT a.attisdropped AND a.attnum > 0
      AND a.attrelid = to_regclass(format('%I.%I', q.table_schema, q.table_name)))
$$;

-- Gives the messages p_ids of queue table t (their rows held by the caller) explicit
-- recipients only (aq.explicitise), queue by queue: each queue's messages with its own
-- subscribers.
CREATE OR REPLACE FUNCTION aq.explicitise_held(t aq.queue_tables, p_ids bytea[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info;
  ids bytea[];
BEGIN
  IF p_ids IS NULL OR NOT t.multiple_consumers OR t.message_grouping <> 'NONE' OR aq.is_buffered(t) THEN
    RETURN;
  END IF;
  FOR q IN SELECT * FROM aq.queue_info x WHERE x.table_id = t.id AND x.queue_type = 'NORMAL_QUEUE'
           ORDER BY x.queue_id LOOP
    CONTINUE WHEN NOT aq.audience_readable(q);
    EXECUTE format('SELECT array_agg(msgid ORDER BY msgid) FROM %I.%I WHERE msgid = ANY ($1) AND q_name = $2',
                   q.table_schema, q.table_name) INTO ids USING p_ids, q.queue_name;
    PERFORM aq.explicitise(q, ids);
  END LOOP;
END $$;
