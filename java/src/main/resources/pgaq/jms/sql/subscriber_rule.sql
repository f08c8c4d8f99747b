-- ? queue id, ? subscriber name: its rule (no row: no such subscriber)
SELECT s.rule FROM aq.subscribers s JOIN aq.queue_info q ON q.queue_id = s.queue_id
WHERE q.queue_id = ? AND upper(s.name) = upper(?) AND s.address IS NULL
