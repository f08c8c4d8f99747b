"""Natural batching of the gateway's autocommit enqueues and dequeues, over pgaq.coalesce.

Requests that commit on their own (AQXmlSend/Publish with AQXmlCommit and no open
transaction, or IMMEDIATE visibility) for the same queue, role and agent, arriving while
earlier batches are being written, are written together: one statement and one commit for
all of them. Each request still gets exactly its own message ids, all of its messages or
none: if a combined batch fails, its requests are retried one by one, so one bad request
cannot fail the others. Idle, a request is written at once (no timer, no added latency).
By default one batch of a key is written at a time (`max_inflight` 1): what arrives
meanwhile goes in the next. Concurrent batches of one queue contend for the same WAL
flush and the same index pages, so one writer sends the most on a small machine
(docs/gateway.md, "Measurements behind the defaults"). More writers may pay off where a
commit's flush is slow and CPUs are many.

Autocommit REMOVE receives without selectors for the same queue, consumer, role and agent
are taken the same way: one dequeue of the sum of their batch sizes, committed once, the
messages handed out in queue order. A request left with nothing waits the usual way. The
dequeue runs on when one of its requests is cancelled (its client went away), so it is
committed only if every message it took has a request still there (`_take`).

The grouping itself is pgaq.coalesce's, as for the library's buffered REMOVEs; what is
the gateway's own is where a statement runs: on a pool connection that a key keeps from
one statement to the next while requests keep coming (an acquire and a release per batch
cost the event loop more than the batch's own statement), given back when the key goes
idle, when the pool has none left for others, or when it was lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Hashable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg
from asyncpg.transaction import Transaction

from ..client import DequeueOptions, FastPath, Message, MessageProperties, Payload, Session
from ..coalesce import Coalescer
from ..errors import ConnectionLost, PgaqError, wrap_db_error

Batch = Sequence[tuple[Payload, MessageProperties | None]]
FastCache = dict[tuple[str | None, str, bool], FastPath]

log = logging.getLogger("pgaq.gateway")


class _Connections:
    """The pool connections the keys of one Coalescer keep between their statements."""

    def __init__(self, pool: asyncpg.Pool, name: str) -> None:
        self.pool = pool
        self.name = name
        self.group: Coalescer[Any, Any] | None = None  # whose `waiting` says when to keep one
        self._kept: dict[Hashable, list[asyncpg.Connection]] = {}
        self._begun: dict[asyncpg.Connection, Transaction] = {}
        self._releases: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def lease(self, key: Hashable) -> AsyncIterator[asyncpg.Connection]:
        kept = self._kept.get(key)
        if kept:
            conn = kept.pop()
        else:
            try:
                conn = await self.pool.acquire()
            except Exception as exc:  # the database is away (or the pool failed: as it is)
                if _driver_error(exc):
                    raise wrap_db_error(exc) from exc
                raise
        keep = False
        try:
            yield conn
            keep = True
        except ConnectionLost:
            raise  # (given back below: the pool replaces a closed connection)
        except Exception:
            # (one left in a transaction goes back: the pool's reset rolls it back)
            keep = not conn.is_closed() and not conn.is_in_transaction()
            raise
        finally:
            if keep and self.keeps(key):
                self._kept.setdefault(key, []).append(conn)
            else:
                await self._give_back(conn)

    def keeps(self, key: Hashable) -> bool:
        """Whether a statement of `key` ending now keeps its connection for the next one."""
        assert self.group is not None
        return self.group.waiting(key) > 0 and not self._pool_exhausted()

    def begun(self, conn: asyncpg.Connection) -> Transaction | None:
        """The transaction the last statement on `conn` began for the next (`_take`)."""
        return self._begun.pop(conn, None)

    def begin_ahead(self, conn: asyncpg.Connection, tx: Transaction) -> None:
        self._begun[conn] = tx

    async def _give_back(self, conn: asyncpg.Connection) -> None:
        """To the pool; a transaction begun ahead for a next statement is rolled back first
        (the pool's reset would roll it back too, but reports it as leaked)."""
        tx = self._begun.pop(conn, None)
        if tx is not None:
            try:
                await tx.rollback()
            except Exception:  # the pool's reset then rolls back or drops it
                pass
        await self.pool.release(conn)

    def idle(self, key: Hashable) -> None:
        """A key with nothing left to write gives back what it kept (its last statement
        gives its own back; this is for waiters that were cancelled after all)."""
        for conn in self._kept.pop(key, []):
            task = asyncio.create_task(self._give_back(conn), name=f"{self.name}: release")
            self._releases.add(task)
            task.add_done_callback(self._releases.discard)

    def kept(self) -> int:
        return sum(len(c) for c in self._kept.values())

    async def drain(self) -> None:
        while self._releases:
            await asyncio.gather(*self._releases)

    def _pool_exhausted(self) -> bool:
        """No idle connection and no room for another: someone may be waiting for one."""
        pool = self.pool
        idle: int = pool.get_idle_size()
        size: int = pool.get_size()
        return idle == 0 and size >= pool.get_max_size()


class _Batcher:
    """One Coalescer and the connections its keys keep."""

    def __init__(self, pool: asyncpg.Pool, name: str, max_messages: int, max_inflight: int,
                 fast_cache: FastCache | None) -> None:
        self.pool = pool
        self._fast: FastCache = fast_cache if fast_cache is not None else {}
        self._conns = _Connections(pool, name)
        # overlap: a request's handler answers and the next requests are read (ms of work
        # each) while the next statement runs, not before it starts
        self._group: Coalescer[Any, Any] = Coalescer(name, max_size=max_messages,
                                                     max_inflight=max_inflight,
                                                     on_idle=self._conns.idle, overlap=True)
        self._conns.group = self._group

    @property
    def batches(self) -> int:
        """Statements written (for tests and metrics)."""
        return self._group.statements

    @property
    def requests(self) -> int:
        return self._group.calls

    def stats(self) -> dict[str, Any]:
        """Statements written and requests served; now: statements in flight ("writers"),
        requests queued for one, connections kept (each zero when the batcher is idle)."""
        g = self._group.stats()
        return {"batches": g["statements"], "requests": g["calls"], "writers": g["writing"],
                "waiting": g["waiting"], "kept": self._conns.kept()}

    async def drain(self) -> None:
        """Until no statement is in flight and every connection is given back."""
        await self._group.drain()
        await self._conns.drain()


class EnqueueBatcher(_Batcher):
    def __init__(self, pool: asyncpg.Pool, *, max_messages: int = 1000, max_inflight: int = 1,
                 fast_cache: FastCache | None = None) -> None:
        super().__init__(pool, "IDAP sends", max_messages, max_inflight, fast_cache)

    async def enqueue(self, role: str | None, agent: str | None, queue: str, messages: Batch,
                      transformation: str | None = None) -> list[str]:
        key = (role, agent, queue, transformation)

        async def write(batches: Sequence[Batch]) -> list[list[str]]:
            async with self._conns.lease(key) as conn:
                session = Session(conn, role=role, agent=agent, fast_cache=self._fast)
                ids = await session.enqueue_array(queue, [m for b in batches for m in b],
                                                  visibility="IMMEDIATE",
                                                  transformation=transformation)
            return _shares(ids, [len(b) for b in batches])

        ids: list[str] = await self._group.submit(key, messages, len(messages), write)
        return ids


@dataclass(eq=False)
class _Take:
    """One receive's part of a grouped dequeue. `gone`: its caller was cancelled (the
    client went away), so it takes nothing: a message removed for it would be answered to
    nobody. `taken`: its share, once committed."""

    count: int
    gone: bool = False
    taken: list[Message] | None = None


class DequeueBatcher(_Batcher):
    def __init__(self, pool: asyncpg.Pool, *, max_messages: int = 1000,
                 fast_cache: FastCache | None = None) -> None:
        super().__init__(pool, "IDAP receives", max_messages, 1, fast_cache)

    async def dequeue(self, role: str | None, agent: str | None, queue: str, consumer: str | None,
                      mode: str, count: int) -> list[Message]:
        """Up to `count` messages removed and committed; [] when the queue had none.
        Nothing is committed for a caller cancelled before the commit was sent (`_take`)."""
        key = (role, agent, queue, consumer, mode)

        async def take(takes: Sequence[_Take]) -> list[list[Message]]:
            async with self._conns.lease(key) as conn:
                session = Session(conn, role=role, agent=agent, fast_cache=self._fast)
                return await _take(conn, session, queue, consumer, mode, takes,
                                   self._conns, key)

        mine = _Take(count)
        try:
            got: list[Message] = await self._group.submit(key, mine, count, take)
        except asyncio.CancelledError:
            mine.gone = True
            if mine.taken:  # committed, then cancelled before it could answer
                log_lost(queue, mine.taken)
            raise
        return got


async def _take(conn: asyncpg.Connection, session: Session, queue: str, consumer: str | None,
                mode: str, takes: Sequence[_Take], conns: _Connections, key: Hashable
                ) -> list[list[Message]]:
    """The takes' dequeue in a transaction committed only if every message it removed has a
    caller still there: the statement runs on whether or not its callers wait (it is
    shielded, and serves others), so a caller cancelled while it ran (its client went
    away) would lose its share to an autocommit. Then the transaction is rolled back and
    run again for the callers left: rare, and the messages stay in the queue (a rollback
    here is no failed attempt: no caller ever saw them). Which callers are there is read
    just before COMMIT is sent, with no await in between; a caller cancelled during the
    COMMIT's round trip, or after it before its reply is written, loses its share: the
    window any request/response protocol has (logged, `log_lost`).

    The transaction's BEGIN and COMMIT are two round trips an autocommit statement did not
    pay, on the key's one writer: on a connection the key keeps for its next statement,
    that one's BEGIN goes with this COMMIT (`COMMIT; BEGIN`, as Session.commit(begin_next)
    does: the driver's transaction object stays the open one). An empty transaction holds
    no snapshot and no lock; one given back instead is rolled back (`_give_back`)."""
    counts = [0 if t.gone else t.count for t in takes]  # read once the connection is there
    moved = False
    while sum(counts):
        tx = conns.begun(conn)
        if tx is None:
            tx = conn.transaction()
            await _driven(tx.start())
        try:
            got = await session.dequeue(queue, DequeueOptions(
                consumer_name=consumer, dequeue_mode=mode, visibility="IMMEDIATE", wait=0,
                batch_size=sum(counts)))
        except PgaqError as exc:
            await _roll_back(tx)
            if exc.sqlstate != "25P02" or moved:
                raise
            # the next route after one whose queue moved (routes.serve, ORA-24010) met this
            # transaction aborted by it: run it again in a new one (the cache is renewed)
            moved = True
            continue
        except BaseException:
            await _roll_back(tx)
            raise
        live = [0 if t.gone else t.count for t in takes]
        if len(got) > sum(live):  # some went while it ran: not enough callers for them
            await _roll_back(tx, raising=True)
            counts = live
            continue
        # a lost connection here is ConnectionLost: never run again, the COMMIT may have
        # been done (as a lost autocommit statement)
        if conns.keeps(key):
            try:
                await conn.execute("COMMIT; BEGIN")
            except Exception as exc:
                await _roll_back(tx)  # (a failed COMMIT ended it: the driver's object too)
                if _driver_error(exc):
                    raise wrap_db_error(exc) from exc
                raise
            conns.begin_ahead(conn, tx)
        else:
            await _driven(tx.commit())
        shares = _shares(got, live)
        for t, share in zip(takes, shares, strict=True):
            t.taken = share
            if t.gone and share:  # cancelled during the COMMIT's round trip
                log_lost(queue, share)
        return shares
    return _shares([], counts)


async def _driven(step: Awaitable[None]) -> None:
    """A transaction step, its driver errors as pgaq's (a lost connection: ConnectionLost)."""
    try:
        await step
    except Exception as exc:
        if _driver_error(exc):
            raise wrap_db_error(exc) from exc
        raise


async def _roll_back(tx: asyncpg.transaction.Transaction, *, raising: bool = False) -> None:
    """End the transaction. After an error (`raising` False) that error is the one
    reported: a connection that cannot roll back goes back to the pool (`lease`), whose
    reset rolls back or drops it."""
    if raising:
        await _driven(tx.rollback())
        return
    try:
        await tx.rollback()
    except Exception:  # (see above)
        pass


def log_lost(queue: str, taken: Sequence[Message]) -> None:
    """Messages committed for a receive whose client went away before its answer."""
    log.warning("receive of %s committed for a client that went away before its reply: "
                "message ids %s delivered to nobody", queue, ", ".join(m.msgid for m in taken))


def _shares(items: list[Any], counts: Sequence[int]) -> list[list[Any]]:
    """Each request's share of a statement's result, in order."""
    out: list[list[Any]] = []
    at = 0
    for n in counts:
        out.append(items[at:at + n])
        at += n
    return out


def _driver_error(exc: BaseException) -> bool:
    return isinstance(exc, (OSError, asyncpg.PostgresError, asyncpg.InterfaceError,
                            asyncpg.InternalClientError))
