-- pgaq schedules: every propagation schedule as DBA_QUEUE_SCHEDULES shows it.
SELECT s.schema || '.' || s.qname AS queue, s.destination,
       CASE WHEN s.schedule_disabled = 'Y' THEN 'DISABLED'
            WHEN s.session_id IS NOT NULL THEN 'RUNNING'
            ELSE 'ENABLED' END AS state,
       s.failures, s.last_error_date, s.last_error_msg, s.last_run_date, s.next_run_date,
       s.total_number, s.process_name
  FROM aq.dba_queue_schedules s
 ORDER BY s.schema, s.qname, s.destination
