"""pgaq as a system under test of the public PostgreSQL job-queue harness
(postgresql-job-queue-benchmarking): one long-running process speaking its JSONL protocol.

Contract (the harness's CONTRIBUTING_ADAPTERS.md, "Runtime contract"):
- env in: DATABASE_URL, SCENARIO, PRODUCER_MODE (fixed | depth-target), PRODUCER_RATE,
  PRODUCER_BATCH_MAX, PRODUCER_BATCH_MS, PRODUCER_PACING (harness: `ENQUEUE <n>` lines
  on stdin; adapter: our own wall-clock-credited loop), PRODUCER_RATE_CONTROL_FILE,
  TARGET_DEPTH, WORKER_COUNT, JOB_PAYLOAD_BYTES, JOB_WORK_MS, SAMPLE_EVERY_S,
  BENCH_INSTANCE_ID;
- stdout: one `descriptor` record at start, then every SAMPLE_EVERY_S (aligned to the wall
  clock) one `adapter` record per metric: claim_p50/p95/p99_ms (enqueue -> a worker holds
  the job, rolling 30 s, bounded memory), enqueue_rate, completion_rate, queue_depth;
- stderr: logs; SIGTERM: stop, flush, exit 0 within 5 s.

pgaq is driven through its documented Python API only (README "From Python"):
- schema: `pgaq.migrate.migrate` (what `pgaq migrate` runs), then the queue made with
  `dbms_aqadm.create_queue_table` / `create_queue` / `start_queue`, as an Oracle script
  would (RAW payload, single consumer);
- producer: `Session.enqueue_array` of up to PRODUCER_BATCH_MAX jobs, one transaction a
  call (the documented bulk path);
- workers: WORKER_COUNT sessions, each on its own connection, each job acknowledged on
  its own: `begin()`, `dequeue(queue, DequeueOptions(wait=1))` (REMOVE, ON_COMMIT), the
  job's work (JOB_WORK_MS), `commit()`. A worker that dies, or whose connection is
  terminated, before the commit leaves the job in the queue for another worker: the
  harness's job-queue contract (per-job acknowledgement, redelivered after a crash).
  PGAQ_DEQUEUE_BATCH=B (default 1) takes up to B jobs a transaction instead (batch
  acknowledgement, the contract the harness runs pgque in);
- queue depth: READY in `gv$aq` for the queue.

Faults: any error on a connection closes it, and the worker or producer connects again at
once; only failing to connect backs off (0.1 s doubling to 2 s, reset by a connection
made). A producer batch that failed is not retried (the offered load it stood for is
dropped and counted in the log, never counted as enqueued).

High load: the harness's high-load phase writes the raised rate to
PRODUCER_RATE_CONTROL_FILE. Under harness pacing the tokens still come at the base rate,
so this adapter scales each token by control-file rate / PRODUCER_RATE (carrying the
fraction), so a high-load phase offers 1.5x in either pacing mode.

PGAQ_ADAPTER_WAIT_OUTSIDE_TX=1: a worker waits for a job outside any transaction
(`Session.listen([Agent(None, queue)], wait=1)`), then takes it in one (`begin()`,
`dequeue(wait=0)`, work, `commit()`), so it holds a transaction only while it holds a job.

PGAQ_ADAPTER_AUDIT=1 records, for an exact count of lost and duplicated jobs across
replicas and killed processes, each job's id in `pgaq_bench.audit_enqueued` in the
enqueue's transaction and in `pgaq_bench.audit_acked` in its acknowledgement's transaction
(one more INSERT per transaction; off by default, so the measured work is pgaq's alone).
A job's id is "<instance>.<pid>:<seq>", unique across restarts.

PGAQ_ADAPTER_TRACE=1 also writes `{"kind":"pgaq_enqueued","ids":[...]}` after each enqueue
commit and `{"kind":"pgaq_acked","ids":[...]}` after each acknowledgement commit (ids:
"<instance>.<pid>:<seq>"); the harness ignores these kinds, the test of this adapter counts them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import asyncpg
from pgaq import Agent, DequeueOptions, Session, waiting
from pgaq.migrate import migrate
from pgaq.monitor import serve

SYSTEM = "pgaq"
OWNER = "pgaq_bench"
QUEUE_TABLE = f"{OWNER}.jobs_qt"
QUEUE = f"{OWNER}.jobs_q"
EVENT_TABLES = [QUEUE_TABLE]
SETUP_LOCK = 0x70676171  # advisory lock: replicas starting together create the queue once
SETUP_SQL = f"""
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = '{OWNER}') THEN
    CREATE SCHEMA {OWNER};
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = '{OWNER}' AND c.relname = 'jobs_qt') THEN
    CALL dbms_aqadm.create_queue_table(queue_table => '{QUEUE_TABLE}',
                                       queue_payload_type => 'RAW');
    CALL dbms_aqadm.create_queue(queue_name => '{QUEUE}', queue_table => '{QUEUE_TABLE}');
  END IF;
  CALL dbms_aqadm.start_queue(queue_name => '{QUEUE}');
