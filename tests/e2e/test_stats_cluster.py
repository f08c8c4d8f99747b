"""The statistics job beyond one machine: a standalone Spark cluster on loopback (a master
and two one-core workers from pyspark's own `bin/spark-class`) runs the same job through
`spark-submit --master spark://…` against the same database, and writes row for row what
local mode writes (and what plain SQL computes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import asyncpg
import pytest

from tests.e2e.spark_cluster import DRIVER_C1, local_run, standalone, submit
from tests.integration.test_stats import KEYS, compare_with_sql, propagation_history

# the log also spans three more schedules, over 100 minutes: enough rows that the cluster
# reads the log in parallel range queries spread over both executors
BULK = """
INSERT INTO aq.propagation_log (schedule_id, queue_name, destination, window_start, started_at,
                                finished_at, messages, bytes, error, event)
SELECT 9000 + g % 3, 'bulk.out_' || (g % 3), 'bulk.in_q@eu',
       date_trunc('hour', now() - interval '170 minutes' + g * interval '20 milliseconds'),
       now() - interval '170 minutes' + g * interval '20 milliseconds' - (g % 700) * interval '1 millisecond',
       now() - interval '170 minutes' + g * interval '20 milliseconds',
       CASE WHEN g % 89 = 0 THEN 0 ELSE 1 + g % 400 END,
       CASE WHEN g % 89 = 0 THEN 0 ELSE (1 + g % 400) * 150 END,
       CASE WHEN g % 89 = 0 THEN 'ORA-25207: remote down' END,
       CASE WHEN g % 89 = 0 THEN 'FAILURE' ELSE 'BATCH' END
  FROM generate_series(1, $1::int) AS g
"""
BULK_ROWS = 300_000  # 100 minutes of batches every 20 ms: bench/stats_modes.py's unit
# The test writes a hundredth of that, a batch every 2 s over the same 100 minutes, and has
# the job read 2,000 log rows per range query (PGAQ_STATS_PARTITION_ROWS): two parallel
# reads, as 300,000 rows at the default 250,000 gave, for a fifth of the test's CPU
TEST_BULK = BULK.replace("20 milliseconds", "2 seconds")
TEST_ROWS = BULK_ROWS // 100
PARTITION_ROWS = "2000"


async def tables(conn: asyncpg.Connection) -> dict[str, list[dict[str, Any]]]:
    """Every aq_stats table the job writes, ordered by its key."""
    return {t: [dict(r) for r in await conn.fetch(f"SELECT * FROM aq_stats.{t} ORDER BY {', '.join(k)}")]
            for t, k in KEYS.items()}


# the master and workers only schedule and relay: C1 alone and the serial collector start
# them on 10 CPU-s rather than 18 (C2 compiling their start-up code); what the test checks
# runs in the driver and the executors, with the job's own options
SHORT_DAEMON = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def executors_launched(work: Path) -> int:
    """Workers whose work folder holds an executor of some application."""
    return sum(1 for w in work.glob("work*") if any(w.glob("app-*/*/stderr")))


# JVMs (the local run, a master, two workers, the driver and its executors) beside the
# parallel phase's other workers
@pytest.mark.timeout(700)
async def test_a_standalone_cluster_writes_what_local_mode_writes(db_dsn: str) -> None:
    conn = await asyncpg.connect(db_dsn)
    try:
        await conn.execute("SET TIME ZONE 'UTC'")
        now = await conn.fetchval("SELECT now()")
        await propagation_history(conn, now)
        await conn.execute(TEST_BULK, TEST_ROWS)
        await conn.execute("ANALYZE aq.propagation_log")

        _, local = await local_run(db_dsn, PGAQ_STATS_LAG="0", PGAQ_STATS_PARTITION_ROWS=PARTITION_ROWS)
        assert local["LOW"] == "" and int(local["LOG_ROWS"]) == 240 + TEST_ROWS
        by_local = await tables(conn)
        assert all(by_local.values()), {t: len(rows) for t, rows in by_local.items()}

        # the same database as before any run: no results, no watermark
        await conn.execute("TRUNCATE aq_stats.schedule_windows, aq_stats.schedule_totals,"
                           " aq_stats.schedule_series, aq_stats.queue_series, aq_stats.watermarks")
        async with standalone(workers=2, cores_per_worker=1, timeout=240,
                              daemon_java_options=SHORT_DAEMON) as cluster:
            _, remote = await submit(db_dsn, cluster.url, *DRIVER_C1, PGAQ_STATS_LAG="0",
                                     PGAQ_STATS_PARTITION_ROWS=PARTITION_ROWS)
            assert executors_launched(cluster.work) == 2  # the job ran on both workers
        assert remote["LOW"] == "" and int(remote["RUN"]) == int(local["RUN"]) + 1
        for figure in ("LOG_ROWS", "HISTORY_ROWS", "SNAPSHOT_ROWS", "WRITTEN_ROWS"):
            assert remote[figure] == local[figure], figure

        by_cluster = await tables(conn)
        for table, rows in by_local.items():
            assert len(by_cluster[table]) == len(rows), table
            for mine, theirs in zip(rows, by_cluster[table], strict=True):
                assert theirs == mine, (table, mine, theirs)
        await compare_with_sql(conn, await conn.fetchval("SELECT high FROM aq_stats.watermarks"))
        runs = await conn.fetch("SELECT status FROM aq_stats.runs ORDER BY id")
        assert [r["status"] for r in runs] == ["DONE", "DONE"]
    finally:
        await conn.close()
