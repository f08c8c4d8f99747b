SELECT queue_schema, queue_name, state, messages FROM aq.queue_depths