END $$;
"""
AUDIT_SQL = f"""
CREATE TABLE IF NOT EXISTS {OWNER}.audit_enqueued (job text NOT NULL);
CREATE TABLE IF NOT EXISTS {OWNER}.audit_acked (job text NOT NULL);
"""
AUDIT_ENQUEUED = f"INSERT INTO {OWNER}.audit_enqueued SELECT unnest($1::text[])"
AUDIT_ACKED = f"INSERT INTO {OWNER}.audit_acked SELECT unnest($1::text[])"
DEPTH_SQL = "SELECT coalesce(sum(ready), 0) FROM gv$aq WHERE queue_schema = $1 AND queue_name = $2"
WINDOW_S = 30
BACKLOG_S = 10.0  # seconds of offered load the producer may fall behind before dropping


def env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, "") or default)
    except ValueError:
        return default


def env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


@dataclass(frozen=True)
class Config:
    dsn: str
    scenario: str
    producer_mode: str
    producer_rate: int
    batch_max: int
    batch_ms: int
    pacing: str
    control_file: str | None
    target_depth: int
    workers: int
    payload_bytes: int
    work_ms: float
    sample_every_s: int
    instance: int
    dequeue_batch: int
    trace: bool
    audit: bool
    wait_outside: bool

    @classmethod
    def from_env(cls) -> Config:
        dsn = os.environ.get("DATABASE_URL", "")
        if not dsn:
            raise SystemExit("DATABASE_URL is not set")
        return cls(
            dsn=dsn,
            scenario=os.environ.get("SCENARIO", "long_horizon"),
            producer_mode=os.environ.get("PRODUCER_MODE", "fixed"),
            producer_rate=env_int("PRODUCER_RATE", 800),
            batch_max=max(1, env_int("PRODUCER_BATCH_MAX", 128)),
            batch_ms=max(1, env_int("PRODUCER_BATCH_MS", 25)),
            pacing=os.environ.get("PRODUCER_PACING", "adapter"),
            control_file=os.environ.get("PRODUCER_RATE_CONTROL_FILE") or None,
            target_depth=env_int("TARGET_DEPTH", 1000),
            workers=max(1, env_int("WORKER_COUNT", 32)),
            payload_bytes=max(32, env_int("JOB_PAYLOAD_BYTES", 256)),
            work_ms=max(0.0, env_float("JOB_WORK_MS", 1.0)),
            sample_every_s=max(1, env_int("SAMPLE_EVERY_S", 5)),
            instance=env_int("BENCH_INSTANCE_ID", 0),
            dequeue_batch=max(1, env_int("PGAQ_DEQUEUE_BATCH", 1)),
            trace=os.environ.get("PGAQ_ADAPTER_TRACE", "") not in ("", "0"),
            audit=os.environ.get("PGAQ_ADAPTER_AUDIT", "") not in ("", "0"),
            wait_outside=os.environ.get("PGAQ_ADAPTER_WAIT_OUTSIDE_TX", "") not in ("", "0"),
        )


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def emit(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def log(text: str) -> None:
    print(f"[pgaq-adapter] {text}", file=sys.stderr, flush=True)


class LatencyWindow:
    """Rolling percentiles over the last WINDOW_S seconds in bounded memory: one histogram
    per second, log-spaced buckets 0.5 % wide (better than 3 significant figures'
    HDR resolution needs for a p99), so memory is WINDOW_S x the buckets in use."""

    RATIO = math.log(1.005)

    def __init__(self, window_s: int = WINDOW_S) -> None:
        self.window_s = window_s
        self.slots: dict[int, dict[int, int]] = {}

    def record(self, ms: float, now: float | None = None) -> None:
        second = int(now if now is not None else time.monotonic())
        slot = self.slots.get(second)
        if slot is None:
            slot = self.slots[second] = {}
            for old in [s for s in self.slots if s <= second - self.window_s]:
                del self.slots[old]
        b = int(math.log(max(ms, 0.001) * 1000.0) / self.RATIO)  # of microseconds
        slot[b] = slot.get(b, 0) + 1

    def percentiles(self, qs: tuple[float, ...], now: float | None = None) -> list[float]:
        second = int(now if now is not None else time.monotonic())
        merged: dict[int, int] = {}
        for s, slot in self.slots.items():
            if s > second - self.window_s:
                for b, n in slot.items():
                    merged[b] = merged.get(b, 0) + n
        total = sum(merged.values())
        if total == 0:
            return [0.0 for _ in qs]
        out: list[float] = []
        ordered = sorted(merged.items())
        for q in qs:
            rank, seen = q * total, 0
            value = ordered[-1][0]
            for b, n in ordered:
                seen += n
                if seen >= rank:
                    value = b
                    break
            out.append(math.exp((value + 0.5) * self.RATIO) / 1000.0)
        return out


@dataclass
class State:
    cfg: Config
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    enqueued: int = 0
    completed: int = 0
    dropped: int = 0  # offered jobs whose enqueue failed (not counted as enqueued)
    depth: int = 0
    seq: int = 0
    target_rate: float = 0.0
    latency: LatencyWindow = field(default_factory=LatencyWindow)
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, where: str, exc: BaseException) -> None:
        n = self.errors.get(where, 0) + 1
        self.errors[where] = n
        if n <= 3 or n % 100 == 0:
            log(f"{where}: {type(exc).__name__}: {exc} (#{n})")


async def connect(dsn: str) -> asyncpg.Connection:
    return await asyncpg.connect(dsn, timeout=10, command_timeout=60)


async def close_quietly(conn: asyncpg.Connection | None) -> None:
    if conn is None:
        return
    with contextlib.suppress(Exception):
        await asyncio.wait_for(conn.close(), 2)
    if not conn.is_closed():
        conn.terminate()


async def sleep_or_stop(st: State, seconds: float) -> None:
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(st.stop.wait(), seconds)


async def setup(cfg: Config) -> str:
    """Migrate the database (pgaq's own install path) and make the queue once."""
    conn = await connect(cfg.dsn)
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", SETUP_LOCK)
        try:
            await migrate(conn)
            await conn.execute(SETUP_SQL)
            if cfg.audit:
                await conn.execute(AUDIT_SQL)
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", SETUP_LOCK)
        return str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()


def pgaq_version() -> str:
    try:
        from importlib.metadata import version

        return version("pgaq")
    except Exception:
        return "unknown"


def job_id(cfg: Config, seq: int) -> str:
    return f"{cfg.instance}.{os.getpid()}:{seq}"


def make_payload(cfg: Config, seq: int) -> bytes:
    head = f"{job_id(cfg, seq)}:{time.time_ns()}:".encode()
    return head + b"x" * max(0, cfg.payload_bytes - len(head))


def parse_payload(payload: Any) -> tuple[str, int] | None:
    """("<instance>.<pid>:<seq>", enqueue time in ns) from a job's payload."""
    if not isinstance(payload, (bytes, bytearray, memoryview)):
        return None
    parts = bytes(payload[:80]).split(b":", 3)
    if len(parts) < 4:
        return None
    try:
        return f"{parts[0].decode()}:{int(parts[1])}", int(parts[2])
    except (ValueError, UnicodeDecodeError):
        return None


def read_rate(cfg: Config) -> float:
    if cfg.control_file:
        try:
            with open(cfg.control_file) as fh:
                return float(fh.read().strip() or cfg.producer_rate)
        except (OSError, ValueError):
            pass
    return float(cfg.producer_rate)


class Backlog:
    """Jobs the harness's pacer has offered and the producer has not enqueued yet. The
    producer takes up to PRODUCER_BATCH_MAX of them a call, so a producer behind the
    pacer (each commit slower than a token's period) catches up in bigger calls instead of
    one call per token; more than BACKLOG_S seconds of offered load behind (its database
    away), the excess is dropped and counted."""

    def __init__(self, st: State) -> None:
        self.st = st
        self.jobs = 0.0
        self.ready = asyncio.Event()

    def offer(self, n: float) -> None:
        self.jobs += n
        cap = max(float(self.st.cfg.batch_max), BACKLOG_S * read_rate(self.st.cfg))
        if self.jobs > cap:
            self.st.dropped += int(self.jobs - cap)
            self.jobs = cap
        if self.jobs >= 1:
            self.ready.set()

    async def take(self, most: int, timeout: float) -> int:
        if self.jobs < 1:
            self.ready.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.ready.wait(), timeout)
        n = min(int(self.jobs), most)
        self.jobs -= n
        return n


