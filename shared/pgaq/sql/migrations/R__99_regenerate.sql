-- After the engine's code changed, regenerate every queue table's functions and views.
SELECT aq.create_queue_table_functions(t), aq.create_queue_table_views(t),
       aq.create_queue_table_indexes(t)
FROM aq.queue_tables t;
