"""LISTEN on a dedicated connection, shared by every waiter of a process.

Waiters subscribe to a channel and get an event (`Wakeup`, an asyncio.Event) set on
NOTIFY. A plain subscription is set on every NOTIFY of its channels. Waiters that compete
for the same messages (the same queue, consumer and criteria: `share`, a key) instead pass
a baton: a NOTIFY sets ONE of them (the one that began its wait last), not all,
so a message committed while hundreds wait costs one look, not hundreds. A woken waiter
that got something calls `took()`, which wakes the next one (there may be more: a
transaction that enqueued k messages notifies once); one that found nothing keeps the
wake-up, as no other waiter of its key could have found more. One that leaves holding a
wake-up it did not use (its event set, or by an exception) passes it on. So a message is
always looked for by some waiter of each key until one takes it, and no wake-up is lost.

The connection is never a pooled one; when it drops, the listener reconnects with backoff,
re-subscribes every channel and then wakes every waiter, so that no wake-up is lost
across a PostgreSQL restart (waiters re-check the database after any wake-up).

Waiters also look now and then in case a NOTIFY was missed (a client of the previous
release enqueuing, a wake-up lost with a connection): a plain subscription on its own
timer, a shared key once per `poll` seconds for all of its waiters (the listener wakes one
of them as a NOTIFY would: it found nothing, so none of the others would have). Each
waiter on its own timer made 256 waiters of one queue cost 51 looks a second, in bursts:
the timers of waiters that began together stay together, and a gateway's waits queue for
its pool behind them.

Registering a queue (its first waiter) is not enough by itself: an enqueuer looks for
waiters without a lock (R__11_wakeups.sql), so one that looked just before the
registration was committed notifies nobody. So the registration then reads the
transactions still writing the queue's tables (aq.waiter_writers), before the waiter's
first look; while any of them runs, it polls (1 ms, doubling to 50 ms) and, once none does,
wakes the queue's waiters as a NOTIFY would. That is once per registration, not per wait.

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
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager
from typing import Any, Literal

import asyncpg

from .aio import TaskGroup, wait_any
from .db import DB_ERRORS
from .queries import load

log = logging.getLogger("pgaq.listener")

WRITERS_POLL = (0.001, 0.05)  # the first and the longest pause between looks at the writers


class Wakeup(asyncio.Event):
    """A subscription's event. With a `share` key, `took()` after a look that got
    something passes the wake-up on to the next waiter of the key."""

    def __init__(self, listener: Listener, channels: list[str], share: Hashable | None,
                 poll: float | None = None) -> None:
        super().__init__()
        self._listener = listener
        self.channels = channels
        self.share = share
        self.poll = poll  # a shared key's safety look: at least this often (seconds)
        self.blocked = 0  # tasks waiting on it now (idle: preferred for a wake-up)
        # set by another waiter's take rather than by a NOTIFY or a safety look: a run of
        # messages (a transaction's, a backlog) is being taken
        self.relayed = False

    @property
    def polled(self) -> bool:
        """Whether the listener makes this waiter's safety looks (it need not time its own)."""
        return self.share is not None and self.poll is not None and self._listener.polling

    async def wait(self) -> Literal[True]:
        if not self.blocked and not self.is_set():
            self._listener._idle_now(self)
        self.blocked += 1
        try:
            return await super().wait()
        finally:
            self.blocked -= 1

    def took(self) -> bool:
        """This waiter's look got something: there may be more, wake the next one. Whether
        this waiter may wait for its turn rather than look again: one blocked in its wait
        was woken (else a busy one was set, who looks once done, or none), and this one was
        woken by a NOTIFY or a safety look. One woken by another's take is in a run of
        messages and looks again, so a run committed together widens to every waiter, one
        more per message taken, instead of passing between two."""
        if self.share is not None:
            return self._listener._pass_on(self) and not self.relayed
        return False


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
        self._registering: dict[str, asyncio.Event] = {}  # set once registered (and read)
        self._conn: asyncpg.Connection | None = None
        # channel -> share key (None: woken on every NOTIFY) -> subscriptions, the one that
        # began to wait last at the end
        self._subs: dict[str, dict[Hashable | None, dict[Wakeup, None]]] = {}
        self._listening: set[str] = set()
        self._lock = asyncio.Lock()
        self._lost = asyncio.Event()
        self._stop = asyncio.Event()
        self._polls = asyncio.Event()  # a shared waiter with a shorter poll arrived
        self._period: float | None = None  # the safety looks' period now
        self._safety: asyncio.Task[None] | None = None
        self._tasks: TaskGroup | None = None
        self.connected = asyncio.Event()
        self.subscribed = asyncio.Event()  # set whenever a waiter's LISTEN is in place

    async def start(self) -> None:
        self._tasks = TaskGroup("listener")
        await self._connect()
        self._tasks.spawn("reconnect", self._reconnect_loop())
        self._safety = self._tasks.spawn("safety looks", self._safety_looks())

    @property
    def polling(self) -> bool:
        """Whether shared waiters' safety looks are made here (the listener is running)."""
        return self._safety is not None and not self._safety.done()

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
    async def subscribe(self, *channels: str, share: Hashable | None = None,
                        poll: float | None = None) -> AsyncIterator[Wakeup]:
        """An event set on NOTIFY of any of `channels` (and after reconnects): on every one,
        or, with a `share` key, when this waiter's turn comes among those of the same key
        (see the module's doc: call `took()` after a look that got something). `poll`,
        with a share key: set at least every `poll` seconds for one waiter of the key
        (`Wakeup.polled` says the listener does so)."""
        wanted = list(dict.fromkeys(channels))
        event = Wakeup(self, wanted, share, poll if share is not None else None)
        if event.poll is not None and (self._period is None or event.poll < self._period):
            self._polls.set()
        firsts = []
        for channel in wanted:
            if not self._subs.get(channel):
                lingering = self._lingering.pop(channel, None)
                if lingering is not None:
                    lingering.cancel()  # still registered
                else:
                    firsts.append(channel)
                    self._registering[channel] = asyncio.Event()
            self._subs.setdefault(channel, {}).setdefault(share, {})[event] = None
        ok = False
        try:
            for channel in wanted:
                await self._ensure_listening(channel)
            for channel in firsts:
                await self._register(channel)
                self._registering.pop(channel).set()
            for channel in wanted:
                # a registration another waiter began: this one's first look comes after it
                # (and after its read of the writers)
                pending = self._registering.get(channel)
                if pending is not None:
                    await pending.wait()
            self.subscribed.set()
            yield event
            ok = True
        finally:
            for channel in firsts:  # (not registered: whoever waits for it goes on)
                pending = self._registering.pop(channel, None)
                if pending is not None:
                    pending.set()
            for channel in wanted:
                groups = self._subs.get(channel, {})
                group = groups.get(share, {})
                group.pop(event, None)
                if not group:
                    groups.pop(share, None)
            if share is not None and (event.is_set() or not ok):
                self._pass_on(event)  # a wake-up it may not have used
            for channel in wanted:
                if not self._subs.get(channel):
                    self._subs.pop(channel, None)
                    await self._release(channel)

    @property
    def waiters(self) -> int:
        """How many subscriptions are open (one per waiting call)."""
        return len(self._all())

    @property
    def idle(self) -> int:
        """How many of them are blocked in their wait with no wake-up pending (all of them,
        once every wake-up was looked into)."""
        return sum(1 for e in self._all() if e.blocked and not e.is_set())

    def _all(self) -> set[Wakeup]:
        return {e for groups in self._subs.values() for g in groups.values() for e in g}

    def _notify(self, _conn: Any, _pid: int, channel: str, _payload: str) -> None:
        for share, group in list(self._subs.get(channel, {}).items()):
            if share is None:
                for event in list(group):
                    event.set()
            else:
                self._wake_one(group)

    @staticmethod
    def _wake_one(group: dict[Wakeup, None], but: Wakeup | None = None) -> bool:
        """Set the event of the waiter of `group` that began to wait last (blocked in its
        wait), else of one not set (busy looking: it looks again); none when every event is
        set already (each of them looks again). Whether one blocked in its wait was set."""
        chosen = None
        for event in reversed(group):
            if event is but or event.is_set():
                continue
            if event.blocked:
                chosen = event
                break
            if chosen is None:
                chosen = event
        if chosen is None:
            return False
        chosen.relayed = but is not None
        chosen.set()
        return chosen.blocked > 0

    def _idle_now(self, event: Wakeup) -> None:
        """`event`'s waiter begins to wait: the most recently idle of its key, the next to
        be woken (its backend and its memory are the warmest: with hundreds of waiters, the
        longest idle one's cost a cold start per message)."""
        if event.share is None:
            return
        for channel in event.channels:
            group = self._subs.get(channel, {}).get(event.share)
            if group is not None and event in group:
                del group[event]
                group[event] = None

    def _poll_period(self) -> float | None:
        """The shortest poll among shared waiters, None when there are none."""
        polls = [e.poll for e in self._all() if e.poll is not None]
        return min(polls) if polls else None

    async def _safety_looks(self) -> None:
        """Every shared key's safety look: one of its waiters woken per period (the shortest
        `poll` of the waiters), timed from the last round, so that waiters arriving all the
        time do not put it off."""
        loop = asyncio.get_running_loop()
        last = loop.time()
        while not self._stop.is_set():
            self._polls.clear()
            period = self._period = self._poll_period()
            if period is None:
                await wait_any(self._polls, None, self._stop)
                last = loop.time()
                continue
            wait = last + period - loop.time()
            if wait > 0:
                await wait_any(self._polls, wait, self._stop)
                continue  # again: a shorter period may have come
            last = loop.time()
            for groups in list(self._subs.values()):
                for share, group in list(groups.items()):
                    if share is not None and any(e.poll is not None for e in group):
                        self._wake_one(group)

    def _pass_on(self, event: Wakeup) -> bool:
        """Wake another waiter of `event`'s key on each of its channels; whether each
        channel's wake-up went to one blocked in its wait."""
        passed = True
        for channel in event.channels:
            group = self._subs.get(channel, {}).get(event.share)
            if not (group and self._wake_one(group, event)):
                passed = False
        return passed

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
                writers = await self._writers(self._conn, qid)
            except DB_ERRORS as exc:
                log.warning("registering a waiter on %s failed: %r", channel, exc)
                self._lost.set()
                return
            self._follow(channel, qid, writers)

    @staticmethod
    async def _writers(conn: asyncpg.Connection, qid: int) -> list[str]:
        """The transactions writing the queue's tables now (R__11_wakeups.sql)."""
        try:
            writers: list[str] = await conn.fetchval(load("listener_writers"), qid, None)
        except asyncpg.UndefinedFunctionError:
            # a database not yet upgraded: its enqueuers still take the advisory lock that
            # its aq.register_waiter waited for, so there is nothing to follow
            return []
        return writers

    def _follow(self, channel: str, qid: int, writers: list[str]) -> None:
        """Wake the channel's waiters once the transactions `writers` (writing the queue's
        tables when it was registered) have ended: they may have looked for waiters before
        the registration was committed (see the module's doc)."""
        if writers and self._tasks is not None:
            self._tasks.spawn(f"writers {channel}", self._await_writers(channel, qid, writers))

    async def _await_writers(self, channel: str, qid: int, writers: list[str]) -> None:
        if self._conn is None:
            return
        conn: asyncpg.Connection = self._conn
        pause, longest = WRITERS_POLL
        while writers:
            await wait_any(asyncio.Event(), pause, self._stop)
            pause = min(pause * 2, longest)
            if (self._stop.is_set() or conn is not self._conn
                    or (channel not in self._subs and channel not in self._lingering)):
                return  # unregistered, or reconnected: the reconnect wakes every waiter
            async with self._lock:
                if conn.is_closed():
                    return
                try:
                    writers = await conn.fetchval(load("listener_writers"), qid, writers)
                except DB_ERRORS as exc:
                    log.warning("following the writers of %s failed: %r", channel, exc)
                    self._lost.set()
                    return
        self._notify(conn, 0, channel, "")

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
                # as a failed REGISTER: the connection is suspect. A backend killed while
                # idle leaves asyncpg consuming its FATAL: this statement is refused
                # ("another operation is in progress") and the termination listener is
                # not always called, so without this the listener stayed on a dead link
                self._lost.set()

    def _on_terminate(self, _conn: Any) -> None:
        self._lost.set()

    async def _connect(self) -> None:
        conn = await (self._connector() if self._connector is not None else asyncpg.connect(self._dsn))
        conn.add_termination_listener(self._on_terminate)
        follow: list[tuple[str, int, list[str]]] = []
        async with self._lock:
            self._conn = conn
            self._listening.clear()
            for task in self._lingering.values():  # the old connection's rows are stale
                task.cancel()
            self._lingering.clear()
            for channel in list(self._subs):
                await conn.add_listener(channel, self._notify)
                self._listening.add(channel)
                qid = self._queue_id(channel)
                if qid is not None:
                    await conn.execute(load("listener_register"), qid)
                    follow.append((channel, qid, await self._writers(conn, qid)))
        for channel, qid, writers in follow:
            self._follow(channel, qid, writers)
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
            for groups in list(self._subs.values()):
                for group in list(groups.values()):
                    for event in list(group):
                        event.set()
