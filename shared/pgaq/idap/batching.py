"""Natural batching of the gateway's autocommit enqueues and dequeues.

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
messages handed out in queue order. A request left with nothing waits the usual way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from ..client import DequeueOptions, FastPath, Message, MessageProperties, Payload, Session
from ..errors import ConnectionLost, PgaqError, wrap_db_error

Batch = Sequence[tuple[Payload, MessageProperties | None]]
Key = tuple[str | None, str | None, str, str | None]  # role, agent, queue, transformation


@dataclass
class _Item:
    messages: Batch
    done: asyncio.Future[list[str]]


class EnqueueBatcher:
    def __init__(self, pool: asyncpg.Pool, *, max_messages: int = 1000, max_inflight: int = 1,
                 fast_cache: dict[tuple[str | None, str, bool], FastPath] | None = None) -> None:
        self.pool = pool
        self.max_messages = max_messages
        self.max_inflight = max(1, max_inflight)
        self._fast = fast_cache if fast_cache is not None else {}
        self._pending: dict[Key, list[_Item]] = {}
        self._writers: dict[Key, int] = {}  # writer tasks running per key
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.batches = 0  # statements written, for tests and metrics
        self.requests = 0

    async def enqueue(self, role: str | None, agent: str | None, queue: str, messages: Batch,
                      transformation: str | None = None) -> list[str]:
        key = (role, agent, queue, transformation)
        loop = self._loop
        if loop is None:  # (asyncio.get_running_loop asks the OS for the pid on each call)
            loop = self._loop = asyncio.get_running_loop()
        item = _Item(messages, loop.create_future())
        self._pending.setdefault(key, []).append(item)
        self._spawn(key)
        return await item.done

    def _spawn(self, key: Key) -> None:
        running = self._writers.get(key, 0)
        if running < self.max_inflight:
            self._writers[key] = running + 1
            task = asyncio.create_task(self._write(key), name=f"enqueue-batch:{key[2]}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _take(self, key: Key) -> list[_Item]:
        items = self._pending.get(key, [])
        taken: list[_Item] = []
        count = 0
        while items and (not taken or count + len(items[0].messages) <= self.max_messages):
            item = items.pop(0)
            count += len(item.messages)
            taken.append(item)
        if not items:
            self._pending.pop(key, None)
        return taken

    def _next(self, key: Key) -> list[_Item] | None:
        """The next batch of live requests (cancelled ones dropped); None when none is left."""
        while True:
            items = [i for i in self._take(key) if not i.done.done()]
            if items:
                return items
            if key not in self._pending:
                return None

    async def _write(self, key: Key) -> None:
        """Write the key's batches one after another on one connection, held while work
        keeps coming (an acquire and a release per batch cost the loop more than the
        batch's own statement), given back when the pool has none left for others, and
        taken afresh after a lost one."""
        cancelled = False
        items: list[_Item] | None = None
        try:
            items = self._next(key)
            while items is not None:
                try:
                    conn = await self.pool.acquire()
                except Exception as exc:
                    # the database is away (or the pool failed): this batch fails as it
                    # would on a lost connection, and what is queued gets its own try
                    err = wrap_db_error(exc) if _driver_error(exc) else exc
                    for item in items:
                        _fail(item, err)
                    items = self._next(key)
                    continue
                try:
                    while items is not None:
                        lost = await self._flush(key, items, conn)
                        items = self._next(key)
                        if items is None and not lost:
                            # requests that arrived with the answer are still being read:
                            # let the loop go round once rather than end and start again
                            await asyncio.sleep(0)
                            items = self._next(key)
                        if lost or (items is not None and self._pool_exhausted()):
                            break  # a fresh connection, or another's turn at the pool
                finally:
                    await self.pool.release(conn)
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            for item in items or ():  # taken but not written (cancelled, or a bug)
                _fail(item, PgaqError("enqueue cancelled"))
            left = self._writers.pop(key, 1) - 1
            if left > 0:
                self._writers[key] = left
            if not cancelled and self._pending.get(key):
                # this writer died on a bug: what arrived meanwhile gets a writer of its own
                # rather than waiting for the next request to start one
                self._spawn(key)

    def _pool_exhausted(self) -> bool:
        """No idle connection and no room for another: someone may be waiting for one."""
        pool = self.pool
        idle: int = pool.get_idle_size()
        size: int = pool.get_size()
        return idle == 0 and size >= pool.get_max_size()

    async def _flush(self, key: Key, items: list[_Item], conn: asyncpg.Connection) -> bool:
        """Write one batch; True when its connection was lost on the way."""
        role, agent, queue, transformation = key
        session = Session(conn, role=role, agent=agent, fast_cache=self._fast)
        messages = [m for item in items for m in item.messages]
        try:
            ids = await session.enqueue_array(queue, messages, visibility="IMMEDIATE",
                                              transformation=transformation)
        except PgaqError as exc:
            if len(items) == 1 or isinstance(exc, ConnectionLost):
                # one request, or the database is away (one by one would wait for it once per
                # request while the queue's other requests queue up behind): all fail alike
                for item in items:
                    _fail(item, exc)
                return isinstance(exc, ConnectionLost)
            try:
                for i, item in enumerate(items):  # one by one: each request's own outcome
                    if await self._flush(key, [item], conn):
                        # the connection went: the rest go first on the writer's next one
                        self._pending.setdefault(key, [])[:0] = items[i + 1:]
                        return True
            except BaseException as inner:  # cancelled or a bug: nobody may wait forever
                for item in items:
                    _fail(item, inner if isinstance(inner, Exception)
                          else PgaqError("enqueue cancelled"))
                raise
            return False
        except BaseException as exc:  # cancelled or a bug: nobody may wait forever
            for item in items:
                _fail(item, exc if isinstance(exc, Exception) else PgaqError("enqueue cancelled"))
            raise
        self.batches += 1
        self.requests += len(items)
        at = 0
        for item in items:
            n = len(item.messages)
            if not item.done.done():
                item.done.set_result(ids[at:at + n])
            at += n
        return False

    def stats(self) -> dict[str, Any]:
        """Statements written and requests served; writer tasks running and requests
        queued for one, now (each zero when the batcher is idle)."""
        return {"batches": self.batches, "requests": self.requests,
                "writers": sum(self._writers.values()),
                "waiting": sum(len(items) for items in self._pending.values())}

    async def drain(self) -> None:
        """Wait until every writer has ended, its connection given back (a writer ends
        once nothing is queued for it). A writer that died of a bug raises it here."""
        while self._tasks:
            await asyncio.gather(*self._tasks)


DequeueKey = tuple[str | None, str | None, str, str | None, str]  # role, agent, queue, consumer, mode


@dataclass
class _Want:
    count: int
    done: asyncio.Future[list[Message]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())


class DequeueBatcher:
    def __init__(self, pool: asyncpg.Pool, *, max_messages: int = 1000,
                 fast_cache: dict[tuple[str | None, str, bool], FastPath] | None = None) -> None:
        self.pool = pool
        self.max_messages = max_messages
        self._fast = fast_cache if fast_cache is not None else {}
        self._pending: dict[DequeueKey, list[_Want]] = {}
        self._takers: dict[DequeueKey, asyncio.Task[None]] = {}
        self.batches = 0
        self.requests = 0

    async def dequeue(self, role: str | None, agent: str | None, queue: str, consumer: str | None,
                      mode: str, count: int) -> list[Message]:
        """Up to `count` messages removed and committed; [] when the queue had none."""
        key = (role, agent, queue, consumer, mode)
        want = _Want(count)
        self._pending.setdefault(key, []).append(want)
        if key not in self._takers:
            self._takers[key] = asyncio.create_task(self._take_all(key), name=f"dequeue-batch:{queue}")
        return await want.done

    async def _take_all(self, key: DequeueKey) -> None:
        try:
            while True:
                wants = self._pending.pop(key, [])
                wants = [w for w in wants if not w.done.done()]
                if not wants:
                    return
                taken: list[_Want] = []
                total = 0
                while wants and (not taken or total + wants[0].count <= self.max_messages):
                    total += wants[0].count
                    taken.append(wants.pop(0))
                if wants:  # over the limit: the rest go with the next statement
                    self._pending.setdefault(key, [])[:0] = wants
                await self._take(key, taken, total)
        finally:
            self._takers.pop(key, None)

    async def _take(self, key: DequeueKey, wants: list[_Want], total: int) -> None:
        role, agent, queue, consumer, mode = key
        session = Session(None, pool=self.pool, role=role, agent=agent, fast_cache=self._fast)
        try:
            got = await session.dequeue(queue, DequeueOptions(
                consumer_name=consumer, dequeue_mode=mode, visibility="IMMEDIATE", wait=0,
                batch_size=total))
        except BaseException as exc:
            err = exc if isinstance(exc, Exception) else PgaqError("dequeue cancelled")
            for w in wants:  # an error is every request's (the queue's state, privileges...)
                if not w.done.done():
                    w.done.set_exception(err)
            if not isinstance(exc, Exception):
                raise
            return
        self.batches += 1
        self.requests += len(wants)
        at = 0
        for w in wants:
            if not w.done.done():
                w.done.set_result(got[at:at + w.count])
            at += w.count

    def stats(self) -> dict[str, Any]:
        return {"batches": self.batches, "requests": self.requests}


def _driver_error(exc: BaseException) -> bool:
    return isinstance(exc, (OSError, asyncpg.PostgresError, asyncpg.InterfaceError,
                            asyncpg.InternalClientError))


def _fail(item: _Item, exc: BaseException) -> None:
    if not item.done.done():
        item.done.set_exception(exc)
