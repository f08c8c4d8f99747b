"""Cell `surge`: the producers offer `PRESSURE_SURGE_FACTOR` times the sustained rate for
`PRESSURE_SURGE_SECONDS`, then `PRESSURE_BURST` messages arrive at once (array enqueues)
while the sustained rate goes on. Rules: the backlog drains (within
`PRESSURE_DRAIN_TIMEOUT`), latency recovers: within `PRESSURE_RECOVERY` s of the drain a
5 s window's dequeue transaction p99 is within max(50 ms, 2x clean) and its pickup p99
within max(50 ms, 2x clean); nothing lost."""

from __future__ import annotations

import asyncio
import time

from .figures import Cell, Context, clean_phase, until
from .load import Load


async def run(ctx: Context, load: Load, cell: Cell, table: str) -> None:
    s = ctx.s
    clean = await clean_phase(ctx, load, cell)
    load.rate = s.rate * s.surge_factor
    t0 = time.monotonic()
    peak = 0
    while time.monotonic() < t0 + s.surge_seconds:
        await asyncio.sleep(min(1.0, t0 + s.surge_seconds - time.monotonic()))  # the surge's length
        peak = max(peak, load.backlog())
    t1 = time.monotonic()
    load.rate = s.rate
    consumed = load.rate_between(t0, t1)
    cell.figure("surge_rate", round(consumed, 1),
                f"surge: offered {s.rate * s.surge_factor:g} msg/s for {s.surge_seconds:g} s, consumed "
                f"{consumed:.1f} msg/s, backlog up to {peak}; dequeue transaction p99 "
                f"{load.p99(load.stats.txn, t0, t1):.1f} ms, "
                f"pickup p99 {load.p99(load.stats.pickup, t0, t1):.1f} ms")
    took = await load.burst(s.burst)
    t2 = time.monotonic()
    cell.figure("burst_s", round(took, 1), f"burst: {s.burst} messages enqueued in {took:.1f} s "
                f"({s.burst / took if took else 0:.0f} msg/s), backlog then {load.backlog()}")
    # drained: the backlog back to what the sustained rate keeps in flight
    drained: float | None = None
    while time.monotonic() - t2 < s.drain_timeout:
        left = int(await ctx.admin.fetchval(f"SELECT count(*) FROM {table}"))
        if left <= max(10, s.rate * 0.2):
            drained = time.monotonic() - t2
            break
        await asyncio.sleep(0.5)  # a query polled: the backlog's size
    t3 = time.monotonic()
    txn_bound = max(50.0, 2 * clean.txn_p99)
    pickup_bound = max(50.0, 2 * clean.pickup_p99)
    back: float | None = None  # seconds after the drain until a 5 s window's p99s are within
    if drained is not None:
        cell.figure("drain_s", round(drained, 1),
                    f"drained {drained:.1f} s after the burst: "
                    f"{load.rate_between(t2, t3):.0f} msg/s consumed meanwhile")
        at = t3 + 5.0
        while at <= t3 + 3 * s.recovery:
            await until(at)  # the window the latency is measured over
            if (load.p99(load.stats.txn, at - 5, at) <= txn_bound
                    and load.p99(load.stats.pickup, at - 5, at) <= pickup_bound):
                back = at - t3
                break
            at += 0.5
    else:
        cell.figure("drain_s", -1, f"NOT drained within {s.drain_timeout:g} s")
    t4 = time.monotonic()
    w = max(t3, t4 - 5)
    cell.figure("latency_back_s", -1 if back is None else back,
                f"latency within dequeue p99 {txn_bound:.0f} ms and pickup p99 {pickup_bound:.0f} ms "
                f"{'never' if back is None else f'{back:.1f} s'} after the drain (5 s windows): then "
                f"{load.rate_between(w, t4):.1f} msg/s, dequeue transaction p99 "
                f"{load.p99(load.stats.txn, w, t4):.1f} ms (clean {clean.txn_p99:.1f}), pickup p99 "
                f"{load.p99(load.stats.pickup, w, t4):.1f} ms (clean {clean.pickup_p99:.1f})")
    cell.rule("the backlog drained", drained is not None)
    cell.rule(f"latency back within {s.recovery:g} s of the drain (dequeue p99 ≤ max(50 ms, 2x clean), "
              "pickup p99 ≤ max(50 ms, 2x clean))",
              back is not None and back <= s.recovery, s.strict)
