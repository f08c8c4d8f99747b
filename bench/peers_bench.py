"""pgaq beside its peers (procrastinate, PgQueuer, pgmq, PgQue, graphile-worker, pg-boss,
and RabbitMQ, the broker users pick instead) and the raw-SQL floor.

Every contender does the same job on the same cluster in the same run: enqueue N
messages with a 256-byte body (bytes where the peer takes bytes, a 256-character string
in its JSON where it takes JSON), one per call and transaction, from `concurrency` (4)
clients; then consume them all with `concurrency` workers, each message acknowledged
(removed, deleted, or marked finished, as the peer's acknowledgement does) as it is
consumed. Rates are N / wall time of each phase; a consume phase ends when the last
acknowledgement is committed. Each peer runs in a database of its own on the bench's
cluster, with a CHECKPOINT before each contender.

Two contracts, reported in separate rows, since a batch acknowledgement amortises what
a per-message one pays for every message:
- per-message acknowledgement (row P2): every message's success is recorded on its own
  and one message's failure neither holds back nor redelivers the others: pgaq's REMOVE
  (one message per transaction), procrastinate, PgQueuer, pgmq, graphile-worker,
  RabbitMQ (a basic.ack per message);
- batch acknowledgement (row P3): one acknowledgement settles a delivered batch as a
  unit, and a consumer that dies before it gets the whole batch again: pgaq's array
  dequeue (a REMOVE of up to B messages committed together), PgQue (ack(batch_id)),
  pg-boss (its batch handler's jobs completed, or failed, together).
B is BENCH_PEERS_BATCH (100); the floor of P3 is a DELETE of up to B rows per
transaction with SKIP LOCKED.

How each contender is driven (from its own documentation and source; defaults unless
said):
- pgaq, per message: a Session per asyncpg connection; `Session.enqueue` per message;
  consume: C sessions each `Session.dequeue(queue)` (REMOVE, ON_COMMIT: one message per
  transaction) until the queue is empty. Per-message acknowledgement.
- pgaq, array dequeue: the queue filled by `Session.enqueue_array` (not measured);
  C sessions each `Session.dequeue(queue, DequeueOptions(batch_size=B))` until empty:
  one plain-SQL REMOVE of up to B messages per call (route `removen`, single-consumer
  queue), one commit. Batch acknowledgement.
- procrastinate: its psycopg connector (a psycopg_pool of C + 2 connections: the
  worker's job slots, its heartbeat, the deferring clients), `Task.defer_async` per
  message; one worker `run_worker_async(concurrency=C, wait=False)` with LISTEN/NOTIFY
  on (the default) and `delete_jobs="always"` so each finished job is deleted as pgaq's
  REMOVE deletes (the default keeps finished rows). Its worker fetches jobs one at a time
  (`procrastinate_fetch_job`, a transaction each) and finishes each in a transaction of
  its own. Per-message acknowledgement.
- PgQueuer: `Queries.enqueue` per message over an asyncpg connection per client; C
  `QueueManager`s, each on its own asyncpg connection (the driver serialises one
  connection), with the default `batch_size` (10) and LISTEN/NOTIFY (its default); each
  finished job is moved from the queue table to its log by PgQueuer's own buffered
  bookkeeping (a job's status is its own; the writes are grouped), flushed before the
  phase's clock stops. Workers (continuous mode, default dequeue timeout and heartbeat)
  are told to shut down once all N handlers ran. Per-message acknowledgement.
- pgmq: its SQL-only install, the `pgmq.sql` that its PyPI client (`pgmq`, bench extra)
  ships (no compiled extension), run as one script; `pgmq.create(queue)`; `pgmq.send`
  per message; consume: C workers, each on its own asyncpg connection, loop
  `pgmq.read(queue, vt => 30, qty => B)` and delete each message read with its own
  `pgmq.delete(queue, msg_id)` (autocommit), pgmq's documented read-process-delete loop
  (the visibility timeout is per message). A read that returns nothing ends a worker
  (the queue was filled before; a production worker polls with `read_with_poll`).
  Per-message acknowledgement.
- graphile-worker (npm, bench/node/peer.js): `WorkerUtils.addJob` per job (a pg pool of
  C); consume: one `run({concurrency: C})` worker pool with LISTEN/NOTIFY (its default),
  each job taken by its own `get_job` and completed, which deletes it, by its own
  `complete_job`. Per-message acknowledgement.
- pg-boss (npm, bench/node/peer.js): `boss.send` per job; consume: C `boss.work`
  workers, `batchSize` B, `pollingIntervalSeconds` 0.5 (its minimum; pg-boss has no
  LISTEN), each handler given an array of B jobs that pg-boss completes together with one
  `complete(ids)` when the handler resolves (fails together when it throws). A pg-boss
  worker waits out its polling interval after every fetch, so batchSize 1 (per-message
  acknowledgement) would cap it at 2 jobs/s per worker: its throughput setting is the
  batch, and it is measured as a batch-acknowledgement peer. Completed jobs stay in
  pgboss.job (state 'completed') until its maintenance archives them.
- PgQue (pgque-py, bench extra): `pgque.create_queue`, one logical consumer with C
  cooperative subconsumers registered before the enqueue (`subscribe_subconsumer`);
  `PgqueClient.send` per message (autocommit); the ticker driven every 100 ms by the
  bench (`PgqueClient.ticker`; no pg_cron), as its docs allow, and `force_next_tick`
  after the enqueue (so the last events need not wait out the ticker's lag); consume: C
  `pgque.Consumer(subconsumer=...)` threads (LISTEN/NOTIFY wake-up, `receive_coop` of a
  whole batch, handlers, then `ack(batch_id)` in one transaction). Batch acknowledgement.
  PgQue's schema (`pgque.sql`, 0.2.0, the version pgque-py 0.2.2 speaks) ships in no
  registry package (pgque-py is the client only) but beside the repository, in
  ../shared/peers/pgque/pgque.sql: that file is installed unless BENCH_PGQUE_SQL names
  another; without either PgQue is reported missing.
- RabbitMQ (bench/rabbitmq_peer.py says how, and which durability each side gives): a
  private node of Debian's rabbitmq-server started on loopback for this contender
  (bench/rabbitmq_node.py), aio-pika from PyPI; a durable classic queue, persistent
  messages, one publisher confirm per message, C consumers acknowledging each message
  (prefetch 10). Per-message acknowledgement. Then its fan-out curve: a fanout exchange
  bound to 1, 10, 100, 1,000 durable queues (BENCH_RABBITMQ_FANOUT), BENCH_FANOUT_N
  (2,000) messages published (or as many as BENCH_FANOUT_SECONDS, 10, allow), one
  consumer draining one queue: rows "RabbitMQ fanout N queues" (compare_as
  fanout_publish_N and fanout_drain_N, so a pgaq row of that kind shows them beside its
  own figure).
A peer whose package or install is missing is reported as "missing" with the reason; one
that fails as "FAILED"; neither stops the others. The Node peers speak a JSON-lines
protocol on stdout (bench/node/peer.js says it); `make bench` installs them with
`npm ci --prefix bench/node` when node_modules is missing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
from pgaq import DequeueOptions, Session

from .report import Row

PAYLOAD = b"x" * 256
TEXT = PAYLOAD.decode()
NODE_DIR = Path(__file__).resolve().parent / "node"
# PgQue's SQL beside the repository (../shared/peers, reference material for the bench)
PGQUE_SQL = Path(__file__).resolve().parent.parent.parent / "shared" / "peers" / "pgque" / "pgque.sql"
PER_MESSAGE = ("procrastinate", "PgQueuer", "pgmq", "graphile-worker", "RabbitMQ")
BATCH_ACK = ("PgQue", "pg-boss")
PEERS = PER_MESSAGE + BATCH_ACK


def batch_size() -> int:
    return int(os.environ.get("BENCH_PEERS_BATCH", "100"))


SCHEMA = """
CREATE SCHEMA peers;
CREATE TABLE peers.floor (id bigserial PRIMARY KEY, q_name text NOT NULL,
    priority integer NOT NULL, enq_time timestamptz NOT NULL DEFAULT now(), payload bytea);
