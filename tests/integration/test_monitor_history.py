"""What the monitor keeps of history: the propagation log and queue snapshots are pruned
past PGAQ_HISTORY_KEEP, dedup keys past PGAQ_PROPAGATED_KEEP, and a row the statistics
job may still read is never pruned from under it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import asyncpg
from pgaq.listener import Listener
from pgaq.monitor import Monitor, MonitorSettings

from .helpers import make_queue


async def _log(conn: asyncpg.Connection, age: str, n: int = 1) -> None:
    await conn.execute(
        "INSERT INTO aq.propagation_log (schedule_id, queue_name, destination, started_at,"
        " finished_at, messages) SELECT 1, 's.q', 'eu', now() - $1::text::interval,"
        " now() - $1::text::interval, 1 FROM generate_series(1, $2)", age, n)


async def _snapshot(conn: asyncpg.Connection, age: str) -> None:
    await conn.execute(
        "INSERT INTO aq.queue_snapshots (taken_at, queue_id, queue_schema, queue_name, ready,"
        " waiting, expired, processed) SELECT now() - $1::text::interval, id, schema_name, queue_name,"
        " 0, 0, 0, 0 FROM aq.queues WHERE queue_name = 'q'", age)


@contextlib.asynccontextmanager
async def monitor_on(db_dsn: str, **settings: float) -> AsyncIterator[Monitor]:
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2)
    try:
        yield Monitor(pool, Listener(db_dsn), MonitorSettings(**settings))  # type: ignore[arg-type]
    finally:
        await pool.close()


async def one_pass(db_dsn: str, **settings: float) -> Monitor:
    """The monitor's periodic work (snapshot and pruning), once."""
    async with monitor_on(db_dsn, **settings) as monitor:
        await monitor.snapshot()
    return monitor


async def test_old_log_rows_and_snapshots_are_pruned(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    await _log(conn, "2 hours", 3)
    await _log(conn, "10 minutes", 2)
    await _snapshot(conn, "2 hours")
    await _snapshot(conn, "10 minutes")
    monitor = await one_pass(db_dsn, history_keep=3600)
    assert await conn.fetchval("SELECT count(*) FROM aq.propagation_log") == 2
    # the one inserted 10 minutes ago stays beside those snapshot() just took
    ages = [r["age"].total_seconds() for r in
            await conn.fetch("SELECT now() - taken_at AS age FROM aq.queue_snapshots")]
    assert max(ages) < 3600 and sum(1 for a in ages if a >= 600) == 1
    assert monitor.history_pruned == 4


async def test_rows_the_statistics_job_has_not_passed_stay(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    await _log(conn, "3 days")
    await _log(conn, "30 hours")
    # the job last ran two days ago: what finished after (watermark - 1 day) stays
    await conn.execute("INSERT INTO aq_stats.runs (status) VALUES ('DONE')")
    await conn.execute(
        "INSERT INTO aq_stats.watermarks (source, high, run_id)"
        " SELECT 'stats', now() - interval '2 days', max(id) FROM aq_stats.runs")
    async with monitor_on(db_dsn, history_keep=60) as monitor:
        await monitor.snapshot()
        assert await conn.fetchval("SELECT count(*) FROM aq.propagation_log") == 1
        await conn.execute("UPDATE aq_stats.watermarks SET high = now()")
        await monitor.snapshot()
    assert await conn.fetchval("SELECT count(*) FROM aq.propagation_log") == 0


async def test_a_backlog_drains_in_rounds(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    await _log(conn, "1 day", 25_000)
    await one_pass(db_dsn, history_keep=3600)
    assert await conn.fetchval("SELECT count(*) FROM aq.propagation_log") == 0


async def test_dedup_keys_are_forgotten_after_their_keep(conn: asyncpg.Connection, db_dsn: str) -> None:
    await conn.execute(
        "INSERT INTO aq.propagated (schedule_key, source_msgid, received_at) VALUES"
        " ('k', '\\x01', now() - interval '2 hours'), ('k', '\\x02', now())")
    await one_pass(db_dsn, propagated_keep=3600)
    assert [bytes(r[0]) for r in await conn.fetch("SELECT source_msgid FROM aq.propagated")] == [b"\x02"]
