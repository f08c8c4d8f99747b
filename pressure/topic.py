"""A topic of `PRESSURE_TOPIC_SUBSCRIBERS` subscribers (no rules) beside the `kill` and
`idle` cells' queue, under the same fault: `PRESSURE_PRODUCERS` producers publish
`PRESSURE_TOPIC_RATE` messages a second between them alongside the cell's load;
`PRESSURE_TOPIC_CONSUMERS` of the subscribers, spread over the list, each dequeue in a
session of their own (REMOVE, a ledger row, commit), the others only accumulate. Its
figures are held against its own clean phase, as the queue's are. Accounting, through
public interfaces only (the ledger and the AQ$<table> view): every committed message
dequeued exactly once by each consuming subscriber (a publish whose answer was lost: by
all of them or none), and every other subscriber still holding every committed message,
READY."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import asyncpg

from .cluster import DRIVER_APP, make_topic, relation_bytes, subscriber_names
from .figures import Cell, Clean, Context, ratio, reconnected, recovery
from .load import Load, payload_id

CELLS = ("kill", "idle")  # the cells with a topic beside their queue
MIB = 1024 * 1024


@dataclass
class TopicClean:
    rate: float  # deliveries a second, every consuming subscriber's together
    published: float  # acknowledged publishes a second
    txn_p99: float  # ms
    pickup_p99: float  # ms
    enqueue_p99: float  # ms


class Topic:
    def __init__(self, ctx: Context, cell: str, queue: str, table: str) -> None:
        s = ctx.s
        self.ctx = ctx
        self.cell = cell
        self.queue = queue
        self.table = table
        schema, name = table.split(".")
        self.view = f'{schema}."aq${name}"'  # AQ$<table>: a row per message and subscriber
        self.names = subscriber_names(s.topic_subscribers)
        n, k = len(self.names), max(1, min(s.topic_consumers, len(self.names)))
        self.consuming = [self.names[i * n // k] for i in range(k)]
        self.others = [x for x in self.names if x not in set(self.consuming)]
        self.load = Load(ctx.cluster.dsn, queue, cell, s, consumers=self.consuming, rate=s.topic_rate,
                         ledger=f"{cell}/topic", name="topic-")
        self.clean = TopicClean(0.0, 0.0, 0.0, 0.0, 0.0)

    @classmethod
    async def create(cls, ctx: Context, cell: str) -> Topic | None:
        """The cell's topic, its subscribers added; None when the cell has none."""
        s = ctx.s
        if cell not in CELLS or s.topic_subscribers <= 0:
            return None
        t0 = time.monotonic()
        queue, table = await make_topic(ctx.admin, cell, s.topic_subscribers)
        topic = cls(ctx, cell, queue, table)
        ctx.say(f"pressure {cell}: topic {queue}: {len(topic.names)} subscribers added in "
                f"{time.monotonic() - t0:.1f} s; {s.topic_rate:g} msg/s published, "
                f"{len(topic.consuming)} subscribers consume ({', '.join(topic.consuming)})")
        return topic

    def _say(self, cell: Cell, a: float, b: float, what: str) -> tuple[float, float]:
        """One phase's figures as a line; returns (deliveries a second, dequeue p99)."""
        ld = self.load
        rate = ld.rate_between(a, b)
        p99 = ld.p99(ld.stats.txn, a, b)
        cell.say(f"pressure {cell.name}: topic {what}published {ld.published_between(a, b):.1f} msg/s "
                 f"(offered {ld.rate:g}"
                 f", enqueue p99 {ld.enqueue_p99(a, b):.1f} ms), each of {len(self.consuming)} "
                 f"subscribers received {rate / len(self.consuming):.1f} msg/s; dequeue transaction "
                 f"p99 {p99:.1f} ms, pickup p99 {ld.p99(ld.stats.pickup, a, b):.1f} ms")
        return rate, p99

    def clean_phase(self, cell: Cell, clean: Clean) -> None:
        """The topic's figures over the queue's clean phase: what the fault is held against."""
        a, b = clean.t0, clean.t1
        ld = self.load
        self._say(cell, a, b, "clean: ")
        self.clean = TopicClean(ld.rate_between(a, b), ld.published_between(a, b),
                                ld.p99(ld.stats.txn, a, b), ld.p99(ld.stats.pickup, a, b),
                                ld.enqueue_p99(a, b))
        cell.figures["topic_clean_rate"] = round(self.clean.rate / len(self.consuming), 1)

    def under_fault(self, cell: Cell, t0: float, t1: float, during: str) -> tuple[float, float]:
        """The fault phase against clean: (deliveries as a share of clean, dequeue p99 ms)."""
        rate, p99 = self._say(cell, t0, t1, f"{during}: ")
        r = ratio(rate, self.clean.rate)
        cell.figure("topic_under_ratio", round(r, 3),
                    f"topic {during}: {r:.1%} of clean, dequeue p99 {p99:.1f} ms "
                    f"(clean {self.clean.txn_p99:.1f} ms)")
        cell.figures["topic_txn_p99_ms"] = round(p99, 1)
        return r, p99

    async def recovery(self, since: float) -> tuple[float | None, float | None]:
        """(seconds until the deliveries are back to 95 % of clean, until every topic
        client is connected), None for either not in time."""
        s = self.ctx.s
        rec = await recovery(self.load, since, self.clean.rate, 0.95, s.recovery)
        return rec, await reconnected(self.load, s.recovery)

    async def size(self) -> int:
        return await relation_bytes(self.ctx.admin, self.table)

    async def _ready(self, conn: asyncpg.Connection, consumers: list[str]) -> int:
        return int(await conn.fetchval(
            f"SELECT count(*) FROM {self.view} WHERE consumer_name = ANY($1::text[]) "
            "AND msg_state IN ('READY', 'WAIT')", consumers))

    async def drain(self, timeout: float) -> float | None:
        """Stop the publisher, then wait until no consuming subscriber has a message left
        (every removal committed): first by the ledger (cheap), then by AQ$<table>. On a
        connection of its own: the queue's drain polls the driver's meanwhile."""
        await self.load.stop_producers()
        conn = await self.ctx.cluster.connect(f"{DRIVER_APP}-topic")
        try:
            return await self._drain(conn, timeout)
        finally:
            await conn.close()

    async def _drain(self, conn: asyncpg.Connection, timeout: float) -> float | None:
        t0 = time.monotonic()
        want = len(self.load.acked)
        last = t0
        while (now := time.monotonic()) - t0 <= timeout:
            got = await conn.fetch(
                "SELECT consumer, count(DISTINCT id) AS n FROM pressure.ledger WHERE cell = $1 "
                "GROUP BY consumer", self.load.ledger)
            counts = {r["consumer"]: r["n"] for r in got}
            if (all(counts.get(c, 0) >= want for c in self.consuming)
                    and not await self._ready(conn, self.consuming)):
                return time.monotonic() - t0
            if now - last >= 10:
                self.ctx.say(f"pressure {self.cell}: topic draining, the consuming subscribers have "
                             f"{sum(max(0, want - counts.get(c, 0)) for c in self.consuming)} "
                             f"messages left between them")
                last = now
            await asyncio.sleep(0.5)  # a query polled: the consuming subscribers' backlog
        return None

    async def account(self, cell: Cell) -> None:
        """Each consuming subscriber: every acknowledged id once, an ambiguous one at most
        once and then by all of them, no id nobody sent; every other subscriber holds every
        committed message READY in AQ$<table> (counted for all, one read id by id)."""
        admin = self.ctx.admin
        ld = self.load
        seen: dict[str, dict[int, int]] = {c: {} for c in self.consuming}
        for r in await admin.fetch("SELECT consumer, id, count(*) AS n FROM pressure.ledger "
                                   "WHERE cell = $1 GROUP BY consumer, id", ld.ledger):
            seen.setdefault(r["consumer"], {})[r["id"]] = r["n"]
        held = {r["consumer_name"]: r["n"] for r in await admin.fetch(
            f"SELECT consumer_name, count(*) AS n FROM {self.view} WHERE msg_state = 'READY' "
            "GROUP BY consumer_name")}
        sample = self.others[0] if self.others else None
        sampled: list[int] = []
        if sample is not None:
            sampled = [payload_id(r["user_data"])[0] for r in await admin.fetch(
                f"SELECT user_data FROM {self.view} WHERE consumer_name = $1 AND msg_state = 'READY'",
                sample)]
        delivered = {i for ids in seen.values() for i in ids}
        committed = ld.acked | {i for i in ld.ambiguous if i in delivered or i in set(sampled)}
        lost = sum(len(committed - seen[c].keys()) for c in self.consuming)
        dup = sum(1 for ids in seen.values() for n in ids.values() if n > 1)
        unknown = len((delivered | set(sampled)) - ld.acked - ld.ambiguous)
        strangers = sorted(set(seen) - set(self.consuming))  # ledger rows of no consuming subscriber
        left = sum(held.get(c, 0) for c in self.consuming)
        short = [x for x in self.others if held.get(x, 0) != len(committed)]
        sample_ok = sample is None or (len(sampled) == len(set(sampled)) and set(sampled) == committed)
        cell.figure("topic_sent", len(ld.acked),
                    f"topic accounting: {len(ld.acked)} acknowledged, {len(ld.ambiguous)} with the answer "
                    f"lost ({len(committed) - len(ld.acked)} of them committed); {len(self.consuming)} "
                    f"consuming subscribers: lost {lost}, duplicated {dup}, unknown {unknown}, left {left}; "
                    f"{len(self.others) - len(short)} of {len(self.others)} other subscribers hold all "
                    f"{len(committed)} committed messages READY (AQ$ view; {sample or '-'} read id by id: "
                    f"{'the same ids' if sample_ok else f'{len(sampled)} ids, not the same'})")
        size = await self.size()
        cell.figure("topic_storage_mib", round(size / MIB, 2),
                    f"topic storage at the end: {size / MIB:.2f} MiB for "
                    f"{len(committed)} messages x {len(self.names)} subscribers")
        cell.figures.update(topic_lost=lost, topic_duplicated=dup)
        cell.rule("topic: 0 messages lost by any consuming subscriber", lost == 0)
        cell.rule("topic: 0 messages duplicated", dup == 0 and unknown == 0 and not strangers)
        cell.rule("topic: the consuming subscribers drained", left == 0)
        cell.rule("topic: every other subscriber holds every committed message", not short and sample_ok)
