"""The statistics job: read the propagation log, the message history and the queue
snapshots over JDBC, aggregate with Spark, stage the results over JDBC and apply them with
the watermark in one transaction.

Incremental: a run reads what happened since the last run's watermark (`high`, the
database's clock at the run's start less `lag`), recomputes the minute and hour buckets
from the hour of (watermark - lookback) on, and adds the new log rows to their windows.
A run that dies before its final transaction changes nothing; rerunning never double counts.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
from pyspark import SparkConf, SparkContext
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ..errors import ConfigError, PgaqError, wrap_db_error
from ..queries import load
from . import aggregates as agg
from .settings import StatsSettings

log = logging.getLogger("pgaq.stats")


class StatsError(PgaqError):
    """A statistics run failed (its partial results were discarded)."""


@dataclass(frozen=True)
class RunResult:
    run_id: int | None          # None: another run held the lock, nothing was done
    low: datetime | None
    high: datetime | None
    log_rows: int = 0
    history_rows: int = 0
    snapshot_rows: int = 0
    written_rows: int = 0


#: JIT flags for the job's short-lived JVMs: C1 only starts faster than it loses later
SHORT_JVM = "-Duser.timezone=UTC -XX:TieredStopAtLevel=1 -XX:+UseParallelGC"


def small_input_conf(partitions: int) -> dict[str, str]:
    """Spark settings for the job's inputs and outputs, which are small for Spark: a few
    shuffle partitions, no whole-stage code generation, no adaptive re-planning (on a
    cluster as in local mode, compiling and re-planning cost more than they save)."""
    return {"spark.sql.shuffle.partitions": str(partitions),
            "spark.sql.codegen.wholeStage": "false",
            "spark.sql.adaptive.enabled": "false"}


def spark_session(settings: StatsSettings, *, submitted: bool = False,
                  java_options: str = "") -> SparkSession:
    """A session for the job. Under spark-submit the master and jars come from its command
    line, and the job's tuning (shuffle partitions = PGAQ_STATS_PARTITIONS, executors in
    UTC and C1-only) fills only what that command line left unset; otherwise local mode
    with the JDBC driver on the driver's classpath."""
    if not submitted:
        if not os.path.exists(settings.jar):
            raise ConfigError(f"PostgreSQL JDBC driver not found at {settings.jar}: install Debian's "
                              "libpostgresql-jdbc-java or set PGAQ_JDBC_JAR")
        if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
            raise ConfigError("no Java runtime found: Spark needs one (e.g. default-jre-headless)")
    builder = SparkSession.builder.appName("pgaq-stats")
    if not submitted:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local mode: loopback only
        builder = builder.master(settings.master) \
            .config("spark.driver.host", "127.0.0.1") \
            .config("spark.driver.bindAddress", "127.0.0.1") \
            .config("spark.jars", settings.jar) \
            .config("spark.driver.extraClassPath", settings.jar) \
            .config("spark.driver.extraJavaOptions", f"{SHORT_JVM} {java_options}".strip()) \
            .config("spark.ui.enabled", "false") \
            .config("spark.ui.showConsoleProgress", "false")  # a progress bar in a service's log
        for key, value in small_input_conf(os.cpu_count() or 2).items():
            builder = builder.config(key, value)
    else:
        # spark-submit's JVM holds its command line (and spark-defaults.conf) as properties;
        # connect to it first, or SparkConf() would see none of them
        SparkContext._ensure_initialized()
        given = SparkConf()
        tuning = {**small_input_conf(settings.partitions), "spark.executor.extraJavaOptions": SHORT_JVM}
        for key, value in tuning.items():
            if not given.contains(key):
                builder = builder.config(key, value)
    builder = builder.config("spark.sql.session.timeZone", "UTC")
    for key, value in settings.spark_conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def _literal(ts: datetime | None) -> str:
    """A timestamp for a JDBC query's text. Only datetimes the job computed reach here."""
    if ts is None:
        return "'-infinity'::timestamptz"
    if not isinstance(ts, datetime) or ts.tzinfo is None:
        raise TypeError("an aware datetime is required")
    return f"'{ts.astimezone(UTC).isoformat()}'::timestamptz"


def _hour(ts: datetime) -> datetime:
    return ts.replace(minute=0, second=0, microsecond=0)


#: log rows one parallel JDBC read is worth (PGAQ_STATS_PARTITION_ROWS' default): below it,
#: a partition's own connection and task cost more than reading its share (an incremental
#: run reads one or two hours)
ROWS_PER_PARTITION = 250_000


