-- Waiting from SQL: dbms_aq.dequeue with wait => n seconds or dbms_aq.forever() blocks
-- until a message it may take is committed (or becomes READY: the monitor ends delays)
-- or the wait runs out (ORA-25228).
--
-- A running function cannot receive a notification, and pg_sleep does not return early
-- when one arrives, so the wait is a loop: a cheap look (does a READY candidate exist for
-- this queue and consumer?) every pgaq.wait_poll_ms (20 ms by default), and the full
-- dequeue when it says yes. Where PostgreSQL allows it (a CALL outside a transaction
-- block, with nothing written yet) each look runs in a transaction of its own: the CALL's
-- snapshot and the look's locks are let go, so a waiting dequeue holds back neither
-- vacuum (backend_xmin advances) nor DDL on the queue table. Elsewhere the loop runs
-- inside the caller's transaction (xmin pinned for the wait; see docs/architecture.md).

-- Oracle's constants (PostgreSQL needs the parentheses: wait => dbms_aq.forever())
CREATE OR REPLACE FUNCTION dbms_aq.forever() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT -1';
CREATE OR REPLACE FUNCTION dbms_aq.no_wait() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 0';

-- NULL is Oracle's default (FOREVER), as a dequeue_options_t declared and left unset has it.
CREATE OR REPLACE FUNCTION aq.check_wait(p_wait integer) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p_wait < -1 THEN
    PERFORM aq.err(25209, format('invalid value %s, WAIT should be non-negative (or dbms_aq.forever(), -1)',
                                 p_wait), '22023');
  END IF;
END $$;

-- The look: one indexed EXISTS over the READY rows (the partial indexes *_ready, *_exc, or
-- the recipients' *_ready), no row locked, nothing written. Other criteria (correlation,
-- condition) are left to the full dequeue. Built from fixed text and quoted names only.
-- A queue with an audience (R__12_audience) looks at the consumer's implicit recipients
-- too: a READY audience message of its window without a row of its own (the *_audience
-- index, from the window's lower bound; sorted by enqueue time, *_audience_order from the
-- consumer's floor).
CREATE OR REPLACE FUNCTION aq.wait_look_sql(q aq.queue_info, p_by_id boolean) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  is_exc boolean := q.queue_type = 'EXCEPTION_QUEUE';
  by_id text := CASE WHEN p_by_id THEN ' AND x.msgid = $3' ELSE '' END;
  look text;
BEGIN
  IF q.multiple_consumers AND NOT is_exc THEN
    look := format('SELECT EXISTS (SELECT 1 FROM %I.%I x WHERE x.q_name = $1 AND x.consumer_name = $2'
                   ' AND x.address = '''' AND x.state = 0%s)', q.table_schema, q.recipients_table, by_id);
    IF aq.has_audience(q) THEN
      look := look || format(
        ' OR EXISTS (SELECT 1 FROM aq.subscribers sub JOIN %1$I.%2$I m ON m.q_name = $1 AND %4$s'
        ' WHERE sub.queue_id = %5$s AND sub.name = $2 AND sub.address IS NULL'
        ' AND m.state = 0%6$s AND NOT EXISTS (SELECT 1 FROM %1$I.%3$I x WHERE x.msgid = m.msgid'
        ' AND x.consumer_name = $2 AND x.address = '''' OFFSET 0))',
        q.table_schema, q.table_name, q.recipients_table, aq.audience_window_expr('sub', 'm'), q.queue_id,
        CASE WHEN p_by_id THEN ' AND m.msgid = $3'
             -- sorted by enqueue time: from the consumer's floor (R__12_audience)
             WHEN aq.ordered_audience(q) THEN ' AND m.enq_seq >= coalesce(sub.floor, 0)'
             ELSE '' END);
    END IF;
    RETURN look;
  END IF;
  RETURN format('SELECT EXISTS (SELECT 1 FROM %I.%I x WHERE x.q_name = $1 AND x.state = %s%s%s)',
                q.table_schema, q.table_name, CASE WHEN is_exc THEN 3 ELSE 0 END,
                -- by id: a WAITING message may lie below the floor
                CASE WHEN is_exc OR p_by_id THEN '' ELSE aq.scan_floor_expr(q, 'x') END, by_id);
END $$;

-- The looks of aq.await_any's targets (aq.wait_look_sql; NULL for a NULL target: a
-- delivery mode a LISTEN does not want), with the queue and consumer names they run with.
CREATE OR REPLACE FUNCTION aq.wait_looks(p_queues aq.queue_info[], p_consumers text[], p_by_id boolean,
                                         OUT looks_sql text[], OUT names text[], OUT consumers text[])
