-- Failed dequeue attempts. PostgreSQL has no autonomous transactions, so the client that
-- rolled back REMOVE dequeues reports them right after the rollback, in a transaction of
-- its own: the count survives the rollback. Past max_retries the message moves to its
-- exception queue (MAX_RETRY_EXCEEDED); with a retry_delay it waits in WAIT first.

CREATE OR REPLACE FUNCTION aq.exception_target_expr(q aq.queue_info) RETURNS text
LANGUAGE sql STABLE AS $$
  -- the message's own exception queue when it still exists, else the table's default
  SELECT aq.render_retries_exception_target(jsonb_build_object('table_id', q.table_id,
                                                                'default', q.default_exception_queue))
$$;

-- p_buffered: the messages are buffered ones, in the queue table's companion (R__11_buffered):
-- pgaq.jms's NON_PERSISTENT messages are received in transactions and come again after a
-- rollback or recover as persistent ones do (Oracle JMS guide, "Buffered Messaging with
-- Oracle JMS", "Transaction Commits and Client Acknowledgments"); past max_retries one
-- waits in state 3 for the monitor to move it to its exception queue as a persistent
-- message, as an expired buffered message does (aq.persist_buffered_exceptions).
CREATE OR REPLACE FUNCTION aq.record_failed_attempts(p_queue text, p_consumer text, p_msgids bytea[],
                                                     p_buffered boolean)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(p_queue);
  consumer text := aq.agent_name(p_consumer);
  now_ts timestamptz := clock_timestamp();
  n integer := 0;
  ready boolean;
  waiting boolean;
  failed bytea[];
  moved_to name[];
  args jsonb;  -- the statements' (templates retries.*, R__13_templates)
BEGIN
  PERFORM aq.check_access(q, 'DEQUEUE');
  IF p_msgids IS NULL OR cardinality(p_msgids) = 0 THEN RETURN 0; END IF;
  IF p_buffered THEN
    q := aq.buffered_info(q);
  END IF;
  IF q.multiple_consumers AND q.queue_type = 'NORMAL_QUEUE' THEN
    -- an implicit recipient (R__12_audience) taken and rolled back has no row yet: the
    -- attempt is its first thing to record, so it gets one (the message's state) to count
    -- on, written as R__12_audience_readers says (no crossed wait with a purge or expiry)
    PERFORM aq.materialise_attempted(q, coalesce(consumer, ''), p_msgids);
    EXECUTE aq.render_retries_recipients(jsonb_build_object('schema', q.table_schema, 'recipients', q.recipients_table))
    INTO n, ready, waiting, failed
    USING q.queue_name, p_msgids, q.max_retries, q.retry_delay, now_ts, coalesce(consumer, '');
    IF failed IS NOT NULL THEN
      PERFORM aq.finish_messages(q, failed);
    END IF;
  ELSE
    -- Oracle's AQ guides (10.1, 10.2, 11.1), "Internet Access to Oracle Streams AQ", the
    -- exception_queue element: an exception queue named at enqueue and dropped since is
    -- replaced by the table's default, and a warning is logged (Oracle's alert log)
    args := jsonb_build_object('schema', q.table_schema, 'table', q.table_name,
                               'exception_queue', aq.exception_target_expr(q));
    EXECUTE aq.render_retries_exception_queue_gone(args)
    INTO n USING q.queue_name, p_msgids,
                 CASE WHEN q.queue_type = 'EXCEPTION_QUEUE' THEN 2147483647 ELSE q.max_retries END;
    IF n > 0 THEN
      RAISE WARNING 'pgaq: % message(s) of %.% name an exception queue that no longer exists; moved to %',
        n, q.table_schema, q.table_name, q.default_exception_queue;
    END IF;
    EXECUTE aq.render_retries_messages(args)
    INTO n, ready, waiting, moved_to
    USING q.queue_name, p_msgids, CASE WHEN q.queue_type = 'EXCEPTION_QUEUE' THEN 2147483647 ELSE q.max_retries END,
          q.retry_delay, now_ts;
  END IF;
  IF ready THEN PERFORM aq.wake(q.queue_id); END IF;
  IF waiting THEN PERFORM pg_notify('aq_time', ''); END IF;
  IF moved_to IS NOT NULL THEN  -- someone may be waiting on the exception queue
    PERFORM aq.wake(x.id) FROM aq.queues x
    WHERE x.queue_table_id = q.table_id AND x.queue_name = ANY (moved_to);
  END IF;
  RETURN n;
END $$;

-- (the form before buffered messages took part in transactions, for a caller of the
-- previous release and for plain SQL: persistent messages)
CREATE OR REPLACE FUNCTION aq.record_failed_attempts(p_queue text, p_consumer text, p_msgids bytea[])
RETURNS integer LANGUAGE sql AS $$ SELECT aq.record_failed_attempts(p_queue, p_consumer, p_msgids, false) $$;
