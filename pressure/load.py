"""Steady load through pgaq's engine: producers enqueue (one message per call, autocommit)
at a paced rate, consumers take one message per transaction (REMOVE, a ledger row, commit),
so the ledger says exactly which ids were dequeued, by whom and how often. On a topic each
consumer is one subscriber's session (DequeueOptions.consumer_name). Every client reconnects
when its connection goes (a terminated backend, a refused connection), counting what it
saw; the timestamps of completions and the transactions' durations are the figures."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import asyncpg
from pgaq import Agent, DequeueOptions, Session
from pgaq.db import DB_ERRORS
from pgaq.errors import PgaqError, wrap_db_error

from .settings import Settings

LOAD_APP = "pressure-load"  # the load's connections: the faults' targets
BACKOFF = 0.05  # seconds before reconnecting (doubling to 1 s while refused)
_CLIENT_ERRORS: tuple[type[BaseException], ...] = (PgaqError, *DB_ERRORS)


@dataclass
class Refusal:
    at: float  # monotonic
    code: str | None  # the ORA code the client got
    seconds: float  # how long the attempt took


@dataclass
class Stats:
    done: list[float] = field(default_factory=list)  # completion times (monotonic, ascending)
    txn: list[float] = field(default_factory=list)  # each completed consume transaction, seconds
    pickup: list[float] = field(default_factory=list)  # enqueue call start -> consumer committed
    published: list[float] = field(default_factory=list)  # each acknowledged enqueue's end (monotonic)
    enqueue: list[float] = field(default_factory=list)  # each acknowledged enqueue call, seconds
    errors: Counter[str] = field(default_factory=Counter)  # by ORA code (or error class)
    refusals: list[Refusal] = field(default_factory=list)
    reconnects: int = 0


def _code(exc: BaseException) -> str:
    """How an error is counted: its ORA code, else its class as pgaq classifies it (the
    ledger INSERT is the load's own asyncpg call)."""
    if isinstance(exc, DB_ERRORS):
        exc = wrap_db_error(exc)
    if isinstance(exc, PgaqError) and exc.ora:
        return exc.ora
    return type(exc).__name__


async def connect(dsn: str, timeout: float, user: str | None = None) -> asyncpg.Connection:
    """A load client's connection, any failure as pgaq's error (with its ORA code)."""
    try:
        return await asyncpg.connect(dsn, timeout=timeout, user=user,
                                     server_settings={"application_name": LOAD_APP})
    except DB_ERRORS as exc:
        raise wrap_db_error(exc) from exc


class Load:
    def __init__(self, dsn: str, queue: str, cell: str, s: Settings, user: str | None = None, *,
                 consumers: Sequence[str | None] | None = None, rate: float | None = None,
                 producers: int | None = None, ledger: str | None = None, name: str = "") -> None:
        """`consumers`: the subscriber each consumer session dequeues as (a topic's), by
        default `PRESSURE_CONSUMERS` sessions of a single-consumer queue; `ledger` the key
        its ledger rows carry (the cell's name by default); `name` prefixes its clients'."""
        self.dsn = dsn
        self.user = user  # the login role (None: the cluster's superuser)
        self.queue = queue
        self.cell = cell
        self.ledger = ledger or cell
        self.name = name
        self.s = s
        self.consumers: list[str | None] = [None] * s.consumers if consumers is None else list(consumers)
        self.producers = s.producers if producers is None else producers
        self.rate = s.rate if rate is None else rate  # offered messages/s, changed by the surge
        self.payload = s.payload
        self.acked: set[int] = set()  # enqueued and committed
        self.ambiguous: set[int] = set()  # the answer was lost: committed or not
        self.stats = Stats()
        self.stop_producing = asyncio.Event()
        self.stop_consuming = asyncio.Event()
        self.connected: dict[str, bool] = {}  # client name -> holds a working connection
        self._next = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._credit = 0.0

    # -- the clients ----------------------------------------------------------------
    def start(self) -> None:
        for i in range(self.producers):
            self._tasks.append(asyncio.ensure_future(
                self._client(f"{self.name}producer{i}", self.stop_producing, self._produce)))
        for i, consumer in enumerate(self.consumers):
            def work(s: Session, stop: asyncio.Event, consumer: str | None = consumer) -> Awaitable[None]:
                return self._consume(s, stop, consumer)
            self._tasks.append(asyncio.ensure_future(
                self._client(f"{self.name}consumer{i}", self.stop_consuming, work)))

    async def stop_producers(self) -> None:
        self.stop_producing.set()
        await asyncio.gather(*self._tasks[:self.producers])

    async def stop(self) -> None:
        self.stop_producing.set()
        self.stop_consuming.set()
        await asyncio.gather(*self._tasks)

    def all_connected(self) -> bool:
        return len(self.connected) == len(self._tasks) and all(self.connected.values())

    async def _client(self, name: str, stop: asyncio.Event,
                      work: Callable[[Session, asyncio.Event], Awaitable[None]]) -> None:
        backoff = BACKOFF
        self.connected[name] = False
        while not stop.is_set():
            t0 = time.monotonic()
            try:
                conn = await connect(self.dsn, self.s.connect_timeout, self.user)
            except PgaqError as exc:
                self.stats.refusals.append(Refusal(t0, exc.ora, time.monotonic() - t0))
                self.stats.errors[_code(exc)] += 1
                await _pause(stop, backoff)
                backoff = min(1.0, backoff * 2)
                continue
            backoff = BACKOFF
            self.connected[name] = True
            try:
                await work(Session(conn), stop)
            except _CLIENT_ERRORS as exc:
                self.stats.errors[_code(exc)] += 1
                self.stats.reconnects += 1
            finally:
                self.connected[name] = False
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), 5)
            if not stop.is_set():
                await _pause(stop, BACKOFF)

    def _message(self) -> tuple[int, bytes]:
        i = self._next
        self._next += 1
        head = f"{i} {time.monotonic():.6f} ".encode()
        return i, head.ljust(self.payload, b".")

    async def _produce(self, s: Session, stop: asyncio.Event) -> None:
        """Paced by credit: `rate` messages a second between the producers; after a stall
        (a lost connection) the credit left lets them catch up with the schedule."""
        last = time.monotonic()
        share = 1 / self.producers
        while not stop.is_set():
            now = time.monotonic()
            self._credit += (now - last) * self.rate * share
            last = now
            if self._credit < 1:
                await asyncio.sleep((1 - self._credit) / (self.rate * share))
                continue
            self._credit -= 1
            i, payload = self._message()
            t0 = time.monotonic()
            try:
                await s.enqueue(self.queue, payload)
            except BaseException:
                self.ambiguous.add(i)
                raise
            self.acked.add(i)
            now = time.monotonic()
            self.stats.published.append(now)
            self.stats.enqueue.append(now - t0)

    async def burst(self, n: int, chunk: int = 1000) -> float:
        """`n` messages at once, as array enqueues of `chunk` on a connection of its own;
        returns the seconds it took. A lost answer marks its chunk ambiguous and goes on."""
        t0 = time.monotonic()
        left = n
        while left > 0:
            try:
                conn = await connect(self.dsn, self.s.connect_timeout, self.user)
            except PgaqError:
                await asyncio.sleep(BACKOFF)
                continue
            try:
                s = Session(conn)
                while left > 0:
                    batch = [self._message() for _ in range(min(chunk, left))]
                    try:
                        await s.enqueue_array(self.queue, [(p, None) for _, p in batch])
                    except BaseException:
                        self.ambiguous.update(i for i, _ in batch)
                        left -= len(batch)
                        raise
                    self.acked.update(i for i, _ in batch)
                    left -= len(batch)
            except _CLIENT_ERRORS as exc:
                self.stats.errors[_code(exc)] += 1
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), 5)
        return time.monotonic() - t0

    async def _consume(self, s: Session, stop: asyncio.Event, consumer: str | None) -> None:
        conn = s.conn
        assert conn is not None
        opts = DequeueOptions(consumer_name=consumer, wait=0, batch_size=self.s.batch)
        agent = [Agent(consumer, self.queue)]
        while not stop.is_set():
            t0 = time.monotonic()
            await s.begin()
            try:
                got = await s.dequeue(self.queue, opts)
                ids = [payload_id(m.payload) for m in got]
                if ids:
                    await conn.execute("INSERT INTO pressure.ledger (cell, id, consumer) "
                                       "SELECT $1, unnest($2::bigint[]), $3",
                                       self.ledger, [i for i, _ in ids], consumer or "")
                await s.commit()
            except BaseException:
                with contextlib.suppress(Exception):
                    await s.rollback()
                raise
            now = time.monotonic()
            if ids:
                for _, sent in ids:
                    self.stats.done.append(now)
                    self.stats.txn.append(now - t0)
                    self.stats.pickup.append(now - sent)
            else:  # nothing ready: Oracle's LISTEN until a message is (pgaq's shared listener)
                await s.listen(agent, wait=1.0)

    # -- the figures ------------------------------------------------------------------
    def rate_between(self, a: float, b: float) -> float:
        d = self.stats.done
        return (bisect.bisect_left(d, b) - bisect.bisect_left(d, a)) / (b - a) if b > a else 0.0

    def published_between(self, a: float, b: float) -> float:
        """Acknowledged enqueues a second in [a, b)."""
        d = self.stats.published
        return (bisect.bisect_left(d, b) - bisect.bisect_left(d, a)) / (b - a) if b > a else 0.0

    def enqueue_p99(self, a: float, b: float) -> float:
        """The 99th percentile of the acknowledged enqueue calls ending in [a, b), ms."""
        d = self.stats.published
        vals = sorted(self.stats.enqueue[bisect.bisect_left(d, a):bisect.bisect_left(d, b)])
        return vals[min(len(vals) - 1, int(len(vals) * 0.99))] * 1000 if vals else float("nan")

    def window(self, a: float, b: float) -> slice:
        d = self.stats.done
        return slice(bisect.bisect_left(d, a), bisect.bisect_left(d, b))

    def p99(self, series: list[float], a: float, b: float, q: float = 0.99) -> float:
        """The `q` quantile (99th percentile by default) of `series` (txn or pickup) over
        completions in [a, b), ms."""
        vals = sorted(series[self.window(a, b)])
        return vals[min(len(vals) - 1, int(len(vals) * q))] * 1000 if vals else float("nan")

    def backlog(self) -> int:
        """Messages acknowledged to producers and not yet consumed (as far as we saw)."""
        return len(self.acked) - len(self.stats.done)


def payload_id(payload: object) -> tuple[int, float]:
    assert isinstance(payload, (bytes, bytearray, memoryview)), payload
    head = bytes(payload).split(b" ", 2)
    return int(head[0]), float(head[1])


async def _pause(stop: asyncio.Event, seconds: float) -> None:
    """Pace (or back off) for `seconds`, at once when `stop` is set."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
