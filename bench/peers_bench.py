"""pgaq beside its peers from PyPI (procrastinate, PgQueuer) and the raw-SQL floor.

Every contender does the same job on the same cluster in the same run: enqueue N small
messages one per transaction from `concurrency` clients, then consume them all with
`concurrency` workers, each message removed (or, for the peers, finished and deleted)
as it is consumed. Rates are N / wall time of each phase.

How each peer is driven (from its own documentation and source; defaults unless said):
- procrastinate: its psycopg connector (a psycopg_pool of concurrency + 2 connections:
  the worker's job slots, its heartbeat, the deferring clients), `Task.defer_async` per
  message; one worker `run_worker_async(concurrency=C, wait=False)` with LISTEN/NOTIFY
  on (the default) and `delete_jobs="always"` so each finished job is deleted as pgaq's
  REMOVE deletes (the default keeps finished rows). Its worker fetches jobs one at a time
  (`procrastinate_fetch_job`, a transaction each) and runs up to C of them at once, so
  its consume rate is bounded by one fetch's round trip and commit.
- PgQueuer: `Queries.enqueue` per message over an asyncpg connection per client; C
  `QueueManager`s, each on its own asyncpg connection (the driver serialises one
  connection), with the default `batch_size` (10); each finished job is moved from the
  queue table to its log by PgQueuer's own buffered bookkeeping, flushed before the
  phase's clock stops. Workers (continuous mode, default dequeue timeout and heartbeat)
  are told to shut down once all N handlers ran.
The enqueue clients send one message per call and transaction (each peer's plain path;
both also have a batch path, as pgaq has enqueue_array, not measured here).
Each peer's schema lives in its own database of the bench cluster.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
from pgaq.engine import Session

from .report import Row

PAYLOAD = b"x" * 100
PEERS = ("procrastinate", "PgQueuer")

SCHEMA = """
CREATE SCHEMA peers;
CREATE TABLE peers.floor (id bigserial PRIMARY KEY, q_name text NOT NULL,
    priority integer NOT NULL, enq_time timestamptz NOT NULL DEFAULT now(), payload bytea);
