-- Buffered messages (R__11_buffered): a deferred settlement names which of the queue table's
-- message tables holds the message, the persistent one or its UNLOGGED companion.
ALTER TABLE aq.deferred_settlements ADD COLUMN buffered boolean NOT NULL DEFAULT false;
