-- /dashboard: the statistics job's latest run and its newest finished one.
SELECT id, status, started_at, finished_at, high, error
  FROM aq_stats.runs
 WHERE id = (SELECT max(id) FROM aq_stats.runs)
    OR id = (SELECT max(id) FROM aq_stats.runs WHERE status = 'DONE')
 ORDER BY id DESC
