"""Propagation figures (issue 6's targets), the propagator in its own process as `pgaq up`
runs it: a backlog drained locally, to a second PostgreSQL database and to a remote
gateway over HTTP, and the delay from enqueue commit to the destination with latency 0;
each beside a raw-SQL floor measured in the same run."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any

import asyncpg
from pgaq import DequeueOptions, Session
from pgaq.listener import Listener

from .measure import Result, percentile, start_gateway


async def _floor(dsn: str, remote_dsn: str, n: int) -> tuple[float, float]:
    """Raw SQL doing what a propagator does, in batches of 500: read and delete rows from
    one table, insert them into another (same database; and a second database)."""
    c = await asyncpg.connect(dsn)
    r = await asyncpg.connect(remote_dsn)
    rates = []
    try:
        for target in (c, r):
            await c.execute("DROP TABLE IF EXISTS pb_src; "
                            "CREATE TABLE pb_src (id bigserial PRIMARY KEY, body bytea)")
            await target.execute("DROP TABLE IF EXISTS pb_dst; "
                                 "CREATE TABLE pb_dst (id bigint PRIMARY KEY, body bytea)")
            await c.execute("INSERT INTO pb_src (body) SELECT '\\x78'::bytea FROM generate_series(1, $1)", n)
            t = time.perf_counter()
            while True:
                async with c.transaction():
                    rows = await c.fetch("DELETE FROM pb_src WHERE id IN (SELECT id FROM pb_src ORDER BY id "
                                         "LIMIT 500 FOR UPDATE SKIP LOCKED) RETURNING id, body")
                    if not rows:
                        break
                    await target.executemany("INSERT INTO pb_dst VALUES ($1, $2)",
                                             [(x["id"], x["body"]) for x in rows])
            rates.append(n / (time.perf_counter() - t))
    finally:
        await c.close()
        await r.close()
    return rates[0], rates[1]


async def _setup(dsn: str, remote_dsn: str, gateway_url: str) -> None:
    c = await asyncpg.connect(dsn)
    r = await asyncpg.connect(remote_dsn)
    try:
        for conn in (c, r):
            await conn.execute("""
                CREATE SCHEMA pb;
                CALL dbms_aqadm.create_queue_table('pb.in_t', 'RAW');
                CALL dbms_aqadm.create_queue('pb.in_q', 'pb.in_t'); CALL dbms_aqadm.start_queue('pb.in_q');
            """)
        await r.execute("""
            CALL dbms_aqadm.create_aq_agent(agent_name => 'PB', enable_http => true, password => 'pw');
            CALL dbms_aqadm.enable_db_access(agent_name => 'PB', db_username => 'postgres');
        """)
        for name in ("local", "remote", "http", "lat"):
            await c.execute(f"""
                CALL dbms_aqadm.create_queue_table('pb.{name}_t', 'RAW', multiple_consumers => true);
                CALL dbms_aqadm.create_queue('pb.{name}', 'pb.{name}_t');
                CALL dbms_aqadm.start_queue('pb.{name}');
            """)
        await c.execute("CALL aq.create_database_link('pbpg', $1)", remote_dsn)
        await c.execute("CALL aq.create_database_link('pbweb', $1, 'PB', 'pw')", gateway_url)
        for name, address in (("local", "pb.in_q"), ("remote", "pb.in_q@pbpg"), ("http", "pb.in_q@pbweb"),
                              ("lat", "pb.in_q")):
            await c.execute(f"CALL dbms_aqadm.add_subscriber('pb.{name}', "
                            f"sys.aq$_agent(NULL, '{address}', 0))")
    finally:
        await c.close()
        await r.close()


async def _drain(dsn: str, target_dsn: str, queue: str, destination: str | None, n: int) -> Result:
    """Enqueue a backlog of n, then schedule it (a propagator already runs); time from the
    schedule's creation until all arrived."""
    c = await asyncpg.connect(dsn)
    t = await asyncpg.connect(target_dsn)
    try:
        before = await t.fetchval("SELECT count(*) FROM pb.in_t")
        s = Session(c)
        for i in range(0, n, 1000):
            await s.enqueue_array(queue, [(b"x" * 100, None)] * min(1000, n - i))
        started = time.perf_counter()
        await c.execute("CALL dbms_aqadm.schedule_propagation($1, $2, latency => 0)", queue, destination)
        while await t.fetchval("SELECT count(*) FROM pb.in_t") - before < n:  # noqa: ASYNC110
            await asyncio.sleep(0.02)  # another process's progress: polled, 50 times a second
        elapsed = time.perf_counter() - started
        await c.execute("CALL dbms_aqadm.unschedule_propagation($1, $2)", queue, destination)
        return Result(n, elapsed, [])
    finally:
        await c.close()
        await t.close()


