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