CALL dbms_aqadm.create_queue_table('peers.qt', 'RAW');
CALL dbms_aqadm.create_queue('peers.q', 'peers.qt');
CALL dbms_aqadm.start_queue('peers.q');
CALL dbms_aqadm.create_queue_table('peers.qat', 'RAW');
CALL dbms_aqadm.create_queue('peers.qa', 'peers.qat');
CALL dbms_aqadm.start_queue('peers.qa');
"""
FLOOR_INSERT = "INSERT INTO peers.floor (q_name, priority, payload) VALUES ($1, $2, $3)"
FLOOR_DELETE = """DELETE FROM peers.floor WHERE id = (
    SELECT id FROM peers.floor ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING id"""
FLOOR_FILL = """INSERT INTO peers.floor (q_name, priority, payload)
    SELECT 'q', 1, $2::bytea FROM generate_series(1, $1)"""
FLOOR_DELETE_N = """DELETE FROM peers.floor WHERE id IN (
    SELECT id FROM peers.floor ORDER BY id FOR UPDATE SKIP LOCKED LIMIT $1) RETURNING id"""


class Missing(Exception):
    """A peer that is not installed (its package, its npm modules, its SQL): reported as
    missing with this reason."""


@dataclass
class Figures:
    """msg/s of one contender's two phases (enqueue 0.0: not measured)."""
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


async def _floor_batch(dsn: str, n: int, c: int, batch: int) -> Figures:
    """The batch floor: N rows filled in one statement (not measured), drained by C
    connections each deleting up to `batch` rows per transaction."""
    conns = [await asyncpg.connect(dsn) for _ in range(c)]
    try:
        await conns[0].execute(FLOOR_FILL, n, PAYLOAD)
        got = [0]

        async def drain(conn: asyncpg.Connection) -> None:
            while k := len(await conn.fetch(FLOOR_DELETE_N, batch)):
                got[0] += k

        started = time.perf_counter()
        await asyncio.gather(*(drain(x) for x in conns))
        deq = time.perf_counter() - started
    finally:
        for x in conns:
            await x.close()
    assert got[0] == n, f"batch floor consumed {got[0]} of {n}"
    return Figures(0.0, _rate(n, deq), {"batch": batch})


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


async def _pgaq_array(dsn: str, n: int, c: int, batch: int) -> Figures:
    """pgaq's fast consume: the queue filled with enqueue_array (1,000 a call, not
    measured), then C sessions each dequeuing up to `batch` messages a call."""
    conns = [await asyncpg.connect(dsn) for _ in range(c)]
    sessions = [Session(x) for x in conns]
    try:
        for start in range(0, n, 1000):
            k = min(1000, n - start)
            await sessions[0].enqueue_array("peers.qa", [(PAYLOAD, None)] * k)
        got, calls = [0], [0]
        options = DequeueOptions(batch_size=batch)

        async def drain(s: Session) -> None:
            while k := len(await s.dequeue("peers.qa", options)):
                got[0] += k
                calls[0] += 1

        started = time.perf_counter()
        await asyncio.gather(*(drain(s) for s in sessions))
        deq = time.perf_counter() - started
        left = await conns[0].fetchval("SELECT count(*) FROM peers.qat")
    finally:
        for x in conns:
            await x.close()
    assert got[0] == n and left == 0, f"pgaq array dequeue took {got[0]} of {n}, {left} left"
    return Figures(0.0, _rate(n, deq), {"batch_size": batch, "calls": calls[0], "workers": c})


async def _procrastinate(dsn: str, n: int, c: int) -> Figures:
    try:
        import procrastinate
    except ImportError as e:
        raise Missing(f"procrastinate not installed ({e}): the bench extra installs it") from e

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(
        conninfo=dsn, min_size=c, max_size=c + 2))
    done = [0]

    @app.task(name="bench", queue="bench")
    async def handle(payload: str) -> None:
        done[0] += 1

    async with app.open_async():
        await app.schema_manager.apply_schema_async()
        enq = await _spread(n, c, lambda w: handle.defer_async(payload=TEXT))
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
    try:
        from pgqueuer import AsyncpgDriver, QueueManager
        from pgqueuer.models import Job
        from pgqueuer.queries import Queries
    except ImportError as e:
        raise Missing(f"pgqueuer not installed ({e}): the bench extra installs it") from e

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


