SELECT done, next_due, db_now, busy, busy_schema, busy_table, busy_msgid FROM aq.monitor_pass($1::integer)
