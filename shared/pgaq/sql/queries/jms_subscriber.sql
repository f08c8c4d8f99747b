SELECT s.rule FROM aq.subscribers s JOIN aq.queue_info q ON q.queue_id = s.queue_id
WHERE q.queue_id = $1::integer AND upper(s.name) = upper($2::text) AND s.address IS NULL
