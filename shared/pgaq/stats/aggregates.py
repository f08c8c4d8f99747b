"""The aggregates, defined once (docs/statistics.md describes each column).

Pure DataFrame transformations: inputs are the rows the job read, outputs have exactly the
columns of the aq_stats tables. Buckets are UTC minutes and hours of each event's time.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

GRAINS = ("minute", "hour")
QUANTILES = [0.5, 0.95, 0.99]
EPOCH = "1970-01-01 00:00:00"

WINDOW_COLUMNS = ["schedule_id", "window_start", "queue_name", "destination", "batches", "messages",
                  "bytes", "seconds", "failures", "undeliverable", "disabled", "first_at", "last_at"]
TOTAL_COLUMNS = ["schedule_id", "queue_name", "destination", "windows", "batches", "total_number",
                 "total_bytes", "total_time", "max_number", "max_bytes", "avg_number", "avg_bytes",
                 "avg_size", "avg_time", "failures", "undeliverable", "disabled", "first_at", "last_at"]
SCHEDULE_SERIES_COLUMNS = [
    "schedule_id", "grain", "bucket", "queue_name", "destination", "batches", "messages", "bytes",
    "seconds", "failures", "undeliverable", "disabled", "errors", "batch_p50_ms", "batch_p95_ms",
    "batch_p99_ms", "latency_samples", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms"]
QUEUE_SERIES_COLUMNS = [
    "queue_id", "grain", "bucket", "queue_schema", "queue_name", "enqueued", "dequeued",
    "wait_samples", "wait_p50_ms", "wait_p95_ms", "wait_p99_ms", "snapshots", "ready_avg",
    "ready_max", "waiting_max", "expired_max", "oldest_ready_age_max"]


def _count_if(cond: Column) -> Column:
    return F.sum(F.when(cond, 1).otherwise(0)).cast("long")


def _seconds(start: Column, end: Column) -> Column:
    """Exact to the microsecond (a timestamp cast to double is not)."""
    return (F.unix_micros(end) - F.unix_micros(start)) / F.lit(1_000_000.0)


def _quantiles(col: Column, prefix: str, frequency: Column | int = 1) -> list[Column]:
    """p50/p95/p99 with linear interpolation (as PostgreSQL's percentile_cont); `frequency`:
    how many events each row stands for."""
    q = F.percentile(col, QUANTILES, frequency)
    return [q[i].alias(f"{prefix}_p{p}_ms") for i, p in enumerate((50, 95, 99))]


def _by_grain(df: DataFrame, time_col: str) -> DataFrame:
    """One row per input row and grain, with its bucket."""
    minute, hour = (df.withColumn("grain", F.lit(g)).withColumn("bucket", F.date_trunc(g, F.col(time_col)))
                    for g in GRAINS)
    return minute.unionByName(hour)


def _log_measures() -> list[Column]:
    batch = F.col("event") == "BATCH"
    return [
        _count_if(batch).alias("batches"),
        F.sum(F.when(batch, F.col("messages")).otherwise(0)).cast("long").alias("messages"),
        F.sum(F.when(batch, F.col("bytes")).otherwise(0)).cast("long").alias("bytes"),
        # summed in whole microseconds: a float sum depends on the order Spark adds in, and a
        # rerun over other partitions must write the same figure
        (F.sum(F.when(batch, F.unix_micros(F.col("finished_at")) - F.unix_micros(F.col("started_at")))
               .otherwise(0)).cast("long") / F.lit(1_000_000.0)).alias("seconds"),
        _count_if(F.col("event") == "FAILURE").alias("failures"),
        _count_if(F.col("event") == "UNDELIVERABLE").alias("undeliverable"),
        _count_if(F.col("event") == "DISABLED").alias("disabled"),
    ]


def window_increments(log: DataFrame) -> DataFrame:
    """What the log rows read in this run add to each (schedule, window)."""
    return log.withColumn("window_start", F.coalesce(F.col("window_start"), F.to_timestamp(F.lit(EPOCH)))) \
        .groupBy("schedule_id", "window_start").agg(
            F.max_by("queue_name", "id").alias("queue_name"),
            F.max_by("destination", "id").alias("destination"),
            *_log_measures(),
            F.min("started_at").alias("first_at"),
            F.max("finished_at").alias("last_at"),
        ).select(*WINDOW_COLUMNS)


def merge_windows(stored: DataFrame, increments: DataFrame) -> DataFrame:
    """Every window of the schedules the increments touch, with the increments added."""
    touched = increments.select("schedule_id").distinct()
    kept = stored.join(touched, "schedule_id", "left_semi").select(*WINDOW_COLUMNS)
    both = kept.withColumn("_order", F.lit(0)).unionByName(increments.withColumn("_order", F.lit(1)))
    return both.groupBy("schedule_id", "window_start").agg(
        F.max_by("queue_name", "_order").alias("queue_name"),
        F.max_by("destination", "_order").alias("destination"),
        *[F.sum(c).cast("long").alias(c) for c in
          ("batches", "messages", "bytes")],
        F.round(F.sum("seconds"), 6).cast("double").alias("seconds"),
        *[F.sum(c).cast("long").alias(c) for c in ("failures", "undeliverable", "disabled")],
        F.min("first_at").alias("first_at"),
        F.max("last_at").alias("last_at"),
    ).select(*WINDOW_COLUMNS)


def schedule_totals(windows: DataFrame) -> DataFrame:
    """DBA_QUEUE_SCHEDULES' figures over every window of each schedule."""
    agg = windows.groupBy("schedule_id").agg(
        F.max_by("queue_name", "last_at").alias("queue_name"),
        F.max_by("destination", "last_at").alias("destination"),
        F.count(F.lit(1)).cast("long").alias("windows"),
        F.sum("batches").cast("long").alias("batches"),
        F.sum("messages").cast("long").alias("total_number"),
        F.sum("bytes").cast("long").alias("total_bytes"),
        F.round(F.sum("seconds"), 6).cast("double").alias("total_time"),
        F.max("messages").cast("long").alias("max_number"),
        F.max("bytes").cast("long").alias("max_bytes"),
        F.sum("failures").cast("long").alias("failures"),
        F.sum("undeliverable").cast("long").alias("undeliverable"),
        F.sum("disabled").cast("long").alias("disabled"),
        F.min("first_at").alias("first_at"),
        F.max("last_at").alias("last_at"),
    )
    number = F.col("total_number")
    return agg.withColumn("avg_number", (number / F.col("windows")).cast("double")) \
        .withColumn("avg_bytes", (F.col("total_bytes") / F.col("windows")).cast("double")) \
        .withColumn("avg_size", F.when(number > 0, F.col("total_bytes") / number).cast("double")) \
        .withColumn("avg_time", F.when(number > 0, F.col("total_time") / number).cast("double")) \
        .select(*TOTAL_COLUMNS)


def schedule_series(log: DataFrame, latencies: DataFrame, names: DataFrame) -> DataFrame:
    """Per schedule, grain and bucket: throughput, errors, batch times (log, by finished_at)
    and message propagation latencies (history 'P' rows, by propagation time, each
    standing for `n` events)."""
    batch = F.col("event") == "BATCH"
    batch_ms = F.when(batch, 1000 * _seconds(F.col("started_at"), F.col("finished_at")))
    from_log = _by_grain(log, "finished_at").groupBy("schedule_id", "grain", "bucket").agg(
        F.max_by("queue_name", "id").alias("log_queue_name"),
        F.max_by("destination", "id").alias("log_destination"),
        *_log_measures(),
        _count_if(F.col("error").isNotNull()).alias("errors"),
        *_quantiles(batch_ms, "batch"),
    )
    from_history = _by_grain(latencies, "t").groupBy("schedule_id", "grain", "bucket").agg(
        F.sum("n").cast("long").alias("latency_samples"),
        *_quantiles(F.col("wait_ms"), "latency", F.col("n")),
    )
    joined = from_log.join(from_history, ["schedule_id", "grain", "bucket"], "full_outer") \
        .join(F.broadcast(names), "schedule_id", "left")
    zero = F.lit(0).cast("long")
    return joined.select(
        "schedule_id", "grain", "bucket",
        F.coalesce("log_queue_name", "cat_queue_name").alias("queue_name"),
        F.coalesce("log_destination", "cat_destination").alias("destination"),
        *[F.coalesce(c, zero).alias(c) for c in ("batches", "messages", "bytes")],
        F.coalesce("seconds", F.lit(0.0)).alias("seconds"),
        *[F.coalesce(c, zero).alias(c) for c in ("failures", "undeliverable", "disabled", "errors")],
        "batch_p50_ms", "batch_p95_ms", "batch_p99_ms",
        F.coalesce("latency_samples", zero).alias("latency_samples"),
        "latency_p50_ms", "latency_p95_ms", "latency_p99_ms",
    ).where(F.col("queue_name").isNotNull()).select(*SCHEDULE_SERIES_COLUMNS)


def queue_series(history: DataFrame, snapshots: DataFrame, queues: DataFrame) -> DataFrame:
    """Per queue, grain and bucket: enqueues and dequeues with their waits (history 'E' and
    'D' rows, each standing for `n` events) and depth and age (snapshots)."""
    events = _by_grain(history.where(F.col("kind").isin("E", "D")), "t") \
        .groupBy("queue_id", "grain", "bucket").agg(
            *[F.sum(F.when(F.col("kind") == k, F.col("n")).otherwise(0)).cast("long").alias(name)
              for k, name in (("E", "enqueued"), ("D", "dequeued"))],
            *_quantiles(F.when(F.col("kind") == "D", F.col("wait_ms")), "wait", F.col("n")),
        )
    depth = _by_grain(snapshots, "taken_at").groupBy("queue_id", "grain", "bucket").agg(
        F.max_by("queue_schema", "taken_at").alias("snap_schema"),
        F.max_by("queue_name", "taken_at").alias("snap_name"),
        F.count(F.lit(1)).cast("long").alias("snapshots"),
        F.avg("ready").cast("double").alias("ready_avg"),
        F.max("ready").cast("long").alias("ready_max"),
        F.max("waiting").cast("long").alias("waiting_max"),
        F.max("expired").cast("long").alias("expired_max"),
        F.max("oldest_ready_age").cast("double").alias("oldest_ready_age_max"),
    )
    joined = events.join(depth, ["queue_id", "grain", "bucket"], "full_outer") \
        .join(F.broadcast(queues), "queue_id", "left")
    zero = F.lit(0).cast("long")
    return joined.select(
        "queue_id", "grain", "bucket",
        F.coalesce("cat_schema", "snap_schema").alias("queue_schema"),
        F.coalesce("cat_name", "snap_name").alias("queue_name"),
        F.coalesce("enqueued", zero).alias("enqueued"),
        F.coalesce("dequeued", zero).alias("dequeued"),
        # a bucket's waits: as many as its dequeues
        F.coalesce("dequeued", zero).alias("wait_samples"),
        "wait_p50_ms", "wait_p95_ms", "wait_p99_ms",
        F.coalesce("snapshots", zero).alias("snapshots"),
        "ready_avg", "ready_max", "waiting_max", "expired_max", "oldest_ready_age_max",
    ).where(F.col("queue_name").isNotNull()).select(*QUEUE_SERIES_COLUMNS)
