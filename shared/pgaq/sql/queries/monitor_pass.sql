SELECT done, next_due, db_now FROM aq.monitor_pass($1::integer)
