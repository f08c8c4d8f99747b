-- The operator's chores as SQL (the `pgaq queues|subscribers|requeue|purge` commands are a
-- thin layer over these, so psql users get the same): an overview of every queue, the
-- subscribers of one, moving messages out of an exception queue, a purge that says how
-- much it removed. Each runs as the caller (no SECURITY DEFINER): what the caller may not
-- read shows as NULL, what it may not do raises the engine's ORA error.

-- One row per queue of the catalog (readable by everybody, as DBA_QUEUES): its depth by
-- state and the age of its oldest READY message where the caller may read its queue table
-- (NULL elsewhere; row-level security limits a grantee to its queues), the buffered
-- backlog, the default exception queue of a normal queue, and the enqueue and dequeue rates
-- of the latest minute the statistics job summed up (aq_stats.queue_series; NULL before it
-- has run, or when its latest minute is over 15 minutes old).
CREATE OR REPLACE FUNCTION aq.queue_overview()
RETURNS TABLE (queue_id integer, owner name, queue_name name, queue_table name, queue_type text,
               enqueue_enabled boolean, dequeue_enabled boolean, ready bigint, waiting bigint,
               expired bigint, oldest_ready_age double precision, enqueue_rate double precision,
               dequeue_rate double precision, rates_minute timestamptz, buffered bigint,
               exception_queue text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  t aq.queue_tables;
  b aq.queue_tables;
  depth jsonb := '{}';   -- queue id -> {ready, waiting, expired, oldest, buffered}
  part jsonb;
BEGIN
  FOR t IN SELECT * FROM aq.queue_tables x WHERE NOT aq.is_buffered(x) ORDER BY x.id LOOP
    CONTINUE WHEN to_regclass(format('%I.%I', t.schema_name, t.table_name)) IS NULL
              OR NOT has_table_privilege(format('%I.%I', t.schema_name, t.table_name), 'SELECT');
    EXECUTE aq.sql($f$
      SELECT coalesce(jsonb_object_agg(q.id, jsonb_build_object(
               'ready', d.ready, 'waiting', d.waiting, 'expired', d.expired, 'oldest', d.oldest)), '{}')
        FROM aq.queues q
        CROSS JOIN LATERAL (
          SELECT count(*) FILTER (WHERE m.state = 0) AS ready,
                 count(*) FILTER (WHERE m.state = 1) AS waiting,
                 count(*) FILTER (WHERE m.state = 3) AS expired,
                 extract(epoch FROM now() - min(m.ready_time) FILTER (WHERE m.state = 0))::double precision AS oldest
            FROM {{schema:ident}}.{{table:ident}} m WHERE m.q_name = q.queue_name) d
       WHERE q.queue_table_id = $1
    $f$, jsonb_build_object('schema', t.schema_name, 'table', t.table_name)) INTO part USING t.id;
    depth := depth || part;
    IF aq.has_buffered(t) THEN
      b := aq.buffered_table(t);
      IF has_table_privilege(format('%I.%I', b.schema_name, b.table_name), 'SELECT') THEN
        EXECUTE aq.sql($f$
          SELECT coalesce(jsonb_object_agg(q.id, $2::jsonb -> q.id::text
                   || jsonb_build_object('buffered', (SELECT count(*) FROM {{schema:ident}}.{{table:ident}} m
                                                       WHERE m.q_name = q.queue_name AND m.state IN (0, 1)))), '{}')
            FROM aq.queues q WHERE q.queue_table_id = $1
        $f$, jsonb_build_object('schema', b.schema_name, 'table', b.table_name)) INTO part USING t.id, depth;
        depth := depth || part;
      END IF;
    END IF;
  END LOOP;
  RETURN QUERY
  SELECT qi.queue_id, qi.schema_name, qi.queue_name, qi.table_name, qi.queue_type,
         qi.enqueue_enabled, qi.dequeue_enabled,
         (depth -> qi.queue_id::text ->> 'ready')::bigint,
         (depth -> qi.queue_id::text ->> 'waiting')::bigint,
         (depth -> qi.queue_id::text ->> 'expired')::bigint,
         (depth -> qi.queue_id::text ->> 'oldest')::double precision,
         s.enqueued / 60.0, s.dequeued / 60.0, s.bucket,
         (depth -> qi.queue_id::text ->> 'buffered')::bigint,
         CASE WHEN qi.queue_type = 'NORMAL_QUEUE' THEN qi.table_schema || '.' || qi.default_exception_queue END
    FROM aq.queue_info qi
    LEFT JOIN LATERAL (
      SELECT x.enqueued::double precision AS enqueued, x.dequeued::double precision AS dequeued, x.bucket
        FROM aq_stats.queue_series x
       WHERE x.queue_id = qi.queue_id AND x.grain = 'minute' AND x.bucket > now() - interval '15 minutes'
       ORDER BY x.bucket DESC LIMIT 1) s ON true
   ORDER BY qi.schema_name, qi.queue_name;
END $$;
GRANT EXECUTE ON FUNCTION aq.queue_overview() TO PUBLIC;

-- The subscribers of one queue (ORA-24010 when it does not exist) with what waits for each:
-- READY and WAITING messages counted from the AQ$<queue_table> view (which also shows a
-- topic's implicit recipients), NULL where the caller may not read that view.
CREATE OR REPLACE FUNCTION aq.queue_subscribers(p_queue text)
RETURNS TABLE (name text, address text, protocol integer, rule text, transformation text,
               delivery_mode text, created timestamptz, ready bigint, waiting bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(p_queue);
  counts jsonb := '{}';
  rel regclass := to_regclass(format('%I.%I', q.table_schema, 'aq$' || q.table_name));
  readable boolean := rel IS NOT NULL AND has_table_privilege(rel, 'SELECT');
BEGIN
  IF q.multiple_consumers AND readable THEN
    EXECUTE aq.sql($f$
      SELECT coalesce(jsonb_object_agg(k, c), '{}') FROM (
        SELECT concat_ws(E'\x1f', v.consumer_name, v.address, v.protocol) AS k,
               jsonb_build_object('ready', count(*) FILTER (WHERE v.msg_state = 'READY'),
                                  'waiting', count(*) FILTER (WHERE v.msg_state = 'WAITING')) AS c
          FROM {{schema:ident}}.{{view:ident}} v WHERE v.queue = $1
         GROUP BY 1) x
    $f$, jsonb_build_object('schema', q.table_schema, 'view', 'aq$' || q.table_name)) INTO counts USING q.queue_name;
  END IF;
  RETURN QUERY
  SELECT s.name, s.address, s.protocol, s.rule, s.transformation, s.delivery_mode, s.created_at,
         coalesce((counts -> concat_ws(E'\x1f', s.name, s.address, s.protocol) ->> 'ready')::bigint,
                  CASE WHEN readable THEN 0 END),
         coalesce((counts -> concat_ws(E'\x1f', s.name, s.address, s.protocol) ->> 'waiting')::bigint,
                  CASE WHEN readable THEN 0 END)
    FROM aq.subscribers s
   WHERE s.queue_id = q.queue_id
   ORDER BY s.name, s.address, s.protocol;
END $$;
GRANT EXECUTE ON FUNCTION aq.queue_subscribers(text) TO PUBLIC;

-- Moves messages out of an exception queue, as Oracle lets an application do: each is
-- dequeued from the exception queue (consumer NULL, REMOVE) and enqueued again, in the same
-- transaction, so a message moves once or not at all (the caller commits each call: one
-- batch). The new message keeps the payload, priority, correlation, expiration, sender and
-- a non-default exception queue of the same table; its attempts count from zero and its
-- original_msgid is the exception message's id (Oracle's "the message in the last queue
-- that generated this message"). It goes to p_to, else to the queue it was moved from
-- (original_queue_name); on a multi-consumer queue, to the recipients that had not
-- processed it (none processed: the queue's subscribers, as any enqueue). p_condition
-- selects messages as a dequeue condition does (the engine's condition compiler over the
-- payload, tab.user_data..., and the message properties). The caller needs DEQUEUE on the
-- exception queue (started for dequeue) and ENQUEUE on each target.
-- p_dry_run: nothing moves; every message the call would move is listed (browsed, not
-- locked). Rows: the exception message's id (hex), the target, the new message's id (hex).
CREATE OR REPLACE FUNCTION aq.requeue(p_exception_queue text, p_to text DEFAULT NULL,
                                      p_condition text DEFAULT NULL, p_batch integer DEFAULT 100,
                                      p_dry_run boolean DEFAULT false)
RETURNS TABLE (msgid text, to_queue text, new_msgid text)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(p_exception_queue);
  tq aq.queue_info;
  target aq.queue_info;
  got aq.dequeued[];
  d aq.dequeued;
  pos bigint[];
  row_info jsonb;
  props jsonb;
  recips jsonb;
  ids bytea[] := '{}';
  new_ids bytea[];
  removed integer;
  seen bytea[] := '{}';
BEGIN
  IF q.queue_type <> 'EXCEPTION_QUEUE' THEN
    PERFORM aq.err(24031, format('invalid value, %s.%s is not an EXCEPTION_QUEUE', q.schema_name, q.queue_name), '22023');
  END IF;
  IF coalesce(p_batch, 0) < 1 OR p_batch > 10000 THEN
    PERFORM aq.err(25240, 'batch size must be between 1 and 10000', '22023');
  END IF;
  IF p_to IS NOT NULL THEN
    tq := aq.resolve_queue(p_to);
  END IF;
  LOOP
    -- dry run: browse the whole queue batch by batch; else lock one batch (SKIP LOCKED:
    -- two requeues at once never take the same message)
    SELECT array_agg(x) INTO got FROM aq.dequeue_array(
      q.schema_name || '.' || q.queue_name, NULL,
      CASE WHEN p_dry_run THEN 'BROWSE' ELSE 'LOCKED' END,
      CASE WHEN pos IS NULL THEN 'FIRST_MESSAGE' ELSE 'NEXT_MESSAGE' END,
      NULL, NULL, p_condition, p_batch, pos, false) x;
    EXIT WHEN got IS NULL;
    -- (a browse that brings nothing new has seen the whole queue)
    EXIT WHEN NOT EXISTS (SELECT 1 FROM unnest(got) g WHERE NOT (g.msgid = ANY (seen)));
    FOREACH d IN ARRAY got LOOP
      CONTINUE WHEN d.msgid = ANY (seen);
      seen := seen || d.msgid;
      pos := d.position;
      -- (recips: the recipients still to process it, from fixed text)
      EXECUTE aq.sql($f$
        SELECT jsonb_build_object('from', m.original_queue_name, 'exq', m.exception_queue, 'recips', {{recips}})
          FROM {{schema:ident}}.{{table:ident}} m WHERE m.msgid = $1
      $f$, jsonb_build_object('schema', q.table_schema, 'table', q.table_name,
             'recips', CASE WHEN q.multiple_consumers THEN aq.sql($r$(
               SELECT jsonb_agg(jsonb_build_object('name', nullif(r.consumer_name, ''),
                                                   'address', nullif(r.address, ''), 'protocol', r.protocol))
                 FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.msgid = m.msgid AND r.state <> 2)$r$,
               jsonb_build_object('schema', q.table_schema, 'recipients', q.recipients_table))
             ELSE 'NULL' END))
        INTO row_info USING d.msgid;
      IF tq.queue_id IS NOT NULL THEN
        target := tq;
      ELSIF row_info ->> 'from' IS NULL THEN
        PERFORM aq.err(24031, format('invalid value, TO should be non-NULL: message %s names no queue it came from',
                                     aq.msgid_hex(d.msgid)), '22023');
      ELSE
        target := aq.resolve_queue(quote_ident(q.table_schema) || '.' || quote_ident(row_info ->> 'from'));
      END IF;
      IF p_dry_run THEN
        PERFORM aq.check_access(target, 'ENQUEUE');
        msgid := aq.msgid_hex(d.msgid);
        to_queue := target.schema_name || '.' || target.queue_name;
        new_msgid := NULL;
        RETURN NEXT;
        CONTINUE;
      END IF;
      recips := CASE WHEN target.multiple_consumers AND q.multiple_consumers AND target.queue_type = 'NORMAL_QUEUE'
                     THEN row_info -> 'recips' END;
      props := jsonb_strip_nulls(jsonb_build_object(
        'priority', d.priority, 'correlation', d.correlation, 'expiration', d.expiration,
        'sender_id', CASE WHEN d.sender_name IS NOT NULL OR d.sender_address IS NOT NULL THEN
                       jsonb_build_object('name', d.sender_name, 'address', d.sender_address,
                                          'protocol', d.sender_protocol) END,
        'exception_queue', CASE WHEN target.table_id = q.table_id AND row_info ->> 'exq' <> q.default_exception_queue
                                THEN quote_ident(q.table_schema) || '.' || quote_ident(row_info ->> 'exq') END,
        'original_msgid', aq.msgid_hex(d.msgid),
        'recipient_list', recips));
      new_ids := aq.enqueue_array(target.schema_name || '.' || target.queue_name, jsonb_build_array(props),
                                  CASE WHEN d.payload_raw IS NULL THEN jsonb_build_array(d.payload_json) END,
                                  CASE WHEN d.payload_raw IS NOT NULL THEN ARRAY[d.payload_raw] END);
      ids := ids || d.msgid;
      msgid := aq.msgid_hex(d.msgid);
      to_queue := target.schema_name || '.' || target.queue_name;
      new_msgid := aq.msgid_hex(new_ids[1]);
      RETURN NEXT;
    END LOOP;
    EXIT WHEN NOT p_dry_run;
  END LOOP;
  IF cardinality(ids) > 0 THEN
    removed := aq.remove_held(q.schema_name || '.' || q.queue_name, NULL, ids);
    IF removed <> cardinality(ids) THEN
      -- (cannot happen while the rows are locked; rather nothing than a message twice)
      PERFORM aq.err(600, format('internal error: requeue removed %s of %s messages', removed, cardinality(ids)));
    END IF;
  END IF;
END $$;
GRANT EXECUTE ON FUNCTION aq.requeue(text, text, text, integer, boolean) TO PUBLIC;

-- dbms_aqadm.purge_queue_table that says how much it removed: how many rows of the
-- AQ$<queue_table> view the condition selects (one per message, or per message and
-- recipient on a multi-consumer table) and how many of those the purge removed, both
-- counted by the purge itself (aq.purge_messages, R__23); p_dry_run counts and purges
-- nothing. The condition goes through the purge's own compiler (aq.purge_condition_sql).
CREATE OR REPLACE FUNCTION aq.purge(p_queue_table text, p_condition text, p_block boolean DEFAULT false,
                                    p_dry_run boolean DEFAULT false)
RETURNS TABLE (selected bigint, purged bigint)
LANGUAGE sql AS $$
  SELECT p.selected, p.purged
    FROM aq.purge_messages(p_queue_table => p_queue_table, p_condition => p_condition,
                           p_block => coalesce(p_block, false), p_delivery_mode => 'PERSISTENT',
                           p_dry_run => coalesce(p_dry_run, false)) p
$$;
GRANT EXECUTE ON FUNCTION aq.purge(text, text, boolean, boolean) TO PUBLIC;
