"""pgaq.jms (issue 22) beside the engine it runs on and beside PgQueuer, in the same run.

Every queue here is a single-consumer queue table of payload type SYS.AQ$_JMS_TEXT_MESSAGE
(one table per queue, so the figure and its floor never share a table), and every message
is a TextMessage of 100 characters with one string property, PERSISTENT. The engine's
floors enqueue exactly what pgaq.jms's codec makes of that message (`codec.to_engine`,
computed once): the same payload and message properties, into the same kind of queue.
The client sessions are `concurrency` (4) JMS sessions, each on its own pooled database
connection, against as many engine `Session`s, each on its own connection.

How each row is driven:
- J1 `producer.send`, 1 msg per transaction: each of 4 non-transacted AUTO_ACKNOWLEDGE
  sessions has a producer on its queue and sends a new TextMessage per call (committed
  when send returns); floor: `engine.Session.enqueue` of the same payload and properties
  (autocommit, one message per call) on 4 connections. Floor and JMS alternate A-B-B-A,
  each half `BENCH_SECONDS / 2`, after a warm-up of both and a CHECKPOINT (as core_bench).
- J2 message listener, AUTO_ACKNOWLEDGE: two queues pre-filled with the same number of
  messages (enqueue_array, vacuumed); 4 AUTO_ACKNOWLEDGE sessions of one Connection each
  with a consumer whose listener (a plain function) counts the message; the time box is
  `conn.start()` .. `conn.stop()` returned (stop waits for the listener running), the
  messages the listeners had. Floor: the engine's REMOVE (`Session.dequeue`, autocommit,
  one message per call) on 4 connections. A-B-B-A halves as J1.
- J3/J4 DUPS_OK_ACKNOWLEDGE listeners / transacted sessions committing every 10 messages
  (the listener calls `session.commit()` at its session's 10th, 20th, ... message): 4
  sessions each drain `BENCH_PEERS_N` pre-filled messages, the clock from `conn.start()`
  until every message was handed to a listener, the connection stopped and each session's
  last messages committed (`acknowledge()` / `commit()`); the queue is checked empty.
  Floor: PgQueuer's consume rate of the same run, the same number of messages and
  workers (peers_bench: row P2's figure when the peers suite ran, else peers_bench's own
  PgQueuer driver run here, in a database of its own).
- J5 listener wake-up: a listener (AUTO_ACKNOWLEDGE, the factory's safety_poll 60 s so
  only the NOTIFY can wake it) waits on an empty queue; another Connection's producer
  sends one message; milliseconds from `send` returning (its commit done) to the
  listener being called. Floor: the engine's library wait (core row 5b's measure,
  `Session.dequeue(wait=30)`, no Listener wired) woken by the same producer's send into
  a queue of its own, alternating with the listener, 60 wake-ups each; each send lands
  10-20 ms after the previous delivery (the waiter back in its wait).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import asyncpg
import pgaq.jms as jms
from pgaq import DequeueOptions, MessageProperties, Payload, Session, waiting
from pgaq.jms import codec

from .measure import Op, Result, percentile, run_ops
from .report import Row, ratio_row
from .settings import Settings

TEXT = "x" * 100
KIND = "SYS.AQ$_JMS_TEXT_MESSAGE"
QUEUES = ("send", "send_floor", "auto", "auto_floor", "auto_tx", "auto_tx_floor", "recv",
          "recv_floor", "dups", "tx", "wake", "wake_floor")
SCHEMA = "CREATE SCHEMA jmsb;\n" + "".join(
    f"CALL dbms_aqadm.create_queue_table('jmsb.{q}_t', '{KIND}');\n"
    f"CALL dbms_aqadm.create_queue('jmsb.{q}', 'jmsb.{q}_t');\n"
    f"CALL dbms_aqadm.start_queue('jmsb.{q}');\n" for q in QUEUES)


def log(text: str) -> None:
    print(f"  [{time.strftime('%H:%M:%S')}] {text}", flush=True)


def _message(session: jms.Session) -> jms.TextMessage:
    m = session.create_text_message(TEXT)
    m.set_string_property("region", "EU")
    return m


def _remover(x: Session, queue: str) -> Op:
    return lambda: x.dequeue(queue)


def _join(a: Result, b: Result) -> Result:
    return Result(a.ops + b.ops, a.seconds + b.seconds, a.latencies + b.latencies,
                  a.items_per_op, a.dry or b.dry)


async def _until_registered(admin: asyncpg.Connection, qid: int) -> None:
    """The listener's connection is registered as the queue's waiter (it waits on it)."""
    while True:
        if await admin.fetchval("SELECT EXISTS (SELECT 1 FROM aq.waiters WHERE queue_id = $1)", qid):
            return
        await asyncio.sleep(0.001)


class JmsBench:
    def __init__(self, dsn: str, settings: Settings) -> None:
        self.dsn = dsn
        self.s = settings
        self.admin: asyncpg.Connection | None = None
        self.conns: list[asyncpg.Connection] = []
        self.sessions: list[Session] = []
        self.payload: Payload = None
        self.props = MessageProperties()
        self.facts: dict[str, Any] = {}

    @property
    def a(self) -> asyncpg.Connection:
        assert self.admin is not None
        return self.admin

    def factory(self, **kw: Any) -> jms.ConnectionFactory:
        return jms.ConnectionFactory(self.dsn, max_pool_size=self.s.concurrency + 2, **kw)

    async def open(self) -> None:
        self.admin = await asyncpg.connect(self.dsn)
        await self.a.execute(SCHEMA)
        self.conns = [await asyncpg.connect(self.dsn) for _ in range(self.s.concurrency)]
        self.sessions = [Session(c) for c in self.conns]
        # what pgaq.jms stores for the benchmark's message: the floors enqueue the same
        probe = await self.factory().create_connection()
        try:
            m = _message(probe.create_session())
            m.jms_destination = jms.Queue("jmsb", "send")
            m.jms_delivery_mode = jms.PERSISTENT
            m.jms_priority = jms.DEFAULT_PRIORITY
            m.jms_timestamp = int(time.time() * 1000)
            self.payload, self.props = codec.to_engine(m, "JMS_TEXT")
        finally:
            await probe.close()

    async def close(self) -> None:
        for c in [*self.conns, *([self.admin] if self.admin else [])]:
            await c.close()

    async def fill(self, queue: str, n: int) -> float:
        """`n` messages as pgaq.jms stores them, 1,000 per enqueue_array, then VACUUM ANALYZE."""
        started = time.perf_counter()
        parts = [min(1000, n - i) for i in range(0, n, 1000)]

        async def worker(x: Session) -> None:
            while parts:
                k = parts.pop()
                await x.enqueue_array(queue, [(self.payload, self.props)] * k)

        await asyncio.gather(*(worker(x) for x in self.sessions))
        await self.a.execute(f"VACUUM ANALYZE {queue}_t")
        return time.perf_counter() - started

    async def left(self, queue: str) -> int:
        return int(await self.a.fetchval(f"SELECT count(*) FROM {queue}_t"))

    async def pair(self, label: str, floor: Callable[[float], Awaitable[Result]],
                   ours: Callable[[float], Awaitable[Result]]) -> tuple[Result, Result]:
        """Warm both up, then floor, jms, jms, floor: half the time each (as core_bench)."""
        await self.a.execute("CHECKPOINT")
        if self.s.warmup > 0:
            await floor(self.s.warmup / 2)
            await ours(self.s.warmup / 2)
        half = self.s.seconds / 2
        f1 = await floor(half)
        o1 = await ours(half)
        o2 = await ours(half)
        f2 = await floor(half)
        f, o = _join(f1, f2), _join(o1, o2)
        log(f"{label}: jms {o.rate:,.0f}/s, floor {f.rate:,.0f}/s")
        return f, o

    # -- J1 ---------------------------------------------------------------------------
    async def send(self) -> tuple[Row, Result]:
        conn = await self.factory().create_connection()
        try:
            sessions = [conn.create_session(False, jms.AUTO_ACKNOWLEDGE)
                        for _ in range(self.s.concurrency)]
            producers = [s.create_producer(s.get_queue("jmsb", "send")) for s in sessions]

            def sender(s: jms.Session, p: jms.MessageProducer) -> Op:
                return lambda: p.send(_message(s))

            def enqueuer(x: Session) -> Op:
                return lambda: x.enqueue("jmsb.send_floor", self.payload, self.props)

            jms_ops = [sender(s, p) for s, p in zip(sessions, producers, strict=True)]
            floor_ops = [enqueuer(x) for x in self.sessions]
            f, o = await self.pair("jms producer.send 1 msg/txn",
                                   lambda t: run_ops(floor_ops, t), lambda t: run_ops(jms_ops, t))
        finally:
            await conn.close()
        row = ratio_row("J1. jms producer.send 1 msg/txn", o, f, 0.9, latency=True,
                        note="AUTO_ACKNOWLEDGE session, PERSISTENT TextMessage of 100 chars; "
                             "floor: engine Session.enqueue of the same payload, 1 msg/txn")
        return row, f

    # -- J2 ---------------------------------------------------------------------------
    async def auto_listener(self, enqueue_rate: float) -> list[Row]:
        s = self.s
        n = s.prefill or max(20_000, int(enqueue_rate * (s.warmup + s.seconds) * 3))
        took = (await self.fill("jmsb.auto", n) + await self.fill("jmsb.auto_floor", n)
                + await self.fill("jmsb.auto_tx", n) + await self.fill("jmsb.auto_tx_floor", n))
        log(f"pre-filled {n:,} messages in each of four queues ({took:.1f} s)")

        async def removes(x: Session) -> bool:
            return bool(await x.dequeue("jmsb.auto_floor"))

        floor_ops = [(lambda x=x: removes(x)) for x in self.sessions]

        async def floor(t: float) -> Result:
            r = await run_ops(floor_ops, t)
            r.latencies = []
            return r

        conn = await self.factory(safety_poll=60.0).create_connection()
        got = [0]

        def on_message(_m: jms.Message) -> None:
            got[0] += 1

        try:
            for _ in range(s.concurrency):
                session = conn.create_session(False, jms.AUTO_ACKNOWLEDGE)
                consumer = await session.create_consumer(session.get_queue("jmsb", "auto"))
                consumer.set_message_listener(on_message)

            async def ours(t: float) -> Result:
                before = got[0]
                started = time.perf_counter()
                await conn.start()
                await asyncio.sleep(t)  # the time box; the listeners run meanwhile
                await conn.stop()
                seconds = time.perf_counter() - started
                return Result(got[0] - before, seconds, [], dry=await self.left("jmsb.auto") == 0)

            f, o = await self.pair("jms listener AUTO_ACKNOWLEDGE", floor, ours)
        finally:
            await conn.close()
        row = ratio_row(f"J2. jms listener AUTO_ACK, {s.concurrency} sessions", o, f, 0.9,
                        note=f"time-boxed conn.start()..stop(); floor: engine REMOVE 1 msg/txn on "
                             f"{s.concurrency} connections; {n:,} pre-filled in each queue")
        return [row, await self.auto_ceiling(o, n), await self.auto_receive(n)]

    async def auto_ceiling(self, listener: Result, n: int) -> Row:
        """Context row J2b: what AUTO_ACKNOWLEDGE's contract costs before any JMS code. A
        listener's message may be gone only once the listener returned, so it is removed in
        a transaction committed after the listener: two round trips (the REMOVE, then
        COMMIT with the next BEGIN) where the floor's autocommit REMOVE takes one. The
        engine doing exactly that, no JMS layer, against J2's floor measured on a queue as fresh
        as its own (a floor on the queue J2 already drained from would flatter the ratio)."""

        async def floor(t: float) -> Result:
            r = await run_ops([_remover(x, "jmsb.auto_tx_floor") for x in self.sessions], t)
            r.latencies = []
            return r

        conns = [await asyncpg.connect(self.dsn) for _ in range(self.s.concurrency)]
        try:
            sessions = [Session(c) for c in conns]
            for x in sessions:
                await x.begin()
            opts = DequeueOptions(visibility="ON_COMMIT")

            async def remove_then_commit(x: Session) -> bool:
                got = await x.dequeue("jmsb.auto_tx", opts)
                await x.commit(begin_next=True)
                return bool(got)

            ops = [(lambda x=x: remove_then_commit(x)) for x in sessions]

            async def ours(t: float) -> Result:
                r = await run_ops(ops, t)
                r.latencies = []
                return r

            f, o = await self.pair("engine REMOVE in a transaction, then COMMIT", floor, ours)
            for x in sessions:
                await x.rollback()
        finally:
            for c in conns:
                await c.close()
        row = ratio_row(f"J2b. engine REMOVE in a transaction + COMMIT, {self.s.concurrency} "
                        "connections", o, f, 0.9,
                        note=f"context, not a target: AUTO_ACKNOWLEDGE's two round trips per "
                             f"message (REMOVE in a transaction, then COMMIT and the next BEGIN in "
                             f"one), no JMS code, against J2's floor measured on a fresh queue; "
                             f"the J2 listener: "
                             f"{listener.rate / o.rate if o.rate else 0:.2f}x of it; {n:,} pre-filled")
        row["context"] = True
        return row

    async def auto_receive(self, n: int) -> Row:
        """Row J2r: `receive()` in a loop on AUTO_ACKNOWLEDGE sessions (each message settled
        before receive returns), against the engine's autocommit REMOVE on a fresh queue."""
        await self.fill("jmsb.recv", n)
        await self.fill("jmsb.recv_floor", n)

        async def floor(t: float) -> Result:
            return await run_ops([_remover(x, "jmsb.recv_floor") for x in self.sessions], t)

        conn = await self.factory(safety_poll=60.0).create_connection()
        try:
            consumers = []
            for _ in range(self.s.concurrency):
                session = conn.create_session(False, jms.AUTO_ACKNOWLEDGE)
                consumers.append(await session.create_consumer(session.get_queue("jmsb", "recv")))
            await conn.start()

            async def receives(c: jms.MessageConsumer) -> bool:
                return await c.receive(1.0) is not None

            ops = [(lambda c=c: receives(c)) for c in consumers]

            async def ours(t: float) -> Result:
                r = await run_ops(ops, t)
                r.dry = await self.left("jmsb.recv") == 0
                return r

            f, o = await self.pair("jms receive() AUTO_ACKNOWLEDGE", floor, ours)
        finally:
            await conn.close()
        return ratio_row(f"J2r. jms receive() AUTO_ACK, {self.s.concurrency} sessions", o, f, 0.9,
                         latency=True,
                         note=f"receive(1.0) in a loop, PERSISTENT TextMessages pre-filled ({n:,}); "
                              f"floor: engine REMOVE 1 msg/txn on {self.s.concurrency} connections")

    # -- J3, J4 -----------------------------------------------------------------------
    async def drain(self, queue: str, n: int, mode: int) -> Result:
        """4 sessions in `mode` drain `n` pre-filled messages through listeners."""
        conn = await self.factory(safety_poll=60.0).create_connection()
        done = asyncio.Event()
        got = [0]
        sessions: list[jms.Session] = []
        try:
            for _ in range(self.s.concurrency):
                session = conn.create_session(mode == jms.SESSION_TRANSACTED, mode)
                sessions.append(session)
                consumer = await session.create_consumer(session.get_queue(*queue.split(".")))
                consumer.set_message_listener(self._counter(session, got, n, done, mode))
            started = time.perf_counter()
            await conn.start()
            await done.wait()
            await conn.stop()
            for session in sessions:  # what each session consumed since its last commit
                if mode == jms.SESSION_TRANSACTED:
                    await session.commit()
                else:
                    await session.acknowledge()
            seconds = time.perf_counter() - started
        finally:
            await conn.close()
        left = await self.left(queue)
        assert got[0] == n and left == 0, f"{queue}: {got[0]} of {n} delivered, {left} left"
        return Result(n, seconds, [])

    @staticmethod
    def _counter(session: jms.Session, got: list[int], n: int, done: asyncio.Event,
                 mode: int) -> Callable[[jms.Message], Awaitable[None]]:
        mine = [0]

        async def on_message(_m: jms.Message) -> None:
            got[0] += 1
            mine[0] += 1
            if mode == jms.SESSION_TRANSACTED and mine[0] % 10 == 0:
                await session.commit()
            if got[0] >= n:
                done.set()

        return on_message

    async def pgqueuer_consume(self, peers: dict[str, Any] | None) -> tuple[Result, str]:
        """PgQueuer's consume rate of this run: the peers suite's, else measured here."""
        n = self.s.peers_n
        fig = ((peers or {}).get("figures") or {}).get("PgQueuer")
        if fig and fig.get("consume"):
            rate = float(fig["consume"])
            return Result(n, n / rate, []), "PgQueuer's consume rate from the peers suite (row P2)"
        from .peers_bench import _pgqueuer, _with_db

        await self.a.execute("CREATE DATABASE bench_jms_pgqueuer")
        await self.a.execute("CHECKPOINT")
        figures = await _pgqueuer(_with_db(self.dsn, "bench_jms_pgqueuer"), n, self.s.concurrency)
        log(f"PgQueuer consume (measured by the jms suite): {figures.consume:,.0f}/s")
        return (Result(n, n / figures.consume, []),
                "PgQueuer's consume rate measured by this suite (peers_bench's driver)")

    async def batched_listeners(self, peers: dict[str, Any] | None) -> list[Row]:
        n, c = self.s.peers_n, self.s.concurrency
        pgq, source = await self.pgqueuer_consume(peers)
        rows = []
        for queue, mode, label in (("jmsb.dups", jms.DUPS_OK_ACKNOWLEDGE, "DUPS_OK"),
                                   ("jmsb.tx", jms.SESSION_TRANSACTED, "transacted, commit/10")):
            await self.fill(queue, n)
            await self.a.execute("CHECKPOINT")
            r = await self.drain(queue, n, mode)
            log(f"jms listener {label}: {r.rate:,.0f}/s (PgQueuer {pgq.rate:,.0f}/s)")
            num = "J3" if mode == jms.DUPS_OK_ACKNOWLEDGE else "J4"
            rows.append(ratio_row(
                f"{num}. jms listener {label}, {c} sessions", r, pgq, 1.2,
                note=f"drain of {n:,} pre-filled messages (start .. last commit); floor: {source}, "
                     f"{n:,} messages, {c} workers"))
        return rows

    # -- J5 ---------------------------------------------------------------------------
    async def wake_up(self, rounds: int = 60) -> Row:
        conn = await self.factory(safety_poll=60.0).create_connection()
        sender_conn = await self.factory().create_connection()
        waiter = await asyncpg.connect(self.dsn)
        try:
            qid = await self.a.fetchval("SELECT (aq.resolve_queue('jmsb.wake')).queue_id")
            session = conn.create_session(False, jms.AUTO_ACKNOWLEDGE)
            consumer = await session.create_consumer(session.get_queue("jmsb", "wake"))
            s_send = sender_conn.create_session(False, jms.AUTO_ACKNOWLEDGE)
            to_listener = s_send.create_producer(s_send.get_queue("jmsb", "wake"))
            to_floor = s_send.create_producer(s_send.get_queue("jmsb", "wake_floor"))
            lib = Session(waiter, safety_poll=60)
            called: asyncio.Queue[float] = asyncio.Queue()
            consumer.set_message_listener(lambda _m: called.put_nowait(time.perf_counter()))
            await conn.start()
            await _until_registered(self.a, qid)
            woken: list[float] = []
            floor: list[float] = []
            for _ in range(rounds):
                await asyncio.sleep(random.uniform(0.01, 0.02))
                await to_listener.send(_message(s_send))
                sent = time.perf_counter()
                woken.append((await called.get() - sent) * 1000)
                call = asyncio.create_task(lib.dequeue("jmsb.wake_floor", DequeueOptions(wait=30)))
                await asyncio.sleep(random.uniform(0.01, 0.02))
                await to_floor.send(_message(s_send))
                sent = time.perf_counter()
                assert await call
                floor.append((time.perf_counter() - sent) * 1000)
            await waiting.shutdown()
        finally:
            await conn.close()
            await sender_conn.close()
            await waiter.close()
        p50, p99 = statistics.median(woken), percentile(woken, 99)
        f50, f99 = statistics.median(floor), percentile(floor, 99)
        log(f"jms listener wake-up: p50 {p50:.2f} ms, p99 {p99:.2f} ms; "
            f"library wait: p50 {f50:.2f} ms, p99 {f99:.2f} ms")
        return {"benchmark": "J5. jms listener woken (ms p50)", "pgaq": round(p50, 2),
                "floor": round(f50, 2), "unit": "ms", "ratio": round(p50 / f50, 3) if f50 else 0.0,
                "target": "p50 <= 5", "pass": p50 <= 5.0, "pgaq_p50_ms": round(p50, 3),
                "pgaq_p99_ms": round(p99, 3), "floor_p50_ms": round(f50, 3),
                "floor_p99_ms": round(f99, 3),
                "note": f"producer.send returned (committed) -> listener called, {rounds} "
                        "wake-ups; floor: engine Session.dequeue(wait=30), no Listener wired "
                        "(core row 5b's measure), woken by the same send; ratio: pgaq/floor ms"}


async def run(dsn: str, settings: Settings, peers: dict[str, Any] | None = None) -> list[Row]:
    """The jms suite's rows J1-J5; `peers`: the peers suite's facts, when it ran."""
    b = JmsBench(dsn, settings)
    try:
        await b.open()
        log(f"jms: {settings.concurrency} sessions, {settings.seconds:g} s per figure "
            f"(+{settings.warmup:g} s warm-up)")
        send_row, f_enq = await b.send()
        rows: Sequence[Row] = [send_row, *await b.auto_listener(f_enq.rate),
                               *await b.batched_listeners(peers), await b.wake_up()]
    finally:
        await b.close()
    return list(rows)
