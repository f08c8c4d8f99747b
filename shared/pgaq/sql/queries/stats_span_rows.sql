-- How many propagation log rows a run will read ([$1, $2); $1 NULL: from the start), to
-- size its parallel reads: one JDBC query per partition costs a connection and a Spark task.
SELECT count(*)
  FROM aq.propagation_log
 WHERE finished_at >= coalesce($1::timestamptz, '-infinity') AND finished_at < $2
