-- /dashboard: every schedule, live (DBA_QUEUE_SCHEDULES) beside the statistics job's
-- totals (aq_stats.schedule_totals), including schedules dropped since the job saw them.
SELECT coalesce(s.schedule_id, t.schedule_id) AS schedule_id,
       coalesce(s.schema || '.' || s.qname, t.queue_name) AS queue_name,
       coalesce(s.destination, t.destination) AS destination,
       s.schedule_id IS NOT NULL AS live,
       s.schedule_disabled = 'Y' AS disabled,
       s.process_name, s.next_run_date, s.last_run_date,
       s.total_number, s.total_bytes, s.total_time, s.avg_time, s.avg_size,
       s.failures AS consecutive_failures, s.last_error_date, s.last_error_msg,
       t.windows, t.total_number AS stats_total_number, t.total_bytes AS stats_total_bytes,
       t.avg_time AS stats_avg_time, t.avg_size AS stats_avg_size,
       t.failures AS stats_failures, t.undeliverable AS stats_undeliverable,
       t.last_at AS stats_last_at
  FROM aq.dba_queue_schedules s
  FULL JOIN aq_stats.schedule_totals t ON t.schedule_id = s.schedule_id
 ORDER BY 1
