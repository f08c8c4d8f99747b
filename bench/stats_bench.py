"""Statistics job figures (issue 7's targets): a full run over BENCH_STATS_ROWS propagation
log rows (1,000,000) and an incremental run after 10,000 more, each the whole job as the
stats service starts it (a child process: JVM start included), beside the floor of plain
SQL computing the same windows and series in PostgreSQL over the same rows."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg

REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "integration" / "stats_reference.sql"

# 20 schedules, hourly windows; a batch ends every $4 (50 ms: 1,000,000 rows span ~14 hours)
FILL = """
INSERT INTO aq.propagation_log (schedule_id, queue_name, destination, window_start, started_at,
                                finished_at, messages, bytes, error, event)
SELECT 1 + g % 20, 'bench.out_' || (g % 20), 'bench.in_q@eu',
       date_trunc('hour', $2::timestamptz + (g - $1) * $4::interval),
       $2::timestamptz + (g - $1) * $4::interval - (g % 900) * interval '1 millisecond',
       $2::timestamptz + (g - $1) * $4::interval,
       CASE WHEN g % 97 = 0 THEN 0 ELSE 1 + g % 500 END,
       CASE WHEN g % 97 = 0 THEN 0 ELSE (1 + g % 500) * 200 END,
       CASE WHEN g % 97 = 0 THEN 'ORA-25207: remote down' END,
       CASE WHEN g % 97 = 0 THEN 'FAILURE' ELSE 'BATCH' END
  FROM generate_series($1::bigint, $1::bigint + $3 - 1) AS g
"""


async def _job(dsn: str) -> tuple[float, dict[str, str]]:
    env = {**os.environ, "PGAQ_DSN": dsn, "PGAQ_STATS_LAG": "0", "PGAQ_LOG_LEVEL": "WARNING"}
    t = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq_services.stats.job", env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    out, _ = await proc.communicate()
    took = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"statistics job failed (exit {proc.returncode})")
    return took, dict(line.split("=", 1) for line in out.decode().split() if "=" in line)


async def _floor(conn: asyncpg.Connection, high: Any, low: Any) -> float:
    """Plain SQL over the same rows: windows and the minute/hour series (the reference)."""
    parts = {p.split("\n", 1)[0].strip(): p.split("\n", 1)[1]
             for p in REFERENCE.read_text().split("\n---- ")[1:]}
    t = time.perf_counter()
    for name in ("schedule_windows", "schedule_series"):
        sql = parts[name]
        if low is not None:  # the incremental run's range: from the hour of the watermark on
            sql = sql.replace("finished_at < $1",
                              "finished_at < $1 AND finished_at >= date_trunc('hour', $2::timestamptz)")
            await conn.fetch(f"SELECT count(*) FROM ({sql}) x", high, low)
        else:
            await conn.fetch(f"SELECT count(*) FROM ({sql}) x", high)
    return time.perf_counter() - t


async def run(dsn: str) -> list[dict[str, Any]]:
    rows_n = int(float(os.environ.get("BENCH_STATS_ROWS", "1000000")))
    conn = await asyncpg.connect(dsn)
    rows: list[dict[str, Any]] = []
    try:
        await conn.execute("SET TIME ZONE 'UTC'")
        step = timedelta(milliseconds=50)
        start = await conn.fetchval("SELECT now() - $1 * $2::interval", rows_n, step)
        t = time.perf_counter()
        for at in range(0, rows_n, 200_000):
            first = await conn.fetchval("SELECT $1::timestamptz + $2 * $3::interval", start, at, step)
            await conn.execute(FILL, at, first, min(200_000, rows_n - at), step)
        await conn.execute("VACUUM ANALYZE aq.propagation_log")
        print(f"  [{time.strftime('%H:%M:%S')}] {rows_n:,} log rows written "
              f"({time.perf_counter() - t:.1f} s)", flush=True)

        full, out = await _job(dsn)
        floor_full = await _floor(conn, await conn.fetchval("SELECT high FROM aq_stats.watermarks"), None)
        rows.append({"benchmark": f"stats job, {rows_n:,} log rows (s, JVM included)",
                     "pgaq": round(full, 2), "floor": round(floor_full, 2), "unit": "s",
                     "target": "<= 60 s", "pass": full <= 60,
                     "note": f"{out.get('WRITTEN_ROWS')} rows written; floor: plain SQL computing the "
                             "windows and minute/hour series in PostgreSQL"})

        low = await conn.fetchval("SELECT high FROM aq_stats.watermarks")
        # the next 10,000 batches, between the watermark and now
        gap = await conn.fetchval("SELECT (now() - $1::timestamptz) / 10001", low)
        await conn.execute(FILL, rows_n, low + gap, 10_000, gap)
        inc, out = await _job(dsn)
        floor_inc = await _floor(conn, await conn.fetchval("SELECT high FROM aq_stats.watermarks"), low)
        rows.append({"benchmark": "stats job, incremental after 10,000 rows (s)",
                     "pgaq": round(inc, 2), "floor": round(floor_inc, 2), "unit": "s",
                     "target": "<= 15 s", "pass": inc <= 15,
                     "note": f"{out.get('LOG_ROWS')} log rows re-read (from the watermark's hour), "
                             f"{out.get('HISTORY_ROWS')} message-history and {out.get('SNAPSHOT_ROWS')} "
                             "snapshot rows (what other suites left in the same window); "
                             "floor: the same SQL over that range"})
    finally:
        await conn.close()
    return rows
