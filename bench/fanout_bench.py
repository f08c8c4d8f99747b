"""Suite `fanout` (issue 35): costs as the audience grows, beside the issue's figures.

Two curves, every figure in ratio to the smallest audience of the same run:

Subscribers of a topic (a multi-consumer RAW queue table per audience size, subscribers
S1..Sn with no rules): publish (4 library sessions, `Session.enqueue`, 1 msg/txn, a time
box), one subscriber's drain (S1 dequeues REMOVE in batches of 100 until empty) and the
storage a message costs (2,000 messages enqueued into an empty table: the growth of every
table of the database, indexes and TOAST included, divided by the messages; the queue
table and its recipients table, `aq$_<table>_r`, are named in the note while they exist).
Only public APIs (dbms_aqadm, the engine's Session, catalog sizes), so the figures stay
comparable whatever the subscriber storage becomes.

Waiters on one queue: n consumers blocked in a wait, a stream of 1 msg/txn paced on an
absolute schedule (as row 8, pickup_bench), pickup latency from the producer's commit to
the consumer's hold, and the CPU of the private cluster's PostgreSQL processes (the
postmaster and its children, /proc utime+stime) over the stream, per message. Consumers:
library sessions in `Session.dequeue(wait=...)` each on its own connection, IDAP receives
(`wait_time`) waiting in a gateway process, pgaq.jms MessageListeners (one session each),
and the same listeners of the Java provider (java/, W4: one JVM, one session each).
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import statistics
import struct
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import pgaq.jms as jms
from pgaq import DequeueOptions, Session, waiting
from pgaq.errors import PgaqError

from .measure import Result, measure, paced, percentile, start_gateway
from .report import Row
from .settings import Settings

ROOT = Path(__file__).resolve().parent.parent  # the repository: bench's modules run from it

TODAY = "issue 35, a58ecec, quiet 2-core"
# the table, measured at a58ecec: per subscriber count
PUBLISH_TODAY = {1: 5241.0, 10: 3918.0, 100: 1527.0, 1000: 193.0}
DRAIN_TODAY = {1: 19308.0, 10: 13548.0, 100: 1302.0, 1000: 108.0}
RECIPIENT_ROWS_TODAY = {1: "2,000", 10: "20,000", 100: "200,000", 1000: "2,000,000 (638 MB)"}
# per waiter count: pickup p50, p99 (ms), PostgreSQL CPU per message (ms)
WAIT_TODAY = {4: (0.72, 1.40, 0.87), 64: (2.34, 7.84, 4.40), 256: (1.89, 6.84, 6.63)}

PUBLISH_TARGET = 0.5  # publish at the largest audience / at 1 subscriber
DRAIN_TARGET = 0.8
STORAGE_TARGET = 1.25  # bytes/msg at the largest audience / at 1 subscriber: "flat"
CPU_TARGET = 1.5  # CPU/msg with the most waiters / with the fewest
P99_TARGET = 10.0  # ms
PAD = b"x" * 92  # 8-byte number + pad: the 100-byte payload of the other rows
WARM = 1  # warm-up messages per producer before a waiter stream's clock starts
JAVA_WARM = 1000  # and through W4's JVM first, one at a time (its JIT compiles meanwhile)
ROLE, AGENT = "bench_fanout", "FANOUT"  # the IDAP agent and its database role


def log(text: str) -> None:
    print(f"  [{time.strftime('%H:%M:%S')}] {text}", flush=True)


def _subs(n: int) -> str:
    return f"{n:,} subscriber{'' if n == 1 else 's'}"


def _today(value: float | str, unit: str) -> str:
    text = f"{value:,.0f} {unit}" if isinstance(value, float) and value >= 100 else f"{value} {unit}"
    return f"today {text.strip()} ({TODAY})"


def _ratio(value: float, base: float) -> float:
    """The ratio as the row prints it; a target is judged on this figure, so a run that
    prints 1.5 against a 1.5 target passes."""
    return round(value / base, 3) if base else 0.0


def _curve_row(name: str, value: float, base: float, unit: str, *, target: str, scored: bool,
               passed: bool, note: str) -> Row:
    """A point of a curve: this run's figure beside the smallest audience's (the 'floor'
    column) and their ratio; scored only at the audience the target names."""
    row: Row = {"benchmark": name, "pgaq": round(value, 2), "floor": round(base, 2), "unit": unit,
                "ratio": _ratio(value, base),
                "target": target if scored else "curve",
                "pass": passed, "note": note}
    if not scored:
        row["context"] = True
    return row


# -- subscribers -------------------------------------------------------------------------

def _schema(n: int, rules: bool = False) -> str:
    return f"fo_{n}{'_rule' if rules else ''}"


async def _topic(admin: asyncpg.Connection, schema: str, n: int, rule: str | None) -> None:
    """A multi-consumer RAW queue table with two queues, `p` (publish) and `s` (storage,
    drain), each with subscribers S1..Sn added in one transaction."""
    await admin.execute(f"""
        CREATE SCHEMA {schema};
        CALL dbms_aqadm.create_queue_table('{schema}.qt', 'RAW', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('{schema}.p', '{schema}.qt');
        CALL dbms_aqadm.start_queue('{schema}.p');
        CALL dbms_aqadm.create_queue_table('{schema}.st', 'RAW', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('{schema}.s', '{schema}.st');
        CALL dbms_aqadm.start_queue('{schema}.s');""")
    queues = ("p",) if rule else ("p", "s")
    for q in queues:
        rule_arg = f", {_quote(rule)}" if rule else ""
        await admin.execute(f"""
            DO $$ BEGIN
              FOR i IN 1..{n} LOOP
                CALL dbms_aqadm.add_subscriber('{schema}.{q}', sys.aq$_agent('S' || i, NULL, NULL){rule_arg});
              END LOOP;
            END $$""")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


async def _publish(dsn: str, queue: str, s: Settings) -> Result:
    conns = [await asyncpg.connect(dsn) for _ in range(s.concurrency)]
    try:
        sessions = [Session(c) for c in conns]
        ops = [(lambda x=x: x.enqueue(queue, PAD)) for x in sessions]
        r = await measure(ops, s.fanout_seconds, s.warmup)
    finally:
        for c in conns:
            await c.close()
    return r


STORAGE_SQL = """SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'm', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')"""


@dataclass
class Fill:
    bytes_per_msg: float
    named_bytes: int  # the queue table and its recipients table, where that table exists
    recipient_rows: int | None  # rows of aq$_<table>_r; None once it is not a table


async def _fill(dsn: str, admin: asyncpg.Connection, schema: str, m: int, s: Settings) -> Fill:
    """`m` messages into the storage queue, 1/txn on `concurrency` sessions; the growth
    of every table of the database (with indexes, TOAST) per message."""
    await admin.execute("CHECKPOINT")
    before = int(await admin.fetchval(STORAGE_SQL))
    conns = [await asyncpg.connect(dsn) for _ in range(s.concurrency)]
    left = [m]
    try:
        async def worker(x: Session) -> None:
            while left[0] > 0:
                left[0] -= 1
                await x.enqueue(f"{schema}.s", PAD)

        await asyncio.gather(*(worker(Session(c)) for c in conns))
    finally:
        for c in conns:
            await c.close()
    grown = int(await admin.fetchval(STORAGE_SQL)) - before
    rt = await admin.fetchval("SELECT to_regclass($1)::oid", f"{schema}.aq$_st_r")
    kind = None if rt is None else await admin.fetchval("SELECT relkind FROM pg_class WHERE oid = $1", rt)
    named = int(await admin.fetchval(f"SELECT pg_total_relation_size('{schema}.st')"))
    rows: int | None = None
    if kind == b"r":
        named += int(await admin.fetchval("SELECT pg_total_relation_size($1::oid)", rt))
        rows = int(await admin.fetchval(f'SELECT count(*) FROM {schema}."aq$_st_r"'))
    return Fill(grown / m, named, rows)


DRAIN = DequeueOptions(consumer_name="S1", batch_size=100, wait=0)
DRAIN_ROUNDS = 5  # fill and drain, F2 reports the median


async def _drain(x: Session, queue: str, seconds: float) -> Result:
    """S1 takes the messages of `queue`, REMOVE, 100 per call, autocommit, until none are
    left or `seconds` have passed (the backlog at 1,000 subscribers takes long today)."""
    taken, lat = 0, []
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        t = time.perf_counter()
        got = await x.dequeue(queue, DRAIN)
        if not got:
            break
        lat.append(time.perf_counter() - t)
        taken += len(got)
    return Result(taken, time.perf_counter() - started, lat)


BACKLOG_TXN = 500  # messages per transaction of the backlog F5 drains


async def _backlog(admin: asyncpg.Connection, conn: asyncpg.Connection, x: Session, queue: str,
                   n: int, s: Settings) -> Result:
    """Row F5: `s.fanout_backlog` messages published BACKLOG_TXN per transaction while S1
    reads nothing, then S1 drains them (a subscriber that was away, or fell behind)."""
    left = s.fanout_backlog
    while left > 0:
        k = min(left, BACKLOG_TXN)
        async with conn.transaction():
            await x.enqueue_array(queue, [(PAD, None)] * k)
        left -= k
    await admin.execute(f"VACUUM ANALYZE {queue.split('.')[0]}.st")
    r = await _drain(x, queue, max(s.fanout_seconds, 10.0))
    log(f"{_subs(n)}: S1 drains a backlog of {s.fanout_backlog:,} at {r.rate:,.0f}/s "
        f"({r.ops:,} taken)")
    return r


async def subscribers(dsn: str, s: Settings) -> list[Row]:
    counts, m = s.fanout_subscribers, s.fanout_messages
    admin = await asyncpg.connect(dsn)
    pub: dict[int, Result] = {}
    drain: dict[int, Result] = {}
    drain_rates: dict[int, list[float]] = {}
    backlog: dict[int, Result] = {}
    fills: dict[int, Fill] = {}
    try:
        for n in counts:
            t0 = time.perf_counter()
            await _topic(admin, _schema(n), n, None)
            setup = time.perf_counter() - t0
            await admin.execute("CHECKPOINT")
            pub[n] = await _publish(dsn, f"{_schema(n)}.p", s)
            reader = await asyncpg.connect(dsn)
            try:
                x = Session(reader)
                await x.dequeue(f"{_schema(n)}.s", DRAIN)  # (empty) its statements, prepared
                fills[n] = await _fill(dsn, admin, _schema(n), m, s)
                await admin.execute(f"VACUUM ANALYZE {_schema(n)}.st")
                rounds = [await _drain(x, f"{_schema(n)}.s", s.fanout_seconds)]
                # a drain of 2,000 takes a fraction of a second: the median of a few, each
                # after its own fill, so that one slow moment of the machine does not decide
                while len(rounds) < DRAIN_ROUNDS:
                    await _fill(dsn, admin, _schema(n), m, s)
                    await admin.execute(f"VACUUM ANALYZE {_schema(n)}.st")
                    rounds.append(await _drain(x, f"{_schema(n)}.s", s.fanout_seconds))
                drain[n] = sorted(rounds, key=lambda r: r.rate)[len(rounds) // 2]
                drain_rates[n] = [r.rate for r in rounds]
                if s.fanout_backlog and n in (counts[0], counts[-1]):
                    backlog[n] = await _backlog(admin, reader, x, f"{_schema(n)}.s", n, s)
            finally:
                await reader.close()
            log(f"{_subs(n)} (set up in {setup:.1f} s): publish {pub[n].rate:,.0f}/s, "
                f"S1 drains {drain[n].rate:,.0f}/s ({drain[n].ops:,} taken), "
                f"{fills[n].bytes_per_msg:,.0f} B/msg")
            await admin.execute(f"DROP SCHEMA {_schema(n)} CASCADE")  # its gigabytes go now
        rule_row = await _with_rules(dsn, admin, s, pub[counts[0]]) if s.fanout_rules else None
    finally:
        await admin.close()
    first, last = counts[0], counts[-1]
    rows: list[Row] = []
    for n in counts:
        r, ratio = pub[n], _ratio(pub[n].rate, pub[first].rate)
        rows.append(_curve_row(
            f"F1. publish 1/txn, {_subs(n)}", r.rate, pub[first].rate, "msg/s",
            target=f">= {PUBLISH_TARGET:g}x of {first:,}", scored=n == last,
            passed=ratio >= PUBLISH_TARGET,
            note=f"{s.concurrency} sessions, Session.enqueue RAW 100 B, {s.fanout_seconds:g} s; "
                 f"floor: {_subs(first)}, same run"
                 + (f"; {_today(PUBLISH_TODAY[n], 'msg/s')}, "
                    f"{PUBLISH_TODAY[n] / PUBLISH_TODAY[1]:.2f}x" if n in PUBLISH_TODAY else "")))
        rows[-1]["compare_as"] = f"fanout_publish_{n}"  # RabbitMQ's row of this size (peers)
    for n in counts:
        r = drain[n]
        ratio = _ratio(r.rate, drain[first].rate)
        took = (f"all {m:,} messages" if r.ops == m
                else f"{r.ops:,} of {m:,} messages in the time box")
        rows.append(_curve_row(
            f"F2. one subscriber drains (batch 100), {_subs(n)}", r.rate, drain[first].rate,
            "msg/s", target=f">= {DRAIN_TARGET:g}x of {first:,}", scored=n == last,
            passed=ratio >= DRAIN_TARGET,
            note=f"S1: Session.dequeue REMOVE batch_size=100, autocommit, until empty or "
                 f"{s.fanout_seconds:g} s: {took}, {len(r.latencies)} calls, "
                 f"p50 {r.p50:.1f} ms/call; the median of {len(drain_rates[n])} fills and drains "
                 f"({', '.join(f'{v:,.0f}' for v in sorted(drain_rates[n]))} msg/s)"
                 + (f"; {_today(DRAIN_TODAY[n], 'msg/s')}, {DRAIN_TODAY[n] / DRAIN_TODAY[1]:.3f}x"
                    if n in DRAIN_TODAY else "")))
        rows[-1]["compare_as"] = f"fanout_drain_{n}"
    for n in counts:
        f = fills[n]
        ratio = _ratio(f.bytes_per_msg, fills[first].bytes_per_msg)
        recip = ("no aq$_st_r table" if f.recipient_rows is None
                 else f"{f.recipient_rows:,} recipient rows")
        row = _curve_row(
            f"F3. storage per message (B), {_subs(n)}", f.bytes_per_msg,
            fills[first].bytes_per_msg, "B/msg", target=f"<= {STORAGE_TARGET:g}x of {first:,}",
            scored=n == last, passed=ratio <= STORAGE_TARGET,
            note=f"growth of all tables (+indexes, TOAST) for {m:,} messages, per message; "
                 f"{recip}, queue table + recipients {f.named_bytes / 1e6:,.1f} MB"
                 + (f"; today {RECIPIENT_ROWS_TODAY[n]} recipient rows ({TODAY})"
                    if n in RECIPIENT_ROWS_TODAY else ""))
        row["recipient_rows"] = f.recipient_rows
        rows.append(row)
    for n in backlog:
        r = backlog[n]
        rows.append(_curve_row(
            f"F5. one subscriber drains a backlog of {s.fanout_backlog:,}, {_subs(n)}", r.rate,
            backlog[first].rate, "msg/s", target="context", scored=False, passed=True,
            note=f"S1 read nothing while {s.fanout_backlog:,} messages were published "
                 f"{BACKLOG_TXN}/txn, then drains them as F2 does ({r.ops:,} taken, "
                 f"p50 {r.p50:.1f} ms/call, slowest {max(r.latencies, default=0) * 1000:.0f} ms); "
                 f"a subscriber that fell behind (docs/operations.md, \"Topics with many "
                 f"subscribers\"); floor: {_subs(first)}, same run"))
        rows[-1]["target"] = "context: a subscriber behind"
    if rule_row is not None:
        rows.append(rule_row)
    return rows


async def _with_rules(dsn: str, admin: asyncpg.Connection, s: Settings, one: Result) -> Row:
    """Context row F4: publish when every subscriber has a rule (evaluated at enqueue)."""
    n = s.fanout_rules
    t0 = time.perf_counter()
    await _topic(admin, _schema(n, True), n, "priority >= 0")
    setup = time.perf_counter() - t0
    await admin.execute("CHECKPOINT")
    r = await _publish(dsn, f"{_schema(n, True)}.p", s)
    log(f"{n:,} subscribers with a rule each (added in {setup:.1f} s): publish {r.rate:,.0f}/s")
    await admin.execute(f"DROP SCHEMA {_schema(n, True)} CASCADE")
    row = _curve_row(f"F4. publish 1/txn, {_subs(n)} with a rule each", r.rate, one.rate,
                     "msg/s", target="report", scored=False, passed=True,
                     note=f"rule 'priority >= 0' on every subscriber (all match); floor: 1 "
                          f"subscriber without a rule (F1); {n:,} add_subscriber with a rule "
                          f"took {setup:.1f} s (BENCH_FANOUT_RULES)")
    row["target"] = "context: what rules cost"
    row["setup_seconds"] = round(setup, 1)
    return row


# -- waiters ------------------------------------------------------------------------------

def _postmaster(data_dir: str) -> int:
    return int(Path(data_dir, "postmaster.pid").read_text().split("\n", 1)[0])


def cpu_seconds(postmaster: int) -> float:
    """utime+stime of the postmaster and its children (every PostgreSQL process of the
    cluster), in seconds. A backend that exits takes its ticks with it: the streams keep
    their connections open throughout."""
    ticks = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        pid, ppid = int(entry.name), int(fields[1])
        if pid == postmaster or ppid == postmaster:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class Stream:
    """One stream's bookkeeping: when each numbered message was committed and taken."""

    committed: dict[int, float] = field(default_factory=dict)
    held: dict[int, float] = field(default_factory=dict)
    twice: int = 0
    all_taken: asyncio.Event = field(default_factory=asyncio.Event)
    expected: int | None = None
    warm: int = 0  # warm-up messages (negative numbers) taken
    warm_expected: int = 0
    warmed: asyncio.Event = field(default_factory=asyncio.Event)
    broken: BaseException | None = None  # a consumer that failed: the stream ends with it

    def fail(self, exc: BaseException) -> None:
        if self.broken is None:
            self.broken = exc
        self.warmed.set()
        self.all_taken.set()

    def check(self) -> None:
        if self.broken is not None:
            raise RuntimeError(f"a consumer failed: {self.broken}") from self.broken

    def took(self, payload: bytes) -> None:
        k = struct.unpack(">q", payload[:8])[0]
        if k < 0:  # a warm-up message
            self.warm += 1
            if self.warm >= self.warm_expected:
                self.warmed.set()
            return
        if k in self.held:
            self.twice += 1
        self.held[k] = time.perf_counter()
        if self.expected is not None and len(self.held) >= self.expected:
            self.all_taken.set()


@dataclass
class Waited:
    kind: str
    waiters: int
    latencies: list[float]
    offered: int
    missing: int
    twice: int
    rate: float
    cpu_per_msg_ms: float

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies) if self.latencies else float("inf")

    @property
    def p99(self) -> float:
        return percentile(self.latencies, 99) if self.latencies else float("inf")


Consumers = Callable[[Stream], Awaitable[Callable[[], Awaitable[None]]]]


async def _stream(dsn: str, postmaster: int, queue: str, kind: str, waiters: int,
                  start: Consumers, s: Settings, send_sql: str | None = None) -> Waited:
    """`start(stream)` sets `waiters` consumers waiting (returning once they wait, giving
    back how to stop them); `concurrency` producers then offer the stream. Before the
    clock, each producer sends WARM numbered-negative messages one by one, each taken
    by a waiter before the next: both sides' statements and caches are warm."""
    producers = s.concurrency
    conns = [await asyncpg.connect(dsn) for _ in range(producers)]
    st = Stream()
    stop: Callable[[], Awaitable[None]] | None = None
    try:
        writers = [Session(c) for c in conns]

        async def put(w: Session, payload: bytes) -> None:
            """One message, 1/txn: pgaq's enqueue, or the floor's INSERT + NOTIFY."""
            if send_sql is None:
                await w.enqueue(queue, payload)
            else:
                await conns[writers.index(w)].execute(send_sql, payload)

        t0 = time.perf_counter()
        stop = await start(st)
        t1 = time.perf_counter()
        for i in range(WARM):
            for j, w in enumerate(writers):
                st.warm_expected += 1
                st.warmed.clear()
                await put(w, struct.pack(">q", -1 - i * producers - j) + PAD)
                await asyncio.wait_for(st.warmed.wait(), 30)
                st.check()
        await asyncio.sleep(0.2 + waiters / 500)  # the last taker back in its wait
        numbers = iter(range(1 << 62))
        cpu0 = cpu_seconds(postmaster)
        started = time.perf_counter()
        deadline = started + s.fanout_stream

        async def produce(w: Session) -> None:
            async def send() -> None:
                k = next(numbers)
                await put(w, struct.pack(">q", k) + PAD)
                st.committed[k] = time.perf_counter()

            await paced(producers / s.fanout_rate, deadline, send)

        await asyncio.gather(*(produce(w) for w in writers))
        offered = len(st.committed)
        st.expected = offered
        if len(st.held) >= offered:
            st.all_taken.set()
        try:
            await asyncio.wait_for(st.all_taken.wait(), 30)
        except TimeoutError:
            pass  # reported as messages not taken
        st.check()
        cpu = cpu_seconds(postmaster) - cpu0
        t3 = time.perf_counter()
        stopping, stop = stop, None
        await stopping()
        if s.fanout_trace:  # where a stream's wall time goes
            log(f"  {kind} {waiters}: start {t1 - t0:.1f} s, warm {started - t1:.1f} s, stream "
                f"{deadline - started:.1f} s, tail {t3 - deadline:.1f} s, "
                f"stop {time.perf_counter() - t3:.1f} s")
    finally:
        if stop is not None:  # the stream failed: its consumers end too
            await stop()
        for c in conns:
            await c.close()
    lat = [max(0.0, st.held[k] - st.committed[k]) * 1000 for k in st.committed if k in st.held]
    return Waited(kind, waiters, lat, offered, offered - len(lat), st.twice,
                  offered / s.fanout_stream, cpu * 1000 / offered if offered else 0.0)


async def _until_waiting(admin: asyncpg.Connection, queue: str, n: int, at_least: int = 1) -> None:
    """Give the consumers a moment to reach their wait: the shared listening connection
    is registered as the queue's waiter (aq.waiters, while that table exists), then a
    short settle: n waits behind one registration show no further sign of their own."""
    if queue and await admin.fetchval("SELECT to_regclass('aq.waiters') IS NOT NULL"):
        qid = await admin.fetchval("SELECT (aq.resolve_queue($1)).queue_id", queue)
        for _ in range(5000):
            if await admin.fetchval("SELECT count(*) FROM aq.waiters WHERE queue_id = $1",
                                    qid) >= at_least:
                break
            await asyncio.sleep(0.002)
    await asyncio.sleep(0.2 + n / 500)


async def _connect(dsn: str, n: int) -> list[asyncpg.Connection]:
    """n connections, 16 opening at a time (hundreds one by one take long)."""
    gate = asyncio.Semaphore(16)

    async def one() -> asyncpg.Connection:
        async with gate:
            return await asyncpg.connect(dsn)

    return list(await asyncio.gather(*(one() for _ in range(n))))


def _library(dsn: str, admin: asyncpg.Connection, queue: str, n: int) -> Consumers:
    async def start(st: Stream) -> Callable[[], Awaitable[None]]:
        conns = await _connect(dsn, n)
        readers = [Session(c, safety_poll=60) for c in conns]
        gate = asyncio.Semaphore(16)

        async def look(x: Session) -> None:  # its statements and queue lookup, before the clock
            async with gate:
                await x.dequeue(queue, DequeueOptions(wait=0))

        await asyncio.gather(*(look(r) for r in readers))
        stopping = asyncio.Event()

        async def consume(x: Session) -> None:
            opts = DequeueOptions(wait=30)
            while not stopping.is_set():
                try:
                    got = await x.dequeue(queue, opts)
                except PgaqError:
                    if stopping.is_set():
                        return  # its connection dropped by stop()
                    raise
                for m in got:
                    assert isinstance(m.payload, bytes)
                    st.took(m.payload)

        tasks = [asyncio.create_task(consume(r)) for r in readers]
        await _until_waiting(admin, queue, n)

        async def stop() -> None:
            # cancelled waits may linger in their unsubscribe; closing the shared listener
            # and dropping the connections (no close handshake, no cancel requests) ends them
            stopping.set()
            for t in tasks:
                t.cancel()
            await asyncio.wait(tasks, timeout=1)
            await waiting.shutdown()
            for c in conns:
                c.terminate()
            await asyncio.wait(tasks, timeout=5)

        return stop
    return start


def _jms(dsn: str, admin: asyncpg.Connection, queue: str, n: int) -> Consumers:
    schema, name = queue.split(".")

    async def start(st: Stream) -> Callable[[], Awaitable[None]]:
        factory = jms.ConnectionFactory(dsn, max_pool_size=n + 4, safety_poll=60.0)
        conn = await factory.create_connection()

        def on_message(m: jms.Message) -> None:
            assert isinstance(m, jms.BytesMessage)
            st.took(struct.pack(">q", m.read_long()))

        for _ in range(n):
            session = conn.create_session(False, jms.AUTO_ACKNOWLEDGE)
            consumer = await session.create_consumer(session.get_queue(schema, name))
            consumer.set_message_listener(on_message)
        await conn.start()
        await _until_waiting(admin, queue, n)

        async def stop() -> None:
            await conn.close()

        return stop
    return start


def _jdbc_url(dsn: str) -> str:
    from urllib.parse import urlsplit

    u = urlsplit(dsn)
    url = f"jdbc:postgresql://{u.hostname}:{u.port}{u.path}?user={u.username or 'postgres'}"
    return url + (f"&password={u.password}" if u.password else "")


def _java(dsn: str, admin: asyncpg.Connection, queue: str, n: int, cp: str) -> Consumers:
    """W3's listeners in Java: java/bench/pgaq/bench/WaitersBench.java, one JVM, n sessions
    of one Connection each with a MessageListener, printing each message's number as it
    takes it (the pickup is timed here as the line is read: a pipe's hop later)."""

    async def start(st: Stream) -> Callable[[], Awaitable[None]]:
        proc = await asyncio.create_subprocess_exec(
            "java", "-cp", cp, "pgaq.bench.WaitersBench", _jdbc_url(dsn), queue, str(n), "60000",
            str(JAVA_WARM),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd=ROOT)
        assert proc.stdin is not None and proc.stdout is not None
        out = proc.stdout
        line = await asyncio.wait_for(out.readline(), 120)
        if line.strip() != b"ready":
            proc.kill()
            await proc.wait()
            raise RuntimeError(f"WaitersBench did not start (exit {proc.returncode}): {line[-300:]!r}")

        async def read() -> None:
            try:
                while line := await out.readline():
                    st.took(struct.pack(">q", int(line)))
            except Exception as exc:
                st.fail(exc)
                raise

        reader = asyncio.create_task(read())
        await _until_waiting(admin, queue, n)

        async def stop() -> None:
            assert proc.stdin is not None
            proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 60)
            except TimeoutError:
                proc.kill()
                await proc.wait()
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

        return stop
    return start


_RAW = re.compile(rb"<RAW>([0-9A-Fa-f]*)</RAW>")


def _idap(url: str, admin: asyncpg.Connection, queue: str, n: int) -> Consumers:
    """n keep-alive HTTP connections, each posting a waiting AQXmlReceive (+Commit) again
    as soon as the last one answered."""
    doc = (f'<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body>'
           f'<AQXmlReceive xmlns="http://ns.oracle.com/AQ/schemas/access"><consumer_options>'
           f"<destination>{queue}</destination><wait_time>30</wait_time></consumer_options>"
           f"<AQXmlCommit/></AQXmlReceive></Body></Envelope>").encode()
    parts = url.split("/", 3)
    host, port = parts[2].split(":")
    auth = base64.b64encode(f"{AGENT}:pw".encode()).decode()
    head = (f"POST /{parts[3]} HTTP/1.1\r\nHost: {host}\r\nContent-Type: text/xml\r\n"
            f"Authorization: Basic {auth}\r\nContent-Length: {len(doc)}\r\n\r\n").encode()

    async def start(st: Stream) -> Callable[[], Awaitable[None]]:
        stopping = asyncio.Event()
        streams: list[asyncio.StreamWriter] = []

        async def receiver() -> None:
            try:
                reader, writer = await asyncio.open_connection(host, int(port))
                streams.append(writer)
                while not stopping.is_set():
                    writer.write(head + doc)
                    status = await reader.readuntil(b"\r\n")
                    headers = await reader.readuntil(b"\r\n\r\n")
                    m = re.search(rb"(?i)content-length:\s*(\d+)", headers)
                    body = await reader.readexactly(int(m.group(1)) if m else 0)
                    if b" 200 " not in status:
                        raise RuntimeError(f"{url} answered {status!r}: {body[:300]!r}")
                    for raw in _RAW.findall(body):
                        st.took(bytes.fromhex(raw.decode()))
            except Exception as exc:
                st.fail(exc)  # the stream stops waiting for what this one would take
                raise

        tasks = [asyncio.create_task(receiver()) for _ in range(n)]
        await _until_waiting(admin, queue, n)
        for t in tasks:
            if t.done():
                t.result()  # a receiver that failed says why

        async def stop() -> None:
            stopping.set()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for w in streams:
                w.close()

        return stop
    return start


async def waiters(dsn: str, service_dsn: str, s: Settings) -> list[Row]:
    admin = await asyncpg.connect(dsn)
    results: dict[str, list[Waited]] = {}
    proc = None
    try:
        postmaster = _postmaster(str(await admin.fetchval("SHOW data_directory")))
        await admin.execute(f"""
            DO $$ BEGIN
              IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}') THEN
                CREATE ROLE {ROLE} NOLOGIN;
              END IF;
            END $$;
            CREATE SCHEMA fow AUTHORIZATION {ROLE};""")
        for kind in s.fanout_kinds:
            await admin.execute(f"""
                CALL dbms_aqadm.create_queue_table('fow.{kind}_t', 'RAW');
                CALL dbms_aqadm.create_queue('fow.{kind}', 'fow.{kind}_t');
                CALL dbms_aqadm.start_queue('fow.{kind}');
                ALTER TABLE fow.{kind}_t OWNER TO {ROLE};""")
        url = ""
        cp = ""
        kinds = list(s.fanout_kinds)
        if "java" in kinds:
            from .java_bench import build_driver

            try:
                cp = await build_driver()
            except (OSError, RuntimeError) as exc:  # no JDK here: the other rows still run
                log(f"fanout: no Java waiters (W4): {exc}")
                kinds.remove("java")
        if "idap" in s.fanout_kinds:
            await admin.execute(f"""
                CALL dbms_aqadm.create_aq_agent(agent_name => '{AGENT}', enable_http => true,
                                                password => 'pw');
                CALL dbms_aqadm.enable_db_access(agent_name => '{AGENT}', db_username => '{ROLE}');""")
            # as `pgaq up` runs it: its own settings (workers, pool) left at their defaults
            proc, url = await start_gateway(service_dsn, PGAQ_LOG_LEVEL="WARNING")
        for kind in kinds:
            queue = f"fow.{kind}"
            for n in s.fanout_waiters:
                start = (_library(dsn, admin, queue, n) if kind == "library"
                         else _jms(dsn, admin, queue, n) if kind == "jms"
                         else _java(dsn, admin, queue, n, cp) if kind == "java"
                         else _idap(url, admin, queue, n))
                await admin.execute("CHECKPOINT")
                w = await _stream(dsn, postmaster, queue, kind, n, start, s)
                results.setdefault(kind, []).append(w)
                log(f"{kind}: {n} waiters, pickup p50 {w.p50:.2f} / p99 {w.p99:.2f} ms, "
                    f"PostgreSQL CPU {w.cpu_per_msg_ms:.2f} ms/msg, {w.offered:,} messages"
                    + (f", {w.missing} NOT TAKEN" if w.missing else "")
                    + (f", {w.twice} TAKEN TWICE" if w.twice else ""))
        if "idap" in s.fanout_kinds and s.fanout_waiters:
            results["idap_floor"] = await _longpoll_floor(dsn, admin, postmaster, s)
    finally:
        if proc is not None:
            proc.terminate()
            await proc.wait()
        await admin.close()
    return _waiter_rows(results, s)


async def _longpoll_floor(dsn: str, admin: asyncpg.Connection, postmaster: int,
                          s: Settings) -> list[Waited]:
    """W2's floor (bench/longpoll_floor.py) at the fewest and the most waiters: the same
    HTTP clients and producers, with the gateway and AQ taken away."""
    from pgaq.embedded import free_port

    from . import longpoll_floor

    await admin.execute(longpoll_floor.SETUP)
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.longpoll_floor", cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "BENCH_FLOOR_DSN": dsn, "BENCH_FLOOR_PORT": str(port)})
    out: list[Waited] = []
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 60)
        if not line.startswith(b"ready"):
            raise RuntimeError(f"the long-poll floor did not start (exit {proc.returncode})")
        url = f"http://127.0.0.1:{port}/aqserv/servlet"
        for n in sorted({s.fanout_waiters[0], s.fanout_waiters[-1]}):
            await admin.execute("CHECKPOINT")
            w = await _stream(dsn, postmaster, "", "idap_floor", n, _idap(url, admin, "", n), s,
                              send_sql=longpoll_floor.SEND)
            log(f"long-poll floor: {n} waiters, pickup p50 {w.p50:.2f} / p99 {w.p99:.2f} ms, "
                f"PostgreSQL CPU {w.cpu_per_msg_ms:.2f} ms/msg")
            out.append(w)
    finally:
        if proc.returncode is None:
            proc.terminate()
        await proc.wait()
        await admin.execute("DROP SCHEMA lp CASCADE")
    return out


