"""The queue monitor's loop: do what is due, then sleep until the next due time.

The work itself is SQL (aq.monitor_pass) computed from the database's clock, so a jump
of this machine's clock cannot expire messages early. The loop sleeps until the next due
time the database reported, and is woken early by NOTIFY on `aq_time` when an enqueue or
a rollback creates something due sooner; a slow safety poll covers lost notifications.
An item that is due but held by a transaction is retried after `busy_retry` (the pass
skips locked rows), so a long transaction never makes the loop spin; meanwhile one
connection waits for that transaction to end and wakes the loop at once when it does.

Beside it, a second loop raises the queue tables' scan floors every `scan_floor_period`
(aq.advance_scan_floors, R__12_scan_floor.sql): the lower bound a dequeue's scan starts at,
which keeps dequeues fast while a long transaction pins the xmin horizon. Each round
carries what the previous one saw, so the state lives here, in memory: a starting
monitor's first round puts the floors back to 0 (always safe; after a logical restore,
needed) and the next ones raise them again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

import asyncpg

from .aio import wait_any
from .db import DB_ERRORS
from .errors import wrap_db_error
from .listener import Listener
from .queries import load

log = logging.getLogger("pgaq.monitor")

PRUNE_BATCH = 10_000  # history rows of each table deleted per statement


@dataclass(frozen=True)
class MonitorSettings:
    batch: int = 5000
    safety_poll: float = 5.0
    snapshot_period: float = 60.0
    error_backoff: float = 1.0
    busy_retry: float = 0.5  # due items held by a transaction are looked at again after this
    propagated_keep: float = 7 * 86400.0  # how long a destination remembers delivered ids
    history_keep: float = 7 * 86400.0  # propagation log and queue snapshots
    attempt_waiters: int = 1  # connections waiting for noted transactions to end
    attempt_wait: float = 60.0  # longest wait for one; the safety poll settles later ones
    scan_floor_period: float = 1.0  # between rounds of aq.advance_scan_floors (0: none)


def sleep_for(next_due_in: float | None, safety_poll: float) -> float:
    """How long to sleep given the seconds until the next due item (None: nothing due)."""
    if next_due_in is None:
        return safety_poll
    return max(0.0, min(next_due_in, safety_poll))


def _log_notice(_conn: object, message: object) -> None:
    """Warnings the SQL side raises (e.g. a vanished exception queue) go to our log."""
    log.warning("%s", getattr(message, "message", message))


class Monitor:
    def __init__(self, pool: asyncpg.Pool, listener: Listener, settings: MonitorSettings) -> None:
        self.pool = pool
        self.listener = listener
        self.settings = settings
        self.passes = 0
        self.busy_passes = 0  # passes that left due items held by transactions
        self.done = 0
        self.attempts_settled = 0
        self.history_pruned = 0  # propagation log and snapshot rows past history_keep
        self.temporaries_dropped = 0  # orphaned JMS temporary destinations dropped
        self._awaited: set[str] = set()
        self._waiters = asyncio.Semaphore(max(1, settings.attempt_waiters))
        self._waiting: set[asyncio.Task[None]] = set()
        self._wake: asyncio.Event | None = None  # the loop's wake-up (aq_time)
        self._row_waiter: asyncio.Task[None] | None = None
        self.floor_rounds = 0
        self._floors: str | None = None  # the previous round's state (JSON), for the next

    async def advance_floors(self) -> None:
        """One round of the scan floors."""
        async with self.pool.acquire() as c:
            self._floors = await c.fetchval(load("monitor_scan_floors"), self._floors)
        self.floor_rounds += 1

    async def raise_floors(self, stop: asyncio.Event) -> None:
        period = self.settings.scan_floor_period
        while period > 0 and not stop.is_set():
            try:
                await self.advance_floors()
            except DB_ERRORS as exc:
                log.warning("raising the scan floors failed: %r", wrap_db_error(exc))
                self._floors = "{}"  # start again (no reset): a round's state is only good for the next
            await wait_any(asyncio.Event(), period, stop)  # the period between rounds

    async def run_once(self) -> float:
        """One pass; returns how long to sleep before the next."""
        started = time.monotonic()
        async with self.pool.acquire() as c:
            c.add_log_listener(_log_notice)
            try:
                row = await c.fetchrow(load("monitor_pass"), self.settings.batch)
                self.done += await c.fetchval(load("monitor_settle_attempts"))
            finally:
                c.remove_log_listener(_log_notice)
        assert row is not None
        spent = time.monotonic() - started  # the due time was measured when the pass began
        self.passes += 1
        self.done += row["done"]
        if row["done"] >= self.settings.batch:
            return 0.0  # more is due right now
        due = row["next_due"]
        due_in = (due - row["db_now"]).total_seconds() - spent if due is not None else None
        delay = sleep_for(due_in, self.settings.safety_poll)
        if row["busy"]:
            self.busy_passes += 1
            delay = min(delay, self.settings.busy_retry)
            if row["busy_msgid"] is not None and self._row_waiter is None and self._wake is not None:
                self._row_waiter = asyncio.create_task(
                    self._await_row(row["busy_schema"], row["busy_table"], row["busy_msgid"]))
        return delay

    async def _await_row(self, schema: str, table: str, msgid: bytes) -> None:
        """Wait for the transaction holding a due message to end, then wake the loop."""
        try:
            async with self.pool.acquire() as c:
                waited = await c.fetchval(load("monitor_await_row"), schema, table, msgid,
                                          int(self.settings.safety_poll * 1000))
            if waited and self._wake is not None:
                self._wake.set()
        except asyncpg.LockNotAvailableError:
            pass  # still held: the retry interval looks again
        except DB_ERRORS as exc:
            log.warning("waiting for a held message failed: %r", wrap_db_error(exc))
        finally:
            self._row_waiter = None

    async def snapshot(self) -> None:
        async with self.pool.acquire() as c:
            await c.fetchval(load("monitor_snapshot"))
            await c.fetchval(load("monitor_forget_waiters"))
            # JMS temporary destinations a crashed client left (R__52): gone with their lease
            self.temporaries_dropped += await c.fetchval(load("monitor_drop_orphaned_temporaries"))
            await c.fetchval(load("monitor_prune_propagated"), self.settings.propagated_keep)
            await self._prune_history(c)

    async def _prune_history(self, c: asyncpg.Connection) -> None:
        """A few rounds a period, so a backlog (an upgrade, a long-stopped monitor) drains
        without one pass holding the connection for minutes."""
        for _ in range(10):
            row = await c.fetchrow(load("monitor_prune_history"), self.settings.history_keep,
                                   PRUNE_BATCH)
            assert row is not None
            self.history_pruned += row["log_rows"] + row["snapshot_rows"]
            if max(row["log_rows"], row["snapshot_rows"]) < PRUNE_BATCH:
                return

    async def watch_attempts(self, stop: asyncio.Event) -> None:
        """On each `aq_attempt`, wait for every noted transaction still running to end."""
        async with self.listener.subscribe("aq_attempt") as noted:
            while not stop.is_set():
                if not await wait_any(noted, None, stop):
                    continue
                try:
                    async with self.pool.acquire() as c:
                        # running ones first: one that ends in between is settled just below
                        xids = [r["xid"] for r in await c.fetch(load("monitor_attempts_in_progress"))]
                        n = await c.fetchval(load("monitor_settle_attempts"))
                    self.attempts_settled += n
                    self.done += n
                except DB_ERRORS as exc:
                    log.warning("looking up noted dequeue attempts failed: %r", wrap_db_error(exc))
                    continue
                for xid in xids:
                    if xid not in self._awaited:
                        self._awaited.add(xid)
                        task = asyncio.create_task(self._await_attempts(xid))
                        self._waiting.add(task)
                        task.add_done_callback(self._waiting.discard)

    async def _await_attempts(self, xid: str) -> None:
        try:
            async with self._waiters, self.pool.acquire() as c:
                n = await c.fetchval(load("monitor_await_attempts"), xid,
                                     int(self.settings.attempt_wait * 1000))
            self.attempts_settled += n
            self.done += n
        except asyncpg.LockNotAvailableError:
            pass  # still running after attempt_wait: the safety poll settles it
        except DB_ERRORS as exc:
            log.warning("settling noted dequeue attempts failed: %r", wrap_db_error(exc))
        finally:
            self._awaited.discard(xid)

    async def run(self, stop: asyncio.Event) -> None:
        watcher = asyncio.create_task(self.watch_attempts(stop), name="monitor-attempts")
        floors = asyncio.create_task(self.raise_floors(stop), name="monitor-scan-floors")
        try:
            await self._run(stop)
        finally:
            watcher.cancel()
            floors.cancel()
            row_waiter = self._row_waiter
            tasks = [floors, *self._waiting, *([row_waiter] if row_waiter is not None else [])]
            for task in tasks:
                task.cancel()
            await asyncio.gather(watcher, *tasks, return_exceptions=True)

    async def _run(self, stop: asyncio.Event) -> None:
        next_snapshot = time.monotonic()
        async with self.listener.subscribe("aq_time") as woken:
            self._wake = woken
            while not stop.is_set():
                try:
                    delay = await self.run_once()
                    if time.monotonic() >= next_snapshot:
                        await self.snapshot()
                        next_snapshot = time.monotonic() + self.settings.snapshot_period
                except DB_ERRORS as exc:
                    log.warning("monitor pass failed: %r", wrap_db_error(exc))
                    delay = self.settings.error_backoff
                if delay > 0:
                    await wait_any(woken, delay, stop)


async def serve(dsn: str, stop: asyncio.Event, settings: MonitorSettings | None = None,
                application_name: str = "pgaq-monitor") -> None:
    """A monitor on a pool and listener of its own until `stop`: what a process that runs
    pgaq's clients and its monitor together (the pressure cells, the harness adapter)
    starts beside them, as a deployment runs the monitor service. Raises the driver's
    error if the database cannot be reached at the start."""
    settings = settings or MonitorSettings()
    # + one waiting for a held message, as the service's pool (services/monitor)
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=3 + settings.attempt_waiters, timeout=10,
                                     server_settings={"application_name": application_name})
    listener = Listener(dsn)
    try:
        await listener.start()
        await Monitor(pool, listener, settings).run(stop)
    finally:
        await listener.close()
        await pool.close()
