"""LISTEN on a dedicated connection, shared by every waiter of a process.

Waiters subscribe to a channel and get an asyncio.Event set on each NOTIFY. The
connection is never a pooled one; when it drops, the listener reconnects with backoff,
re-subscribes every channel and then wakes every waiter, so that no wake-up is lost
across a PostgreSQL restart (waiters re-check the database after any wake-up, and also
poll slowly on their own).

A queue's registration as waited on (aq.waiters, which tells enqueuers to NOTIFY) outlives
its last waiter by `linger` seconds: consumers that wait between messages would otherwise
insert and delete that row for every message, and under a pinned xmin horizon those dead
rows pile up in front of every enqueue's look at the table (the pressure cell `idle`).
While the row stays, enqueuers keep notifying, so a waiter that comes back within the
linger needs no registration of its own to be woken.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from .aio import TaskGroup, wait_any
from .db import DB_ERRORS
from .queries import load

log = logging.getLogger("pgaq.listener")


class Listener:
    def __init__(self, dsn: str | None = None, *, reconnect_max: float = 5.0,
                 connect: Callable[[], Awaitable[asyncpg.Connection]] | None = None,
                 linger: float = 2.0) -> None:
        """Connects to `dsn`, or through `connect` (pgaq.waiting: the parameters of a
        waiting session's own connection)."""
        if (dsn is None) == (connect is None):
            raise ValueError("a Listener takes a dsn or a connect function")
        self._dsn = dsn
        self._connector = connect
        self._reconnect_max = reconnect_max
        self._linger = linger
        self._lingering: dict[str, asyncio.Task[None]] = {}  # registered, no waiter left
        self._conn: asyncpg.Connection | None = None
        self._events: dict[str, set[asyncio.Event]] = defaultdict(set)
        self._listening: set[str] = set()
        self._lock = asyncio.Lock()
        self._lost = asyncio.Event()
        self._stop = asyncio.Event()
        self._tasks: TaskGroup | None = None
        self.connected = asyncio.Event()
        self.subscribed = asyncio.Event()  # set whenever a waiter's LISTEN is in place

    async def start(self) -> None:
        self._tasks = TaskGroup("listener")
        await self._connect()
        self._tasks.spawn("reconnect", self._reconnect_loop())

    async def close(self) -> None:
        self._stop.set()
        for channel, task in list(self._lingering.items()):
            task.cancel()
            await self._unregister(channel)
        self._lingering.clear()
        if self._tasks:
            await self._tasks.close()
        if self._conn is not None and not self._conn.is_closed():
            await self._conn.close()

    @asynccontextmanager
    async def subscribe(self, *channels: str) -> AsyncIterator[asyncio.Event]:
        """One event set on every NOTIFY of any of `channels` (and after reconnects)."""
        event = asyncio.Event()
        wanted = list(dict.fromkeys(channels))
        firsts = []
        for channel in wanted:
            if not self._events.get(channel):
                lingering = self._lingering.pop(channel, None)
                if lingering is not None:
                    lingering.cancel()  # still registered
                else:
                    firsts.append(channel)
            self._events[channel].add(event)
        try:
            for channel in wanted:
                await self._ensure_listening(channel)
            for channel in firsts:
                await self._register(channel)
            self.subscribed.set()
            yield event
        finally:
            for channel in wanted:
                self._events[channel].discard(event)
                if not self._events[channel]:
                    self._events.pop(channel, None)
                    await self._release(channel)

    @property
    def waiters(self) -> int:
        """How many subscriptions are open (one per waiting call)."""
        return len({id(e) for events in self._events.values() for e in events})

    def _notify(self, _conn: Any, _pid: int, channel: str, _payload: str) -> None:
        for event in list(self._events.get(channel, ())):
            event.set()

    async def _ensure_listening(self, channel: str) -> None:
        async with self._lock:
            if channel in self._listening or self._conn is None or self._conn.is_closed():
                return
            try:
                await self._conn.add_listener(channel, self._notify)
                self._listening.add(channel)
            except DB_ERRORS as exc:
                log.warning("LISTEN %s failed: %r; will retry after reconnect", channel, exc)
                self._lost.set()

    @staticmethod
    def _queue_id(channel: str) -> int | None:
        """Queue channels are `aq_<queue id>`; enqueuers notify them only while a process
        is registered as waiting (aq.wake)."""
        if channel.startswith("aq_") and channel[3:].isdigit():
            return int(channel[3:])
        return None

    async def _register(self, channel: str) -> None:
        qid = self._queue_id(channel)
        if qid is None:
            return
        async with self._lock:
            if self._conn is None or self._conn.is_closed():
                return  # the reconnect registers every active channel
            try:
                await self._conn.execute(load("listener_register"), qid)
            except DB_ERRORS as exc:
                log.warning("registering a waiter on %s failed: %r", channel, exc)
                self._lost.set()

    async def _release(self, channel: str) -> None:
        """The last waiter of `channel` left: unregister it after the linger, unless a
        waiter comes back first."""
        if self._linger <= 0 or self._tasks is None or self._queue_id(channel) is None or self._stop.is_set():
            await self._unregister(channel)
            return
        self._lingering[channel] = self._tasks.spawn(f"linger {channel}", self._unregister_later(channel))

    async def _unregister_later(self, channel: str) -> None:
        await wait_any(asyncio.Event(), self._linger, self._stop)  # the linger
        me = asyncio.current_task()
        if self._lingering.get(channel) is not me or self._stop.is_set():
            return  # a waiter came back (or close() unregisters)
        del self._lingering[channel]
        await self._unregister(channel)

    async def _unregister(self, channel: str) -> None:
        qid = self._queue_id(channel)
        if qid is None:
            return
        async with self._lock:
            if self._conn is None or self._conn.is_closed():
                return
            try:
                await self._conn.execute(load("listener_unregister"), qid)
            except DB_ERRORS as exc:
                log.warning("unregistering a waiter on %s failed: %r", channel, exc)

    def _on_terminate(self, _conn: Any) -> None:
        self._lost.set()

    async def _connect(self) -> None:
        conn = await (self._connector() if self._connector is not None else asyncpg.connect(self._dsn))
        conn.add_termination_listener(self._on_terminate)
        async with self._lock:
            self._conn = conn
            self._listening.clear()
            for task in self._lingering.values():  # the old connection's rows are stale
                task.cancel()
            self._lingering.clear()
            for channel in list(self._events):
                await conn.add_listener(channel, self._notify)
                self._listening.add(channel)
                qid = self._queue_id(channel)
                if qid is not None:
                    await conn.execute(load("listener_register"), qid)
        self.connected.set()

    async def _reconnect_loop(self) -> None:
        delay = 0.05
        while not self._stop.is_set():
            await wait_any(self._lost, None, self._stop)
            if self._stop.is_set():
                return
            self.connected.clear()
            while not self._stop.is_set():
                try:
                    # not while a waiter's (UN)REGISTER runs on it (asyncpg refuses a
                    # second operation, and that statement would fail for nothing); at
                    # once, not a polite close a broken link may hold up with waiters behind
                    async with self._lock:
                        if self._conn is not None and not self._conn.is_closed():
                            self._conn.terminate()
                except DB_ERRORS:
                    pass
                try:
                    await self._connect()
                    delay = 0.05
                    log.info("listener reconnected")
                    break
                except DB_ERRORS as exc:
                    log.warning("listener reconnect failed: %r", exc)
                    await wait_any(asyncio.Event(), delay, self._stop)
                    delay = min(delay * 2, self._reconnect_max)
            # wake every waiter: whatever was notified while we were away is re-checked
            for events in list(self._events.values()):
                for event in list(events):
                    event.set()
