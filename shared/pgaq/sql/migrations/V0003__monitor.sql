-- Queue monitor: periodic snapshots of queue depth and age for dashboards and the
-- statistics job.
CREATE TABLE aq.queue_snapshots (
    taken_at        timestamptz NOT NULL,
    queue_id        integer NOT NULL,
    queue_schema    name NOT NULL,
    queue_name      name NOT NULL,
    ready           bigint NOT NULL,
    waiting         bigint NOT NULL,
    expired         bigint NOT NULL,
    processed       bigint NOT NULL,
    oldest_ready_age double precision,
    PRIMARY KEY (taken_at, queue_id)
);
CREATE INDEX ON aq.queue_snapshots (queue_id, taken_at);
GRANT SELECT ON aq.queue_snapshots TO PUBLIC;

-- Who waits on which queue (one row per listening process and queue). Enqueuers notify a
-- queue's channel only while somebody waits on it: NOTIFY serialises committing
-- transactions, so it is not paid where nobody listens. See aq.wake.
CREATE UNLOGGED TABLE aq.waiters (
    queue_id        integer NOT NULL,
    pid             integer NOT NULL,
    since           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (queue_id, pid)
);
GRANT SELECT ON aq.waiters TO PUBLIC;
