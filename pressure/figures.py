"""What every cell shares: its verdict (figures and rules), the clean phase it is measured
against, the recovery after its fault, the drain and the accounting of every id."""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import asyncpg

from .cluster import PrivateCluster
from .load import Load
from .settings import Settings


@dataclass
class Rule:
    text: str
    ok: bool
    enforced: bool  # False: reported, not failing the run (PRESSURE_STRICT=0)


@dataclass
class Cell:
    name: str
    say: Callable[[str], None]
    figures: dict[str, float | int | str] = field(default_factory=dict)
    rules: list[Rule] = field(default_factory=list)

    def figure(self, key: str, value: float | int | str, text: str) -> None:
        self.figures[key] = value
        self.say(f"pressure {self.name}: {text}")

    def rule(self, text: str, ok: bool, enforced: bool = True) -> None:
        self.rules.append(Rule(text, ok, enforced))
        tag = "ok" if ok else "FAIL" if enforced else "missed (not enforced)"
        self.say(f"pressure {self.name}: rule {text}: {tag}")

    @property
    def passed(self) -> bool:
        return all(r.ok for r in self.rules if r.enforced)


@dataclass
class Context:
    s: Settings
    cluster: PrivateCluster
    admin: asyncpg.Connection  # the driver's connection (never a fault's target)
    say: Callable[[str], None]
    rng: random.Random


@dataclass
class Clean:
    rate: float
    txn_p99: float  # ms
    pickup_p99: float  # ms
    t0: float = 0.0  # the phase's span (monotonic), for the same window on a topic's load
    t1: float = 0.0


async def clean_phase(ctx: Context, load: Load, cell: Cell) -> Clean:
    """`PRESSURE_CLEAN` seconds of the load alone: the figures the fault is held against."""
    t0 = time.monotonic()
    await asyncio.sleep(ctx.s.clean)  # the measurement's own length
    t1 = time.monotonic()
    c = Clean(load.rate_between(t0, t1), load.p99(load.stats.txn, t0, t1),
              load.p99(load.stats.pickup, t0, t1), t0, t1)
    cell.figure("clean_rate", round(c.rate, 1),
                f"clean {c.rate:.1f} msg/s (offered {load.rate:g}), dequeue transaction p99 "
                f"{c.txn_p99:.1f} ms, pickup p99 {c.pickup_p99:.1f} ms over {ctx.s.clean:g} s")
    return c


def under_fault(cell: Cell, load: Load, clean: Clean, t0: float, t1: float, during: str,
                what: str, extra: str = "") -> tuple[float, float]:
    """The fault phase's figures against the clean ones: its rate as a share of clean
    (`under_ratio`) and its dequeue p99 (`txn_p99_ms`); returns both for the cell's rules."""
    under = load.rate_between(t0, t1)
    r = ratio(under, clean.rate)
    p99 = load.p99(load.stats.txn, t0, t1)
    cell.figure("under_ratio", round(r, 3),
                f"{what}{under:.1f} msg/s = {r:.1%} of clean; dequeue transaction p99 {p99:.1f} ms, "
                f"pickup p99 {load.p99(load.stats.pickup, t0, t1):.1f} ms{extra}")
    cell.figure("txn_p99_ms", round(p99, 1), f"dequeue p99 {during} {p99:.1f} ms")
    return r, p99


async def until(deadline: float) -> None:
    delay = deadline - time.monotonic()
    if delay > 0:
        await asyncio.sleep(delay)


async def recovery(load: Load, since: float, clean: float, ratio: float, limit: float,
                   span: float = 2.0) -> float | None:
    """Seconds after `since` until the completion rate over the last `span` seconds is
    back to `ratio` of clean; None if not within 3 times `limit` (looked at every 0.5 s)."""
    at = since + 1.0
    while at <= since + 3 * limit:
        await until(at)
        if load.rate_between(max(since, at - span), at) >= ratio * clean:
            return at - since
        at += 0.5
    return None


async def reconnected(load: Load, timeout: float) -> float | None:
    """Seconds until every load client holds a working connection again (None: not in time)."""
    t0 = time.monotonic()
    while not load.all_connected():
        if time.monotonic() - t0 > timeout:
            return None
        await asyncio.sleep(0.05)  # a condition polled, as a supervisor would
    return time.monotonic() - t0


async def drain(ctx: Context, load: Load, table: str, timeout: float) -> float | None:
    """Stop the producers, then wait until the queue table is empty (every removal
    committed); the seconds it took, None if not within `timeout`."""
    await load.stop_producers()
    t0 = time.monotonic()
    last = t0
    while True:
        left = await ctx.admin.fetchval(f"SELECT count(*) FROM {table}")
        if left == 0:
            return time.monotonic() - t0
        now = time.monotonic()
        if now - t0 > timeout:
            return None
        if now - last >= 10:
            ctx.say(f"pressure {load.cell}: draining, {left} messages left")
            last = now
        await asyncio.sleep(0.2)  # a query polled: the backlog's size


async def account(ctx: Context, load: Load, table: str, cell: Cell) -> None:
    """Every acknowledged id in the ledger exactly once, every lost answer at most once,
    no id nobody sent, nothing left in the queue."""
    rows = await ctx.admin.fetch("SELECT id, count(*) AS n FROM pressure.ledger WHERE cell = $1 "
                                 "GROUP BY id", load.cell)
    seen = {r["id"]: r["n"] for r in rows}
    lost = [i for i in load.acked if i not in seen]
    dup = [i for i, n in seen.items() if n > 1]
    unknown = [i for i in seen if i not in load.acked and i not in load.ambiguous]
    ambiguous_in = sum(1 for i in load.ambiguous if i in seen)
    left = int(await ctx.admin.fetchval(f"SELECT count(*) FROM {table}"))
    cell.figure("sent", len(load.acked),
                f"accounting: {len(load.acked)} acknowledged, {len(load.ambiguous)} with the answer lost "
                f"({ambiguous_in} of them committed), {len(seen)} dequeued; lost {len(lost)}, "
                f"duplicated {len(dup)}, unknown {len(unknown)}, left in the queue {left}")
    cell.figures.update(lost=len(lost), duplicated=len(dup))
    cell.rule("0 messages lost", not lost)
    cell.rule("0 messages duplicated", not dup and not unknown)
    cell.rule("the queue drained", left == 0)


def ratio(a: float, b: float) -> float:
    return a / b if b > 0 else math.nan