def pgmq_install_sql() -> str:
    """The SQL-only pgmq install shipped in its PyPI client."""
    try:
        from pgmq.install import get_embedded_install_sql
    except ImportError as e:
        raise Missing(f"pgmq (PyPI) not installed ({e}): the bench extra installs it") from e
    return str(get_embedded_install_sql())


async def _pgmq(dsn: str, n: int, c: int, batch: int) -> Figures:
    install = pgmq_install_sql()
    conns = [await asyncpg.connect(dsn) for _ in range(c)]
    try:
        await conns[0].execute(install)
        version = await conns[0].fetchval(
            "SELECT extversion FROM pg_extension WHERE extname = 'pgmq'")
        await conns[0].execute("SELECT pgmq.create('bench')")
        body = json.dumps({"body": TEXT})
        enq = await _spread(n, c, lambda w: conns[w].fetchval(
            "SELECT pgmq.send('bench', $1::jsonb)", body))
        got, reads = [0], [0]

        async def work(conn: asyncpg.Connection) -> None:
            read = await conn.prepare("SELECT msg_id FROM pgmq.read('bench', 30, $1)")
            delete = await conn.prepare("SELECT pgmq.delete('bench', $1::bigint)")
            while rows := await read.fetch(batch):
                reads[0] += 1
                for r in rows:  # each message acknowledged on its own, as it is handled
                    if not await delete.fetchval(r["msg_id"]):
                        raise AssertionError(f"pgmq.delete found no message {r['msg_id']}")
                    got[0] += 1

        started = time.perf_counter()
        await asyncio.gather(*(work(x) for x in conns))
        deq = time.perf_counter() - started
        left = await conns[0].fetchval("SELECT count(*) FROM pgmq.q_bench")
    finally:
        for x in conns:
            await x.close()
    assert got[0] == n and left == 0, f"pgmq deleted {got[0]} of {n}, {left} rows left"
    return Figures(_rate(n, enq), _rate(n, deq),
                   {"worker": {"workers": c, "read_qty": batch, "vt_s": 30, "reads": reads[0],
                               "ack": "pgmq.delete per message"},
                    "sql": f"pgmq {pgmq_sql_version()} (SQL-only install from the pgmq PyPI package)"
                    if version is None else f"pgmq extension {version}"})


