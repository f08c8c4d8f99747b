-- ? queue, ? consumer, ? ids (hex) whose REMOVE was rolled back, ? whether buffered
SELECT aq.record_failed_attempts(?, ?, ARRAY(SELECT decode(x, 'hex') FROM unnest(?::text[]) x), ?)
