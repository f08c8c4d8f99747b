"""Time-boxed concurrent loops and their statistics."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import asyncpg


def percentile(xs: list[float], p: float) -> float:
    """The p-th percentile of `xs` (the nearest rank below; 0 for none), as every figure
    of the benchmarks reports it."""
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(p / 100 * len(ys)))] if ys else 0.0


@dataclass
class Result:
    ops: int
    seconds: float
    latencies: list[float]
    items_per_op: int = 1
    dry: bool = False  # the work ran out before the deadline
    wal_bytes: int = 0  # WAL the cluster wrote meanwhile, when measured

    @property
    def wal_per_op(self) -> float:
        return self.wal_bytes / self.ops if self.ops else 0.0

    @property
    def rate(self) -> float:
        return self.ops * self.items_per_op / self.seconds if self.seconds else 0.0

    def pct(self, p: float) -> float:
        """The p-th percentile latency per operation, in ms."""
        return percentile(self.latencies, p) * 1000

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies) * 1000 if self.latencies else 0.0

    @property
    def p99(self) -> float:
        return self.pct(99)


# one operation on a worker's own connection; returning False means "nothing left to do"
Op = Callable[[], Awaitable[object]]
ConnOp = Callable[[asyncpg.Connection], Awaitable[object]]


async def run_ops(ops: Sequence[Op], seconds: float, items_per_op: int = 1) -> Result:
    """One asyncio task per op (each bound to its own connection), repeating it until the
    deadline; counts completed operations and their latencies."""
    latencies: list[float] = []
    count = 0
    dry = False
    deadline = time.perf_counter() + seconds
    stop = asyncio.Event()

    async def worker(op: Op) -> None:
        nonlocal count, dry
        clock = time.perf_counter
        while not stop.is_set():
            t = clock()
            if t >= deadline:
                return
            got = await op()
            if got is False:
                dry = True
                stop.set()
                return
            latencies.append(clock() - t)
            count += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker(op) for op in ops))
    return Result(count, time.perf_counter() - started, latencies, items_per_op, dry)


async def measure(ops: Sequence[Op], seconds: float, warmup: float,
                  items_per_op: int = 1) -> Result:
    """A short unrecorded warm-up, then the time-boxed measurement."""
    if warmup > 0:
        await run_ops(ops, warmup, items_per_op)
    return await run_ops(ops, seconds, items_per_op)


async def run_for(pool: asyncpg.Pool, concurrency: int, seconds: float, op: ConnOp,
                  items_per_op: int = 1) -> Result:
    """`op` on `concurrency` pooled connections (one per worker) until the deadline."""
    conns = [await pool.acquire() for _ in range(concurrency)]
    try:
        return await run_ops([_bind(op, c) for c in conns], seconds, items_per_op)
    finally:
        for c in conns:
            await pool.release(c)


def _bind(op: ConnOp, conn: asyncpg.Connection) -> Op:
    return lambda: op(conn)


async def start_gateway(dsn: str, **env: str) -> tuple[asyncio.subprocess.Process, str]:
    """A gateway process (as `pgaq up` runs it) on a free port, once /health answers;
    returns it and its servlet URL."""
    import os
    import sys

    import aiohttp
    from pgaq.embedded import free_port

    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq_services.gateway",
        env={**os.environ, "PGAQ_DSN": dsn, "PGAQ_PORT": str(port), "PGAQ_LOG_LEVEL": "WARNING", **env})
    async with aiohttp.ClientSession() as http:
        for _ in range(300):
            try:
                async with http.get(f"http://127.0.0.1:{port}/health") as r:
                    if r.status == 200:
                        break
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)  # the process is starting; nothing to wait on but it
    return proc, f"http://127.0.0.1:{port}/aqserv/servlet"


async def paced(gap: float, deadline: float, send: Callable[[], Awaitable[None]]) -> None:
    """Call `send` every `gap` seconds on an absolute schedule until `deadline`
    (time.perf_counter()): a slow call does not lower the offered rate, the next ones
    catch up."""
    due = time.perf_counter()
    while True:
        due += gap
        now = time.perf_counter()
        if now >= deadline:
            return
        if due > now:
            await asyncio.sleep(due - now)
        await send()
