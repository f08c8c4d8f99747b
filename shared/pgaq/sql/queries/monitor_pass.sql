SELECT done, next_due, db_now, busy FROM aq.monitor_pass($1::integer)
