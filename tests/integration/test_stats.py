"""The Spark statistics job against real PostgreSQL and real Spark (local mode): its
output equals the same aggregates computed with plain SQL, reruns do not double count, and
a run after new activity rewrites only what changed."""

from __future__ import annotations

import math
import os
import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from pgaq import DequeueOptions, Session
from pgaq.errors import ConfigError, PgaqError
from pgaq.queries import load
from pgaq.stats import cds
from pgaq.stats.job import run_once, spark_session
from pgaq.stats.settings import StatsSettings
from pyspark.sql import SparkSession

from .helpers import make_queue, subscribe

# Spark's start (the session fixture, inside the first test's time) and three runs: pytest's
# 120 s default cut them short beside the parallel phase's other workers
pytestmark = pytest.mark.timeout(400)

REFERENCE = (Path(__file__).parent / "stats_reference.sql").read_text()
KEYS = {
    "schedule_windows": ("schedule_id", "window_start"),
    "schedule_totals": ("schedule_id",),
    "schedule_series": ("schedule_id", "grain", "bucket"),
    "queue_series": ("queue_id", "grain", "bucket"),
}


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    settings = StatsSettings(dsn="postgresql://unused@127.0.0.1/x", master="local[2]")
    # the class-data archive the job's runs share (tests/conftest.py: PGAQ_STATS_CDS), when
    # one is there: mapped, Spark's classes load in a fraction of the CPU. This JVM never
    # writes one (tests/e2e/test_stats_process.py checks the writing)
    options = cds.java_options(cds.archive_path(os.environ.get("PGAQ_STATS_CDS", "auto"), settings.jar))
    session = spark_session(settings, java_options="" if options == cds.RECORD else options)
    yield session
    session.stop()


def settings(dsn: str) -> StatsSettings:
    return StatsSettings(dsn=dsn, lag=0.0, lookback=0.0)


def reference_sql() -> dict[str, str]:
    parts = REFERENCE.split("\n---- ")
    return {p.split("\n", 1)[0].strip(): p.split("\n", 1)[1] for p in parts[1:]}


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-6)
    return bool(a == b)


async def compare_with_sql(conn: asyncpg.Connection, high: datetime | None) -> dict[str, int]:
    """Every aq_stats table equals the plain-SQL reference, row for row and column for column."""
    assert high is not None, "the run was skipped (another held the lock): no watermark"
    await conn.execute("SET TIME ZONE 'UTC'")
    sizes: dict[str, int] = {}
    for table, sql in reference_sql().items():
        keys = KEYS[table]
        expected = {tuple(r[k] for k in keys): dict(r) for r in await conn.fetch(sql, high)}
        got = {tuple(r[k] for k in keys): dict(r)
               for r in await conn.fetch(f"SELECT * FROM aq_stats.{table}")}
        assert set(got) == set(expected), f"{table}: keys differ: {set(got) ^ set(expected)}"
        for key, row in expected.items():
            for col, value in row.items():
                assert same(got[key][col], value), f"{table} {key} {col}: job {got[key][col]!r}, SQL {value!r}"
        sizes[table] = len(expected)
    return sizes