def read_partitions(rows: int, most: int, per: int = ROWS_PER_PARTITION) -> int:
    """Parallel reads for a run that reads `rows` log rows, `per` rows a read: at most `most`."""
    return max(1, min(most, -(-rows // max(1, per))))


class Job:
    """One run's reads and writes; `spark` is shared by runs in the same process."""

    def __init__(self, spark: SparkSession, settings: StatsSettings) -> None:
        self.spark = spark
        self.settings = settings
        self.target = settings.jdbc
        self.partitions = settings.partitions  # sized to the run's rows by run_once

    def read(self, query: str, *, by: str | None = None, span: tuple[datetime, datetime] | None = None,
             **bounds: datetime | None) -> DataFrame:
        """A named query over JDBC; with `by` and `span`, read in parallel by time range
        (`partitions` range queries over the column `by`)."""
        sql = load(query).format(**{k: _literal(v) for k, v in bounds.items()})
        sql = "\n".join(line for line in sql.splitlines() if not line.startswith("--"))
        reader = self.spark.read.format("jdbc").option("url", self.target.url) \
            .option("fetchsize", "10000").options(**self.target.properties)
        if by is not None and span is not None and self.partitions > 1 and span[0] < span[1]:
            fmt = "%Y-%m-%d %H:%M:%S.%f"  # read in the session's time zone: UTC
            lower, upper = (t.astimezone(UTC).strftime(fmt) for t in span)
            return reader.option("dbtable", f"({sql}) AS src").option("partitionColumn", by) \
                .option("lowerBound", lower).option("upperBound", upper) \
                .option("numPartitions", str(self.partitions)).load()
        return reader.option("query", sql).load()

    def stage(self, df: DataFrame, table: str, run_id: int) -> None:
        # aggregates are small: one writer, one connection and one transaction per table
        df.coalesce(1).withColumn("run_id", F.lit(run_id).cast("long")).write.format("jdbc") \
            .option("url", self.target.url).option("dbtable", f"aq_stats.stage_{table}") \
            .option("batchsize", "5000").options(**self.target.properties) \
            .mode("append").save()

    def compute(self, run_id: int, low: datetime | None, series_low: datetime | None,
                high: datetime, oldest: datetime | None = None) -> tuple[int, int, int]:
        """Read, aggregate and stage; returns the rows read from each source."""
        start = series_low or oldest
        span = (start, high) if start is not None else None
        log_rows = self.read("stats_log", by="finished_at", span=span, low=series_low, high=high).cache()
        history = self.read("stats_history", low=series_low, high=high).cache()
        snapshots = self.read("stats_snapshots", by="taken_at", span=span, low=series_low, high=high).cache()
        events = history.agg(F.sum("n")).first()  # history rows stand for `n` events each
        counts = (log_rows.count(), int(events[0] or 0) if events is not None else 0, snapshots.count())

        new_log = log_rows if low is None else log_rows.where(F.col("finished_at") >= F.lit(low))
        increments = agg.window_increments(new_log).cache()
        windows = agg.merge_windows(self.read("stats_windows"), increments).cache()
        touched = increments.select("schedule_id", "window_start")
        self.stage(windows.join(touched, ["schedule_id", "window_start"], "left_semi"),
                   "schedule_windows", run_id)
        self.stage(agg.schedule_totals(windows), "schedule_totals", run_id)

        latencies = history.where((F.col("kind") == "P") & F.col("schedule_id").isNotNull())
        self.stage(agg.schedule_series(log_rows, latencies, self.read("stats_schedule_names")),
                   "schedule_series", run_id)
        self.stage(agg.queue_series(history, snapshots, self.read("stats_queue_names")),
                   "queue_series", run_id)
        for df in (log_rows, history, snapshots, increments, windows):
            df.unpersist()
        return counts


async def run_once(spark: SparkSession, settings: StatsSettings) -> RunResult:
    """One incremental run. The control connection holds a lock so runs never overlap."""
    job = Job(spark, settings)
    try:
        conn = await asyncpg.connect(settings.dsn)
    except (OSError, asyncpg.PostgresError) as exc:
        raise wrap_db_error(exc) from exc
    try:
        if not await conn.fetchval(load("stats_lock")):
            log.info("statistics: another run is in progress; skipped")
            return RunResult(None, None, None)
        row = await conn.fetchrow(load("stats_begin"), settings.lag)
        run_id: int = row["id"]
        high: datetime = row["high"]
        low: datetime | None = row["low"]
        oldest: datetime | None = row["oldest"]
        if low is not None and low >= high:
            high = low  # a clock step back: read nothing new, rewrite nothing
        series_low = None if low is None else _hour(low - timedelta(seconds=settings.lookback))
        job.partitions = read_partitions(
            await conn.fetchval(load("stats_span_rows"), series_low, high), settings.partitions,
            settings.partition_rows)
        try:
            counts = await asyncio.to_thread(job.compute, run_id, low, series_low, high, oldest)
            written = await conn.fetchval(load("stats_apply"), run_id, low, series_low, high, *counts)
        except Exception as exc:
            message = str(exc).splitlines()[0][:2000] if str(exc) else type(exc).__name__
            await conn.execute(load("stats_failed"), run_id, message)
            if isinstance(exc, asyncpg.PostgresError):
                raise wrap_db_error(exc) from exc
            raise StatsError(f"statistics run {run_id} failed: {message}") from exc
        result = RunResult(run_id, low, high, *counts, written_rows=written)
        log.info("statistics run %d: [%s, %s) log %d rows, history %d events, snapshots %d rows; "
                 "%d written",
                 run_id, low, high, *counts, written)
        return result
    finally:
        await conn.close()
