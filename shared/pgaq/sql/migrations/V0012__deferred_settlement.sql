-- Multi-consumer messages whose settlement (processed, or moved to the exception queue
-- once every recipient is done) could not be done by the dequeue that finished last,
-- because another transaction held the message row: that dequeue does not wait (Oracle's
-- does not either); it leaves a note here, and the queue monitor settles the message once
-- the holder has ended (aq.settle_deferred). An append-only log: no unique key, so noting
-- a message never waits for another transaction's note of the same message.
CREATE TABLE aq.deferred_settlements (
    id bigserial PRIMARY KEY,
    queue_id integer NOT NULL REFERENCES aq.queues (id) ON DELETE CASCADE,
    msgid bytea NOT NULL
);
CREATE INDEX ON aq.deferred_settlements (queue_id);
REVOKE ALL ON aq.deferred_settlements FROM PUBLIC;
-- the monitor's login (an AQ administrator when not a superuser) settles and removes notes
GRANT SELECT, INSERT, UPDATE, DELETE ON aq.deferred_settlements TO aq_administrator_role;
GRANT USAGE ON SEQUENCE aq.deferred_settlements_id_seq TO aq_administrator_role;