LABELS = {"library": "Session.dequeue(wait)", "idap": "IDAP receives in the gateway",
          "jms": "pgaq.jms MessageListeners",
          "java": "Java pgaq.jms MessageListeners",
          "idap_floor": "W2's floor, a bare aiohttp long-poll"}
HOW = {"library": "each waiter a Session on its own connection, dequeue(wait=30)",
       "idap": "each waiter a keep-alive HTTP connection posting AQXmlReceive wait_time 30 "
               "+ AQXmlCommit to a gateway process with its default settings",
       "jms": "each waiter an AUTO_ACKNOWLEDGE session of one Connection with a listener "
              "(factory max_pool_size = waiters + 4, safety_poll 60 s)",
       "java": "each waiter an AUTO_ACKNOWLEDGE session of one Connection of the Java provider "
               "(java/, one JVM: java/bench/pgaq/bench/WaitersBench.java) with a listener "
               "(pgaq.safetyPollMillis 60000); pickup timed as the JVM's line reaches the bench",
       "idap_floor": "context, not a target: W2's HTTP clients against bench/longpoll_floor.py "
                     "(one aiohttp process, LISTEN, one wake-up per NOTIFY, DELETE SKIP LOCKED; "
                     "no SOAP, authentication, sessions or AQ), producers INSERT + NOTIFY"}