async def _latency(dsn: str, service_dsn: str, samples: int) -> list[float]:
    """Enqueue commit -> the message dequeued at the destination queue (latency 0)."""
    c = await asyncpg.connect(dsn)
    d = await asyncpg.connect(dsn)
    listener = Listener(dsn)
    await listener.start()
    await c.execute("CALL dbms_aqadm.schedule_propagation('pb.lat', latency => 0)")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq_services.propagator",
        env={**os.environ, "PGAQ_DSN": service_dsn, "PGAQ_LOG_LEVEL": "WARNING"})
    out: list[float] = []
    try:
        src, dst = Session(c), Session(d, listener=listener)
        await src.enqueue("pb.lat", b"warm")
        await dst.dequeue("pb.in_q", DequeueOptions(wait=30))
        for _ in range(samples):
            await src.enqueue("pb.lat", b"l")
            t = time.perf_counter()
            got = await dst.dequeue("pb.in_q", DequeueOptions(wait=10))
            assert got, "propagation did not deliver within 10 s"
            out.append((time.perf_counter() - t) * 1000)
    finally:
        proc.terminate()
        await proc.wait()
        await listener.close()
        await c.close()
        await d.close()
    return out


async def run(dsn: str, service_dsn: str, remote_dsn: str, seconds: float) -> list[dict[str, Any]]:
    n = int(max(5000, 4000 * seconds))
    gateway, url = await start_gateway(remote_dsn)
    rows: list[dict[str, Any]] = []
    try:
        await _setup(dsn, remote_dsn, url)
        floor_local, floor_remote = await _floor(dsn, remote_dsn, n)
        propagator = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "pgaq_services.propagator",
            env={**os.environ, "PGAQ_DSN": service_dsn, "PGAQ_LOG_LEVEL": "WARNING"})
        try:
            await asyncio.sleep(1.0)  # let it start: the figures are for moving messages
            local = await _drain(dsn, dsn, "pb.local", None, n)
            remote = await _drain(dsn, remote_dsn, "pb.remote", "pbpg", n)
            web = await _drain(dsn, remote_dsn, "pb.http", "pbweb", max(2000, n // 4))
        finally:
            propagator.terminate()
            await propagator.wait()
        lat = await _latency(dsn, service_dsn, 100)
    finally:
        gateway.terminate()
        await gateway.wait()

    def row(name: str, ours: Result, floor: float, target: float) -> None:
        rows.append({"benchmark": name, "pgaq": round(ours.rate, 1), "floor": round(floor, 1),
                     "unit": "msg/s", "ratio": round(ours.rate / floor, 3) if floor else 0,
                     "target": f">= {target:,.0f}/s", "pass": ours.rate >= target,
                     "note": f"{ours.ops:,} backlog, from the schedule's creation; floor: raw SQL "
                             "moving the same rows in batches of 500"})

    row("propagation, this database", local, floor_local, 5000)
    row("propagation, remote PostgreSQL", remote, floor_remote, 3000)
    row("propagation, HTTP to a remote gateway", web, floor_remote, 1000)
    p50, p99 = percentile(lat, 50), percentile(lat, 99)
    rows.append({"benchmark": "propagation commit -> dequeued at destination (ms p50)", "pgaq": round(p50, 2),
                 "floor": "-", "unit": "ms", "target": "p50 <= 50", "pass": p50 <= 50,
                 "pgaq_p99_ms": round(p99, 2), "note": f"latency 0; p99 {p99:.1f} ms"})
    return rows
