"""The notifier's loop: claim due notifications from the outbox, deliver each, record it.

Woken by NOTIFY aq_notify (the enqueue's commit), by a delivery freeing a busy
destination, or by its next timer (a retry, a lease, a registration timeout), with a slow
safety poll behind them. Claims hold a lease: a notifier killed between sending and
recording leaves rows that another claims once the lease passed, and sends again with the
same notification id (at least once). Several notifiers share the outbox (SKIP LOCKED).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
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
from ..redact import redact_url
from .acl import HostRules, rules_from_rows
from .backoff import retry_delay
from .delivery import DeliveryError, HttpSender, MailSender, PlsqlSender
from .limits import DestinationLimits
from .model import Notification
from .settings import NotifierSettings

log = logging.getLogger("pgaq.notifier")
CHANNEL = "aq_notify"


class Notifier:
    def __init__(self, pool: asyncpg.Pool, listener: Listener, settings: NotifierSettings | None = None,
                 *, clock: Clock | None = None, http: HttpSender | None = None,
                 on_outcome: Callable[[uuid.UUID, str, str | None], None] | None = None) -> None:
        self.pool = pool
        self.listener = listener
        self.settings = settings or NotifierSettings()
        self.clock = clock or SystemClock()
        self.rules = HostRules()
        self.http = http or HttpSender(self.settings, lambda: self.rules)
        self.mail = MailSender(self.settings, pool)
        self.plsql = PlsqlSender(self.settings, pool, self.settings.name)
        self.limits = DestinationLimits()  # mail and plsql; HTTP's connector has its own
        self._inflight: dict[str, int] = defaultdict(int)
        self._deliveries: set[asyncio.Task[None]] = set()
        self._done: list[uuid.UUID] = []
        self._done_event = asyncio.Event()
        self._wake: asyncio.Event | None = None
        self.delivered = 0  # counters, for /metrics and tests
        self.retried = 0
        self.failed = 0
        # called once an outcome is recorded: (id, DELIVERED | PENDING | FAILED, error)
        self._on_outcome = on_outcome or (lambda _i, _s, _e: None)

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.time(), UTC)

    # -- the loop -----------------------------------------------------------------------
    async def run(self, stop: asyncio.Event) -> None:
        group = TaskGroup("notifier")
        group.spawn("record", self._record_loop(stop))
        group.spawn("housekeeping", self._housekeeping_loop(stop))
        try:
            async with self.listener.subscribe(CHANNEL) as wake:
                self._wake = wake
                while not stop.is_set():
                    if group.failed.done():
                        raise group.failed.result()
                    free = self.settings.batch - len(self._deliveries)
                    try:
                        claimed = await self._claim(self.now(), free) if free > 0 else []
                    except DB_ERRORS as exc:
                        # the database is away (a restart): deliveries under way finish or
                        # come back after their lease; claim again soon
                        log.warning("claiming notifications failed: %r", exc)
                        await wait_any(wake, 1.0, stop)
                        continue
                    for n in claimed:
                        self._start(n)
                    if claimed and len(claimed) >= free:
                        await asyncio.sleep(0)  # a full batch: more may be due
                        continue
                    # nothing more to claim now: sleep until the next timer, a NOTIFY, or
                    # a busy destination draining
                    try:
                        async with self.pool.acquire() as c:
                            t = await c.fetchrow(load("notify_next_timer"), self.now())
                        now = self.now()
                        assert t is not None
                        if t["next_expiry"] is not None and t["next_expiry"] <= now:
                            await self._expire(now)
                            continue
                    except DB_ERRORS as exc:
                        log.warning("reading the notifier's timers failed: %r", exc)
                        await wait_any(wake, 1.0, stop)
                        continue
                    timeout = self.settings.safety_poll
                    for at in (t["next_due"], t["next_lease"], t["next_expiry"]):
                        if at is not None:
                            timeout = min(timeout, max(0.0, (at - now).total_seconds()))
                    if timeout > 0:
                        await wait_any(wake, timeout, stop)
        finally:
            await self._drain()
            await group.close()
            await self._flush()
            await self.http.close()
            await self.plsql.close()

    # A destination takes `per_destination` deliveries at once (the HTTP connector's limit);
    # up to twice that are claimed, so the next ones wait ready. A destination with that
    # many in flight is skipped by claims and wakes the loop when half have finished.
    def _busy(self) -> list[str]:
        most = 2 * self.settings.per_destination
        return [d for d, k in self._inflight.items() if k >= most]

    async def _claim(self, now: datetime, free: int) -> list[Notification]:
        """Claims a batch and, when it holds http(s) notifications, reads the host list
        after the claim: every attempt is judged by the list as committed when it began
        (one small query per batch, no cache to outlive a change in either direction)."""
        async with self.pool.acquire() as c:
            rows = await c.fetch(load("notify_claim"), self.settings.name, now, self.settings.lease,
                                 free, 2 * self.settings.per_destination, self._busy())
            claimed = [Notification.from_row(r) for r in rows]
            if any(n.scheme in ("http", "https") for n in claimed):
                await self._load_rules(c)
        return claimed

    async def _expire(self, now: datetime) -> None:
        async with self.pool.acquire() as c:
            n = await c.fetchval(load("notify_expire"), now)
        if n:
            log.info("%d registrations timed out; their last notifications are queued", n)

    # -- deliveries ---------------------------------------------------------------------
    def _start(self, n: Notification) -> None:
        self._inflight[n.dest_key] += 1
        task = asyncio.create_task(self._deliver(n), name=f"notify:{n.id}")
        self._deliveries.add(task)
        task.add_done_callback(self._deliveries.discard)

    async def _deliver(self, n: Notification) -> None:
        try:
            try:
                if n.scheme in ("http", "https"):
                    await self.http.send(n)
                elif n.scheme == "mailto":
                    async with self.limits.slot(n.dest_key, self.settings.smtp_connections):
                        await self.mail.send(n)
                elif n.scheme == "plsql":
                    async with self.limits.slot(n.dest_key, self.settings.plsql_per_destination):
                        await self.plsql.send(n, self.now)
                    self.delivered += 1
                    self._on_outcome(n.id, "DELIVERED", None)
                    return  # recorded in the procedure's transaction
                else:
                    raise DeliveryError(f"unsupported notify_url scheme {n.scheme}", permanent=True)
            except DeliveryError as exc:
                await self._record_failure(n, str(exc), exc.permanent)
                return
            self.delivered += 1
            self._done.append(n.id)
            self._done_event.set()
        except asyncio.CancelledError:
            raise
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            # the database went away while the delivery read from it (a restart): an
            # ordinary failed attempt, retried with backoff
            await self._record_failure(n, f"database unavailable: {exc!r}", False)
        except Exception as exc:  # a bug must not stop the notifier: the row is retried
            log.exception("delivering notification %s failed unexpectedly", n.id)
            await self._record_failure(n, f"internal error: {exc!r}", False)
        finally:
            left = self._inflight[n.dest_key] = self._inflight[n.dest_key] - 1
            if left <= 0:
                del self._inflight[n.dest_key]
            if self._wake is not None and left <= self.settings.per_destination:
                self._wake.set()  # the destination has room again

    async def _record_failure(self, n: Notification, error: str, permanent: bool) -> None:
        """`_failed`, when the database lets us: otherwise the claim's lease brings the
        notification back (one warning line; an outage is not a bug)."""
        try:
            await self._failed(n, error, permanent)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            log.warning("recording the failed attempt of notification %s failed; it is sent "
                        "again after its lease: %r", n.id, exc)
        except Exception:
            log.exception("recording the failure of %s failed (its lease brings it back)", n.id)

    async def _failed(self, n: Notification, error: str, permanent: bool) -> None:
        now = self.now()
        final = permanent or n.attempts >= self.settings.max_attempts
        delay = retry_delay(n.attempts, self.settings.backoff_base, self.settings.backoff_max)
        due = datetime.fromtimestamp(now.timestamp() + delay, UTC)
        async with self.pool.acquire() as c:
            await c.execute(load("notify_retry"), n.id, self.settings.name, error, due, final, now)
        self._on_outcome(n.id, "FAILED" if final else "PENDING", error)
        if final:
            self.failed += 1
            log.warning("notification %s to %s failed for good after %d attempts: %s",
                        n.id, redact_url(n.url), n.attempts, error)
        else:
            self.retried += 1
            log.info("notification %s to %s: attempt %d failed (%s); next in %.3g s",
                     n.id, redact_url(n.url), n.attempts, error, delay)

    # -- recording and housekeeping -----------------------------------------------------
    async def _flush(self) -> None:
        done, self._done = self._done, []
        if done:
            try:
                async with self.pool.acquire() as c:
                    await c.execute(load("notify_delivered"), done, self.settings.name, self.now())
            except BaseException:
                self._done[:0] = done  # recorded on the next flush (or resent after the lease)
                raise
            for i in done:
                self._on_outcome(i, "DELIVERED", None)

    async def _record_loop(self, stop: asyncio.Event) -> None:
        """Deliveries are recorded in batches: one UPDATE for whatever finished meanwhile."""
        while not stop.is_set():
            await wait_any(self._done_event, None, stop)
            try:
                await self._flush()
            except DB_ERRORS as exc:
                log.warning("recording deliveries failed (their leases will resend them): %r", exc)
                await wait_any(asyncio.Event(), 1.0, stop)

    async def _load_rules(self, c: asyncpg.Connection) -> None:
        rules = rules_from_rows(await c.fetch(load("notify_hosts")))
        if rules != self.rules:
            self.rules = rules
            await self.http.policy_changed()

    async def housekeep(self) -> int:
        """Delete what was kept long enough. Returns rows deleted."""
        now = self.clock.time()
        async with self.pool.acquire() as c:
            return int(await c.fetchval(load("notify_prune"),
                                        datetime.fromtimestamp(now - self.settings.keep_delivered, UTC),
                                        datetime.fromtimestamp(now - self.settings.keep_failed, UTC)))

    async def _housekeeping_loop(self, stop: asyncio.Event) -> None:
        while not await wait_any(asyncio.Event(), 5.0, stop) and not stop.is_set():
            try:
                await self.housekeep()
            except DB_ERRORS as exc:
                log.warning("notifier housekeeping failed: %r", exc)

    async def _drain(self, timeout: float = 10.0) -> None:
        """Shutdown: let running deliveries finish (bounded); what is cut off is resent
        after its lease."""
        if self._deliveries:
            _, pending = await asyncio.wait(list(self._deliveries), timeout=timeout)
            for t in pending:
                t.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)

    def stats(self) -> dict[str, Any]:
        return {"delivered": self.delivered, "retried": self.retried, "failed": self.failed,
                "in_flight": len(self._deliveries)}
