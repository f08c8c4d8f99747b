-- Transformations as the IDAP gateway sees them: it reads an enqueued payload's XML as the
-- transformation's source type and names a dequeued payload after its target type, so it
-- needs both types (and their payload kinds) before the engine applies the function.

-- The transformation a consumer's subscription carries (dbms_aqadm.add_subscriber ...
-- transformation), on a multi-consumer queue; NULL when it has none. Oracle Streams
-- Advanced Queuing User's Guide and Reference 10g Release 2 (10.2), "Introducing Oracle
-- Streams AQ", "Message Format Transformation": "To transform a message during dequeue,
-- specify a mapping either in the dequeue options or when you add a subscriber. A dequeue
-- mapping overrides a subscriber mapping."
CREATE OR REPLACE FUNCTION aq.subscriber_transformation(q aq.queue_info, p_consumer text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT s.transformation FROM aq.subscribers s
  WHERE q.multiple_consumers AND q.queue_type <> 'EXCEPTION_QUEUE' AND s.queue_id = q.queue_id
    AND s.name = aq.agent_name(p_consumer) AND s.address IS NULL
  LIMIT 1
$$;

-- The transformation an IDAP request names (p_name), or with none, the one a consumer's
-- subscription carries (p_consumer, on a multi-consumer queue): no row when there is none.
-- Checked as aq.enqueue_array (p_enqueue: the target must be the queue's type) and
-- aq.dequeue_array (the source must be the queue's type) check it, with their errors, so
-- a request that cannot succeed fails before its payload is read or a message is taken.
-- Types are written schema-qualified (format %I.%I), whatever the caller's search_path.
-- Runs as the agent's database user (query idap_transformation): an unqualified name is
-- resolved in that user's schema, as the engine will resolve it.
CREATE OR REPLACE FUNCTION aq.idap_transformation(p_name text, p_queue_id integer,
                                                  p_enqueue boolean, p_consumer text DEFAULT NULL)
RETURNS TABLE (name text, from_type text, from_kind text, to_type text, to_kind text)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  q aq.queue_info;
  tr aq.transformations;
BEGIN
  SELECT * INTO q FROM aq.queue_info x WHERE x.queue_id = p_queue_id;
  IF NOT FOUND THEN
    PERFORM aq.err(24010, format('queue %s does not exist', p_queue_id), '42704');
  END IF;
  IF nullif(btrim(p_name), '') IS NOT NULL THEN
    tr := aq.resolve_transformation(p_name);
  ELSIF NOT p_enqueue THEN
    -- as aq.dequeue_array: a dequeue without a transformation gets the subscriber's
    tr := aq.resolve_transformation(aq.subscriber_transformation(q, p_consumer));
  END IF;
  IF tr.id IS NULL THEN
    RETURN;
  END IF;
  IF p_enqueue AND tr.to_type <> q.payload_type THEN
    PERFORM aq.err(25215, format('transformation %s.%s does not produce %s', tr.schema_name, tr.name, q.payload_type), '42804');
  END IF;
  IF NOT p_enqueue AND tr.from_type <> q.payload_type THEN
    PERFORM aq.err(25215, format('transformation %s.%s does not take %s', tr.schema_name, tr.name, q.payload_type), '42804');
  END IF;
  RETURN QUERY
    SELECT format('%s.%s', tr.schema_name, tr.name),
           (SELECT format('%I.%I', n.nspname, t.typname) FROM pg_type t
            JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.oid = tr.from_type),
           aq.payload_kind(tr.from_type),
           (SELECT format('%I.%I', n.nspname, t.typname) FROM pg_type t
            JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.oid = tr.to_type),
           aq.payload_kind(tr.to_type);
END $$;
