-- Options of Oracle's procedures that pgaq refuses, or accepts as documented no-ops: every
-- option is honoured, refused with a clear error, or (where a single PostgreSQL instance
-- has nothing to do with it) accepted and documented; never stored as something else.
-- The full list is in docs/errors.md, "Refused options".

-- A delivery mode given as text: Oracle's names or the numbers of its constants
-- (DBMS_AQ.PERSISTENT 1, BUFFERED 2, PERSISTENT_OR_BUFFERED 3), returned as the name;
-- anything outside p_allowed is ORA-25299. NULL is the default, PERSISTENT.
CREATE OR REPLACE FUNCTION aq.check_delivery_mode(p text, p_what text, p_allowed text[])
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v text := upper(btrim(coalesce(p, 'PERSISTENT')));
BEGIN
  v := CASE v WHEN '1' THEN 'PERSISTENT' WHEN '2' THEN 'BUFFERED' WHEN '3' THEN 'PERSISTENT_OR_BUFFERED'
              ELSE v END;
  IF NOT v = ANY (p_allowed) THEN
    PERFORM aq.err(25299, format('invalid message delivery mode %s for %s: use %s',
                                 quote_literal(left(p, 64)), p_what, array_to_string(p_allowed, ', ')),
                   '22023');
  END IF;
  RETURN v;
END $$;