CALL dbms_aqadm.create_queue_table('peers.qt', 'RAW');
CALL dbms_aqadm.create_queue('peers.q', 'peers.qt');
CALL dbms_aqadm.start_queue('peers.q');
"""
FLOOR_INSERT = "INSERT INTO peers.floor (q_name, priority, payload) VALUES ($1, $2, $3)"
FLOOR_DELETE = """DELETE FROM peers.floor WHERE id = (
    SELECT id FROM peers.floor ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING id"""


@dataclass
class Figures:
    """msg/s of one contender's two phases."""
    enqueue: float
    consume: float
    detail: dict[str, Any] = field(default_factory=dict)


def log(text: str) -> None:
    print(f"  [{time.strftime('%H:%M:%S')}] {text}", flush=True)


def _with_db(dsn: str, dbname: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit(parts._replace(path=f"/{dbname}"))


async def _spread(n: int, workers: int, one: Callable[[int], Awaitable[object]]) -> float:
    """Call one(w) n times in all over `workers` concurrent loops; returns the wall time."""
    left = [n]

    async def loop(w: int) -> None:
        while left[0] > 0:
            left[0] -= 1
            await one(w)

    started = time.perf_counter()
    await asyncio.gather(*(loop(w) for w in range(workers)))
    return time.perf_counter() - started


def _rate(n: int, seconds: float) -> float:
    return n / seconds if seconds else 0.0


async def _floor(dsn: str, n: int, c: int) -> Figures:
    conns = [await asyncpg.connect(dsn) for _ in range(c)]
    try:
        enq = await _spread(n, c, lambda w: conns[w].execute(FLOOR_INSERT, "q", 1, PAYLOAD))
        got = [0]

        async def drain(conn: asyncpg.Connection) -> None:
            while await conn.fetchval(FLOOR_DELETE) is not None:
                got[0] += 1

        started = time.perf_counter()
        await asyncio.gather(*(drain(x) for x in conns))
        deq = time.perf_counter() - started
    finally:
        for x in conns:
            await x.close()
    assert got[0] == n, f"floor consumed {got[0]} of {n}"
    return Figures(_rate(n, enq), _rate(n, deq))


async def _pgaq(dsn: str, n: int, c: int) -> Figures:
    conns = [await asyncpg.connect(dsn) for _ in range(c)]
    sessions = [Session(x) for x in conns]
    try:
        enq = await _spread(n, c, lambda w: sessions[w].enqueue("peers.q", PAYLOAD))
        got = [0]

        async def drain(s: Session) -> None:
            while k := len(await s.dequeue("peers.q")):
                got[0] += k

        started = time.perf_counter()
        await asyncio.gather(*(drain(s) for s in sessions))
        deq = time.perf_counter() - started
    finally:
        for x in conns:
            await x.close()
    assert got[0] == n, f"pgaq consumed {got[0]} of {n}"
    return Figures(_rate(n, enq), _rate(n, deq))


async def _procrastinate(dsn: str, n: int, c: int) -> Figures:
    import procrastinate

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(
        conninfo=dsn, min_size=c, max_size=c + 2))
    done = [0]

    @app.task(name="bench", queue="bench")
    async def handle(payload: str) -> None:
        done[0] += 1

    text = PAYLOAD.decode()
    async with app.open_async():
        await app.schema_manager.apply_schema_async()
        enq = await _spread(n, c, lambda w: handle.defer_async(payload=text))
        started = time.perf_counter()
        await app.run_worker_async(queues=["bench"], concurrency=c, wait=False,
                                   delete_jobs="always", install_signal_handlers=False)
        deq = time.perf_counter() - started
    check = await asyncpg.connect(dsn)
    try:
        left = await check.fetchval("SELECT count(*) FROM procrastinate_jobs")
    finally:
        await check.close()
    assert done[0] == n and left == 0, f"procrastinate ran {done[0]} of {n}, {left} rows left"
    return Figures(_rate(n, enq), _rate(n, deq),
                   {"worker": {"concurrency": c, "wait": False, "delete_jobs": "always",
                               "listen_notify": True, "pool": [c, c + 2]}})


async def _pgqueuer(dsn: str, n: int, c: int) -> Figures:
    from pgqueuer import AsyncpgDriver, QueueManager
    from pgqueuer.models import Job
    from pgqueuer.queries import Queries

    admin = await asyncpg.connect(dsn)
    try:
        await Queries(AsyncpgDriver(admin)).install()
    finally:
        await admin.close()
    conns = [await asyncpg.connect(dsn) for _ in range(c)]
    try:
        clients = [Queries(AsyncpgDriver(x)) for x in conns]
        enq = await _spread(n, c, lambda w: clients[w].enqueue("bench", PAYLOAD))
        managers = [QueueManager(Queries(AsyncpgDriver(x))) for x in conns]
        done = [0]

        def register(qm: QueueManager) -> None:
            @qm.entrypoint("bench")
            async def handle(job: Job) -> None:
                done[0] += 1
                if done[0] >= n:
                    for m in managers:
                        m.shutdown.set()

        for qm in managers:
            register(qm)
        started = time.perf_counter()
        await asyncio.gather(*(qm.run() for qm in managers))
        deq = time.perf_counter() - started
        left = await conns[0].fetchval("SELECT count(*) FROM pgqueuer")
    finally:
        for x in conns:
            await x.close()
    assert done[0] == n and left == 0, f"PgQueuer ran {done[0]} of {n}, {left} rows left"
    return Figures(_rate(n, enq), _rate(n, deq),
                   {"worker": {"managers": c, "batch_size": 10, "mode": "continuous, stopped at N"}})


def _row(name: str, kind: str, ours: float, floor: float, peers: dict[str, float],
         note: str) -> Row:
    return {"benchmark": name, "pgaq": round(ours, 1), "floor": round(floor, 1), "unit": "msg/s",
            "ratio": round(ours / floor, 3) if floor else 0.0, "target": "-", "pass": True,
            "context": True, "compare_as": kind,
            "peers": {k: round(v, 1) for k, v in peers.items()}, "note": note}


def versions() -> dict[str, str]:
    out = {}
    for dist in ("procrastinate", "pgqueuer", "psycopg", "asyncpg"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


async def run(dsn: str, n: int, concurrency: int) -> tuple[list[Row], dict[str, Any]]:
    """The four contenders in turn, a CHECKPOINT before each; rows P1 (enqueue), P2 (consume)."""
    for name in ("procrastinate", "pgqueuer"):
        logging.getLogger(name).setLevel(logging.WARNING)
    admin = await asyncpg.connect(dsn)
    try:
        await admin.execute(SCHEMA)
        for db in ("bench_procrastinate", "bench_pgqueuer"):
            await admin.execute(f"CREATE DATABASE {db}")
        contenders: dict[str, Callable[[], Awaitable[Figures]]] = {
            "floor": lambda: _floor(dsn, n, concurrency),
            "pgaq": lambda: _pgaq(dsn, n, concurrency),
            "procrastinate": lambda: _procrastinate(_with_db(dsn, "bench_procrastinate"), n,
                                                    concurrency),
            "PgQueuer": lambda: _pgqueuer(_with_db(dsn, "bench_pgqueuer"), n, concurrency),
        }
        figs: dict[str, Figures] = {}
        errors: dict[str, str] = {}
        for name, go in contenders.items():
            await admin.execute("CHECKPOINT")
            try:
                figs[name] = await go()
                log(f"peers, {name}: enqueue {figs[name].enqueue:,.0f}/s, "
                    f"consume {figs[name].consume:,.0f}/s")
            except Exception as e:  # a peer failing is reported, not fatal to the report
                errors[name] = f"{type(e).__name__}: {e}"
                log(f"peers, {name} FAILED: {errors[name]}")
    finally:
        await admin.close()
    zero = Figures(0.0, 0.0)
    f, o = figs.get("floor", zero), figs.get("pgaq", zero)
    peers = {p: figs[p] for p in PEERS if p in figs}
    failed = f"; FAILED: {', '.join(errors)}" if errors else ""
    rows = [
        _row(f"P1. enqueue {n:,} msgs, 1/txn, {concurrency} clients", "enqueue", o.enqueue,
             f.enqueue, {p: x.enqueue for p, x in peers.items()},
             "floor: INSERT 1 row/txn; peers: defer_async / Queries.enqueue" + failed),
        _row(f"P2. consume {n:,} msgs, {concurrency} workers", "consume", o.consume, f.consume,
             {p: x.consume for p, x in peers.items()},
             "pgaq: REMOVE + commit, 1 msg/txn; floor: DELETE .. SKIP LOCKED; peers: own "
             "workers, each job finished and deleted (procrastinate: 1 fetch + 1 finish txn "
             "per job; PgQueuer: picks 10/txn and logs completions in batches, its default)"
             + failed),
    ]
    facts = {"n": n, "concurrency": concurrency, "versions": versions(),
             "figures": {k: {"enqueue": round(v.enqueue, 1), "consume": round(v.consume, 1),
                             **v.detail} for k, v in figs.items()},
             "errors": errors}
    return rows, facts
