-- one message: ? queue, ? properties (a JSON array of one), ? payloads (JSON array of one,
-- NULL for RAW), ? RAW payloads; the message id as upper-case hex
SELECT upper(encode((aq.enqueue_array(?, ?::jsonb, ?::jsonb, ?::bytea[], NULL, NULL))[1], 'hex'))
