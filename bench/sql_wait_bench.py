"""A blocked SQL dequeue (`dbms_aq.dequeue` with a wait, R__21) woken by an enqueue's
commit: milliseconds from the enqueuer's COMMIT returning to the waiter's CALL returning,
and the waiting backend's CPU while nothing arrives. `run_library`: the same for the Python
library's `Session.dequeue` with a wait and no Listener wired (pgaq.waiting's shared
listening connection, woken by the enqueue's NOTIFY).

The floor is the same CALL issued right after the commit with `wait => 0`: the dequeue's
own cost, which a perfect wake-up would not add to. Each commit lands at a random point
of the waiter's poll interval (the waiter is first seen sleeping in pg_sleep).
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
from typing import Any

import asyncpg
from pgaq import DequeueOptions, Session, waiting

from .measure import percentile

SETUP = """
CREATE SCHEMA IF NOT EXISTS sqlwait;
CALL dbms_aqadm.create_queue_table('sqlwait.qt', 'RAW');
CALL dbms_aqadm.create_queue('sqlwait.q', 'sqlwait.qt');
CALL dbms_aqadm.start_queue('sqlwait.q');
"""
DEQ = ("CALL dbms_aq.dequeue(queue_name => 'sqlwait.q', dequeue_options => "
       "dbms_aq.dequeue_options(wait => $1), payload => NULL::bytea, msgid => NULL)")
ENQ = "CALL dbms_aq.enqueue(queue_name => 'sqlwait.q', payload => '\\x01'::bytea, msgid => NULL)"
SLEEPING = "SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $1"


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        f = stat.read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


async def _until_sleeping(admin: asyncpg.Connection, pid: int) -> None:
    while True:
        if await admin.fetchval(SLEEPING, pid):
            return
        await asyncio.sleep(0.001)


async def run(dsn: str, n: int = 60, idle_seconds: float = 10.0) -> dict[str, Any]:
    admin = await asyncpg.connect(dsn)
    waiter = await asyncpg.connect(dsn)
    enqueuer = await asyncpg.connect(dsn)
    try:
        await admin.execute(SETUP)
        pid = await waiter.fetchval("SELECT pg_backend_pid()")
        woken: list[float] = []
        floor: list[float] = []
        for _ in range(n):
            call = asyncio.create_task(waiter.execute(DEQ, 30))
            await _until_sleeping(admin, pid)
            await asyncio.sleep(random.uniform(0, 0.012))  # anywhere in the poll interval
            await enqueuer.execute(ENQ)
            committed = time.perf_counter()
            await call
            woken.append((time.perf_counter() - committed) * 1000)
            await enqueuer.execute(ENQ)
            committed = time.perf_counter()
            await waiter.execute(DEQ, 0)
            floor.append((time.perf_counter() - committed) * 1000)

        # CPU of the waiting backend while nothing arrives
        call = asyncio.create_task(waiter.execute(DEQ, int(idle_seconds) + 5))
        await _until_sleeping(admin, pid)
        c0, t0 = _cpu_seconds(pid), time.perf_counter()
        await asyncio.sleep(idle_seconds)
        share = (_cpu_seconds(pid) - c0) / (time.perf_counter() - t0) * 100
        await enqueuer.execute(ENQ)
        await call
    finally:
        for c in (admin, waiter, enqueuer):
            await c.close()
    p50, p99 = statistics.median(woken), percentile(woken, 99)
    return {"benchmark": "5. SQL dequeue wait woken (ms p50)", "pgaq": round(p50, 2),
            "floor": round(statistics.median(floor), 2), "unit": "ms", "target": "p50 <= 20",
            "pass": p50 <= 20, "pgaq_p99_ms": round(p99, 2), "wait_cpu_percent": round(share, 3),
            "note": f"commit -> CALL returns, {n} wake-ups, p99 {p99:.1f} ms; waiting backend "
                    f"{share:.2f} % of a core over {idle_seconds:g} s idle (target < 1 %); "
                    "floor: the same CALL with wait => 0 right after the commit"}


async def _until_registered(admin: asyncpg.Connection, qid: int) -> None:
    """The shared listening connection is registered as the queue's waiter."""
    while True:
        if await admin.fetchval("SELECT EXISTS (SELECT 1 FROM aq.waiters WHERE queue_id = $1)", qid):
            return
        await asyncio.sleep(0.001)


async def run_library(dsn: str, n: int = 60) -> dict[str, Any]:
    """Row 5b: commit -> Session.dequeue returns, the session polling only every 60 s (so
    the NOTIFY wakes it); floor: Session.dequeue with wait 0 right after the commit."""
    admin = await asyncpg.connect(dsn)
    waiter = await asyncpg.connect(dsn)
    enqueuer = await asyncpg.connect(dsn)
    try:
        await admin.execute(SETUP.replace("sqlwait", "libwait"))
        qid = await admin.fetchval("SELECT (aq.resolve_queue('libwait.q')).queue_id")
        s = Session(waiter, safety_poll=60)
        enq = ENQ.replace("sqlwait", "libwait")
        woken: list[float] = []
        floor: list[float] = []
        for _ in range(n):
            call = asyncio.create_task(s.dequeue("libwait.q", DequeueOptions(wait=30)))
            await _until_registered(admin, qid)
            await asyncio.sleep(0.002)  # past the waiter's first look, into its wait
            await enqueuer.execute(enq)
            committed = time.perf_counter()
            assert await call
            woken.append((time.perf_counter() - committed) * 1000)
            await enqueuer.execute(enq)
            committed = time.perf_counter()
            assert await s.dequeue("libwait.q", DequeueOptions(wait=0))
            floor.append((time.perf_counter() - committed) * 1000)
        await waiting.shutdown()
    finally:
        for c in (admin, waiter, enqueuer):
            await c.close()
    p50, p99 = statistics.median(woken), percentile(woken, 99)
    return {"benchmark": "5b. library dequeue wait woken (ms p50)", "pgaq": round(p50, 2),
            "floor": round(statistics.median(floor), 2), "unit": "ms", "target": "p50 <= 20",
            "pass": p50 <= 20, "pgaq_p99_ms": round(p99, 2),
            "note": f"commit -> Session.dequeue returns, no Listener wired (the process's shared "
                    f"one), {n} wake-ups, p99 {p99:.1f} ms; floor: dequeue with wait 0 right "
                    "after the commit"}
