-- JMS properties the provider sets (seed 004, "JMS Message Properties"): JMSXUserID, "the
-- identity of the user sending the message", and JMSXAppID, "the identity of the
-- application sending the message", are "set by JMS after the Send method has completed".
-- They live in the payload's header (sys.aq$_jms_header.userid and .appid), which the JMS
-- selector reads (R__20_conditions_5), so every JMS queue table gets a row trigger that
-- writes them as a message is stored, whatever route stored it (dbms_aq.enqueue, the
-- library's generated functions, IDAP, propagation):
--   JMSXUserID: the enqueuing database user (the row's enq_uid, AQ$<table>.ENQ_USER_ID);
--     a value the client sent is replaced (the seed lists JMSXUserID among the properties a
--     client may get, not set). A propagated message keeps the JMSXUserID its source set
--     (the propagator is not the sender).
--   JMSXAppID: a value the client sent is kept (the seed lists JMSXAppID among the
--     properties "the client can set"); without one, the sender's name (sender_id.name),
--     else the IDAP agent that enqueued, else the session's application_name.

CREATE OR REPLACE FUNCTION aq.jms_provider_properties() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  h sys.aq$_jms_header := (NEW.user_data).header;
  -- what aq.receive_propagated enqueues, over any transport (R__70)
  propagated boolean := NEW.original_msgid IS NOT NULL
                        AND current_setting('pgaq.receiving_propagated', true) = 'on';
  uid text := CASE WHEN propagated AND h.userid IS NOT NULL THEN h.userid ELSE NEW.enq_uid END;
  app text := coalesce(nullif(h.appid, ''), NEW.sender_name,
                       CASE WHEN NOT propagated THEN nullif(NEW.enq_agent, '') END,
                       nullif(current_setting('application_name', true), ''));
BEGIN
  IF h.userid IS DISTINCT FROM uid OR h.appid IS DISTINCT FROM app THEN
    h.userid := uid;
    h.appid := app;
    NEW.user_data := jsonb_populate_record(NEW.user_data, jsonb_build_object('header', to_jsonb(h)));
  END IF;
  RETURN NEW;
END $$;

-- The trigger on a JMS queue table (called by aq.create_queue_table_indexes, R__12: at
-- creation, and for every existing table by R__99).
CREATE OR REPLACE FUNCTION aq.create_jms_provider_trigger(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF t.payload_kind LIKE 'JMS\_%' THEN
    EXECUTE format('CREATE OR REPLACE TRIGGER %I BEFORE INSERT ON %I.%I FOR EACH ROW '
                   'EXECUTE FUNCTION aq.jms_provider_properties()',
                   'aq$_jms_provider', t.schema_name, t.table_name);
  END IF;
END $$;

-- JMSPriority in Oracle JMS's two compliance modes (oracle.jms.j2eeCompliant; pgaq.jms's
-- ConnectionFactory(j2ee_compliant=...)), for every JMS client of these queues to map alike
-- (pgaq.jms.compliance does the same without a round trip; both are tested against
-- tests/integration/jms_priority_vectors.json). Oracle Database Advanced Queuing User's
-- Guide, "JMS Message Headers": in Java EE compliant mode JMSPriority is 0-9, 9 the
-- highest, 4 the default; non-compliant (the default mode) it is AQ's priority, where a
-- smaller number is more urgent and 1 the default. Compliant priorities are stored as
-- 9 - p, so AQ's priority ordering (smaller first) delivers higher JMS priorities first.
CREATE OR REPLACE FUNCTION aq.jms_priority_to_aq(p_priority integer, p_compliant boolean)
RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF NOT p_compliant THEN
    RETURN p_priority;
  END IF;
  IF p_priority IS NULL OR p_priority NOT BETWEEN 0 AND 9 THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = format('JMS-207: Invalid priority %s: 0 (lowest) to 9 (highest) in Java EE '
                       'compliant mode', coalesce(p_priority::text, 'NULL'));
  END IF;
  RETURN 9 - p_priority;
END $$;

-- The JMSPriority read for a stored AQ priority; compliant, an AQ priority outside 0-9 (an
-- enqueue that is not JMS's) reads as the nearest end of 0-9, keeping the order.
CREATE OR REPLACE FUNCTION aq.jms_priority_from_aq(p_priority integer, p_compliant boolean)
RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_compliant THEN least(9, greatest(0, 9 - p_priority::bigint))::integer
              ELSE p_priority END
$$;

CREATE OR REPLACE FUNCTION aq.jms_default_priority(p_compliant boolean)
RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_compliant THEN 4 ELSE 1 END
$$;