LANGUAGE plpgsql STABLE AS $$
BEGIN
  looks_sql := '{}';
  names := '{}';
  consumers := '{}';
  FOR i IN 1 .. cardinality(p_queues) LOOP
    looks_sql := looks_sql || CASE WHEN p_queues[i].queue_id IS NOT NULL
                                   THEN aq.wait_look_sql(p_queues[i], p_by_id) END;
    names := names || p_queues[i].queue_name;
    consumers := consumers || aq.agent_name(p_consumers[i]);
  END LOOP;
END $$;

-- One look of aq.await_any over its targets, in the order given: the first target with a
-- READY candidate, negated when its queue table is gone (the caller's checks then say so,
-- ORA-24010); 0 for none. A function of its own, called as an expression once per look
-- (only when the snapshot changed), never per wake-up.
CREATE OR REPLACE FUNCTION aq.wait_look(p_looks_sql text[], p_names text[], p_consumers text[], p_msgid bytea)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  there boolean;
BEGIN
  FOR i IN 1 .. cardinality(p_looks_sql) LOOP
    CONTINUE WHEN p_looks_sql[i] IS NULL;
    BEGIN
      EXECUTE p_looks_sql[i] INTO there USING p_names[i], p_consumers[i], p_msgid;
    EXCEPTION WHEN undefined_table THEN
      RETURN -i;
    END;
    IF there THEN
      RETURN i;
    END IF;
  END LOOP;
  RETURN 0;
END $$;

