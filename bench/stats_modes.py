"""The statistics job in local mode and on a standalone Spark cluster, on the same data:
`python -m bench.stats_modes` (docs/statistics.md gives the figures).

The data are the cluster test's kinds (tests/e2e/test_stats_cluster.py: a schedule's log,
snapshots and message history over three hours), with a bulk propagation log of
STATS_MODES_SCALE (10) times BULK_ROWS rows (the test itself writes a hundredth of
BULK_ROWS). Each mode runs the whole first run as users
start it (local: the job's child process, as the stats service; cluster: spark-submit to
a master and two one-core workers on loopback, cluster start not counted), on the same
database reset between runs, alternating, STATS_MODES_REPEAT times (2)."""

from __future__ import annotations

import asyncio
import os
import time

import asyncpg

from bench.cluster import private_database
from tests.e2e.spark_cluster import local_run, standalone, submit
from tests.e2e.test_stats_cluster import BULK, BULK_ROWS
from tests.integration.test_stats import propagation_history

RESET = ("TRUNCATE aq_stats.schedule_windows, aq_stats.schedule_totals, aq_stats.schedule_series,"
         " aq_stats.queue_series, aq_stats.watermarks")


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


async def main() -> None:
    scale = int(os.environ.get("STATS_MODES_SCALE", "10"))
    repeat = int(os.environ.get("STATS_MODES_REPEAT", "2"))
    async with private_database(stats=True) as db:
        conn = await asyncpg.connect(db.dsn)
        try:
            await conn.execute("SET TIME ZONE 'UTC'")
            await propagation_history(conn, await conn.fetchval("SELECT now()"))
            # the bulk log, `scale` times, over the same 100 minutes (BULK spaces rows 20 ms apart)
            await conn.execute(BULK.replace("20 milliseconds", f"{20 / scale} milliseconds"),
                               BULK_ROWS * scale)
            await conn.execute("VACUUM ANALYZE aq.propagation_log")
            rows = await conn.fetchval("SELECT count(*) FROM aq.propagation_log")
            print(f"{rows:,} log rows, {scale}x the cluster test's volume", flush=True)
            env = {"PGAQ_STATS_LAG": "0", "PGAQ_LOG_LEVEL": "WARNING"}
            async with standalone(workers=2, cores_per_worker=1) as cluster:
                for i in range(repeat):
                    for mode in ("local", "cluster"):
                        await conn.execute(RESET)
                        before = load_average()
                        if mode == "local":
                            took, out = await local_run(db.dsn, timeout=1800, **env)
                        else:
                            took, out = await submit(db.dsn, cluster.url, timeout=1800, **env)
                        print(f"run {i + 1} {mode:7}: {took:6.1f} s  (log rows {out['LOG_ROWS']}, written "
                              f"{out['WRITTEN_ROWS']}; load average before {before}, after {load_average()})",
                              flush=True)
        finally:
            await conn.close()


if __name__ == "__main__":
    started = time.perf_counter()
    asyncio.run(main())
    print(f"total {time.perf_counter() - started:.0f} s")
