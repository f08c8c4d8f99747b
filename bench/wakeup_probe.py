"""Waiter-count probe (issue 35, wake-ups): pickup latency and PostgreSQL CPU per message
with 4, 64, 256 consumers waiting on one queue, at a steady offered rate.

    python -m bench.wakeup_probe [--waiters 4,64,256] [--rate 150] [--seconds 10]
                                 [--kind lib,pool,jms]

`lib`: library sessions blocked in `Session.dequeue(wait=30)`, one connection each, woken
through the process's shared listening connection (as row 8 of core_bench). `jms`: pgaq.jms
MessageListeners, one session each, on one Connection. `pool`: the gateway's way for IDAP
receives (engine sessions on one pool of 60, PGAQ_GATEWAY_POOL_MAX's default, one Listener
wired), without HTTP. One producer enqueues one message per transaction on an absolute
schedule. CPU: utime+stime of every process of the cluster
(/proc/<pid>/stat), from the first enqueue until every message was taken, over the
messages. Runs its own private durable cluster.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import struct
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import pgaq.jms as jms
from pgaq import waiting
from pgaq.embedded import Cluster
from pgaq.engine import DequeueOptions, Session
from pgaq.listener import Listener
from pgaq.migrate import migrate

from .measure import percentile

PAD = b"x" * 92
TICK = os.sysconf("SC_CLK_TCK")
POOL = 60  # the gateway's default pool (PGAQ_GATEWAY_POOL_MAX)


class Held(dict[int, float]):
    """When each message was taken; `drained` set once `expected` of them were."""

    def __init__(self) -> None:
        super().__init__()
        self.expected = float("inf")
        self.drained = asyncio.Event()

    def __setitem__(self, k: int, t: float) -> None:
        super().__setitem__(k, t)
        if len(self) >= self.expected:
            self.drained.set()


async def settled(check: Callable[[], bool], seconds: float = 60.0) -> None:
    """Look at `check` every 50 ms until it holds (a state this process shows)."""
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)


def cluster_cpu(pgdata: Path) -> float:
    """CPU seconds (user + system) of the postmaster and all its children so far."""
    top = int((pgdata / "postmaster.pid").read_text().split()[0])
    total = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            raw = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        fields = raw.rsplit(")", 1)[1].split()
        pid, ppid = int(d), int(fields[1])
        if pid == top or ppid == top:
            total += int(fields[11]) + int(fields[12])
    return total / TICK


async def _run(dsn: str, pgdata: Path, queue: str, waiters: int, rate: float, seconds: float,
               consumers: Callable[[Held], Awaitable[tuple[Callable[[], Awaitable[None]], Any]]],
               send: Callable[[int], Awaitable[None]]) -> dict[str, Any]:
    held = Held()
    committed: dict[int, float] = {}
    stop_consumers, listener = await consumers(held)
    # every waiter in its wait (a release without Listener.idle: a pause)
    if hasattr(listener, "idle"):
        await settled(lambda: bool(listener.idle >= waiters))
    else:
        await asyncio.sleep(3.0 + waiters / 50)
    await asyncio.sleep(0.5)
    cpu0 = cluster_cpu(pgdata)
    started = time.perf_counter()
    deadline = started + seconds
    gap, due, k = 1 / rate, started, 0
    while True:
        due += gap
        now = time.perf_counter()
        if now >= deadline:
            break
        if due > now:
            await asyncio.sleep(due - now)
        await send(k)
        committed[k] = time.perf_counter()
        k += 1
    held.expected = len(committed)
    if len(held) < held.expected:
        try:
            await asyncio.wait_for(held.drained.wait(), 10)
        except TimeoutError:
            pass  # reported as missing
    cpu = cluster_cpu(pgdata) - cpu0
    await stop_consumers()
    lat = [max(0.0, held[i] - committed[i]) * 1000 for i in committed if i in held]
    return {"waiters": waiters, "messages": len(committed), "missing": len(committed) - len(lat),
            "p50": statistics.median(lat), "p99": percentile(lat, 99),
            "cpu_ms_per_msg": cpu * 1000 / max(1, len(committed))}


async def lib(dsn: str, pgdata: Path, waiters: int, rate: float, seconds: float) -> dict[str, Any]:
    queue = f"probe.q{waiters}"
    admin = await asyncpg.connect(dsn)
    await admin.execute(f"""
        CALL dbms_aqadm.create_queue_table('probe.qt{waiters}', 'RAW');
        CALL dbms_aqadm.create_queue('{queue}', 'probe.qt{waiters}');
        CALL dbms_aqadm.start_queue('{queue}');""")
    conns = [await asyncpg.connect(dsn) for _ in range(waiters)]
    statements = [0]
    for c in conns:
        c.add_query_logger(lambda _q: statements.__setitem__(0, statements[0] + 1))
    producer = Session(admin)
    await producer.enqueue(queue, struct.pack(">q", -1) + PAD)
    await Session(admin).dequeue(queue, DequeueOptions(wait=0))
    stop = asyncio.Event()

    async def consumers(held: Held) -> tuple[Callable[[], Awaitable[None]], Any]:
        async def consume(s: Session) -> None:
            opts = DequeueOptions(wait=30)
            while not stop.is_set():
                for m in await s.dequeue(queue, opts):
                    assert isinstance(m.payload, bytes)
                    held[struct.unpack(">q", m.payload[:8])[0]] = time.perf_counter()

        readers = [Session(c, safety_poll=60) for c in conns]
        for r in readers:
            await r.dequeue(queue, DequeueOptions(wait=0))
        tasks = [asyncio.create_task(consume(r)) for r in readers]

        async def halt() -> None:
            print(f"  lib statements: {statements[0] - first}", flush=True)
            stop.set()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        await settled(lambda: bool(waiting.listening()))
        first = statements[0]
        return halt, waiting.listening()[0]

    async def send(k: int) -> None:
        await producer.enqueue(queue, struct.pack(">q", k) + PAD)

    try:
        return await _run(dsn, pgdata, queue, waiters, rate, seconds, consumers, send)
    finally:
        await waiting.shutdown()
        for c in [*conns, admin]:
            await c.close()


async def pooled(dsn: str, pgdata: Path, waiters: int, rate: float, seconds: float) -> dict[str, Any]:
    """The gateway's IDAP receives' way of waiting: engine sessions on one pool (a connection
    per look), woken by one Listener the process wires."""
    queue = f"probe.g{waiters}"
    admin = await asyncpg.connect(dsn)
    await admin.execute(f"""
        CALL dbms_aqadm.create_queue_table('probe.gt{waiters}', 'RAW');
        CALL dbms_aqadm.create_queue('{queue}', 'probe.gt{waiters}');
        CALL dbms_aqadm.start_queue('{queue}');""")
    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=POOL)
    listener = Listener(dsn)
    await listener.start()
    producer = Session(admin)
    stop = asyncio.Event()

    async def consumers(held: Held) -> tuple[Callable[[], Awaitable[None]], Any]:
        async def consume(s: Session) -> None:
            opts = DequeueOptions(wait=30, visibility="IMMEDIATE")
            while not stop.is_set():
                for m in await s.dequeue(queue, opts):
                    assert isinstance(m.payload, bytes)
                    held[struct.unpack(">q", m.payload[:8])[0]] = time.perf_counter()

        readers = [Session(None, pool=pool, listener=listener, safety_poll=60) for _ in range(waiters)]
        tasks = [asyncio.create_task(consume(r)) for r in readers]

        async def halt() -> None:
            stop.set()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return halt, listener

    async def send(k: int) -> None:
        await producer.enqueue(queue, struct.pack(">q", k) + PAD)

    try:
        return await _run(dsn, pgdata, queue, waiters, rate, seconds, consumers, send)
    finally:
        await listener.close()
        await pool.close()
        await admin.close()


async def jms_listeners(dsn: str, pgdata: Path, waiters: int, rate: float,
                        seconds: float) -> dict[str, Any]:
    name = f"j{waiters}"
    admin = await asyncpg.connect(dsn)
    await admin.execute(f"""
        CALL dbms_aqadm.create_queue_table('probe.{name}_t', 'SYS.AQ$_JMS_TEXT_MESSAGE');
        CALL dbms_aqadm.create_queue('probe.{name}', 'probe.{name}_t');
        CALL dbms_aqadm.start_queue('probe.{name}');""")
    factory = jms.ConnectionFactory(dsn, max_pool_size=waiters + 4, safety_poll=60.0)
    pconn = await factory.create_connection()
    psession = pconn.create_session(False, jms.AUTO_ACKNOWLEDGE)
    producer = psession.create_producer(psession.get_queue("probe", name))
    conn = await factory.create_connection()

    async def consumers(held: Held) -> tuple[Callable[[], Awaitable[None]], Any]:
        def on_message(m: jms.Message) -> None:
            assert isinstance(m, jms.TextMessage)
            held[int(m.text or "0")] = time.perf_counter()

        made = []
        for _ in range(waiters):
            s = conn.create_session(False, jms.AUTO_ACKNOWLEDGE)
            c = await s.create_consumer(s.get_queue("probe", name))
            c.set_message_listener(on_message)
            made.append(c)
        await conn.start()

        async def halt() -> None:
            print(f"  jms looks: {sum(c.looks for c in made)}", flush=True)
            await conn.close()
        return halt, await conn.listening()

    async def send(k: int) -> None:
        await producer.send(psession.create_text_message(str(k)))

    try:
        return await _run(dsn, pgdata, name, waiters, rate, seconds, consumers, send)
    finally:
        await pconn.close()
        await admin.close()


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--waiters", default="4,64,256")
    ap.add_argument("--rate", type=float, default=150.0)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--kind", default="lib,pool,jms")
    ap.add_argument("--dir", default="/tmp/pgaq-wakeup-probe")
    a = ap.parse_args()
    base = Path(a.dir)
    os.makedirs(base, exist_ok=True)
    os.chmod(base, 0o755)
    cluster = Cluster(base / "cluster", durable=True, settings={"max_connections": "600"})
    await asyncio.to_thread(cluster.init)
    await asyncio.to_thread(cluster.start)
    try:
        admin = await asyncpg.connect(cluster.dsn())
        await admin.execute("CREATE DATABASE probe")
        await admin.close()
        dsn = cluster.dsn("probe")
        conn = await asyncpg.connect(dsn)
        await migrate(conn)
        await conn.execute("CREATE SCHEMA probe")
        await conn.close()
        kinds = {"lib": lib, "jms": jms_listeners, "pool": pooled}
        for kind in a.kind.split(","):
            for n in [int(x) for x in a.waiters.split(",")]:
                r = await kinds[kind](dsn, cluster.pgdata, n, a.rate, a.seconds)
                print(f"{kind:4} waiters {n:4}: pickup p50 {r['p50']:6.2f} ms  p99 {r['p99']:7.2f} ms"
                      f"  PG CPU/msg {r['cpu_ms_per_msg']:6.2f} ms  ({r['messages']} msgs, "
                      f"{r['missing']} missing)", flush=True)
    finally:
        await asyncio.to_thread(cluster.destroy)


if __name__ == "__main__":
    asyncio.run(main())
