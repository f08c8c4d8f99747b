-- Queue depth snapshots taken in [{low}, {high}).
SELECT taken_at, queue_id, queue_schema::text AS queue_schema, queue_name::text AS queue_name,
       ready, waiting, expired, oldest_ready_age
  FROM aq.queue_snapshots
 WHERE taken_at >= {low} AND taken_at < {high}
