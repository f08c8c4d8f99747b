-- pgaq catalog: queue tables, queues, subscribers, agents, privileges, transformations.
-- Catalog tables are readable by everybody except secrets; writes go through the
-- dbms_aqadm procedures, which run as the caller: row-level security decides what a
-- role may change, so PostgreSQL itself enforces who administers what.

CREATE EXTENSION IF NOT EXISTS pgcrypto;

CREATE SCHEMA IF NOT EXISTS aq;
CREATE SCHEMA IF NOT EXISTS sys;
CREATE SCHEMA IF NOT EXISTS dbms_aqadm;
CREATE SCHEMA IF NOT EXISTS dbms_aq;
CREATE SCHEMA IF NOT EXISTS dbms_transform;
GRANT USAGE ON SCHEMA aq, sys, dbms_aqadm, dbms_aq, dbms_transform TO PUBLIC;

-- Roles that carry AQ system privileges (granted with dbms_aqadm.grant_system_privilege).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aq_administrator_role') THEN
    CREATE ROLE aq_administrator_role NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aq_enqueue_any') THEN
    CREATE ROLE aq_enqueue_any NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aq_dequeue_any') THEN
    CREATE ROLE aq_dequeue_any NOLOGIN;
  END IF;
END $$;

-- Oracle's agent type: sys.aq$_agent(name, address, protocol).
CREATE TYPE sys.aq$_agent AS (name text, address text, protocol integer);
CREATE TYPE sys.aq$_recipient_list_t AS (list sys.aq$_agent[]);

-- JMS payload types. User properties are kept with their types:
-- {"name": {"type": "int|long|short|byte|float|double|boolean|string", "value": ...}}
CREATE TYPE sys.aq$_jms_header AS (
    replyto sys.aq$_agent, type text, userid text, appid text,
    groupid text, groupseq integer, properties jsonb);
CREATE TYPE sys.aq$_jms_text_message AS (header sys.aq$_jms_header, text_len integer, text_vc text);
CREATE TYPE sys.aq$_jms_bytes_message AS (header sys.aq$_jms_header, bytes_len integer, bytes_raw bytea);
CREATE TYPE sys.aq$_jms_map_message AS (header sys.aq$_jms_header, map jsonb);
CREATE TYPE sys.aq$_jms_object_message AS (header sys.aq$_jms_header, bytes_len integer, bytes_raw bytea);
CREATE TYPE sys.aq$_jms_stream_message AS (header sys.aq$_jms_header, bytes_len integer, bytes_raw bytea);

CREATE TABLE aq.queue_tables (
    id              serial PRIMARY KEY,
    schema_name     name NOT NULL,
    table_name      name NOT NULL,
    owner           name NOT NULL,
    payload_type    regtype NOT NULL,
    payload_kind    text NOT NULL CHECK (payload_kind IN
                      ('RAW', 'OBJECT', 'JMS_TEXT', 'JMS_BYTES', 'JMS_MAP', 'JMS_OBJECT', 'JMS_STREAM')),
    sort_list       text NOT NULL DEFAULT 'ENQ_TIME',
    multiple_consumers boolean NOT NULL DEFAULT false,
    message_grouping text NOT NULL DEFAULT 'NONE' CHECK (message_grouping IN ('NONE', 'TRANSACTIONAL')),
    comment         text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (schema_name, table_name)
);

CREATE TABLE aq.queues (
    id              serial PRIMARY KEY,
    queue_table_id  integer NOT NULL REFERENCES aq.queue_tables(id) ON DELETE CASCADE,
    schema_name     name NOT NULL,
    queue_name      name NOT NULL,
    queue_type      text NOT NULL DEFAULT 'NORMAL_QUEUE'
                      CHECK (queue_type IN ('NORMAL_QUEUE', 'EXCEPTION_QUEUE')),
    max_retries     integer NOT NULL DEFAULT 5 CHECK (max_retries >= 0),
    retry_delay     double precision NOT NULL DEFAULT 0 CHECK (retry_delay >= 0),
    retention_time  double precision NOT NULL DEFAULT 0 CHECK (retention_time >= 0 OR retention_time = -1),
    enqueue_enabled boolean NOT NULL DEFAULT false,
    dequeue_enabled boolean NOT NULL DEFAULT false,
    comment         text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (schema_name, queue_name)
);
CREATE INDEX ON aq.queues (queue_table_id);