def pgmq_sql_version() -> str:
    try:
        from pgmq.install import get_embedded_sql_version
    except ImportError:
        return "?"
    return str(get_embedded_sql_version())


def _pgque_sync(dsn: str, n: int, c: int, sql_path: str) -> Figures:
    """PgQue through pgque-py (synchronous psycopg: run in a thread of its own)."""
    import pgque
    import psycopg

    queue, name = "bench", "bench_worker"
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(Path(sql_path).read_text().encode())
        admin.execute("SELECT pgque.create_queue(%s)", (queue,))
    setup = pgque.connect(dsn, autocommit=True)
    try:
        for i in range(c):
            setup.subscribe_subconsumer(queue, name, f"w{i}")
    finally:
        setup.close()

    stop_ticker = threading.Event()

    def ticker() -> None:
        t = pgque.connect(dsn, autocommit=True)
        try:
            while not stop_ticker.wait(0.1):
                t.ticker(queue)
        finally:
            t.close()

    ticking = threading.Thread(target=ticker, daemon=True)
    ticking.start()
    try:
        left, lock = [n], threading.Lock()

        def produce() -> None:
            client = pgque.connect(dsn, autocommit=True)
            try:
                while True:
                    with lock:
                        if left[0] <= 0:
                            return
                        left[0] -= 1
                    client.send(queue, {"body": TEXT})
            finally:
                client.close()

        started = time.perf_counter()
        producers = [threading.Thread(target=produce) for _ in range(c)]
        for t in producers:
            t.start()
        for t in producers:
            t.join()
        enq = time.perf_counter() - started
        with pgque.connect(dsn, autocommit=True) as client:
            client.force_next_tick(queue)  # the last events' tick without the max-lag wait

        handled = [0]
        counts = [0] * c
        ended = [0.0] * c
        consumers = [pgque.Consumer(dsn=dsn, queue=queue, name=name, subconsumer=f"w{i}",
                                    poll_interval=1) for i in range(c)]

        def handler(i: int) -> Callable[[Any], None]:
            def handle(msg: Any) -> None:
                with lock:
                    handled[0] += 1
                    counts[i] += 1
                    if handled[0] >= n:
                        for x in consumers:
                            x.stop()
            return handle

        def consume(i: int) -> None:
            consumers[i].start()  # returns after its batch in hand is acknowledged
            ended[i] = time.perf_counter()

        for i, x in enumerate(consumers):
            x.on("*")(handler(i))
        started = time.perf_counter()
        threads = [threading.Thread(target=consume, args=(i,)) for i in range(c)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        # the clock stops at the last acknowledgement: when the last consumer that took
        # messages returned (an idle one notices stop() up to 0.5 s later)
        deq = max((e for e, k in zip(ended, counts, strict=True) if k), default=started) - started
    finally:
        stop_ticker.set()
        ticking.join(timeout=5)
    assert handled[0] == n, f"PgQue handled {handled[0]} of {n}"
    return Figures(_rate(n, enq), _rate(n, deq),
                   {"worker": {"subconsumers": c, "ticker_every_s": 0.1,
                               "ack": "ack(batch_id) per received batch"}})


def pgque_sql() -> str:
    """The pgque.sql to install PgQue from (BENCH_PGQUE_SQL, else the one in
    ../shared/peers), or Missing with the reason."""
    try:
        import pgque  # noqa: F401
    except ImportError as e:
        raise Missing(f"pgque-py not installed ({e}): the bench extra installs it") from e
    sql_path = os.environ.get("BENCH_PGQUE_SQL", "") or str(PGQUE_SQL)
    if not os.path.isfile(sql_path):
        raise Missing(f"its schema, pgque.sql, ships in no registry package (pgque-py "
                      f"0.2.2 is the client only) and {sql_path} is not there; set "
                      "BENCH_PGQUE_SQL to a pgque.sql to measure it")
    return sql_path


async def _pgque(dsn: str, n: int, c: int) -> Figures:
    return await asyncio.to_thread(_pgque_sync, dsn, n, c, pgque_sql())


async def _rabbitmq(n: int, c: int) -> Figures:
    """RabbitMQ on a private node (bench/rabbitmq_peer.py): enqueue, consume and its
    fan-out curve, the last kept in detail["fanout"]."""
    from . import rabbitmq_peer

    try:
        rabbitmq_peer.needs()
    except rabbitmq_peer.NotAvailable as e:
        raise Missing(str(e)) from e
    figs = await rabbitmq_peer.measure(n, c, PAYLOAD)
    return Figures(figs.enqueue, figs.consume, figs.detail)


def node_missing(peer: str) -> str | None:
    """Why the Node peer `peer` cannot run here, or None."""
    if shutil.which("node") is None:
        return "node not on PATH (Node.js 20+ is needed)"
    package = {"pg-boss": "pg-boss", "graphile-worker": "graphile-worker"}[peer]
    if not (NODE_DIR / "node_modules" / package / "package.json").is_file():
        return f"npm package {package} not installed (npm ci --prefix bench/node)"
    return None


async def _node(peer: str, dsn: str, n: int, c: int, batch: int) -> Figures:
    """Run bench/node/peer.js for `peer` and read its JSON lines."""
    why = node_missing(peer)
    if why is not None:
        raise Missing(why)
    config = {"dsn": dsn, "n": n, "concurrency": c, "payload_bytes": len(PAYLOAD),
              "batch": batch}
    proc = await asyncio.create_subprocess_exec(
        "node", str(NODE_DIR / "peer.js"), peer, json.dumps(config), cwd=str(NODE_DIR),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    events: dict[str, dict[str, Any]] = {}
    assert proc.stdout is not None and proc.stderr is not None
    err_task = asyncio.create_task(proc.stderr.read())
    try:
        async with asyncio.timeout(120 + n / 20):  # a peer that hangs fails, not the bench
            async for raw in proc.stdout:
                line = raw.decode().strip()
                if not line.startswith("{"):
                    continue
                msg = json.loads(line)
                events[str(msg.get("event"))] = msg
            await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    stderr = (await err_task).decode(errors="replace").strip()
    if "error" in events:  # its stack trace went to stderr
        raise RuntimeError(f"{peer}: {events['error'].get('message')}")
    if proc.returncode != 0 or "done" not in events:
        raise RuntimeError(f"{peer} exited {proc.returncode} without finishing: {stderr[-300:]}")
    enq, con = events["enqueue"], events["consume"]
    if int(con["n"]) != n:
        raise AssertionError(f"{peer} consumed {con['n']} of {n}")
    ready = events.get("ready", {})
    return Figures(float(enq["rate"]), float(con["rate"]),
                   {"version": ready.get("version"), "driven": ready.get("driven"),
                    "enqueue_p50_ms": round(float(enq["p50_ms"]), 3),
                    "enqueue_p99_ms": round(float(enq["p99_ms"]), 3),
                    "consume": {k: v for k, v in con.items() if k != "event"}})


def peer_row(name: str, kind: str, ours: float, floor: float, peers: dict[str, float | str],
         note: str) -> Row:
    return {"benchmark": name, "pgaq": round(ours, 1), "floor": round(floor, 1), "unit": "msg/s",
            "ratio": round(ours / floor, 3) if floor else 0.0, "target": "-", "pass": True,
            "context": True, "compare_as": kind,
            "peers": {k: round(v, 1) if isinstance(v, float) else v for k, v in peers.items()},
            "note": note}


def rabbitmq_prefetch() -> int:
    from .rabbitmq_peer import PREFETCH

    return PREFETCH


def fanout_rows(fig: Figures | None, missing: str | None, error: str | None,
                clients: int) -> list[Row]:
    """RabbitMQ's fan-out curve, two rows per size: publish to a fanout exchange bound to
    N durable queues, and one consumer draining one of them. pgaq's own curve is the
    fanout suite's; rows of the same compare_as (fanout_publish_N, fanout_drain_N) show
    these figures beside theirs."""
    from .rabbitmq_peer import fanout_n, fanout_queues

    if fig is None:
        cell, why = ("missing", f"RabbitMQ missing: {missing}") if missing else \
            ("FAILED", f"RabbitMQ FAILED: {error}")
        curve: dict[int, dict[str, Any]] = {k: {"publish": cell, "drain_one": cell,
                                                "messages": fanout_n()}
                                            for k in fanout_queues()}
    else:
        curve, why = fig.detail.get("fanout", {}), ""
    rows: list[Row] = []
    for k, f in curve.items():
        m = f["messages"]
        for kind, label, value, note in (
                ("publish", f"publish {m:,} msgs, 1/confirm, {clients} clients", f["publish"],
                 "persistent, each publish awaits its confirm (after every bound queue's "
                 "fsync)"),
                ("drain", f"1 consumer drains 1 queue of {m:,} msgs", f["drain_one"],
                 f"manual ack per message, prefetch {rabbitmq_prefetch()}")):
            rows.append({"benchmark": f"RabbitMQ fanout {k:,} queues: {label}", "pgaq": "-",
                         "floor": "-", "unit": "msg/s", "target": "-", "pass": True,
                         "context": True, "compare_as": f"fanout_{kind}_{k}",
                         "peers": {"RabbitMQ": round(value, 1)
                                   if isinstance(value, float) else value},
                         "note": "; ".join(x for x in (
                             f"a durable fanout exchange bound to {k:,} durable classic "
                             f"queues; {note}; pgaq's figure: the fanout suite's row of "
                             f"this kind", why) if x)})
    return rows


def versions() -> dict[str, str]:
    out = {}
    for dist in ("procrastinate", "pgqueuer", "pgmq", "pgque-py", "psycopg", "asyncpg",
                 "aio-pika"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    for package in ("pg-boss", "graphile-worker"):
        try:
            meta = json.loads((NODE_DIR / "node_modules" / package / "package.json").read_text())
            out[package] = str(meta["version"])
        except (OSError, ValueError, KeyError):
            out[package] = "not installed"
    return out


def contenders(dsn: str, n: int, c: int, batch: int
               ) -> dict[str, tuple[str | None, Callable[[str], Awaitable[Figures]]]]:
    """Each contender: (its own database, or None for the bench's), its run(dsn)."""
    return {
        "floor": (None, lambda d: _floor(d, n, c)),
        "floor batch": (None, lambda d: _floor_batch(d, n, c, batch)),
        "pgaq": (None, lambda d: _pgaq(d, n, c)),
        "pgaq array": (None, lambda d: _pgaq_array(d, n, c, batch)),
        "procrastinate": ("bench_procrastinate", lambda d: _procrastinate(d, n, c)),
        "PgQueuer": ("bench_pgqueuer", lambda d: _pgqueuer(d, n, c)),
        "pgmq": ("bench_pgmq", lambda d: _pgmq(d, n, c, batch)),
        "graphile-worker": ("bench_graphile_worker",
                            lambda d: _node("graphile-worker", d, n, c, batch)),
        "PgQue": ("bench_pgque", lambda d: _pgque(d, n, c)),
        "pg-boss": ("bench_pg_boss", lambda d: _node("pg-boss", d, n, c, batch)),
        "RabbitMQ": (None, lambda d: _rabbitmq(n, c)),
    }


async def measure(dsn: str, n: int, concurrency: int, batch: int,
                  only: tuple[str, ...] | None = None
                  ) -> tuple[dict[str, Figures], dict[str, str], dict[str, str]]:
    """Run the contenders (or those named in `only`) in turn, a CHECKPOINT before each;
    returns their figures, the missing ones with the reason, the failed ones with the
    error. Peers' databases are created here; the bench schema must exist for the
    floors and pgaq."""
    for name in ("procrastinate", "pgqueuer", "pgmq"):
        logging.getLogger(name).setLevel(logging.WARNING)
    figs: dict[str, Figures] = {}
    missing: dict[str, str] = {}
    errors: dict[str, str] = {}
    admin = await asyncpg.connect(dsn)
    try:
        for name, (db, go) in contenders(dsn, n, concurrency, batch).items():
            if only is not None and name not in only:
                continue
            try:
                if db is not None:  # a fresh one: a test cluster may hold an earlier run's
                    await admin.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
                    await admin.execute(f"CREATE DATABASE {db}")
                await admin.execute("CHECKPOINT")
                figs[name] = await go(_with_db(dsn, db) if db else dsn)
                log(f"peers, {name}: enqueue {figs[name].enqueue:,.0f}/s, "
                    f"consume {figs[name].consume:,.0f}/s")
            except Missing as e:
                missing[name] = str(e)
                log(f"peers, {name} MISSING: {e}")
            except Exception as e:  # a peer failing is reported, not fatal to the report
                errors[name] = f"{type(e).__name__}: {e}"
                log(f"peers, {name} FAILED: {errors[name]}")
    finally:
        await admin.close()
    return figs, missing, errors


async def run(dsn: str, n: int, concurrency: int) -> tuple[list[Row], dict[str, Any]]:
    """All contenders; rows P1 (enqueue), P2 (consume, per-message acknowledgement),
    P3 (consume, batch acknowledgement)."""
    batch = batch_size()
    admin = await asyncpg.connect(dsn)
    try:
        await admin.execute(SCHEMA)
    finally:
        await admin.close()
    figs, missing, errors = await measure(dsn, n, concurrency, batch)
    zero = Figures(0.0, 0.0)
    f, o = figs.get("floor", zero), figs.get("pgaq", zero)
    fb, oa = figs.get("floor batch", zero), figs.get("pgaq array", zero)

    def cells(names: tuple[str, ...], kind: str) -> dict[str, float | str]:
        out: dict[str, float | str] = {}
        for p in names:
            if p in figs:
                out[p] = getattr(figs[p], kind)
            else:
                out[p] = "missing" if p in missing else "FAILED"
        return out

    def gone(names: tuple[str, ...]) -> str:
        parts = [f"{p} missing: {missing[p]}" for p in names if p in missing]
        parts += [f"{p} FAILED: {errors[p]}" for p in names if p in errors]
        return "; " + "; ".join(parts) if parts else ""

    mine = ("floor", "pgaq", "floor batch", "pgaq array")
    ours_failed = "; " + "; ".join(f"{k} FAILED: {v}" for k, v in errors.items()
                                   if k in mine) if any(k in errors for k in mine) else ""
    rows = [
        peer_row(f"P1. enqueue {n:,} msgs, 1/txn, {concurrency} clients", "enqueue", o.enqueue,
             f.enqueue, cells(PEERS, "enqueue"),
             "floor: INSERT 1 row/txn; peers: 1 job per call (defer_async, Queries.enqueue, "
             "pgmq.send, addJob, PgqueClient.send, boss.send; RabbitMQ: a persistent publish "
             "awaiting its confirm); durability: pgaq and the PostgreSQL peers return after "
             "COMMIT (fsync, synchronous_commit on), RabbitMQ confirms after its queue's "
             "fsync (grouped)" + gone(PEERS) + ours_failed),
        peer_row(f"P2. consume {n:,} msgs, {concurrency} workers, per-message ack", "consume",
             o.consume, f.consume, cells(PER_MESSAGE, "consume"),
             "per-message acknowledgement: pgaq REMOVE + commit, 1 msg/txn; floor DELETE .. "
             "SKIP LOCKED 1 row/txn; procrastinate: 1 fetch + 1 finish txn per job; "
             "PgQueuer: picks 10/txn, each job's completion logged (grouped writes); pgmq: "
             f"read qty {batch}, pgmq.delete per message; graphile-worker: get_job + "
             f"complete_job per job; RabbitMQ: basic.ack per message, prefetch "
             f"{rabbitmq_prefetch()}" + gone(PER_MESSAGE) + ours_failed),
        peer_row(f"P3. consume {n:,} msgs, {concurrency} workers, batch ack (batch {batch})",
             "consume_batch", oa.consume, fb.consume, cells(BATCH_ACK, "consume"),
             f"batch acknowledgement: pgaq Session.dequeue(batch_size={batch}), one REMOVE "
             f"statement + commit per batch; floor DELETE of up to {batch} rows/txn; PgQue: "
             f"receive_coop + ack(batch_id); pg-boss: batchSize {batch}, complete(ids) per "
             "batch, polling 0.5 s" + gone(BATCH_ACK) + ours_failed),
    ]
    rows += fanout_rows(figs.get("RabbitMQ"), missing.get("RabbitMQ"), errors.get("RabbitMQ"),
                        concurrency)
    facts = {"n": n, "concurrency": concurrency, "batch": batch, "versions": versions(),
             "contracts": {"per_message_ack": list(PER_MESSAGE), "batch_ack": list(BATCH_ACK)},
             "figures": {k: {"enqueue": round(v.enqueue, 1), "consume": round(v.consume, 1),
                             **v.detail} for k, v in figs.items()},
             "missing": missing, "errors": errors}
    return rows, facts
