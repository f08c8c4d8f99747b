-- What reads recipient rows beside the dequeue (R__12_audience): the AQ$ view, the wait's
-- look, notifications, failed attempts, purge and expiry see the implicit recipients too.
-- Those that act on a message as a whole (purge, expiry) give it explicit rows first.

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
    CONTINUE WHEN NOT aq.has_audience(q);
    EXECUTE aq.sql('SELECT array_agg(msgid ORDER BY msgid) FROM {{schema:ident}}.{{table:ident}} WHERE msgid = ANY ($1) AND q_name = $2',
                   jsonb_build_object('schema', q.table_schema, 'table', q.table_name)) INTO ids USING p_ids, q.queue_name;
    PERFORM aq.explicitise(q, ids);
  END LOOP;
END $$;

-- (Named templates, R__09_render.sql: defined here, before the functions that call them
-- are replaced in this file's transaction.)
-- R__12_audience_readers, aq.materialise_attempted: of messages $1 of queue $2 ($4), those
-- consumer $3 takes implicitly without a row yet, held FOR KEY SHARE
SELECT aq.define_template('audience.attempted', $tpl$
    SELECT array_agg(msgid) FROM (
      SELECT m.msgid FROM {{schema:ident}}.{{table:ident}} m
      WHERE m.msgid = ANY ($1) AND m.q_name = $2 AND m.state IN (0, 1)
        AND EXISTS (SELECT 1 FROM aq.subscribers sub WHERE sub.queue_id = $4 AND sub.name = $3
                      AND sub.address IS NULL AND {{implicit}})
        AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.msgid = m.msgid AND r.consumer_name = $3
                          AND r.address = '')
      ORDER BY m.msgid FOR KEY SHARE OF m) x
  $tpl$);

-- A failed attempt of consumer p_consumer on messages p_ids of queue q: the implicit
-- recipients among them get their row (to count the attempt on). Their message rows are
-- taken FOR KEY SHARE first, before any row is written: an expiry or purge holding one
-- (FOR UPDATE, writing the same rows) is waited for here, never while this transaction
-- has written a row the other must wait for (that crossed wait was a deadlock). Only
-- messages without a row of the consumer are locked: one with a row is counted on it as
-- before, without a message lock that the monitor's count of attempts could wait on
-- while holding that row.
CREATE OR REPLACE FUNCTION aq.materialise_attempted(q aq.queue_info, p_consumer text, p_ids bytea[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  ids bytea[];
BEGIN
  IF p_ids IS NULL OR NOT aq.has_audience(q) THEN RETURN 0; END IF;
  EXECUTE aq.render_audience_attempted(jsonb_build_object(
    'schema', q.table_schema, 'table', q.table_name, 'recipients', q.recipients_table,
    'implicit', aq.implicit_expr('sub', 'm')))
  INTO ids USING p_ids, q.queue_name, p_consumer, q.queue_id;
  RETURN aq.materialise_recipients(q, p_consumer, ids);
END $$;
