-- Notifications: the registrations' 10.2 options, the outbox that the enqueue's own
-- transaction writes (so a rolled-back enqueue notifies nobody and a committed one is never
-- lost), the e-mail settings of DBMS_AQELM, and the operator's destination allow/deny list.

CREATE SCHEMA IF NOT EXISTS dbms_aqelm;
GRANT USAGE ON SCHEMA dbms_aqelm TO PUBLIC;

-- a queue with registrations: the enqueue paths look at this flag before anything else
ALTER TABLE aq.queues ADD COLUMN notify boolean NOT NULL DEFAULT false;

ALTER TABLE aq.registrations
    ADD COLUMN namespace  integer NOT NULL DEFAULT 0,   -- dbms_aq.namespace_aq
    ADD COLUMN expires_at timestamptz;                  -- created_at + timeout_s
CREATE INDEX registrations_expiry ON aq.registrations (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX registrations_owner ON aq.registrations (coalesce(agent_name, owner));

-- Oracle's registration record and notification descriptor (PL/SQL callbacks get both)
CREATE TYPE sys.aq$_reg_info AS (
    name text, namespace integer, callback text, context bytea, qosflags integer, timeout integer);
CREATE TYPE sys.aq$_descriptor AS (
    msg_id bytea, consumer_name text, queue_name text, msg_prop dbms_aq.message_properties_t,
    ntfn_flags integer);  -- 0: a message; 1: the registration timed out (its last notification)

CREATE TABLE aq.notifications (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),  -- the stable notification id
    seq             bigint GENERATED ALWAYS AS IDENTITY,
    registration_id bigint,          -- no foreign key: a notification outlives its registration
    event           text NOT NULL DEFAULT 'MESSAGE' CHECK (event IN ('MESSAGE', 'TIMEOUT')),
    queue_id        integer,
    queue_name      text NOT NULL,   -- schema.queue
    consumer_name   text,            -- NULL on single-consumer queues
    msgid           bytea,
    message         jsonb,           -- the message's properties when it was enqueued
    payload         bytea,           -- RAW payload, when the registration asked for it
    reg_name        text NOT NULL,   -- SCHEMA.QUEUE[:CONSUMER]
    namespace       integer NOT NULL DEFAULT 0,
    url             text NOT NULL,
    dest_key        text NOT NULL,   -- what shares a concurrency limit (scheme://host:port, ...)
    presentation    text NOT NULL DEFAULT 'XML',
    owner           name NOT NULL,
    agent_name      text,
    user_context    bytea,
    state           text NOT NULL DEFAULT 'PENDING'
                      CHECK (state IN ('PENDING', 'SENDING', 'DELIVERED', 'FAILED')),
    attempts        integer NOT NULL DEFAULT 0,
    due_at          timestamptz NOT NULL DEFAULT now(),
    lease_until     timestamptz,     -- a SENDING row whose lease passed is claimed again
    claimed_by      text,
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz
);
CREATE INDEX notifications_due ON aq.notifications (due_at, seq) WHERE state = 'PENDING';
CREATE INDEX notifications_lease ON aq.notifications (lease_until) WHERE state = 'SENDING';
CREATE INDEX notifications_finished ON aq.notifications (finished_at) WHERE finished_at IS NOT NULL;
ALTER TABLE aq.notifications ENABLE ROW LEVEL SECURITY;
CREATE POLICY own ON aq.notifications FOR SELECT USING (
    pg_has_role(current_user, owner, 'MEMBER')
    OR pg_has_role(current_user, 'aq_administrator_role', 'MEMBER'));
GRANT SELECT ON aq.notifications TO PUBLIC;

-- DBMS_AQELM's settings (one row), and the limit on registrations per agent or role
CREATE TABLE aq.notification_settings (
    id                boolean PRIMARY KEY DEFAULT true CHECK (id),
    mailhost          text,
    mailport          integer NOT NULL DEFAULT 25 CHECK (mailport BETWEEN 1 AND 65535),
    sendfrom          text,
    max_registrations integer NOT NULL DEFAULT 100 CHECK (max_registrations > 0)
);
INSERT INTO aq.notification_settings DEFAULT VALUES;
REVOKE ALL ON aq.notification_settings FROM PUBLIC;
GRANT SELECT (max_registrations) ON aq.notification_settings TO PUBLIC;  -- aq.register checks it
GRANT SELECT, UPDATE ON aq.notification_settings TO aq_administrator_role;

-- Where http(s) notifications may go: a host name, `*.domain`, an IP address or a CIDR
-- block, each allowed or denied (a deny wins). Nothing is allowed until an operator says so.
CREATE TABLE aq.notification_hosts (
    pattern    text PRIMARY KEY CHECK (pattern = lower(pattern) AND pattern <> ''),
    allow      boolean NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE aq.notification_hosts ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_all ON aq.notification_hosts FOR SELECT USING (true);
CREATE POLICY admin ON aq.notification_hosts
    USING (pg_has_role(current_user, 'aq_administrator_role', 'MEMBER'));
GRANT SELECT ON aq.notification_hosts TO PUBLIC;
GRANT INSERT, UPDATE, DELETE ON aq.notification_hosts TO aq_administrator_role;
