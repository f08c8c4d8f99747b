"""Run every benchmark against a private durable PostgreSQL and print one table.

Each pgaq figure stands beside a raw-SQL floor measured in the same run, on the same
database, with the same concurrency. Settings: BENCH_SECONDS (per measurement),
BENCH_CONCURRENCY, BENCH_BIG (messages in the large queue).
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
from pgaq.embedded import Cluster
from pgaq.engine import DequeueOptions, Session
from pgaq.migrate import migrate

from .harness import Result, run_for

SECONDS = float(os.environ.get("BENCH_SECONDS", "5"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "4"))
BIG = int(os.environ.get("BENCH_BIG", "1000000"))
PAYLOAD = b"x" * 100
ROOT = Path(__file__).resolve().parent


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
    except OSError:
        mem = "?"
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()
    return {"cpus": os.cpu_count(), "cpu": cpu, "mem_kib": mem, "python": sys.version.split()[0],
            "platform": platform.platform(), "commit": commit}


async def setup(dsn: str) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        await migrate(conn)
        await conn.execute("""
            CREATE SCHEMA bench;
            CREATE TABLE bench.floor (id bigserial PRIMARY KEY, q text NOT NULL, priority int NOT NULL,
                                      enq_time timestamptz NOT NULL DEFAULT now(), payload bytea);
            CALL dbms_aqadm.create_queue_table('bench.qt', 'RAW');
            CALL dbms_aqadm.create_queue('bench.q', 'bench.qt');
            CALL dbms_aqadm.start_queue('bench.q');
            CALL dbms_aqadm.create_queue_table('bench.small_qt', 'RAW');
            CALL dbms_aqadm.create_queue('bench.small', 'bench.small_qt');
            CALL dbms_aqadm.start_queue('bench.small');
            CALL dbms_aqadm.create_queue_table('bench.big_qt', 'RAW');
            CALL dbms_aqadm.create_queue('bench.big', 'bench.big_qt');
            CALL dbms_aqadm.start_queue('bench.big');
        """)
    finally:
        await conn.close()


async def fill(pool: asyncpg.Pool, queue: str, n: int, chunk: int = 5000) -> float:
    started = time.perf_counter()

    async def part(k: int) -> None:
        async with pool.acquire() as c:
            s = Session(c)
            await s.enqueue_array(queue, [(PAYLOAD, None)] * k)

    left = n
    while left > 0:
        batch = [min(chunk, left - i * chunk) for i in range(CONCURRENCY) if left - i * chunk > 0]
        await asyncio.gather(*(part(k) for k in batch))
        left -= sum(batch)
    return time.perf_counter() - started


async def main() -> int:
    base = Path(tempfile.mkdtemp(prefix="pgaq-bench-"))
    os.chmod(base, 0o755)
    cluster = Cluster(base / "cluster", durable=True, settings={"max_connections": "100"})
    cluster.init()
    cluster.start()
    rows: list[dict[str, Any]] = []
    try:
        admin = await asyncpg.connect(cluster.dsn())
        await admin.execute("CREATE DATABASE bench")
        version = await admin.fetchval("SHOW server_version")
        await admin.close()
        dsn = cluster.dsn("bench")
        await setup(dsn)
        pool = await asyncpg.create_pool(dsn, min_size=CONCURRENCY + 1, max_size=CONCURRENCY + 1)
        sessions: dict[int, Session] = {}

        def session(c: asyncpg.Connection) -> Session:
            """One library session per connection, as an application keeps it."""
            s = sessions.get(id(c))
            if s is None or s.conn is not c:
                s = sessions[id(c)] = Session(c)
            return s

        async def floor_insert(c: asyncpg.Connection) -> object:
            return await c.execute(
                "INSERT INTO bench.floor (q, priority, payload) VALUES ('q', 1, $1)", PAYLOAD)

        async def engine_enqueue(c: asyncpg.Connection) -> object:
            return await session(c).enqueue("bench.q", PAYLOAD)

        async def engine_array(c: asyncpg.Connection) -> object:
            return await session(c).enqueue_array("bench.q", [(PAYLOAD, None)] * 100)

        async def floor_delete(c: asyncpg.Connection) -> object:
            r = await c.fetchrow("DELETE FROM bench.floor WHERE id = (SELECT id FROM bench.floor "
                                 "ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING *")
            return r is not None

        async def engine_dequeue(c: asyncpg.Connection) -> object:
            return bool(await session(c).dequeue("bench.q", DequeueOptions(navigation="FIRST_MESSAGE")))

        def deq_from(queue: str) -> Any:
            async def op(c: asyncpg.Connection) -> object:
                return bool(await session(c).dequeue(queue, DequeueOptions(navigation="FIRST_MESSAGE")))
            return op

        print(f"pgaq bench: {CONCURRENCY} connections, {SECONDS:.0f} s per figure, "
              f"PostgreSQL {version} (durable), {os.cpu_count()} CPUs", flush=True)
        for fn in (floor_insert, engine_enqueue):  # warm-up
            await run_for(pool, CONCURRENCY, 0.5, fn)
        f_ins = await run_for(pool, CONCURRENCY, SECONDS, floor_insert)
        e_enq = await run_for(pool, CONCURRENCY, SECONDS, engine_enqueue)
        e_arr = await run_for(pool, CONCURRENCY, SECONDS, engine_array, items_per_op=100)
        async with pool.acquire() as c:
            await c.execute("VACUUM ANALYZE bench.floor")
            await c.execute("VACUUM ANALYZE bench.qt")
        f_del = await run_for(pool, CONCURRENCY, SECONDS, floor_delete)
        e_deq = await run_for(pool, CONCURRENCY, SECONDS, engine_dequeue)

        await fill(pool, "bench.small", 1000)
        fill_big = await fill(pool, "bench.big", BIG)
        async with pool.acquire() as c:
            await c.execute("VACUUM ANALYZE bench.small_qt")
            await c.execute("VACUUM ANALYZE bench.big_qt")
        n = 800
        d_small = await run_for(pool, CONCURRENCY, 60, deq_from("bench.small"), max_ops=n)
        d_big = await run_for(pool, CONCURRENCY, 60, deq_from("bench.big"), max_ops=n)
        await pool.close()
        from .monitor_bench import run as run_monitor

        monitor_rows = await run_monitor(dsn)
        from .gateway_bench import run as run_gateway

        gateway_rows = await run_gateway(dsn, SECONDS, f_ins, f_del)

        def row(name: str, ours: Result, floor: Result, target: float, unit: str = "msg/s",
                note: str = "") -> None:
            ratio = ours.rate / floor.rate if floor.rate else 0.0
            rows.append({"benchmark": name, "pgaq": round(ours.rate, 1),
                         "floor": round(floor.rate, 1),
                         "unit": unit, "ratio": round(ratio, 3), "target": target,
                         "pass": ratio >= target, "pgaq_p50_ms": round(ours.p50, 3),
                         "pgaq_p99_ms": round(ours.pct(99), 3), "floor_p50_ms": round(floor.p50, 3),
                         "floor_p99_ms": round(floor.pct(99), 3), "note": note})

        row("enqueue 1 msg/txn", e_enq, f_ins, 0.60, note="floor: INSERT one row per transaction")
        row("array enqueue 100/call", e_arr, f_ins, 3.0, note="floor: single-row INSERT rate")
        row("dequeue REMOVE + commit", e_deq, f_del, 0.60,
            note="floor: DELETE ... FOR UPDATE SKIP LOCKED RETURNING")
        row(f"dequeue at {BIG:,} vs 1,000 msgs", d_big, d_small, 0.80,
            note=f"floor: the same dequeue on a 1,000-message queue (fill {fill_big:.0f}s)")
        rows.extend(gateway_rows)
        rows.extend(monitor_rows)
    finally:
        cluster.destroy()
        shutil.rmtree(base, ignore_errors=True)

    header = (f"{'benchmark':34} {'pgaq':>10} {'floor':>10} {'ratio':>7} {'target':>7}  "
              "result   p50/p99 ms (pgaq | floor)")
    print(header)
    print("-" * len(header))
    for r in rows:
        if "ratio" not in r:
            print(f"{r['benchmark'][:34]:34} {r['pgaq']:>10} {r['floor']:>10} {'':>7} "
                  f"{r['target']:>7}  {'PASS' if r['pass'] else 'FAIL':6}   {r['note']}")
            continue
        print(f"{r['benchmark']:34} {r['pgaq']:>10,.0f} {r['floor']:>10,.0f} {r['ratio']:>7.2f} "
              f"{'≥' + str(r['target']):>7}  {'PASS' if r['pass'] else 'FAIL':6}   "
              f"{r['pgaq_p50_ms']:.2f}/{r['pgaq_p99_ms']:.2f} | "
              f"{r['floor_p50_ms']:.2f}/{r['floor_p99_ms']:.2f}")
    passed = sum(r["pass"] for r in rows)
    print(f"summary: {passed} of {len(rows)} targets met")
    out = ROOT / "results" / f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
    out.write_text(json.dumps({"machine": machine(), "settings": {
        "seconds": SECONDS, "concurrency": CONCURRENCY, "big": BIG}, "results": rows}, indent=2))
    print(f"results: {out.relative_to(ROOT.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
