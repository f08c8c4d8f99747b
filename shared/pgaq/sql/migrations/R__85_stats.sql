-- The message history the statistics job reads: enqueue and dequeue events that the queue
-- tables still hold (PROCESSED rows are kept for the queue's retention_time), across every
-- queue table, in one relation a JDBC reader can take. Names come from the catalog and are
-- quoted as identifiers ({{name:ident}}, R__09_render.sql); the time range is a parameter.
--
-- kind 'E': a message enqueued at t (one row per message, not per recipient);
-- kind 'D': a local dequeue (REMOVE) at t, wait_ms = t - enq_time;
-- kind 'P': a recipient propagated at t by schedule_id, wait_ms = t - ready_time.
CREATE OR REPLACE FUNCTION aq.message_history(p_low timestamptz, p_high timestamptz)
RETURNS TABLE (kind text, queue_id integer, schedule_id integer, t timestamptz, wait_ms double precision)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  qt aq.queue_tables;
BEGIN
  FOR qt IN SELECT * FROM aq.queue_tables ORDER BY id LOOP
    RETURN QUERY EXECUTE aq.sql($f$
      SELECT 'E'::text, q.id, NULL::integer, m.enq_time, NULL::double precision
        FROM {{schema:ident}}.{{table:ident}} m JOIN aq.queues q ON q.queue_table_id = $3 AND q.queue_name = m.q_name
       WHERE m.enq_time >= $1 AND m.enq_time < $2$f$, jsonb_build_object('schema', qt.schema_name, 'table', qt.table_name))
      USING p_low, p_high, qt.id;
    IF NOT qt.multiple_consumers THEN
      RETURN QUERY EXECUTE aq.sql($f$
        SELECT 'D'::text, q.id, NULL::integer, m.deq_time,
               1000 * extract(epoch FROM m.deq_time - m.enq_time)::double precision
          FROM {{schema:ident}}.{{table:ident}} m JOIN aq.queues q ON q.queue_table_id = $3 AND q.queue_name = m.q_name
         WHERE m.state = 2 AND m.deq_time >= $1 AND m.deq_time < $2$f$, jsonb_build_object('schema', qt.schema_name, 'table', qt.table_name))
        USING p_low, p_high, qt.id;
    ELSE
      RETURN QUERY EXECUTE aq.sql($f$
        SELECT CASE WHEN r.address = '' THEN 'D' ELSE 'P' END, q.id,
               CASE WHEN r.address <> '' THEN (
                 SELECT s.id FROM aq.schedules s
                  WHERE s.queue_id = q.id AND s.destination = (aq.split_address(r.address)).link
                    AND s.destination_queue IN ('', (aq.split_address(r.address)).queue)
                  ORDER BY s.destination_queue = '' LIMIT 1) END,
               r.deq_time,
               1000 * extract(epoch FROM r.deq_time -
                              CASE WHEN r.address = '' THEN r.enq_time ELSE r.ready_time END)::double precision
          FROM {{schema:ident}}.{{recipients:ident}} r JOIN aq.queues q ON q.queue_table_id = $3 AND q.queue_name = r.q_name
         WHERE r.state = 2 AND r.deq_time >= $1 AND r.deq_time < $2$f$,
        jsonb_build_object('schema', qt.schema_name, 'recipients', 'aq$_' || qt.table_name || '_r'))
        USING p_low, p_high, qt.id;
    END IF;
  END LOOP;
END $$;
REVOKE ALL ON FUNCTION aq.message_history(timestamptz, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.message_history(timestamptz, timestamptz) TO aq_administrator_role;

-- A statistics run's results, staged by Spark's JDBC writer, applied in one transaction with
-- the watermark: windows and totals replace the keys the run computed, series replace every
-- bucket in [p_series_low, p_high) (NULL: from the beginning). Rerunning a run that died
-- before this commit recomputes the same; nothing is counted twice.
CREATE OR REPLACE FUNCTION aq_stats.apply_run(p_run bigint, p_low timestamptz, p_series_low timestamptz,
    p_high timestamptz, p_log bigint, p_history bigint, p_snapshots bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  written bigint := 0;
  k bigint;
BEGIN
  DELETE FROM aq_stats.schedule_windows w USING aq_stats.stage_schedule_windows s
   WHERE s.run_id = p_run AND w.schedule_id = s.schedule_id AND w.window_start = s.window_start;
  INSERT INTO aq_stats.schedule_windows (schedule_id, window_start, queue_name, destination, batches,
      messages, bytes, seconds, failures, undeliverable, disabled, first_at, last_at)
  SELECT schedule_id, window_start, queue_name, destination, batches, messages, bytes, seconds,
         failures, undeliverable, disabled, first_at, last_at
    FROM aq_stats.stage_schedule_windows WHERE run_id = p_run;
  GET DIAGNOSTICS k = ROW_COUNT; written := written + k;

  DELETE FROM aq_stats.schedule_totals t USING aq_stats.stage_schedule_totals s
   WHERE s.run_id = p_run AND t.schedule_id = s.schedule_id;
  INSERT INTO aq_stats.schedule_totals (schedule_id, queue_name, destination, windows, batches,
      total_number, total_bytes, total_time, max_number, max_bytes, avg_number, avg_bytes, avg_size,
      avg_time, failures, undeliverable, disabled, first_at, last_at)
  SELECT schedule_id, queue_name, destination, windows, batches, total_number, total_bytes, total_time,
         max_number, max_bytes, avg_number, avg_bytes, avg_size, avg_time, failures, undeliverable,
         disabled, first_at, last_at
    FROM aq_stats.stage_schedule_totals WHERE run_id = p_run;
  GET DIAGNOSTICS k = ROW_COUNT; written := written + k;

  DELETE FROM aq_stats.schedule_series
   WHERE (p_series_low IS NULL OR bucket >= p_series_low) AND bucket < p_high;
  INSERT INTO aq_stats.schedule_series (schedule_id, grain, bucket, queue_name, destination, batches,
      messages, bytes, seconds, failures, undeliverable, disabled, errors, batch_p50_ms, batch_p95_ms,
      batch_p99_ms, latency_samples, latency_p50_ms, latency_p95_ms, latency_p99_ms)
  SELECT schedule_id, grain, bucket, queue_name, destination, batches, messages, bytes, seconds,
         failures, undeliverable, disabled, errors, batch_p50_ms, batch_p95_ms, batch_p99_ms,
         latency_samples, latency_p50_ms, latency_p95_ms, latency_p99_ms
    FROM aq_stats.stage_schedule_series WHERE run_id = p_run;
  GET DIAGNOSTICS k = ROW_COUNT; written := written + k;

  DELETE FROM aq_stats.queue_series
   WHERE (p_series_low IS NULL OR bucket >= p_series_low) AND bucket < p_high;
  INSERT INTO aq_stats.queue_series (queue_id, grain, bucket, queue_schema, queue_name, enqueued,
      dequeued, wait_samples, wait_p50_ms, wait_p95_ms, wait_p99_ms, snapshots, ready_avg, ready_max,
      waiting_max, expired_max, oldest_ready_age_max)
  SELECT queue_id, grain, bucket, queue_schema, queue_name, enqueued, dequeued, wait_samples,
         wait_p50_ms, wait_p95_ms, wait_p99_ms, snapshots, ready_avg, ready_max, waiting_max,
         expired_max, oldest_ready_age_max
    FROM aq_stats.stage_queue_series WHERE run_id = p_run;
  GET DIAGNOSTICS k = ROW_COUNT; written := written + k;

  INSERT INTO aq_stats.watermarks (source, high, run_id) VALUES ('stats', p_high, p_run)
  ON CONFLICT (source) DO UPDATE SET high = excluded.high, run_id = excluded.run_id, updated_at = now();
  UPDATE aq_stats.runs SET status = 'DONE', finished_at = clock_timestamp(), low = p_low, high = p_high,
         log_rows = p_log, history_rows = p_history, snapshot_rows = p_snapshots, written_rows = written
   WHERE id = p_run;
  PERFORM pg_notify('aq_stats_run', p_run::text);  -- dashboards and tests wait on it
  -- this run's stage rows, and any a dead run left behind (runs never overlap: a lock)
  TRUNCATE aq_stats.stage_schedule_windows, aq_stats.stage_schedule_totals,
           aq_stats.stage_schedule_series, aq_stats.stage_queue_series;
  RETURN written;
END $$;
REVOKE ALL ON FUNCTION aq_stats.apply_run(bigint, timestamptz, timestamptz, timestamptz, bigint, bigint, bigint) FROM PUBLIC;
