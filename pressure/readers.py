"""Cell `readers`: `PRESSURE_READERS` REPEATABLE READ sessions scan the queue table for
`PRESSURE_READERS_SECONDS`, each holding its snapshot 5 s (staggered, so the snapshots
overlap and the horizon never moves freely), the analytics-on-OLTP pattern. Rules:
throughput ≥ 70 % of clean, dequeue transaction p99 ≤ 50 ms, back to ≥ 95 % within
`PRESSURE_RECOVERY` s after."""

from __future__ import annotations

import asyncio
import contextlib
import time

import asyncpg

from .figures import Cell, Context, clean_phase, reconnected, recovery, under_fault
from .load import Load

SNAPSHOT = 5.0  # seconds each reader keeps one snapshot
PACE = 0.05  # seconds between a reader's scans


async def reader(ctx: Context, table: str, delay: float, stop: asyncio.Event, scans: list[int]) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), delay)  # staggered starts
    conn = await ctx.cluster.connect("pressure-fault-reader")
    try:
        while not stop.is_set():
            async with conn.transaction(isolation="repeatable_read", readonly=True):
                t0 = time.monotonic()
                while not stop.is_set() and time.monotonic() - t0 < SNAPSHOT:
                    await conn.fetchrow(f"SELECT count(*), min(enq_time), max(priority) FROM {table}")
                    scans[0] += 1
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), PACE)
    except (asyncpg.PostgresError, OSError) as exc:  # reported, the cell goes on
        ctx.say(f"pressure readers: a reader failed: {exc!r}")
    finally:
        await conn.close()


async def run(ctx: Context, load: Load, cell: Cell, table: str) -> None:
    s = ctx.s
    clean = await clean_phase(ctx, load, cell)
    stop = asyncio.Event()
    scans = [0]
    tasks = [asyncio.ensure_future(reader(ctx, table, i * SNAPSHOT / max(1, s.readers), stop, scans))
             for i in range(s.readers)]
    t0 = time.monotonic()
    await asyncio.sleep(s.readers_seconds)  # the fault's length
    t1 = time.monotonic()
    stop.set()
    await asyncio.gather(*tasks)
    r, p99 = under_fault(cell, load, clean, t0, t1, "under the readers",
                         f"{s.readers} REPEATABLE READ readers, {scans[0]} scans in {t1 - t0:.0f} s: ")
    rec = await recovery(load, t1, clean.rate, 0.95, s.recovery)
    back = await reconnected(load, s.recovery)
    cell.figure("recovery_s", -1 if rec is None else rec,
                f"back to ≥ 95 % of clean {'never' if rec is None else f'{rec:.1f} s'} after the readers")
    cell.rule("throughput under the readers ≥ 70 % of clean", r >= 0.70, s.strict)
    cell.rule("dequeue p99 under the readers ≤ 50 ms", p99 <= 50, s.strict)
    cell.rule(f"back to ≥ 95 % within {s.recovery:g} s", rec is not None and rec <= s.recovery, s.strict)
    cell.rule("recovered at all", rec is not None and back is not None)