-- The protocol of a recipient or subscriber. Only protocol 0 (NULL) has a delivery path
-- here: a local consumer (no address), or a queue address propagated over a database link.
-- Another protocol, such as 128-255 (the third-party propagators of a Messaging Gateway,
-- which dequeue as AQ$_P<protocol>), would be accepted and never delivered: refused.
CREATE OR REPLACE FUNCTION aq.check_protocol(a sys.aq$_agent, p_what text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  who text := format('%s %s%s', p_what, coalesce(a.name, '(no name)'),
                     coalesce(' at address ' || nullif(btrim(a.address), ''), ''));
BEGIN
  IF coalesce(a.protocol, 0) = 0 THEN
    RETURN;
  END IF;
  IF a.protocol < 0 THEN
    PERFORM aq.err(25216, format('invalid PROTOCOL %s of %s: a protocol is 0 (NULL) or positive',
                                 a.protocol, who), '22023');
  END IF;
  IF nullif(btrim(a.address), '') IS NULL THEN
    PERFORM aq.err(24075, format('cannot specify agent with NULL address and non-NULL protocol: %s has protocol %s',
                                 who, a.protocol), '22023');
  END IF;
  PERFORM aq.err(25259, format('cannot specify protocol %s for %s: pgaq delivers protocol 0 (NULL) only, '
                               'to a local consumer or a queue address over a database link; there is no '
                               'Messaging Gateway for protocols 128-255', a.protocol, who), '22023');
END $$;

-- dbms_aq.enqueue_options_t: SEQUENCE_DEVIATION and RELATIVE_MSGID (deprecated by Oracle
-- in 10g Release 2) would reorder the queue; pgaq never does, so either one set is refused
-- rather than ignored.
CREATE OR REPLACE FUNCTION aq.check_enqueue_options(q aq.queue_info, o dbms_aq.enqueue_options_t)
RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF o.sequence_deviation IS NOT NULL OR o.relative_msgid IS NOT NULL THEN
    PERFORM aq.err(25219, format('enqueue failed, sequence deviation not allowed for queue %s.%s: '
                                 'SEQUENCE_DEVIATION %s, RELATIVE_MSGID %s (deprecated since Oracle 10.2; '
                                 'pgaq does not reorder messages): leave both NULL',
                                 q.schema_name, q.queue_name,
                                 coalesce(quote_literal(left(o.sequence_deviation, 64)), 'NULL'),
                                 coalesce(upper(encode(o.relative_msgid, 'hex')), 'NULL')), '22023');
  END IF;
END $$;

-- dbms_aq.message_properties_t on enqueue: a signature asks for non-repudiation, which no
-- pgaq queue supports (ORA-25221, as Oracle on such a queue); user_property would be
-- dropped (pgaq keeps no such property), so it is refused too.
CREATE OR REPLACE FUNCTION aq.check_message_properties(q aq.queue_info, p dbms_aq.message_properties_t)
RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p.signature IS NOT NULL THEN
    PERFORM aq.err(25221, format('enqueue failed, signature specified queue not supporting non-repudiation: %s.%s',
                                 q.schema_name, q.queue_name), '22023');
  END IF;
  IF p.user_property IS NOT NULL THEN
    PERFORM aq.err(24005, format('USER_PROPERTY is not supported on %s.%s: pgaq does not keep it; '
                                 'leave it NULL (JMS user properties travel in the JMS payload)',
                                 q.schema_name, q.queue_name), '22023');
  END IF;
END $$;

-- create_queue_table / alter_queue_table: instance affinity means nothing to a single
-- PostgreSQL instance (the queue monitor and propagation run wherever pgaq's services run):
-- accepted as no-ops, but an instance number is never negative.
CREATE OR REPLACE FUNCTION aq.check_instances(p_primary integer, p_secondary integer) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF coalesce(p_primary, 0) < 0 OR coalesce(p_secondary, 0) < 0 THEN
    PERFORM aq.err(24005, format('invalid instance affinity PRIMARY_INSTANCE %s, SECONDARY_INSTANCE %s: '
                                 'instance numbers are 0 (any) or positive', p_primary, p_secondary), '22023');
  END IF;
END $$;

-- create_queue_table's options pgaq does not implement, or implements only one way.
CREATE OR REPLACE FUNCTION aq.check_queue_table_options(p_compatible text, p_secure boolean,
                                                        p_primary integer, p_secondary integer)
RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v integer[];
BEGIN
  PERFORM aq.check_instances(p_primary, p_secondary);
  IF coalesce(p_secure, false) THEN
    PERFORM aq.err(3001, 'unimplemented feature: secure queue tables (SECURE => TRUE); pgaq controls access '
                         'with queue and system privileges (grant_queue_privilege)', '0A000');
  END IF;
  IF p_compatible IS NOT NULL THEN
    IF btrim(p_compatible) !~ '^[0-9]{1,3}(\.[0-9]{1,3}){0,4}$' THEN
      PERFORM aq.err(24005, format('invalid COMPATIBLE %s: a release such as 8.1 or 10.0',
                                   quote_literal(left(p_compatible, 64))), '22023');
    END IF;
    v := string_to_array(btrim(p_compatible), '.')::integer[];
    IF v < ARRAY[8, 1] THEN
      PERFORM aq.err(24005, format('invalid COMPATIBLE %s: 8.0-compatible queue tables are not supported; '
                                   'pgaq queue tables have the features of 10.0', quote_literal(p_compatible)),
                     '22023');
    END IF;
  END IF;
END $$;

-- Oracle's ALTER_QUEUE_TABLE: the comment, and the instance affinities (no-ops here).
CREATE OR REPLACE PROCEDURE dbms_aqadm.alter_queue_table(
    queue_table text,
    comment text DEFAULT NULL,
    primary_instance integer DEFAULT NULL,
    secondary_instance integer DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  t aq.queue_tables := aq.resolve_queue_table(queue_table);
BEGIN
  IF NOT aq.may_manage(t.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges to alter queue table %s.%s', t.schema_name, t.table_name),
                   '42501');
  END IF;
  PERFORM aq.check_instances(primary_instance, secondary_instance);
  IF alter_queue_table.comment IS NOT NULL THEN
    UPDATE aq.queue_tables x SET comment = alter_queue_table.comment WHERE x.id = t.id;
  END IF;
END $$;

-- dbms_aq.dequeue_options_t: a signature is for receiver non-repudiation, which no pgaq
-- queue supports (ORA-25265, as Oracle on such a queue).
CREATE OR REPLACE FUNCTION aq.check_dequeue_options(q aq.queue_info, o dbms_aq.dequeue_options_t)
RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF o.signature IS NOT NULL THEN
    PERFORM aq.err(25265, format('specified signature for a queue which does not support receiver non-repudiation: %s.%s',
                                 q.schema_name, q.queue_name), '22023');
  END IF;
END $$;