async def propagation_history(conn: asyncpg.Connection, now: datetime) -> int:
    """A schedule, its log over three hours (batches in two windows, failures, a disable, an
    undeliverable batch), snapshots each minute, and a message history with enqueues,
    local dequeues and propagations spread over the same hours; returns how many propagated.
    Every fourth message is its predecessor's twin (same times, same waits), so the job reads
    rows standing for two events and its percentiles must weigh them."""
    rnd = random.Random(7)
    await make_queue(conn, "oe.out_q", "oe.out_t", multiple=True, retention=86400)
    await subscribe(conn, "oe.out_q", "LOCAL1")
    await make_queue(conn, "oe.in_q", "oe.in_t")
    await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q', 0))")
    await conn.execute("CALL dbms_aqadm.schedule_propagation(queue_name => 'oe.out_q', latency => 0)")
    sid = await conn.fetchval("SELECT id FROM aq.schedules")
    qid = await conn.fetchval("SELECT id FROM aq.queues WHERE queue_name = 'out_q'")
    start = now - timedelta(hours=3)
    windows = [start, start + timedelta(minutes=95)]
    rows = []
    for i in range(240):
        finished = start + timedelta(seconds=40 * i + rnd.randint(0, 30))
        window = windows[0] if finished < windows[1] else windows[1]
        event = rnd.choices(["BATCH", "FAILURE", "UNDELIVERABLE", "DISABLED"], [20, 3, 1, 1])[0]
        duration = timedelta(milliseconds=rnd.randint(1, 900))
        n = rnd.randint(1, 500) if event in ("BATCH", "UNDELIVERABLE") else 0
        rows.append((sid, "OE.OUT_Q" if i < 200 else "oe.out_q", "oe.in_q", window, finished - duration,
                     finished, n, n * rnd.randint(10, 400), None if event == "BATCH" else f"error {i}",
                     event))
    await conn.executemany(
        "INSERT INTO aq.propagation_log (schedule_id, queue_name, destination, window_start, started_at,"
        " finished_at, messages, bytes, error, event) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", rows)
    await conn.executemany(
        "INSERT INTO aq.queue_snapshots (taken_at, queue_id, queue_schema, queue_name, ready, waiting,"
        " expired, processed, oldest_ready_age) VALUES ($1, $2, 'oe', 'out_q', $3, $4, $5, 0, $6)",
        [(start + timedelta(minutes=m, seconds=1), qid, rnd.randint(0, 5000), rnd.randint(0, 50),
          rnd.randint(0, 5), rnd.random() * 100) for m in range(180)])
    # real messages through the engine, then their times spread over the three hours
    s = Session(conn)
    for i in range(300):
        await s.enqueue("oe.out_q", bytes([i % 256]))
    for _ in range(120):
        await s.dequeue("oe.out_q", DequeueOptions(consumer_name="LOCAL1", wait=0))
    ids = [r["msgid"] for r in await conn.fetch("SELECT msgid FROM oe.out_t ORDER BY enq_seq")]
    propagated = 0
    twin: tuple[datetime, float, float | None] | None = None
    for i, msgid in enumerate(ids):
        if i % 4 == 1 and twin is not None:  # the one before's twin: same times, same waits
            enq, wait, latency = twin
        else:
            enq = start + timedelta(seconds=35 * i + rnd.randint(0, 20))
            wait, latency = rnd.random() * 30, rnd.random() * 5 if i % 3 == 0 else None
        twin = (enq, wait, latency)
        await conn.execute("UPDATE oe.out_t SET enq_time = $2 WHERE msgid = $1", msgid, enq)
        await conn.execute(
            "UPDATE oe.aq$_out_t_r SET enq_time = $2, ready_time = $2, deq_time = CASE WHEN state = 2"
            " THEN $2::timestamptz + make_interval(secs => $3::float8) END WHERE msgid = $1",
            msgid, enq, wait)
        if latency is not None:   # the remote subscriber's copy propagated
            propagated += 1
            await conn.execute(
                "UPDATE oe.aq$_out_t_r SET state = 2, deq_time = $2::timestamptz + make_interval(secs => $3::float8)"
                " WHERE msgid = $1 AND address = 'oe.in_q'", msgid, enq, latency)
    return propagated


async def test_job_equals_plain_sql_and_is_incremental(conn: asyncpg.Connection, db_dsn: str,
                                                        spark: SparkSession) -> None:
    now = await conn.fetchval("SELECT now()")
    propagated = await propagation_history(conn, now)

    first = await run_once(spark, settings(db_dsn))
    assert first.run_id is not None and first.low is None and first.log_rows == 240
    assert first.history_rows == 300 + 120 + propagated and first.snapshot_rows == 180
    # what the job read: enqueues a row per minute, and some waits shared within a minute
    read = load("stats_history").format(low="'-infinity'::timestamptz", high="'infinity'::timestamptz")
    grouped = await conn.fetchrow(f"SELECT count(*) AS rows, sum(n) AS events, max(n) FILTER (WHERE kind = 'E')"
                                  f" AS e, max(n) FILTER (WHERE kind IN ('D', 'P')) AS waits FROM ({read}) h")
    assert grouped["events"] == first.history_rows and grouped["rows"] < grouped["events"]
    assert grouped["e"] > 1 and grouped["waits"] == 2
    sizes = await compare_with_sql(conn, first.high)
    assert sizes["schedule_windows"] == 2 and sizes["schedule_totals"] == 1
    assert sizes["schedule_series"] > 150 and sizes["queue_series"] > 180
    totals = await conn.fetchrow("SELECT * FROM aq_stats.schedule_totals")
    assert totals["queue_name"] == "oe.out_q" and totals["windows"] == 2 and totals["total_number"] > 0

    # a rerun with nothing new rewrites the same figures: nothing is counted twice
    before = {t: await conn.fetch(f"SELECT * FROM aq_stats.{t} ORDER BY 1, 2, 3") for t in KEYS}
    again = await run_once(spark, settings(db_dsn))
    assert again.low == first.high
    for t in KEYS:
        assert await conn.fetch(f"SELECT * FROM aq_stats.{t} ORDER BY 1, 2, 3") == before[t], t

    # new activity: only its buckets, window and schedule change; older buckets stay as they were
    later = await conn.fetchval("SELECT now()")
    await conn.execute(
        "INSERT INTO aq.propagation_log (schedule_id, queue_name, destination, window_start, started_at,"
        " finished_at, messages, bytes, event) SELECT schedule_id, queue_name, destination, window_start,"
        " $1::timestamptz - interval '1 second', $1, 1000, 64000, 'BATCH' FROM aq.propagation_log ORDER BY id DESC LIMIT 1",
        later)
    old_minutes = await conn.fetch(
        "SELECT * FROM aq_stats.schedule_series WHERE bucket < date_trunc('hour', $1::timestamptz)"
        " ORDER BY grain, bucket", later)
    third = await run_once(spark, settings(db_dsn))
    assert third.log_rows >= 1
    await compare_with_sql(conn, third.high)
    assert await conn.fetch(
        "SELECT * FROM aq_stats.schedule_series WHERE bucket < date_trunc('hour', $1::timestamptz)"
        " ORDER BY grain, bucket", later) == old_minutes
    assert await conn.fetchval("SELECT total_number FROM aq_stats.schedule_totals") == totals["total_number"] + 1000
    runs = await conn.fetch("SELECT status, written_rows FROM aq_stats.runs ORDER BY id")
    assert [r["status"] for r in runs] == ["DONE", "DONE", "DONE"]


