-- After the engine's code changed, regenerate every queue table's functions and views;
-- a table made before buffered messaging gets its companion (R__11_buffered) and its grants.
-- (tables made before scan floors get theirs first: the generated dequeues read them)
-- (and columns added since first: the functions and views read them)
SELECT aq.create_scan_floor(t), aq.create_buffered_objects(t), aq.create_scan_floor(aq.buffered_table(t)),
       aq.create_queue_table_indexes(t), aq.create_queue_table_indexes(aq.buffered_table(t)),
       aq.create_queue_table_functions(aq.buffered_table(t)),
       aq.create_queue_table_functions(t), aq.create_queue_table_views(t),
       aq.apply_queue_grants(t.id)
FROM aq.queue_tables t;