CREATE TABLE aq.subscribers (
    id              serial PRIMARY KEY,
    queue_id        integer NOT NULL REFERENCES aq.queues(id) ON DELETE CASCADE,
    name            text,
    address         text,
    protocol        integer NOT NULL DEFAULT 0,
    rule            text,
    transformation  text,
    delivery_mode   text NOT NULL DEFAULT 'PERSISTENT',
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    CHECK (name IS NOT NULL OR address IS NOT NULL)
);
CREATE UNIQUE INDEX subscribers_identity ON aq.subscribers
    (queue_id, coalesce(name, ''), coalesce(address, ''), protocol);

-- Compiled subscriber rules of a queue, written only by the definer function
-- aq.rebuild_rules (the compiler's output, never text a user wrote into a table), so an
-- enqueuer never runs SQL that another role could have planted.
CREATE TABLE aq.rule_cache (
    queue_id        integer PRIMARY KEY REFERENCES aq.queues(id) ON DELETE CASCADE,
    rules_sql       text,
    rules_params    text[] NOT NULL DEFAULT '{}',
    plain_ids       integer[] NOT NULL DEFAULT '{}'
);
REVOKE ALL ON aq.rule_cache FROM PUBLIC;
GRANT SELECT ON aq.rule_cache TO PUBLIC;

CREATE TABLE aq.transformations (
    id              serial PRIMARY KEY,
    schema_name     name NOT NULL,
    name            name NOT NULL,
    owner           name NOT NULL DEFAULT current_user,
    from_type       regtype NOT NULL,
    to_type         regtype NOT NULL,
    function_name   regproc NOT NULL,
    UNIQUE (schema_name, name)
);

CREATE TABLE aq.agents (
    name            text PRIMARY KEY,
    enable_http     boolean NOT NULL DEFAULT false,
    enable_smtp     boolean NOT NULL DEFAULT false,
    enable_anyp     boolean NOT NULL DEFAULT false,
    certificate_location text,
    password_hash   text,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE aq.agent_db_access (
    agent_name      text NOT NULL REFERENCES aq.agents(name) ON DELETE CASCADE,
    db_username     name NOT NULL,
    PRIMARY KEY (agent_name, db_username)
);

CREATE TABLE aq.queue_privileges (
    queue_id        integer NOT NULL REFERENCES aq.queues(id) ON DELETE CASCADE,
    grantee         name NOT NULL,
    enqueue         boolean NOT NULL DEFAULT false,
    dequeue         boolean NOT NULL DEFAULT false,
    grant_option    boolean NOT NULL DEFAULT false,
    grantor         name NOT NULL DEFAULT current_user,
    PRIMARY KEY (queue_id, grantee)
);

CREATE SEQUENCE aq.enq_seq AS bigint CACHE 1;
CREATE SEQUENCE aq.commit_seq AS bigint CACHE 1;
GRANT USAGE, SELECT ON SEQUENCE aq.enq_seq, aq.commit_seq TO PUBLIC;

-- Who may administer what: the owner of a queue table's schema (or a member of that
-- role), or aq_administrator_role members.
CREATE FUNCTION aq.may_manage(p_schema name) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT pg_has_role(current_user, 'aq_administrator_role', 'MEMBER')
      OR EXISTS (SELECT 1 FROM pg_namespace n
                 WHERE n.nspname = p_schema AND pg_has_role(current_user, n.nspowner, 'MEMBER'))
$$;

ALTER TABLE aq.queue_tables ENABLE ROW LEVEL SECURITY;
ALTER TABLE aq.queues ENABLE ROW LEVEL SECURITY;
ALTER TABLE aq.subscribers ENABLE ROW LEVEL SECURITY;
ALTER TABLE aq.transformations ENABLE ROW LEVEL SECURITY;
ALTER TABLE aq.agents ENABLE ROW LEVEL SECURITY;
ALTER TABLE aq.agent_db_access ENABLE ROW LEVEL SECURITY;
ALTER TABLE aq.queue_privileges ENABLE ROW LEVEL SECURITY;

CREATE POLICY read_all ON aq.queue_tables FOR SELECT USING (true);
CREATE POLICY manage ON aq.queue_tables USING (aq.may_manage(schema_name));
CREATE POLICY read_all ON aq.queues FOR SELECT USING (true);
CREATE POLICY manage ON aq.queues USING (aq.may_manage(schema_name));
CREATE POLICY read_all ON aq.subscribers FOR SELECT USING (true);
CREATE POLICY manage ON aq.subscribers USING (
    aq.may_manage((SELECT q.schema_name FROM aq.queues q WHERE q.id = queue_id)));
CREATE POLICY read_all ON aq.transformations FOR SELECT USING (true);
CREATE POLICY manage ON aq.transformations USING (aq.may_manage(schema_name));
-- agents are managed (and their password hashes read) by AQ administrators only
CREATE POLICY admin ON aq.agents
    USING (pg_has_role(current_user, 'aq_administrator_role', 'MEMBER'));
CREATE POLICY admin ON aq.agent_db_access
    USING (pg_has_role(current_user, 'aq_administrator_role', 'MEMBER'));
CREATE POLICY read_all ON aq.queue_privileges FOR SELECT USING (true);
-- grantees WITH GRANT OPTION may pass the privilege on (checked by a definer function,
-- since a policy may not query its own table)
CREATE FUNCTION aq.has_grant_option(p_queue_id integer, p_role name) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  SELECT EXISTS (SELECT 1 FROM aq.queue_privileges g
                 WHERE g.queue_id = p_queue_id AND g.grant_option
                   AND pg_has_role(p_role, g.grantee, 'MEMBER'))
$$;
CREATE POLICY manage ON aq.queue_privileges USING (
    aq.may_manage((SELECT q.schema_name FROM aq.queues q WHERE q.id = queue_id))
    OR aq.has_grant_option(queue_id, current_user));

GRANT SELECT, INSERT, UPDATE, DELETE ON aq.queue_tables, aq.queues, aq.subscribers,
    aq.transformations, aq.queue_privileges TO PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON aq.agents, aq.agent_db_access TO PUBLIC;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA aq TO PUBLIC;

-- One dequeued message as the engine returns it.
CREATE TYPE aq.dequeued AS (
    msgid           bytea,
    queue_name      text,
    consumer_name   text,
    correlation     text,
    priority        integer,
    delay           integer,
    expiration      integer,
    enq_time        timestamptz,
    state           text,
    attempts        integer,
    exception_queue text,
    sender_name     text,
    sender_address  text,
    sender_protocol integer,
    original_msgid  bytea,
    txn_group       bigint,
    position        bigint[],
    payload_json    jsonb,
    payload_raw     bytea
);

-- A condition, rule or selector compiled to SQL over the message row `m`, with its
-- literals as parameters (see R__20_conditions.sql).
CREATE TYPE aq.compiled_condition AS (sql text, params text[]);

-- Oracle's option and property records for the SQL interface (dbms_aq.enqueue/dequeue).
-- Enumerations are text ('REMOVE', 'NEXT_MESSAGE', ...); NULL fields take Oracle's defaults.
CREATE TYPE dbms_aq.enqueue_options_t AS (
    visibility text, relative_msgid bytea, sequence_deviation text,
    transformation text, delivery_mode text);
CREATE TYPE dbms_aq.dequeue_options_t AS (
    consumer_name text, dequeue_mode text, navigation text, visibility text, wait integer,
    msgid bytea, correlation text, deq_condition text, signature text, transformation text,
    delivery_mode text);
CREATE TYPE dbms_aq.message_properties_t AS (
    priority integer, delay integer, expiration integer, correlation text, attempts integer,
    recipient_list sys.aq$_agent[], exception_queue text, enqueue_time timestamptz,
    state integer, sender_id sys.aq$_agent, original_msgid bytea, signature text,
    transaction_group text, user_property jsonb, delivery_mode text);