async def test_a_failed_run_changes_nothing(conn: asyncpg.Connection, db_dsn: str, spark: SparkSession) -> None:
    now = await conn.fetchval("SELECT now()")
    await propagation_history(conn, now)
    # a table the run applies to is gone: the run fails after staging, and nothing is applied
    await conn.execute("ALTER TABLE aq_stats.queue_series RENAME TO queue_series_gone")
    with pytest.raises(PgaqError):
        await run_once(spark, settings(db_dsn))
    await conn.execute("ALTER TABLE aq_stats.queue_series_gone RENAME TO queue_series")
    assert await conn.fetchval("SELECT count(*) FROM aq_stats.schedule_windows") == 0
    assert await conn.fetchval("SELECT count(*) FROM aq_stats.watermarks") == 0
    assert await conn.fetchval("SELECT status FROM aq_stats.runs") == "FAILED"
    done = await run_once(spark, settings(db_dsn))
    assert done.low is None
    await compare_with_sql(conn, done.high)


async def test_one_run_at_a_time(conn: asyncpg.Connection, db_dsn: str, spark: SparkSession) -> None:
    await conn.execute("SELECT pg_advisory_lock(1885827441, 1)")
    skipped = await run_once(spark, settings(db_dsn))
    assert skipped.run_id is None
    await conn.execute("SELECT pg_advisory_unlock(1885827441, 1)")
    assert (await run_once(spark, settings(db_dsn))).run_id is not None


def test_jdbc_target_from_libpq_urls() -> None:
    from pgaq.stats.settings import jdbc_target

    t = jdbc_target("postgresql://aq%40x:p%3Aw@db.example:6543/orders?sslmode=require")
    assert t.url == "jdbc:postgresql://db.example:6543/orders"
    assert t.properties["user"] == "aq@x" and t.properties["password"] == "p:w"
    assert t.properties["sslmode"] == "require" and "p:w" not in t.redacted()
    with pytest.raises(ConfigError, match="TCP"):
        jdbc_target("postgresql://postgres@/pgaq?host=/run/pg&port=5432")
    with pytest.raises(ConfigError):
        jdbc_target("mysql://x@y/z")


async def test_failures_only_for_a_dropped_schedule(conn: asyncpg.Connection, db_dsn: str,
                                                    spark: SparkSession) -> None:
    now = await conn.fetchval("SELECT now()")
    await conn.executemany(
        "INSERT INTO aq.propagation_log (schedule_id, queue_name, destination, window_start, started_at,"
        " finished_at, error, event) VALUES (4242, 'gone.q', 'x@eu', NULL, $1::timestamptz,"
        " $1::timestamptz + interval '1 second', 'ORA-25207: down', $2)",
        [(now - timedelta(minutes=m + 1), "FAILURE" if m else "DISABLED") for m in range(17)])
    first = await run_once(spark, settings(db_dsn))
    await compare_with_sql(conn, first.high)
    t = await conn.fetchrow("SELECT * FROM aq_stats.schedule_totals WHERE schedule_id = 4242")
    assert (t["total_number"], t["failures"], t["disabled"], t["avg_size"], t["avg_time"]) == (0, 16, 1, None, None)
    assert await conn.fetchval("SELECT sum(errors) FROM aq_stats.schedule_series WHERE grain = 'hour'") == 17
