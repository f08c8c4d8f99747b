-- The propagation log rows finished in [{low}, {high}) (read by Spark over JDBC).
SELECT id, schedule_id, queue_name, destination, window_start, started_at, finished_at,
       messages, bytes, error, event
  FROM aq.propagation_log
 WHERE finished_at >= {low} AND finished_at < {high}
