-- dbms_aq.dequeue_array: Oracle's array dequeue over the engine's batch dequeue
-- (aq.dequeue_array, R__17), with dbms_aq.dequeue's options, positions and wait (R__21).
--
-- Oracle declares it a FUNCTION returning the number of messages dequeued, with the arrays
-- as OUT arguments:
--   n := dbms_aq.dequeue_array(queue_name => 'S.Q', dequeue_options => deqopt,
--                              array_size => 10, message_properties_array => props,
--                              payload_array => payloads, msgid_array => ids);
-- PostgreSQL cannot return a value and fill OUT variables from one call, so this is a
-- PROCEDURE whose OUT arguments are INOUT, in Oracle's order, with the number dequeued as
-- one more (last) INOUT argument, dequeued. A ported block keeps its arguments and moves
-- the result into the call (PL/pgSQL's CALL needs a variable for every INOUT argument):
--   CALL dbms_aq.dequeue_array(queue_name => 's.q', dequeue_options => deqopt,
--                              array_size => 10, message_properties_array => props,
--                              payload_array => payloads, msgid_array => ids, dequeued => n);
-- From psql the CALL returns one row: message_properties_array, payload_array, msgid_array,
-- dequeued (payload_array => NULL::<payload type>[] says the payload type; RAW by default).
-- Oracle's later error_array argument ("currently not implemented" there) is not taken.
-- Oracle's collection types are PostgreSQL arrays: declare message_properties_array_t as
-- dbms_aq.message_properties_t[], msgid_array_t as bytea[] and the
-- payload collection as <payload type>[] (PL/pgSQL writes INOUT arguments back only into
-- variables of exactly the argument's type, so a domain standing for Oracle's name would
-- not do).
--
-- Nothing qualifies: the call waits as dequeue_options.wait says, like dbms_aq.dequeue, and
-- then raises ORA-25228. Otherwise it returns between 1 and array_size messages, those
-- available at once: it does not wait to fill the array.

-- the message properties Oracle's dequeue returns, from one dequeued row
-- p_mode: the message's delivery mode (R__11_buffered)
CREATE OR REPLACE FUNCTION aq.dequeued_properties(d aq.dequeued, p_mode text) RETURNS dbms_aq.message_properties_t
LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(d.priority, d.delay, d.expiration, d.correlation, d.attempts, NULL,
             d.exception_queue, d.enq_time,
             CASE d.state WHEN 'READY' THEN 0 WHEN 'WAIT' THEN 1 WHEN 'PROCESSED' THEN 2 ELSE 3 END,
             CASE WHEN d.sender_name IS NOT NULL OR d.sender_address IS NOT NULL
                  THEN ROW(d.sender_name, d.sender_address, d.sender_protocol)::sys.aq$_agent END,
             d.original_msgid, NULL, d.txn_group::text, NULL, p_mode)::dbms_aq.message_properties_t
$$;

CREATE OR REPLACE PROCEDURE dbms_aq.dequeue_array(
    queue_name text,
    dequeue_options dbms_aq.dequeue_options_t,
    array_size integer,
    INOUT message_properties_array dbms_aq.message_properties_t[] DEFAULT NULL,
    INOUT payload_array anyarray DEFAULT NULL::bytea[],
    INOUT msgid_array bytea[] DEFAULT NULL,
    INOUT dequeued integer DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_queue(queue_name);
  o dbms_aq.dequeue_options_t := dequeue_options;
  mode text := upper(coalesce(o.dequeue_mode, 'REMOVE'));
  nav text := upper(coalesce(o.navigation, 'NEXT_MESSAGE'));
  immediate boolean;
  elem_type regtype;
  setting text;
  pos bigint[];
  grp bigint;
  criteria text;
  ds aq.dequeued[];
  d aq.dequeued;
  since timestamptz;  -- the wait's state between looks (R__21)
  retry integer;
  more boolean;
  -- delivery modes as dbms_aq.dequeue's (R__19, R__11_buffered): buffered messages first
  classes text[] := aq.dequeue_classes(o);  -- delivery modes, R__11_buffered
  got_mode text;
BEGIN
  immediate := aq.check_visibility(o.visibility) = 'IMMEDIATE';
  PERFORM aq.check_wait(o.wait);
  PERFORM aq.check_dequeue_options(q, o);  -- R__14_options
  IF array_size IS NULL OR array_size < 1 OR array_size > 10000 THEN
    PERFORM aq.err(25240, format('invalid array_size %s: between 1 and 10000', coalesce(array_size::text, 'NULL')),
                   '22023');
  END IF;
  IF mode <> 'REMOVE_NODATA' THEN
    SELECT typelem::regtype INTO elem_type FROM pg_type WHERE oid = pg_typeof(payload_array);
    -- the payload is of the dequeue's mapping's target type, else the subscriber's (R__51)
    PERFORM aq.check_payload_type(q, coalesce(nullif(btrim(o.transformation), ''),
                                              aq.subscriber_transformation(q, o.consumer_name)),
                                  elem_type, true);
  END IF;
  criteria := md5(coalesce(o.correlation, '') || '|' || coalesce(o.deq_condition, ''));
  LOOP
   FOREACH got_mode IN ARRAY classes LOOP
    SELECT * INTO setting, pos, grp FROM aq.saved_position(q, o.consumer_name, got_mode, criteria);
    IF immediate AND aq.immediate_needs_link() THEN
      -- each message in a transaction of its own, as IMMEDIATE asks (R__81 takes one)
      ds := '{}';
      LOOP
        d := aq.immediate_dequeue(aq.queue_text(q), o.consumer_name, o.dequeue_mode, nav, o.msgid,
                                  o.correlation, o.deq_condition,
                                  CASE WHEN cardinality(ds) = 0 THEN pos ELSE (ds[cardinality(ds)]).position END,
                                  cardinality(ds) = 0 AND coalesce(o.wait, -1) <> 0,
                                  aq.transformation_text(o.transformation),
                                  CASE WHEN cardinality(ds) = 0 THEN grp ELSE (ds[cardinality(ds)]).txn_group END,
                                  got_mode);
        EXIT WHEN d.msgid IS NULL;
        ds := ds || d;
        EXIT WHEN cardinality(ds) >= array_size OR o.msgid IS NOT NULL;
      END LOOP;
    ELSE
      ds := ARRAY(SELECT x FROM aq.dequeue_array(queue_name, o.consumer_name, o.dequeue_mode, nav, o.msgid,
                                                 o.correlation, o.deq_condition, array_size, pos,
                                                 coalesce(o.wait, -1) <> 0, o.transformation, NULL, grp,
                                                 got_mode) x);
    END IF;
    EXIT WHEN cardinality(ds) > 0;
   END LOOP;
    EXIT WHEN cardinality(ds) > 0
              OR (q.message_grouping = 'TRANSACTIONAL' AND nav = 'NEXT_MESSAGE' AND grp IS NOT NULL);
    -- nothing yet: wait for a candidate, or for the end of the wait (R__21)
    CALL aq.await_classes(q, classes, o.consumer_name, o.msgid, o.wait, since, retry, more);
    EXIT WHEN NOT more;
  END LOOP;
  IF cardinality(ds) = 0 THEN
    IF q.message_grouping = 'TRANSACTIONAL' AND nav = 'NEXT_MESSAGE' AND grp IS NOT NULL THEN
      PERFORM aq.err(25235, format('fetched all messages in current transaction from %s.%s',
                                   q.schema_name, q.queue_name), 'P0002');
    END IF;
    PERFORM aq.err(25228, format('timeout or end-of-fetch during message dequeue from %s.%s',
                                 q.schema_name, q.queue_name), 'P0002');
  END IF;
  IF mode IN ('REMOVE', 'REMOVE_NODATA') AND NOT immediate THEN
    -- a ROLLBACK must count these attempts: noted outside the transaction (R__80)
    FOREACH d IN ARRAY ds LOOP
      PERFORM aq.note_attempt(q.queue_id, aq.agent_name(o.consumer_name), d.msgid);
    END LOOP;
  END IF;
  d := ds[cardinality(ds)];
  IF o.msgid IS NULL THEN  -- a dequeue by message id leaves the position where it was
    PERFORM set_config(setting, d.position::text || '|' || coalesce(d.txn_group::text, '') || '|' || criteria, false);
  END IF;
  msgid_array := ARRAY(SELECT (ds[i]).msgid FROM generate_subscripts(ds, 1) i ORDER BY i);
  message_properties_array := ARRAY(SELECT aq.dequeued_properties(ds[i], got_mode) FROM generate_subscripts(ds, 1) i
                                    ORDER BY i);
  IF mode = 'REMOVE_NODATA' THEN
    payload_array := NULL;
  ELSIF elem_type = 'bytea'::regtype THEN
    -- (the element type is bytea here: the text round trip only satisfies the polymorphism)
    payload_array := ARRAY(SELECT (ds[i]).payload_raw FROM generate_subscripts(ds, 1) i ORDER BY i)::text::bytea[];
  ELSE
    payload_array := ARRAY(SELECT CASE WHEN (ds[i]).payload_json IS NOT NULL
                                       THEN jsonb_populate_record(payload_array[1], (ds[i]).payload_json) END
                           FROM generate_subscripts(ds, 1) i ORDER BY i);
  END IF;
  dequeued := cardinality(ds);
END $$;