def _waiter_rows(results: dict[str, list[Waited]], s: Settings) -> list[Row]:
    rows: list[Row] = []
    for i, (kind, curve) in enumerate(results.items(), 1):
        base = curve[0]
        for w in curve:
            last = w is curve[-1]
            ratio = _ratio(w.cpu_per_msg_ms, base.cpu_per_msg_ms)
            ok = ratio <= CPU_TARGET and w.p99 <= P99_TARGET and not w.missing and not w.twice
            floor = kind == "idap_floor"
            today = ""
            if kind == "library" and w.waiters in WAIT_TODAY:
                p50, p99, cpu = WAIT_TODAY[w.waiters]
                today = f"; today p50/p99 {p50:.2f}/{p99:.2f} ms, CPU {cpu:.2f} ms/msg ({TODAY})"
            bad = (f"; {w.missing} NOT TAKEN" if w.missing else "") + (
                f"; {w.twice} TAKEN TWICE" if w.twice else "") + (
                "; the producers fell behind the schedule (this process busy with the waiters)"
                if w.rate < 0.9 * s.fanout_rate else "")
            row = _curve_row(
                f"W{'2f' if floor else i}. {LABELS[kind]}, {w.waiters} waiting: PG CPU ms/msg",
                w.cpu_per_msg_ms, base.cpu_per_msg_ms, "ms",
                target=("context: W2's floor" if floor
                        else f"CPU <= {CPU_TARGET:g}x of {base.waiters}, p99 <= {P99_TARGET:g} ms"),
                scored=last and not floor, passed=ok or floor,
                note=f"pickup p50/p99 {w.p50:.2f}/{w.p99:.2f} ms; {HOW[kind]}; "
                     f"{w.offered:,} messages at "
                     f"{w.rate:,.0f} msg/s (1/txn, {s.concurrency} producers, "
                     f"{s.fanout_stream:g} s); CPU: all PostgreSQL processes (/proc "
                     f"utime+stime); floor: {base.waiters} waiting{bad}{today}")
            row.update({"pgaq_p50_ms": round(w.p50, 3), "pgaq_p99_ms": round(w.p99, 3),
                        "offered": w.offered, "missing": w.missing})
            rows.append(row)
    return rows


async def run(dsn: str, service_dsn: str, s: Settings) -> list[Row]:
    rows: list[Row] = []
    if s.fanout_subscribers:
        log(f"fanout: subscribers {', '.join(f'{n:,}' for n in s.fanout_subscribers)}; "
            f"{s.fanout_messages:,} messages stored per count")
        rows += await subscribers(dsn, s)
    if s.fanout_waiters and s.fanout_kinds:
        log(f"fanout: waiters {', '.join(map(str, s.fanout_waiters))} "
            f"({', '.join(s.fanout_kinds)}) at {s.fanout_rate:g} msg/s")
        rows += await waiters(dsn, service_dsn, s)
    return rows
