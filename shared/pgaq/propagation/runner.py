"""The propagator: leases schedules, and runs each one as a task.

A schedule's task waits for its window, then moves batches of READY recipients to their
destination until the backlog is empty or the window ends; it is woken by the source
queue's NOTIFY (latency 0 is immediate), by administrative changes, or by its next timer.
A batch is one source transaction: the recipients are locked (SKIP LOCKED), delivered,
then marked PROCESSED and committed. Delivered elsewhere first, a batch interrupted by a
crash is delivered again and the destination drops the copies (aq.receive_propagated).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg

from ..aio import TaskGroup, wait_any
from ..clock import Clock, SystemClock
from ..db import DB_ERRORS
from ..listener import Listener
from ..queries import load
from .policy import after_failure, window_end
from .settings import PropagatorSettings
from .transports import (
    ApplicationFailure,
    HttpTransport,
    LocalTransport,
    PgTransport,
    PropagationError,
    SystemFailure,
    Transport,
    classify,
)

log = logging.getLogger("pgaq.propagator")
CHANGES = "aq_propagation"


class Propagator:
    def __init__(self, pool: asyncpg.Pool, listener: Listener, settings: PropagatorSettings | None = None,
                 *, clock: Clock | None = None,
                 on_batch: Callable[[int, int], None] | None = None,
                 on_problem: Callable[[int, str, str], None] | None = None) -> None:
        self.pool = pool
        self.listener = listener
        self.settings = settings or PropagatorSettings()
        self.clock = clock or SystemClock()
        self.on_batch = on_batch or (lambda _sid, _n: None)  # (schedule, messages), for tests
        # (schedule, FAILURE | DISABLED | UNDELIVERABLE, error), once recorded
        self._on_problem = on_problem or (lambda _sid, _what, _err: None)
        self._runners: dict[int, asyncio.Task[None]] = {}
        self._kicks: dict[int, asyncio.Event] = defaultdict(asyncio.Event)
        # link name -> (what the transport was made from, the transport): a link an
        # administrator changed (url, credentials) or new settings make a new one
        self._transports: dict[str, tuple[tuple[Any, ...], Transport]] = {}
        self._local = LocalTransport()
        self.propagated = 0  # counters, for /metrics and tests
        self.batches = 0
        self.problems: dict[str, int] = defaultdict(int)  # by FAILURE | DISABLED | UNDELIVERABLE

    def on_problem(self, sid: int, what: str, error: str) -> None:
        self.problems[what] += 1
        self._on_problem(sid, what, error)

    @property
    def schedules(self) -> int:
        """Schedules held now (each runs as a task)."""
        return len(self._runners)

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.time(), UTC)

    async def run(self, stop: asyncio.Event) -> None:
        group = TaskGroup("propagator")
        try:
            async with self.listener.subscribe(CHANGES) as changed:
                while not stop.is_set():
                    if group.failed.done():
                        raise group.failed.result()
                    try:
                        async with self.pool.acquire() as c:
                            rows = await c.fetch(load("prop_claim"), self.settings.name,
                                                 self.settings.lease, self.settings.max_schedules)
                            rows += await c.fetch(load("prop_mine"), self.settings.name)
                    except DB_ERRORS as exc:
                        # the database is away (a restart): keep what runs, try again soon
                        log.warning("claiming schedules failed: %r", exc)
                        await wait_any(changed, min(1.0, self.settings.lease / 3), stop)
                        continue
                    owned = {r["id"] for r in rows}
                    for sid in owned - set(self._runners):
                        self._runners[sid] = group.spawn(f"schedule-{sid}", self._run_schedule(sid, stop))
                    for sid in set(self._runners) - owned:  # lost, or unscheduled
                        self._runners.pop(sid).cancel()
                    for sid, task in list(self._runners.items()):
                        if task.done():
                            self._runners.pop(sid)
                    if await wait_any(changed, self.settings.lease / 3, stop):
                        for ev in self._kicks.values():
                            ev.set()
        finally:
            await group.close()
            for _, t in self._transports.values():
                await t.close()
            try:
                async with self.pool.acquire() as c:
                    await c.execute(load("prop_release"), self.settings.name)
            except DB_ERRORS as exc:
                log.warning("could not hand the schedules back (their leases will run out): %r", exc)

    # -- one schedule -------------------------------------------------------------------
    async def _schedule(self, sid: int) -> asyncpg.Record | None:
        async with self.pool.acquire() as c:
            row: asyncpg.Record | None = await c.fetchrow(load("prop_schedule"), sid)
            return row

    async def _run_schedule(self, sid: int, stop: asyncio.Event) -> None:
        kick = self._kicks[sid]
        try:
            s = await self._schedule(sid)
            if s is None:
                return
            async with self.listener.subscribe(f"aq_{s['queue_id']}") as arrived:
                while not stop.is_set():
                    s = await self._schedule(sid)
                    if s is None or s["lease_owner"] != self.settings.name:
                        return
                    wait = await self._step(s)
                    if wait is None:
                        continue
                    # NOTIFY on the source queue, an administrative change, or the timer
                    waiter = asyncio.ensure_future(wait_any(arrived, wait, stop))
                    kicked = asyncio.ensure_future(kick.wait())
                    try:
                        await asyncio.wait([waiter, kicked], return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        waiter.cancel()
                        kicked.cancel()
                    kick.clear()
        except asyncio.CancelledError:
            raise
        except DB_ERRORS as exc:
            # our own database failed (a restart): the claim loop starts the schedule again
            log.warning("schedule %s stopped: %r", sid, exc)
        finally:
            self._kicks.pop(sid, None)
            self._runners.pop(sid, None)

    async def _step(self, s: asyncpg.Record) -> float | None:
        """One pass over a schedule: seconds to wait before the next (None: go on now)."""
        poll = self.settings.safety_poll
        if s["latency"]:
            poll = min(poll, max(float(s["latency"]), 0.05))
        if s["disabled"]:
            return self.settings.safety_poll
        now = self.now()
        ws, we = s["window_start"], s["window_end"]
        if ws is None or (we is not None and now >= we):
            opened = await self._open_window(s, now)
            if opened is None:
                return self.settings.safety_poll  # no window ahead: until an administrator changes it
            return None
        if now < ws:
            return float(min((ws - now).total_seconds(), self.settings.safety_poll))
        if s["next_run"] is not None and now < s["next_run"]:
            return float(min((s["next_run"] - now).total_seconds(), self.settings.safety_poll))
        try:
            moved = await self._drain(s, we)
        except SystemFailure as exc:
            await self._failed(s, now, str(exc))
            return None
        except ApplicationFailure as exc:
            # queue-to-queue: the schedule stops with the error, as the Oracle JMS guide says
            # ("Exception Handling During Propagation")
            await self._stop_schedule(s, now, str(exc))
            return None
        if moved and s["failures"]:
            log.info("schedule %s: delivered again after %d failures", s["id"], s["failures"])
        if we is not None:
            poll = min(poll, max(0.0, (we - self.now()).total_seconds()))
        return poll

    async def _open_window(self, s: asyncpg.Record, now: datetime) -> datetime | None:
        start = s["start_time"] if s["window_start"] is None else None
        if start is None:
            start = await self._next_window(s, s["window_start"])
            if start is None:
                return None
        end = window_end(start, s["duration"])
        while end is not None and end <= now:  # windows missed while nobody ran
            nxt = await self._next_window(s, start)
            if nxt is None or nxt <= start:
                return None
            start, end = nxt, window_end(nxt, s["duration"])
        async with self.pool.acquire() as c:
            await c.execute(load("prop_window"), s["id"], self.settings.name, start, end)
        return start

    async def _next_window(self, s: asyncpg.Record, after: datetime) -> datetime | None:
        """next_time after the window that began at `after`: an expression runs as the
        schedule's owner through aq.eval_owned_next_time, read-only, for 2 s at most."""
        if s["next_time"] is None:
            return None
        try:
            async with self.pool.acquire() as c, c.transaction(readonly=True):
                await c.execute(load("notify_plsql_timeout"), "2000")
                t: datetime | None = await c.fetchval(load("prop_next_time"), s["id"], after)
                return t
        except asyncpg.PostgresError as exc:
            await self._stop_schedule(s, self.now(), f"next_time failed: {str(exc).splitlines()[0]}")
            return None

    async def _transport(self, link: asyncpg.Record | None) -> Transport:
        """The link's transport, made again when the link or the settings it was made with
        changed since (a corrected url or password works without a restart); the old one
        is closed."""
        if link is None:
            return self._local
        url, timeout, ca_file = str(link["url"]), self.settings.remote_timeout, self.settings.ca_file
        made = (url, link["username"], link["password"], timeout, ca_file)
        cached = self._transports.get(link["name"])
        if cached is not None and cached[0] == made:
            return cached[1]
        t: Transport
        if url.lower().startswith(("http://", "https://")):
            t = HttpTransport(url, link["username"], link["password"], timeout, ca_file)
        else:
            t = PgTransport(url, link["username"], link["password"], timeout)
        self._transports[link["name"]] = (made, t)
        if cached is not None:
            await cached[1].close()
        return t

    async def _drain(self, s: asyncpg.Record, we: datetime | None) -> int:
        """Batches until the backlog is empty or the window ends; messages moved."""
        sid, total = s["id"], 0
        link = None
        if s["destination"]:
            async with self.pool.acquire() as c:
                link = await c.fetchrow(load("prop_link"), s["destination"])
            if link is None:
                raise SystemFailure(f"ORA-02019: database link {s['destination']} does not exist", 2019)
        transport = await self._transport(link)
        async with self.pool.acquire() as c:
            source = await c.fetchrow(load("prop_source"), s["queue"])
        grouped = bool(source["grouped"])
        while we is None or self.now() < we:
            started = self.now()
            t0 = time.perf_counter()
            problems: list[tuple[int, str, str]] = []  # reported once the batch committed
            async with self.pool.acquire() as src, src.transaction():
                rows = await src.fetch(load("prop_batch"), sid, self.settings.batch)
                if not rows:
                    return total
                # one delivery per destination queue and consumer; its key names both, so
                # the destination tells a copy from the same message for another recipient.
                # A subscriber's transformation changes what travels (signature and type)
                by_dest: dict[tuple[str, str, str, str], list[Any]] = defaultdict(list)
                for r in rows:
                    travels = (r["signature"], r["payload_type"])
                    by_dest[(r["dest_queue"], r["consumer_name"], *travels)].append(r)
                done: list[Any] = []
                for (queue, consumer, signature, payload_type), group in by_dest.items():
                    try:
                        await transport.deliver(src, f"{s['key']}:{queue}:{consumer}", queue, group,
                                                signature, payload_type=payload_type)
                        done.extend(group)
                    except ApplicationFailure as exc:
                        if s["destination_queue"] or exc.code == 1017:
                            raise  # queue-to-queue, or refused credentials: stop the schedule
                        await self._undeliverable(src, s, group, str(exc))
                        problems.append((sid, "UNDELIVERABLE", str(exc)))
                if done:
                    await src.fetchval(load("prop_settle"), sid, [r["msgid"] for r in done],
                                       [r["consumer_name"] for r in done], [r["address"] for r in done], None)
                n, size = len(done), sum(int(r["bytes"] or 0) for r in done)
                if n:
                    await src.execute(load("prop_success"), sid, self.settings.name, n, size,
                                      time.perf_counter() - t0, started, self.now())
            for problem in problems:
                self.on_problem(*problem)
            if n:
                total += n
                self.propagated += n
                self.batches += 1
                self.on_batch(sid, n)
            if len(rows) < self.settings.batch and not grouped:  # (a grouped batch is one group)
                return total
        return total

    async def _undeliverable(self, src: asyncpg.Connection, s: asyncpg.Record, group: list[Any],
                             error: str) -> None:
        log.warning("schedule %s: %d messages UNDELIVERABLE: %s", s["id"], len(group), error)
        await src.fetchval(load("prop_settle"), s["id"], [r["msgid"] for r in group],
                           [r["consumer_name"] for r in group], [r["address"] for r in group],
                           "PROPAGATION_FAILURE")
        await src.execute(load("prop_undeliverable_log"), s["id"], len(group), error, self.now())

    async def _failed(self, s: asyncpg.Record, now: datetime, error: str) -> None:
        nxt = await self._next_window(s, s["window_start"]) if s["window_start"] is not None else None
        retry = after_failure(s["failures"], now, s["window_end"], nxt, s["aligned"],
                              self.settings.backoff_base)
        event = "DISABLED" if retry.disable else "FAILURE"
        async with self.pool.acquire() as c:
            await c.execute(load("prop_failure"), s["id"], self.settings.name, retry.failures,
                            retry.next_run, retry.aligned, retry.disable, error, now, event)
        self.on_problem(s["id"], event, error)
        if retry.disable:
            log.error("SCHEDULE DISABLED: %s after %d consecutive failures; last error: %s "
                      "(dbms_aqadm.enable_propagation_schedule resumes it)",
                      s["queue"], retry.failures, error)
        else:
            log.warning("schedule %s (%s): failure %d: %s; retry at %s", s["id"], s["queue"],
                        retry.failures, error, retry.next_run)

    async def _stop_schedule(self, s: asyncpg.Record, now: datetime, error: str) -> None:
        async with self.pool.acquire() as c:
            await c.execute(load("prop_failure"), s["id"], self.settings.name, s["failures"] + 1, None,
                            s["aligned"], True, error, now, "DISABLED")
        self.on_problem(s["id"], "DISABLED", error)
        log.error("SCHEDULE STOPPED: %s: %s", s["queue"], error)


__all__ = ["PropagationError", "Propagator", "classify"]
