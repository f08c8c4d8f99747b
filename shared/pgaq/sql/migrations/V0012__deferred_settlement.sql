-- Multi-consumer messages whose settlement (processed, or moved to the exception queue
-- once every recipient is done) could not be done by the dequeue that finished last,
-- because another transaction held the message row: that dequeue does not wait (Oracle's
-- does not either); it leaves the message here, and the queue monitor settles it once the
-- holder has ended (aq.settle_deferred). Written by aq.defer_settlement only.
CREATE TABLE aq.deferred_settlements (
    queue_id integer NOT NULL REFERENCES aq.queues (id) ON DELETE CASCADE,
    msgid bytea NOT NULL,
    PRIMARY KEY (queue_id, msgid)
);
REVOKE ALL ON aq.deferred_settlements FROM PUBLIC;
