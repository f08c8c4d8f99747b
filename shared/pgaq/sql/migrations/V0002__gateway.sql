-- Tables of the IDAP gateway: notification registrations and the alias directory that
-- stands in for Oracle's LDAP lookups (lookup_type="LDAP", agent_alias).

CREATE TABLE aq.registrations (
    id              bigserial PRIMARY KEY,
    queue_id        integer NOT NULL REFERENCES aq.queues(id) ON DELETE CASCADE,
    consumer_name   text NOT NULL DEFAULT '',
    notify_url      text NOT NULL,
    presentation    text NOT NULL DEFAULT 'XML' CHECK (presentation IN ('XML', 'RAW')),
    agent_name      text,
    owner           name NOT NULL DEFAULT current_user,
    user_context    bytea,
    timeout_s       integer CHECK (timeout_s IS NULL OR timeout_s > 0),
    purge_on_notify boolean NOT NULL DEFAULT false,
    payload_delivery boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (queue_id, consumer_name, notify_url)
);
ALTER TABLE aq.registrations ENABLE ROW LEVEL SECURITY;
CREATE POLICY own ON aq.registrations USING (
    pg_has_role(current_user, owner, 'MEMBER')
    OR pg_has_role(current_user, 'aq_administrator_role', 'MEMBER'));
GRANT SELECT, INSERT, UPDATE, DELETE ON aq.registrations TO PUBLIC;
GRANT USAGE ON SEQUENCE aq.registrations_id_seq TO PUBLIC;

CREATE TABLE aq.directory (
    alias           text PRIMARY KEY,
    queue_schema    name,
    queue_name      name,
    agent           sys.aq$_agent,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((queue_name IS NULL) <> (agent IS NULL))
);
ALTER TABLE aq.directory ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_all ON aq.directory FOR SELECT USING (true);
CREATE POLICY admin ON aq.directory
    USING (pg_has_role(current_user, 'aq_administrator_role', 'MEMBER'));
GRANT SELECT, INSERT, UPDATE, DELETE ON aq.directory TO PUBLIC;
