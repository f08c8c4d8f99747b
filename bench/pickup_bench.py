"""Row 8: pickup latency under load (issue 23 §2): from the producer's commit to the moment
a consumer holds the message, while a steady stream flows.

Producers enqueue one message per transaction at a fixed total rate (half the engine's
measured single-message enqueue rate, row 1, unless BENCH_PICKUP_RATE says otherwise),
paced on an absolute schedule so a slow call does not lower the offered rate. Consumers
are library sessions blocked in `Session.dequeue(wait=...)`, the way an application waits
without wiring a Listener: the process's shared listening connection wakes them on the
enqueue's NOTIFY. Each payload carries its number; the producer notes when its commit
returned, the consumer when its dequeue returned. A consumer that held the message before
the producer's call returned counts 0 ms (the commit was already visible).

Floor: the same stream consumed by as many sessions that never wait, each polling with wait
0 in a tight loop: what the statement itself costs, with no wake-up in the path.
"""

from __future__ import annotations

import asyncio
import statistics
import struct
import time
from typing import Any

import asyncpg
from pgaq import DequeueOptions, Session, waiting

from .measure import paced, percentile
from .report import Row
from .settings import Settings

SETUP = """
CREATE SCHEMA pickup;
CALL dbms_aqadm.create_queue_table('pickup.qt', 'RAW');
CALL dbms_aqadm.create_queue('pickup.q', 'pickup.qt');
CALL dbms_aqadm.start_queue('pickup.q');
CALL dbms_aqadm.create_queue_table('pickup.fqt', 'RAW');
CALL dbms_aqadm.create_queue('pickup.fq', 'pickup.fqt');
CALL dbms_aqadm.start_queue('pickup.fq');
"""
PAD = b"x" * 92  # 8-byte number + pad: the 100-byte payload of the other core rows


async def stream(dsn: str, queue: str, rate: float, seconds: float, producers: int,
                  consumers: int, wait: float) -> dict[str, Any]:
    """Offer `rate` msg/s for `seconds`, consume with `consumers` sessions dequeuing with
    `wait`; the pickup latencies (ms) of every message, and what was offered."""
    conns = [await asyncpg.connect(dsn) for _ in range(producers + consumers)]
    committed: dict[int, float] = {}
    held: dict[int, float] = {}
    stop = asyncio.Event()
    drained = asyncio.Event()  # every committed message was taken (once the stream ended)
    expected: list[int] = []
    try:
        writers = [Session(c) for c in conns[:producers]]
        readers = [Session(c, safety_poll=60) for c in conns[producers:]]
        numbers = iter(range(1 << 62))
        # warm every session's statements and cached queue lookups before the clock starts:
        # each reader looks once, each writer sends one unnumbered (negative) message
        for r in readers:
            await r.dequeue(queue, DequeueOptions(wait=0))
        for i, w in enumerate(writers):
            await w.enqueue(queue, struct.pack(">q", -1 - i) + PAD)
        started = time.perf_counter()
        deadline = started + seconds

        async def produce(s: Session) -> None:
            async def send() -> None:
                k = next(numbers)
                await s.enqueue(queue, struct.pack(">q", k) + PAD)
                committed[k] = time.perf_counter()

            await paced(producers / rate, deadline, send)

        async def consume(s: Session) -> None:
            opts = DequeueOptions(wait=wait)
            while not stop.is_set():
                got = await s.dequeue(queue, opts)
                t = time.perf_counter()
                for m in got:
                    assert isinstance(m.payload, bytes)
                    k = struct.unpack(">q", m.payload[:8])[0]
                    if k >= 0:  # (not a warm-up message)
                        held[k] = t
                if expected and len(held) >= expected[0]:
                    drained.set()

        tasks = [asyncio.create_task(consume(r)) for r in readers]
        await asyncio.gather(*(produce(w) for w in writers))
        offered = len(committed)
        # the stream ends: wait (bounded) until every committed message was taken
        expected.append(offered)
        if len(held) >= offered:
            drained.set()
        try:
            await asyncio.wait_for(drained.wait(), 30)
        except TimeoutError:
            pass  # reported as messages not taken
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        elapsed = time.perf_counter() - started
    finally:
        for c in conns:
            await c.close()
    lat = [max(0.0, held[k] - committed[k]) * 1000 for k in committed if k in held]
    return {"latencies": lat, "offered": offered, "missing": offered - len(lat),
            "rate": offered / seconds, "elapsed": elapsed}


async def run(dsn: str, enqueue_rate: float, settings: Settings) -> Row:
    seconds, consumers = settings.seconds, settings.concurrency
    admin = await asyncpg.connect(dsn)
    try:
        await admin.execute(SETUP)
    finally:
        await admin.close()
    rate = settings.pickup_rate or max(100.0, round(enqueue_rate / 2, -1))
    ours = await stream(dsn, "pickup.q", rate, seconds, consumers, consumers, 30)
    await waiting.shutdown()
    floor = await stream(dsn, "pickup.fq", rate, seconds, consumers, consumers, 0)
    lat, flat = ours["latencies"], floor["latencies"]
    p50, p99 = (statistics.median(lat), percentile(lat, 99)) if lat else (float("inf"), float("inf"))
    ok = p50 <= 2.0 and p99 <= 10.0 and ours["missing"] == 0
    missing = f", {ours['missing']} NOT TAKEN" if ours["missing"] else ""
    return {"benchmark": "8. pickup latency under load (ms p50)", "pgaq": round(p50, 2),
            "floor": round(statistics.median(flat), 2) if flat else 0.0, "unit": "ms",
            "target": "p50 <= 2, p99 <= 10", "pass": ok, "pgaq_p99_ms": round(p99, 2),
            "floor_p99_ms": round(percentile(flat, 99), 2), "offered_rate": round(ours["rate"], 1),
            "note": f"producer's commit returned -> consumer's Session.dequeue(wait=30) returned "
                    f"the message; {consumers} producers offering {rate:,.0f} msg/s, 1 msg/txn "
                    f"(BENCH_PICKUP_RATE; default half of row 1's rate), {ours['rate']:,.0f} msg/s "
                    f"achieved, for {seconds:g} s; {consumers} waiting consumers, "
                    f"{len(lat):,} messages, p99 {p99:.2f} ms"
                    f"{missing}; floor: the same stream taken by sessions polling with "
                    f"wait 0 in a loop "
                    f"(p99 {percentile(flat, 99):.2f} ms)"}
