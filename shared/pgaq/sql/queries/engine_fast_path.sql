SELECT queue_id, queue_name, multiple_consumers, payload_kind, send_fn, recv_fn, send1_fn,
       remove_sql, remove_after_sql, remove_fn, sendn_fn, remove_n_sql, send_sql, remove_ids_sql
FROM aq.fast_path($1::text, $2::boolean)
