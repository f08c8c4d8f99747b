-- Propagation: database links (with credentials only administrators read), schedules with
-- their windows, failure state and statistics, the append-only propagation log, and, at
-- a destination, the record of what each schedule already delivered (exactly once).

CREATE TABLE aq.db_links (
    name       text PRIMARY KEY CHECK (name = lower(name) AND name ~ '^[a-z_][a-z0-9_$#.-]*$'),
    url        text NOT NULL,
    username   text,
    password   text,
    owner      name NOT NULL DEFAULT current_user,
    created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE aq.db_links ENABLE ROW LEVEL SECURITY;
CREATE POLICY admin ON aq.db_links
    USING (pg_has_role(current_user, 'aq_administrator_role', 'MEMBER'));
REVOKE ALL ON aq.db_links FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON aq.db_links TO aq_administrator_role;

CREATE TABLE aq.schedules (
    id                 serial PRIMARY KEY,
    queue_id           integer NOT NULL REFERENCES aq.queues(id) ON DELETE CASCADE,
    destination        text NOT NULL DEFAULT '',   -- a db link's name; '' = this database
    destination_queue  text NOT NULL DEFAULT '',   -- '' = queue-to-dblink (every address at it)
    start_time         timestamptz NOT NULL DEFAULT now(),
    duration           double precision CHECK (duration IS NULL OR duration > 0),  -- NULL: endless
    next_time          text,           -- '1 hour' or a SQL expression returning a timestamp
    latency            double precision NOT NULL DEFAULT 60 CHECK (latency >= 0),
    disabled           boolean NOT NULL DEFAULT false,
    owner              name NOT NULL DEFAULT current_user,
    -- the window and failure state
    window_start       timestamptz,
    window_end         timestamptz,
    next_run           timestamptz,    -- a retry's time; NULL = now (when inside a window)
    aligned            boolean NOT NULL DEFAULT false,  -- retries follow windows from now on
    failures           integer NOT NULL DEFAULT 0,
    last_error_msg     text,
    last_error_date    timestamptz,
    -- statistics (DBA_QUEUE_SCHEDULES)
    last_run_date      timestamptz,
    current_start_date timestamptz,
    total_time         double precision NOT NULL DEFAULT 0,
    total_number       bigint NOT NULL DEFAULT 0,
    total_bytes        bigint NOT NULL DEFAULT 0,
    max_number         bigint NOT NULL DEFAULT 0,
    max_bytes          bigint NOT NULL DEFAULT 0,
    windows            bigint NOT NULL DEFAULT 0,
    window_number      bigint NOT NULL DEFAULT 0,
    window_bytes       bigint NOT NULL DEFAULT 0,
    -- which propagator runs it
    lease_owner        text,
    lease_until        timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (queue_id, destination, destination_queue)
);
ALTER TABLE aq.schedules ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_all ON aq.schedules FOR SELECT USING (true);
CREATE POLICY manage ON aq.schedules USING (
    aq.may_manage((SELECT q.schema_name FROM aq.queues q WHERE q.id = queue_id)));
GRANT SELECT, INSERT, UPDATE, DELETE ON aq.schedules TO PUBLIC;
GRANT USAGE ON SEQUENCE aq.schedules_id_seq TO PUBLIC;

CREATE TABLE aq.propagation_log (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    schedule_id   integer NOT NULL,       -- no foreign key: the log outlives schedules
    queue_name    text NOT NULL,
    destination   text NOT NULL,
    window_start  timestamptz,
    started_at    timestamptz NOT NULL,
    finished_at   timestamptz NOT NULL,
    messages      integer NOT NULL DEFAULT 0,
    bytes         bigint NOT NULL DEFAULT 0,
    error         text,
    event         text NOT NULL DEFAULT 'BATCH' CHECK (event IN ('BATCH', 'FAILURE', 'DISABLED', 'UNDELIVERABLE'))
);
CREATE INDEX propagation_log_schedule ON aq.propagation_log (schedule_id, id);
CREATE INDEX propagation_log_time ON aq.propagation_log (finished_at);
GRANT SELECT ON aq.propagation_log TO PUBLIC;

-- at a destination: the source messages each schedule already delivered here
CREATE TABLE aq.propagated (
    schedule_key  text NOT NULL,
    source_msgid  bytea NOT NULL,
    dest_msgid    bytea,
    received_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (schedule_key, source_msgid)
);
CREATE INDEX propagated_time ON aq.propagated (received_at);
REVOKE ALL ON aq.propagated FROM PUBLIC;

-- this database's identity, part of each schedule's key at its destinations
CREATE TABLE aq.instance (
    id   boolean PRIMARY KEY DEFAULT true CHECK (id),
    uuid uuid NOT NULL DEFAULT gen_random_uuid()
);
INSERT INTO aq.instance DEFAULT VALUES;
GRANT SELECT ON aq.instance TO PUBLIC;
