-- $1 run, $2 error
UPDATE aq_stats.runs SET status = 'FAILED', finished_at = clock_timestamp(), error = $2 WHERE id = $1
