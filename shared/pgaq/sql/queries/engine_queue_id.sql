SELECT (aq.resolve_queue($1::text)).queue_id