-- Whether aq.await_any may end its caller's transaction, so that each look runs in a
-- transaction of its own. Only a CALL from the client's own statement, outside a
-- transaction block, may: PostgreSQL refuses COMMIT in an atomic context (a transaction
-- block, a function) and inside an exception block, which a caller of dbms_aq.dequeue or
-- listen may have open. So: the call stack is await_any and its callers in pgaq (the
-- wrappers aq.await_message and aq.listen, then dbms_aq.dequeue, dequeue_array (R__22) or
-- dbms_aq.listen) and nothing else (this function's own line aside); and the transaction
-- has written nothing (it began with the CALL: committing it loses nothing). await_any
-- then tries COMMIT inside an exception block (which never lets it happen): it must fail
-- for that block rather than for an atomic context.
CREATE OR REPLACE FUNCTION aq.wait_may_commit() RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  probe text;
  ctx text[];
BEGIN
  GET DIAGNOSTICS probe = PG_CONTEXT;
  ctx := ARRAY(SELECT l FROM unnest(string_to_array(probe, E'\n')) l
               WHERE l !~ '^(PL/pgSQL function |SQL statement "CALL )(aq\.)?(wait_may_commit|await_any|await_message|await_classes|listen)\(');
  RETURN cardinality(ctx) = 1 AND ctx[1] ~ '^PL/pgSQL function (dbms_aq\.)?(dequeue|dequeue_array|listen)\('
         AND pg_current_xact_id_if_assigned() IS NULL;
END $$;

-- ORA-25228 (a dequeue's wait) or ORA-25254 (a LISTEN's): a REPEATABLE READ or
-- SERIALIZABLE caller's snapshot is fixed, so no message committed after it began is seen.
CREATE OR REPLACE FUNCTION aq.wait_snapshot_fixed(q aq.queue_info, p_listen boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF p_listen THEN
    PERFORM aq.err(25254, format('time-out in LISTEN while waiting for a message (a %s transaction block '
                                 'cannot see messages committed after it began: wait outside it, or in '
                                 'READ COMMITTED)', upper(current_setting('transaction_isolation'))), 'P0002');
  END IF;
  PERFORM aq.err(25228, format('timeout or end-of-fetch during message dequeue from %s.%s (a %s '
                               'transaction block cannot see messages committed after it began: '
                               'wait outside it, or in READ COMMITTED)',
                               q.schema_name, q.queue_name,
                               upper(current_setting('transaction_isolation'))), 'P0002');
END $$;

-- Waits until the caller's next try is worth making (p_found > 0) or the wait has run out
-- (p_found 0), over one or more queue/consumer pairs (the targets: p_queues[i] for
-- consumer p_consumers[i]). Two callers:
--   dbms_aq.dequeue (p_listen false, one target, through aq.await_message), after a dequeue
--     that found nothing: p_found > 0 means run the full dequeue again;
--   dbms_aq.listen and aq.listen_first (p_listen true): every look is the answer, so the
--     first look runs at once (also with wait 0: one look, no wait) and p_found is the first
--     target, in the order given, with a READY message; -1 asks the caller to check its
--     targets again (the periodic check: a queue stopped, dropped or no longer granted).
--   p_since  when the wait began (NULL on the first call; set here)
--   p_retry  (dequeue) ms before candidates the last dequeue could not take (other criteria,
--            rows other sessions hold) are tried again: doubles per call up to 250 ms, and
--            back to NULL when the queue had no candidate in between (a new one arrived)
-- A look runs only when some transaction of the cluster ended since the last one (the
-- snapshot differs): nothing can have arrived otherwise, and a fresh snapshot would have
-- the same xmin. So an idle wait costs its wake-ups only. For the same reason the periodic
-- check (once a second: the full dequeue, or the listener's checks of its queues) runs only
-- when something ended meanwhile.
CREATE OR REPLACE PROCEDURE aq.await_any(p_queues aq.queue_info[], p_consumers text[], p_msgid bytea,
                                         p_wait integer, p_listen boolean, INOUT p_since timestamptz,
                                         INOUT p_retry integer, INOUT p_found integer)
LANGUAGE plpgsql AS $$
DECLARE
  poll double precision := greatest(coalesce(nullif(current_setting('pgaq.wait_poll_ms', true), '')::integer, 20), 1);
  entered timestamptz := clock_timestamp();
  deadline timestamptz;
  retry_at timestamptz;
  looks_sql text[];
  names text[];
  consumers text[];
  own boolean := false;   -- may each look be a transaction of its own
  fixed boolean := false; -- a REPEATABLE READ or SERIALIZABLE caller's snapshot
  probe text;
  snap text;
  seen text;              -- the snapshot of the last look
  looks integer := 0;
  hit integer := 0;       -- the first target whose last look found a candidate
  gone boolean;
  empty_seen boolean := false;
  pause double precision;
  slept boolean;
BEGIN
  p_found := 0;
  IF coalesce(p_wait, -1) = 0 AND NOT p_listen THEN
    RETURN;  -- NO_WAIT: the dequeue raises at once, as before
  END IF;
  SELECT w.looks_sql, w.names, w.consumers INTO looks_sql, names, consumers
    FROM aq.wait_looks(p_queues, p_consumers, p_msgid IS NOT NULL) w;
  p_since := coalesce(p_since, entered);
  IF p_wait > 0 THEN
    deadline := p_since + make_interval(secs => p_wait);
    IF entered >= deadline AND NOT p_listen THEN RETURN; END IF;
  END IF;
  p_retry := CASE WHEN p_retry IS NULL THEN poll::integer ELSE least(p_retry * 2, 250) END;
  retry_at := entered + make_interval(secs => p_retry / 1000.0);

  -- each look in a transaction of its own where the caller allows it (aq.wait_may_commit), else
  -- in the caller's (a translated server message too); a LISTEN with wait 0 looks once, no COMMIT
  IF coalesce(p_wait, -1) <> 0 THEN
    IF aq.wait_may_commit() THEN
      BEGIN
        COMMIT;
      EXCEPTION WHEN invalid_transaction_termination THEN
        GET STACKED DIAGNOSTICS probe = MESSAGE_TEXT;
      END;
      own := coalesce(probe = 'cannot commit while a subtransaction is active', false);
    END IF;
    -- (no message committed later would be seen; a LISTEN looks once first: that is its answer)
    fixed := NOT own AND current_setting('transaction_isolation') <> 'read committed';
    IF fixed AND NOT p_listen THEN
      PERFORM aq.wait_snapshot_fixed(p_queues[1], false);
    END IF;
  END IF;

  LOOP
    snap := pg_current_snapshot()::text;
    IF snap IS DISTINCT FROM seen THEN
      seen := snap;
      looks := looks + 1;
      hit := aq.wait_look(looks_sql, names, consumers, p_msgid);
      gone := hit < 0;
      hit := abs(hit);
      IF own THEN
        -- lets go of the look's locks now, and of its snapshot: the next statement takes
        -- a new one (PostgreSQL keeps one for the procedure until its next COMMIT)
        COMMIT;
      END IF;
      IF p_listen AND hit > 0 THEN
        p_found := CASE WHEN gone THEN -1 ELSE hit END;
        RETURN;
      END IF;
      IF hit > 0 AND empty_seen THEN
        p_retry := NULL;  -- a new candidate
        p_found := hit;
        RETURN;
      END IF;
      empty_seen := empty_seen OR hit = 0;
    END IF;
    IF p_listen AND coalesce(p_wait, -1) = 0 THEN
      RETURN;  -- one look, nothing found
    END IF;
    IF fixed THEN
      PERFORM aq.wait_snapshot_fixed(p_queues[1], true);
    END IF;
    IF hit > 0 AND clock_timestamp() >= retry_at AND looks > 1 THEN
      p_found := hit;  -- try again what the last dequeue could not take: something ended since
      RETURN;
    END IF;
    IF looks > 1 AND clock_timestamp() >= entered + interval '1 second' THEN
      p_found := CASE WHEN p_listen THEN -1 ELSE 1 END;  -- the periodic check
      RETURN;
    END IF;
    IF deadline IS NOT NULL THEN
      pause := extract(epoch FROM deadline - clock_timestamp()) * 1000;
      IF pause <= 0 THEN
        RETURN;  -- timed out
      END IF;
    END IF;
    -- an expression rather than PERFORM: it skips the executor (a third of a wake-up's cost)
    slept := pg_sleep(least(poll, pause) / 1000.0) IS NOT NULL;
  END LOOP;
END $$;

-- dbms_aq.dequeue's wait (R__19): one queue and consumer; p_found true when the full
-- dequeue is worth running again, false when the wait has run out.
CREATE OR REPLACE PROCEDURE aq.await_message(q aq.queue_info, p_consumer text, p_msgid bytea,
                                             p_wait integer, INOUT p_since timestamptz,
                                             INOUT p_retry integer, INOUT p_found boolean)
LANGUAGE plpgsql AS $$
DECLARE
  found integer;
BEGIN
  CALL aq.await_any(ARRAY[q], ARRAY[p_consumer], p_msgid, p_wait, false, p_since, p_retry, found);
  p_found := found <> 0;
END $$;

-- The same over the delivery modes a dequeue asks for (aq.dequeue_classes): the queue's
-- persistent messages, its buffered ones (the companion, R__11_buffered), or both.
CREATE OR REPLACE PROCEDURE aq.await_classes(q aq.queue_info, p_classes text[], p_consumer text, p_msgid bytea,
                                             p_wait integer, INOUT p_since timestamptz,
                                             INOUT p_retry integer, INOUT p_found boolean)
LANGUAGE plpgsql AS $$
DECLARE
  found integer;
  queues aq.queue_info[] := ARRAY(SELECT CASE WHEN c = 'BUFFERED' THEN aq.buffered_info(q) ELSE q END
                                  FROM unnest(p_classes) c);
  consumers text[] := array_fill(p_consumer, ARRAY[cardinality(p_classes)]);
BEGIN
  -- (one line: the wait reads its call stack, line by line)
  CALL aq.await_any(queues, consumers, p_msgid, p_wait, false, p_since, p_retry, found);
  p_found := found <> 0;
END $$;

-- ---------------------------------------------------------------------------------------
-- LISTEN: which of several agents has a message READY for it, waiting for one as
-- dequeue waits. Each agent's address is a local queue ([schema.]name); its name is the
-- subscriber on a multi-consumer queue and NULL on a single-consumer or exception queue.
-- The listening session must be allowed to dequeue from every queue in the list.

-- The agents' queues and consumers, checked as the Oracle documentation says.
CREATE OR REPLACE FUNCTION aq.listen_targets(p_agents sys.aq$_agent[], OUT queues aq.queue_info[],
                                             OUT consumers text[])
LANGUAGE plpgsql STABLE AS $$
DECLARE
  a sys.aq$_agent;
  q aq.queue_info;
  consumer text;
  is_exc boolean;
BEGIN
  IF coalesce(cardinality(p_agents), 0) = 0 THEN
    PERFORM aq.err(25254, 'time-out in LISTEN while waiting for a message: the agent list is empty, '
                          'so no message can arrive for it', '22023');
  END IF;
  queues := '{}';
  consumers := '{}';
  FOREACH a IN ARRAY p_agents LOOP
    IF coalesce(a.protocol, 0) <> 0 THEN  -- Oracle's error: LISTEN takes no protocol
      PERFORM aq.err(25259, format('cannot specify protocol for agent %s at %s: protocol %s in the agent list '
                                   '(LISTEN watches local queues: leave it NULL or 0)',
                                   coalesce(a.name, '(no name)'), coalesce(a.address, '(no address)'), a.protocol),
                     '22023');
    END IF;
    IF position('@' IN coalesce(a.address, '')) > 0 THEN
      PERFORM aq.err(25252, format('listen failed, the address %s is a non-local address (LISTEN watches '
                                   'local queues only)', a.address), '22023');
    END IF;
    q := aq.resolve_queue(a.address);
    IF NOT q.dequeue_enabled THEN
      PERFORM aq.err(25253, format('listen failed, queue %s.%s is not enabled for dequeue',
                                   q.schema_name, q.queue_name), '55000');
    END IF;
    consumer := aq.agent_name(a.name);
    is_exc := q.queue_type = 'EXCEPTION_QUEUE';
    IF is_exc AND consumer IS NOT NULL THEN
      PERFORM aq.err(25231, format('exception queue %s.%s is listened to with a NULL agent name',
                                   q.schema_name, q.queue_name), '22023');
    ELSIF q.multiple_consumers AND NOT is_exc AND consumer IS NULL THEN
      PERFORM aq.err(25231, format('cannot LISTEN because the agent name is not specified for '
                                   'multi-consumer queue %s.%s', q.schema_name, q.queue_name), '22023');
    ELSIF NOT q.multiple_consumers AND consumer IS NOT NULL THEN
      PERFORM aq.err(24039, format('Queue %s.%s not created in queue table for multiple consumers: '
                                   'an agent name is not allowed', q.schema_name, q.queue_name), '22023');
    END IF;
    PERFORM aq.check_access(q, 'DEQUEUE');
    queues := queues || q;
    consumers := consumers || consumer;
  END LOOP;
END $$;

-- LISTEN over delivery modes (Oracle's listen_delivery_mode): each agent's queue looked at
-- for persistent messages, buffered ones (its companion table, R__11_buffered) or both, in
-- the agent list's order. Returns the targets for aq.await_any, two per agent (persistent,
-- then buffered; a class not listened to is NULL, which await_any skips), so target k is
-- agent (k + 1) / 2 and its message's delivery mode is PERSISTENT for odd k, BUFFERED for
-- even k: the one place that decides message_delivery_mode.
CREATE OR REPLACE FUNCTION aq.listen_classes(p_queues aq.queue_info[], p_consumers text[], p_mode text,
                                             OUT queues aq.queue_info[], OUT consumers text[])
LANGUAGE plpgsql STABLE AS $$
DECLARE
  m text[] := aq.listen_modes(p_mode);
  i integer;
BEGIN
  queues := '{}';
  consumers := '{}';
  FOR i IN 1 .. coalesce(cardinality(p_queues), 0) LOOP
    queues := queues || CASE WHEN 'PERSISTENT' = ANY (m) THEN p_queues[i] END
                     || CASE WHEN 'BUFFERED' = ANY (m) THEN aq.buffered_info(p_queues[i]) END;
    consumers := consumers || p_consumers[i] || p_consumers[i];
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION aq.listen_delivery_mode(p_target integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN p_target % 2 = 1 THEN 'PERSISTENT' ELSE 'BUFFERED' END $$;

-- Which messages a LISTEN looks for: Oracle's listen_delivery_mode (PERSISTENT, the default;
-- BUFFERED; PERSISTENT_OR_BUFFERED; or their constants' numbers 1, 2, 3); ORA-25299 else.
CREATE OR REPLACE FUNCTION aq.listen_modes(p text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  m text := aq.check_delivery_mode(p, 'listen_delivery_mode', '{PERSISTENT,BUFFERED,PERSISTENT_OR_BUFFERED}');
BEGIN
  RETURN CASE m WHEN 'PERSISTENT_OR_BUFFERED' THEN ARRAY['PERSISTENT', 'BUFFERED'] ELSE ARRAY[m] END;
END $$;

-- One look, no wait: the position (1-based) in p_agents of the first agent with a READY
-- message, or 0 (the previous release's library calls it; this one, the form below).
CREATE OR REPLACE FUNCTION aq.listen_first(p_agents sys.aq$_agent[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  t record;
  since timestamptz;
  retry integer;
  found integer;
BEGIN
  t := aq.listen_targets(p_agents);
  CALL aq.await_any(t.queues, t.consumers, NULL, 0, true, since, retry, found);
  IF found < 0 THEN  -- a queue table went away under the look: the checks say which
    t := aq.listen_targets(p_agents);
  END IF;
  RETURN greatest(found, 0);
END $$;

-- The same over delivery modes (aq.listen_classes): the target found, 1-based (agent
-- (k + 1) / 2, its mode aq.listen_delivery_mode(k)), or 0.
CREATE OR REPLACE FUNCTION aq.listen_first(p_agents sys.aq$_agent[], p_listen_mode text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  t record;
  c record;
  since timestamptz;
  retry integer;
  found integer;
BEGIN
  t := aq.listen_targets(p_agents);
  c := aq.listen_classes(t.queues, t.consumers, p_listen_mode);
  CALL aq.await_any(c.queues, c.consumers, NULL, 0, true, since, retry, found);
  IF found < 0 THEN  -- a queue table went away under the look: the checks say which
    t := aq.listen_targets(p_agents);
  END IF;
  RETURN greatest(found, 0);
END $$;

CREATE OR REPLACE PROCEDURE aq.listen(p_agents sys.aq$_agent[], p_wait integer, p_listen_mode text,
                                      INOUT p_agent sys.aq$_agent, INOUT p_mode text)
LANGUAGE plpgsql AS $$
DECLARE
  t record;
  c record;
  since timestamptz;
  retry integer;
  found integer;
BEGIN
  PERFORM aq.check_wait(p_wait);
  PERFORM aq.listen_modes(p_listen_mode);
  LOOP
    t := aq.listen_targets(p_agents);  -- again after each periodic check: stopped, dropped, revoked
    c := aq.listen_classes(t.queues, t.consumers, p_listen_mode);
    CALL aq.await_any(c.queues, c.consumers, NULL, p_wait, true, since, retry, found);
    EXIT WHEN found >= 0;
  END LOOP;
  IF found = 0 THEN
    PERFORM aq.err(25254, 'time-out in LISTEN while waiting for a message', 'P0002');
  END IF;
  p_agent := p_agents[(found + 1) / 2];
  p_mode := aq.listen_delivery_mode(found);
END $$;

-- Oracle's forms (PostgreSQL takes no OUT parameter after a defaulted one: INOUT, as
-- dbms_aq.dequeue's), and the issue's (agent_list, wait, agent, message_delivery_mode);
-- wait as dequeue's: seconds, dbms_aq.forever() (-1, NULL: the default) or
-- dbms_aq.no_wait() (0). Nothing READY in time: ORA-25254.
--   CALL dbms_aq.listen(agent_list => ARRAY[sys.aq$_agent(NULL, 's.orders', NULL),
--                                           sys.aq$_agent('BILLING', 's.events', NULL)], wait => 30);
CREATE OR REPLACE PROCEDURE dbms_aq.listen(agent_list sys.aq$_agent[], wait integer DEFAULT -1,
                                           INOUT agent sys.aq$_agent DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  mode text;
BEGIN
  CALL aq.listen(agent_list, wait, NULL, agent, mode);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aq.listen(agent_list sys.aq$_agent[], wait integer,
                                           INOUT agent sys.aq$_agent, INOUT message_delivery_mode text)
LANGUAGE plpgsql AS $$
BEGIN
  CALL aq.listen(agent_list, wait, NULL, agent, message_delivery_mode);
END $$;

-- Oracle 10.2's: listen_delivery_mode says which messages count (aq.listen_modes)
CREATE OR REPLACE PROCEDURE dbms_aq.listen(agent_list sys.aq$_agent[], wait integer, listen_delivery_mode text,
                                           INOUT agent sys.aq$_agent, INOUT message_delivery_mode text)
LANGUAGE plpgsql AS $$
BEGIN
  CALL aq.listen(agent_list, wait, listen_delivery_mode, agent, message_delivery_mode);
END $$;
