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
CREATE OR REPLACE FUNCTION aq.wait_look_sql(q aq.queue_info, p_by_id boolean) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  is_exc boolean := q.queue_type = 'EXCEPTION_QUEUE';
  by_id text := CASE WHEN p_by_id THEN ' AND x.msgid = $3' ELSE '' END;
BEGIN
  IF q.multiple_consumers AND NOT is_exc THEN
    RETURN format('SELECT EXISTS (SELECT 1 FROM %I.%I x WHERE x.q_name = $1 AND x.consumer_name = $2'
                  ' AND x.address = '''' AND x.state = 0%s)', q.table_schema, q.recipients_table, by_id);
  END IF;
  RETURN format('SELECT EXISTS (SELECT 1 FROM %I.%I x WHERE x.q_name = $1 AND x.state = %s%s)',
                q.table_schema, q.table_name, CASE WHEN is_exc THEN 3 ELSE 0 END, by_id);
END $$;

-- Waits until the full dequeue is worth running again (p_found true) or the wait has run
-- out (p_found false). Called by dbms_aq.dequeue after a dequeue that found nothing:
--   p_since  when the wait began (NULL on the first call; set here)
--   p_retry  ms before candidates the last dequeue could not take (other criteria, rows
--            other sessions hold) are tried again: doubles per call up to 250 ms, and
--            back to NULL when the queue had no candidate in between (a new one arrived)
-- A look runs only when some transaction of the cluster ended since the last one (the
-- snapshot differs): nothing can have arrived otherwise, and a fresh snapshot would have
-- the same xmin. So an idle wait costs its wake-ups only. For the same reason the full
-- dequeue runs once a second (a queue stopped, dropped or no longer granted meanwhile
-- raises its error there) only when something ended meanwhile.
CREATE OR REPLACE PROCEDURE aq.await_message(q aq.queue_info, p_consumer text, p_msgid bytea,
                                             p_wait integer, INOUT p_since timestamptz,
                                             INOUT p_retry integer, INOUT p_found boolean)
LANGUAGE plpgsql AS $$
DECLARE
  poll double precision := greatest(coalesce(nullif(current_setting('pgaq.wait_poll_ms', true), '')::integer, 20), 1);
  entered timestamptz := clock_timestamp();
  deadline timestamptz;
  retry_at timestamptz;
  look text;
  consumer text := aq.agent_name(p_consumer);
  own boolean := false;   -- may each look be a transaction of its own
  probe text;
  ctx text;
  snap text;
  seen text;              -- the snapshot of the last look
  looks integer := 0;
  there boolean := false;
  empty_seen boolean := false;
  pause double precision;
  slept boolean;
BEGIN
  p_found := false;
  IF coalesce(p_wait, -1) = 0 THEN
    RETURN;  -- NO_WAIT: the caller raises at once, as before
  END IF;
  p_since := coalesce(p_since, entered);
  IF p_wait > 0 THEN
    deadline := p_since + make_interval(secs => p_wait);
    IF entered >= deadline THEN RETURN; END IF;
  END IF;
  p_retry := CASE WHEN p_retry IS NULL THEN poll::integer ELSE least(p_retry * 2, 250) END;
  retry_at := entered + make_interval(secs => p_retry / 1000.0);

  -- Only a CALL from the client's own statement, outside a transaction block, may end the
  -- transaction: PostgreSQL refuses COMMIT in an atomic context (a transaction block, a
  -- function) and inside an exception block, which a caller of dbms_aq.dequeue may have
  -- open. So: this procedure, its CALL and dbms_aq.dequeue are the whole call stack; the
  -- transaction has written nothing (it began with the CALL: committing it loses nothing);
  -- and COMMIT, tried inside an exception block (which never lets it happen), fails for
  -- that block rather than for an atomic context. Anything else (a translated server
  -- message included) leaves the loop inside the caller's transaction.
  GET DIAGNOSTICS ctx = PG_CONTEXT;
  IF cardinality(string_to_array(ctx, E'\n')) = 3 AND pg_current_xact_id_if_assigned() IS NULL THEN
    BEGIN
      COMMIT;
    EXCEPTION WHEN invalid_transaction_termination THEN
      GET STACKED DIAGNOSTICS probe = MESSAGE_TEXT;
    END;
    own := coalesce(probe = 'cannot commit while a subtransaction is active', false);
  END IF;
  IF NOT own AND current_setting('transaction_isolation') <> 'read committed' THEN
    -- this transaction's snapshot is fixed: no message committed later would be seen
    PERFORM aq.err(25228, format('timeout or end-of-fetch during message dequeue from %s.%s (a %s '
                                 'transaction block cannot see messages committed after it began: '
                                 'wait outside it, or in READ COMMITTED)',
                                 q.schema_name, q.queue_name, upper(current_setting('transaction_isolation'))),
                   'P0002');
  END IF;

  look := aq.wait_look_sql(q, p_msgid IS NOT NULL);
  LOOP
    snap := pg_current_snapshot()::text;
    IF snap IS DISTINCT FROM seen THEN
      seen := snap;
      looks := looks + 1;
      BEGIN
        EXECUTE look INTO there USING q.queue_name, consumer, p_msgid;
      EXCEPTION WHEN undefined_table THEN
        there := true;  -- the queue table is gone: the full dequeue says so (ORA-24010)
      END;
      IF own THEN
        -- lets go of the look's locks now, and of its snapshot: the next statement takes
        -- a new one (PostgreSQL keeps one for the procedure until its next COMMIT)
        COMMIT;
      END IF;
      IF there AND empty_seen THEN
        p_retry := NULL;  -- a new candidate
        p_found := true;
        RETURN;
      END IF;
      empty_seen := empty_seen OR NOT there;
    END IF;
    IF there AND clock_timestamp() >= retry_at AND looks > 1 THEN
      p_found := true;  -- try again what the last dequeue could not take: something ended since
      RETURN;
    END IF;
    IF looks > 1 AND clock_timestamp() >= entered + interval '1 second' THEN
      p_found := true;  -- the periodic full dequeue
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
