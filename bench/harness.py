"""Time-boxed concurrent loops and their statistics."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import asyncpg


@dataclass
class Result:
    ops: int
    seconds: float
    latencies: list[float]
    items_per_op: int = 1

    @property
    def rate(self) -> float:
        return self.ops * self.items_per_op / self.seconds if self.seconds else 0.0

    def pct(self, p: float) -> float:
        if not self.latencies:
            return 0.0
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] * 1000

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies) * 1000 if self.latencies else 0.0


Op = Callable[[asyncpg.Connection], Awaitable[object]]


async def run_for(pool: asyncpg.Pool, concurrency: int, seconds: float, op: Op,
                  items_per_op: int = 1, max_ops: int | None = None) -> Result:
    """Each worker repeats `op` on its own connection until the deadline (or max_ops)."""
    latencies: list[float] = []
    count = 0
    deadline = time.perf_counter() + seconds
    stop = asyncio.Event()

    async def worker() -> None:
        nonlocal count
        async with pool.acquire() as conn:
            while not stop.is_set() and time.perf_counter() < deadline:
                t = time.perf_counter()
                got = await op(conn)
                latencies.append(time.perf_counter() - t)
                if got is False:  # the op ran dry
                    stop.set()
                    return
                count += 1
                if max_ops is not None and count >= max_ops:
                    stop.set()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return Result(count, time.perf_counter() - started, latencies, items_per_op)
