-- Statistics: what the Spark job (pgaq.stats) computes from the propagation log, the
-- message history and the queue snapshots, for dashboards (Grafana, /dashboard). The
-- definitions of every column are in docs/statistics.md. Tables are written only by the
-- job, in one transaction per run, and read by anybody.

CREATE SCHEMA IF NOT EXISTS aq_stats;
GRANT USAGE ON SCHEMA aq_stats TO PUBLIC;

-- How far each run got: the next run reads from `high` (minus its hour) on.
CREATE TABLE aq_stats.watermarks (
    source     text PRIMARY KEY,
    high       timestamptz NOT NULL,
    run_id     bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE aq_stats.runs (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at   timestamptz,
    low           timestamptz,       -- the data read: [low, high)
    high          timestamptz,
    log_rows      bigint,
    history_rows  bigint,
    snapshot_rows bigint,
    written_rows  bigint,
    status        text NOT NULL DEFAULT 'RUNNING' CHECK (status IN ('RUNNING', 'DONE', 'FAILED')),
    error         text
);

-- Per schedule and propagation window (window_start = the schedule's start for an endless window).
CREATE TABLE aq_stats.schedule_windows (
    schedule_id   integer NOT NULL,
    window_start  timestamptz NOT NULL,
    queue_name    text NOT NULL,
    destination   text NOT NULL,
    batches       bigint NOT NULL,
    messages      bigint NOT NULL,
    bytes         bigint NOT NULL,
    seconds       double precision NOT NULL,
    failures      bigint NOT NULL,
    undeliverable bigint NOT NULL,
    disabled      bigint NOT NULL,
    first_at      timestamptz NOT NULL,
    last_at       timestamptz NOT NULL,
    PRIMARY KEY (schedule_id, window_start)
);

-- Per schedule: the DBA_QUEUE_SCHEDULES figures, over every window the log holds.
CREATE TABLE aq_stats.schedule_totals (
    schedule_id   integer PRIMARY KEY,
    queue_name    text NOT NULL,
    destination   text NOT NULL,
    windows       bigint NOT NULL,
    batches       bigint NOT NULL,
    total_number  bigint NOT NULL,
    total_bytes   bigint NOT NULL,
    total_time    double precision NOT NULL,
    max_number    bigint NOT NULL,
    max_bytes     bigint NOT NULL,
    avg_number    double precision NOT NULL,
    avg_bytes     double precision NOT NULL,
    avg_size      double precision,
    avg_time      double precision,
    failures      bigint NOT NULL,
    undeliverable bigint NOT NULL,
    disabled      bigint NOT NULL,
    first_at      timestamptz NOT NULL,
    last_at       timestamptz NOT NULL
);

-- Per schedule and minute or hour (by the end of each batch or failure).
CREATE TABLE aq_stats.schedule_series (
    schedule_id     integer NOT NULL,
    grain           text NOT NULL CHECK (grain IN ('minute', 'hour')),
    bucket          timestamptz NOT NULL,
    queue_name      text NOT NULL,
    destination     text NOT NULL,
    batches         bigint NOT NULL,
    messages        bigint NOT NULL,
    bytes           bigint NOT NULL,
    seconds         double precision NOT NULL,
    failures        bigint NOT NULL,
    undeliverable   bigint NOT NULL,
    disabled        bigint NOT NULL,
    errors          bigint NOT NULL,
    batch_p50_ms    double precision,
    batch_p95_ms    double precision,
    batch_p99_ms    double precision,
    latency_samples bigint NOT NULL,
    latency_p50_ms  double precision,
    latency_p95_ms  double precision,
    latency_p99_ms  double precision,
    PRIMARY KEY (schedule_id, grain, bucket)
);
CREATE INDEX schedule_series_bucket ON aq_stats.schedule_series (grain, bucket);

-- Per queue and minute or hour: rates and waits (message history) and depth (snapshots).
CREATE TABLE aq_stats.queue_series (
    queue_id             integer NOT NULL,
    grain                text NOT NULL CHECK (grain IN ('minute', 'hour')),
    bucket               timestamptz NOT NULL,
    queue_schema         name NOT NULL,
    queue_name           name NOT NULL,
    enqueued             bigint NOT NULL,
    dequeued             bigint NOT NULL,
    wait_samples         bigint NOT NULL,
    wait_p50_ms          double precision,
    wait_p95_ms          double precision,
    wait_p99_ms          double precision,
    snapshots            bigint NOT NULL,
    ready_avg            double precision,
    ready_max            bigint,
    waiting_max          bigint,
    expired_max          bigint,
    oldest_ready_age_max double precision,
    PRIMARY KEY (queue_id, grain, bucket)
);
CREATE INDEX queue_series_bucket ON aq_stats.queue_series (grain, bucket);

-- Where a run's results wait (written by Spark's JDBC writer) until one transaction
-- moves them in; rows of a run that died are dropped by the next.
CREATE UNLOGGED TABLE aq_stats.stage_schedule_windows (LIKE aq_stats.schedule_windows, run_id bigint NOT NULL);
CREATE UNLOGGED TABLE aq_stats.stage_schedule_totals (LIKE aq_stats.schedule_totals, run_id bigint NOT NULL);
CREATE UNLOGGED TABLE aq_stats.stage_schedule_series (LIKE aq_stats.schedule_series, run_id bigint NOT NULL);
CREATE UNLOGGED TABLE aq_stats.stage_queue_series (LIKE aq_stats.queue_series, run_id bigint NOT NULL);

GRANT SELECT ON aq_stats.watermarks, aq_stats.runs, aq_stats.schedule_windows,
    aq_stats.schedule_totals, aq_stats.schedule_series, aq_stats.queue_series TO PUBLIC;