async def stdin_tokens(st: State, backlog: Backlog) -> None:
    """`ENQUEUE <n>` lines from the harness's pacer. Scaled by the control file's rate
    over the base rate (the high-load phase)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while not st.stop.is_set():
        raw = await reader.readline()
        if not raw:
            return
        line = raw.decode(errors="replace").strip()
        if not line.startswith("ENQUEUE "):
            continue
        try:
            n = int(line.split(" ", 1)[1])
        except ValueError:
            continue
        base = float(st.cfg.producer_rate)
        backlog.offer(n * (read_rate(st.cfg) / base if base > 0 else 1.0))


async def producer(st: State) -> None:
    cfg = st.cfg
    backlog = Backlog(st)
    reader: asyncio.Task[None] | None = None
    harness_paced = cfg.pacing == "harness" and cfg.producer_mode == "fixed"
    if harness_paced:
        reader = asyncio.create_task(stdin_tokens(st, backlog), name="stdin")
    conn: asyncpg.Connection | None = None
    session: Session | None = None
    backoff = 0.1
    credit, last = 0.0, time.monotonic()
    try:
        while not st.stop.is_set():
            if harness_paced:
                st.target_rate = read_rate(cfg)
                n = await backlog.take(cfg.batch_max, 0.5)
                if n == 0:
                    continue
            elif cfg.producer_mode == "depth-target":
                st.target_rate = 0.0
                n = min(cfg.batch_max, max(0, cfg.target_depth - st.depth))
                if n == 0:
                    await sleep_or_stop(st, 0.05)
                    continue
            else:  # adapter-paced fixed rate: credit on real elapsed time
                rate = st.target_rate = read_rate(cfg)
                await sleep_or_stop(st, cfg.batch_ms / 1000.0)
                now = time.monotonic()
                credit += rate * (now - last)
                last = now
                if credit > max(cfg.batch_max, BACKLOG_S * rate):  # as Backlog.offer
                    cap = max(cfg.batch_max, BACKLOG_S * rate)
                    st.dropped += int(credit - cap)
                    credit = cap
                n = min(int(credit), cfg.batch_max)
                if n <= 0:
                    continue
                credit -= n
            first = st.seq
            st.seq += n
            try:
                if conn is None or conn.is_closed():
                    conn = await connect(cfg.dsn)
                    session = Session(conn)
                    backoff = 0.0
                assert session is not None
                if cfg.audit:
                    assert conn is not None
                    await session.begin()
                    await session.enqueue_array(
                        QUEUE, [(make_payload(cfg, first + i), None) for i in range(n)])
                    await conn.execute(AUDIT_ENQUEUED, [job_id(cfg, first + i) for i in range(n)])
                    await session.commit()
                else:
                    await session.enqueue_array(
                        QUEUE, [(make_payload(cfg, first + i), None) for i in range(n)])
            except Exception as exc:
                st.error("enqueue", exc)
                st.dropped += n
                await close_quietly(conn)
                conn = session = None
                await sleep_or_stop(st, backoff)
                backoff = min(2.0, max(0.1, backoff * 2))
                continue
            st.enqueued += n
            if cfg.trace:
                emit({"kind": "pgaq_enqueued",
                      "ids": [job_id(cfg, first + i) for i in range(n)]})
    finally:
        if reader is not None:
            reader.cancel()
        await close_quietly(conn)


async def worker(st: State, idx: int) -> None:
    cfg = st.cfg
    options = DequeueOptions(wait=0.0 if cfg.wait_outside else 1.0,
                             batch_size=cfg.dequeue_batch)
    agents = [Agent(None, QUEUE)]
    conn: asyncpg.Connection | None = None
    session: Session | None = None
    backoff = 0.1
    work_s = cfg.work_ms / 1000.0
    try:
        while not st.stop.is_set():
            try:
                if conn is None or conn.is_closed():
                    conn = await connect(cfg.dsn)
                    session = Session(conn)
                    backoff = 0.0  # connected: a lost connection is retried at once
                assert session is not None
                if cfg.wait_outside and not await session.listen(agents, wait=1.0):
                    continue  # nothing READY within 1 s: wait again, no transaction held
                await session.begin()
                jobs = await session.dequeue(QUEUE, options)
                if not jobs:
                    await session.commit()
                    continue
                held = time.time_ns()
                ids: list[str] = []
                for job in jobs:
                    parsed = parse_payload(job.payload)
                    if parsed is not None:
                        ids.append(parsed[0])
                        st.latency.record((held - parsed[1]) / 1e6)
                    if work_s:
                        await asyncio.sleep(work_s)  # the job's work
                if cfg.audit:
                    await conn.execute(AUDIT_ACKED, ids)
                await session.commit()  # the acknowledgement
            except Exception as exc:
                st.error("worker", exc)
                await close_quietly(conn)
                conn = session = None
                await sleep_or_stop(st, backoff)
                backoff = min(2.0, max(0.1, backoff * 2))
                continue
            st.completed += len(jobs)
            if cfg.trace:
                emit({"kind": "pgaq_acked", "ids": ids})
    finally:
        await close_quietly(conn)


async def depth_poller(st: State) -> None:
    conn: asyncpg.Connection | None = None
    schema, name = QUEUE.split(".")
    try:
        while not st.stop.is_set():
            try:
                if conn is None or conn.is_closed():
                    conn = await connect(st.cfg.dsn)
                st.depth = int(await conn.fetchval(DEPTH_SQL, schema, name))
            except Exception as exc:
                st.error("depth", exc)
                await close_quietly(conn)
                conn = None
            await sleep_or_stop(st, 0.5 if st.cfg.producer_mode == "depth-target" else 1.0)
    finally:
        await close_quietly(conn)


def sample(st: State, dt: float, enq: int, done: int) -> None:
    p50, p95, p99 = st.latency.percentiles((0.50, 0.95, 0.99))
    t = now_iso()
    every = float(st.cfg.sample_every_s)
    metrics: list[tuple[str, float, float]] = [
        ("claim_p50_ms", p50, float(WINDOW_S)),
        ("claim_p95_ms", p95, float(WINDOW_S)),
        ("claim_p99_ms", p99, float(WINDOW_S)),
        ("enqueue_rate", enq / dt, every),
        ("completion_rate", done / dt, every),
        ("producer_target_rate", st.target_rate, 0.0),
    ]
    if st.cfg.instance == 0:  # a global observation: one replica reports it
        metrics.append(("queue_depth", float(st.depth), 0.0))
    for metric, value, window in metrics:
        emit({"t": t, "system": SYSTEM, "kind": "adapter", "subject_kind": "adapter",
              "subject": "", "metric": metric, "value": round(value, 3), "window_s": window,
              "instance_id": st.cfg.instance})  # the harness sums replicas by this


async def sampler(st: State) -> None:
    every = st.cfg.sample_every_s
    # counted from the start: jobs done before the first aligned tick are in its sample
    last, enq, done = time.monotonic(), st.enqueued, st.completed
    await sleep_or_stop(st, every - (time.time() % every))  # align to the wall clock
    while True:
        stopping = st.stop.is_set()
        now = time.monotonic()
        if now - last >= 0.5 or stopping:  # a wake-up too soon after the last sample (a
            # late one's alignment) leaves its counts to the next: none is dropped
            sample(st, max(now - last, 0.001), st.enqueued - enq, st.completed - done)
            last, enq, done = now, st.enqueued, st.completed
        if stopping:
            return
        await sleep_or_stop(st, every - (time.time() % every))


async def queue_monitor(st: State) -> None:
    """pgaq's queue monitor beside the clients, as a deployment runs it (the monitor
    service): it ends delays and retry delays and raises the scan floors that keep
    dequeues fast while a transaction pins xmin. Started again after the database comes
    back (the chaos scenarios restart it)."""
    while not st.stop.is_set():
        try:
            await serve(st.cfg.dsn, st.stop, application_name="pgaq-bench-monitor")
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
            st.error("monitor", exc)
            await sleep_or_stop(st, 1.0)  # the database is away: look again in a second


async def run(cfg: Config) -> int:
    st = State(cfg)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, st.stop.set)
    server_version = await setup(cfg)
    emit({"kind": "descriptor", "system": SYSTEM, "event_tables": EVENT_TABLES,
          "event_indexes": [], "extensions": [], "version": pgaq_version(),
          "schema_version": server_version, "db_name": cfg.dsn.rsplit("/", 1)[-1].split("?")[0],
          "started_at": now_iso(), "instance_id": cfg.instance,
          "consume": f"REMOVE + commit, {cfg.dequeue_batch} job(s) a transaction"})
    log(f"instance {cfg.instance}: {cfg.workers} workers, rate {cfg.producer_rate}/s "
        f"({cfg.producer_mode}, pacing {cfg.pacing}), batch {cfg.dequeue_batch}")
    tasks: list[asyncio.Task[None]] = [
        asyncio.create_task(producer(st), name="producer"),
        asyncio.create_task(depth_poller(st), name="depth"),
        *(asyncio.create_task(worker(st, i), name=f"worker-{i}") for i in range(cfg.workers)),
        asyncio.create_task(queue_monitor(st), name="monitor"),
    ]
    sampling = asyncio.create_task(sampler(st), name="sampler")
    await st.stop.wait()
    # SIGTERM: workers finish the job in hand (or give up after 3 s; an unacknowledged job
    # stays queued), then the last sample is written
    _, pending = await asyncio.wait(tasks, timeout=3.0)
    for t in pending:
        t.cancel()
    if pending:
        await asyncio.wait(pending, timeout=0.5)
    await asyncio.wait([sampling], timeout=0.5)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(waiting.shutdown(), 0.5)
    log(f"stopped: enqueued {st.enqueued}, completed {st.completed}, dropped {st.dropped}, "
        f"errors {st.errors}")
    return 0


def main() -> int:
    cfg = Config.from_env()
    return asyncio.run(run(cfg))


if __name__ == "__main__":
    raise SystemExit(main())
