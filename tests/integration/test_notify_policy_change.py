"""The notification host policy (aq.notification_hosts) as it changes under a running
notifier: a delivery attempted after `aq.allow_notification_host` / `deny_notification_host`
commits is judged by the list as committed, in both directions; a delivery the list refuses
is retried per the normal backoff, like a refused connection, and FAILED only when the list
still refuses it at the last attempt (issue 18, part 4).

Real notifier, real HTTP receivers on loopback, real database. The notifier's clock is a
FakeClock set an hour ahead of the database (rows enqueued now are due at once), and the
test advances it past each backoff: the next attempt happens when the test says so, never
before the policy change it follows.
"""

from __future__ import annotations

import time
import uuid

import asyncpg
from pgaq import Session
from pgaq.clock import FakeClock
from pgaq.embedded import free_port
from pgaq.notify.acl import POLICY

from .helpers import make_queue
from .test_notifier import (  # noqa: F401  (start_notifier: the fixture)
    Outcome,
    Running,
    Start,
    allow,
    register,
    serving,
    start_notifier,
)

BASE = 600.0  # backoff: seconds before the 2nd attempt, doubling (only the fake clock waits)


def ahead() -> FakeClock:
    return FakeClock(time.time() + 3600.0)


async def next_attempt(conn: asyncpg.Connection, nid: uuid.UUID) -> float:
    return float(await conn.fetchval("SELECT extract(epoch FROM due_at) FROM aq.notifications "
                                     "WHERE id = $1", nid))


async def advance(conn: asyncpg.Connection, clock: FakeClock, seconds: float) -> None:
    """Time passes for the notifier, and NOTIFY aq_notify wakes it to look."""
    clock.advance(seconds)
    await conn.execute("SELECT pg_notify('aq_notify', '')")


def refused_by_policy(outcome: Outcome, host: str) -> bool:
    error = outcome[2]
    return error is not None and POLICY in error and host in error


async def test_allowed_while_refused_is_delivered_at_the_next_attempt(
        conn: asyncpg.Connection, start_notifier: Start) -> None:  # noqa: F811
    await make_queue(conn, "s.q")
    async with serving("127.0.0.1") as rec:
        await allow(conn, "127.0.0.1")
        await register(conn, "s.q", None, f"{rec.url}/hook")
        await conn.execute("CALL aq.remove_notification_host('127.0.0.1')")  # not allowed now
        clock = ahead()
        running = await start_notifier(clock=clock, backoff_base=BASE, backoff_max=4 * BASE)
        await Session(conn).enqueue("s.q", b"m")
        first = await running.outcome()
        nid = first[0]
        assert first[1] == "PENDING" and refused_by_policy(first, "127.0.0.1"), first
        assert rec.hits.empty()
        row = await conn.fetchrow("SELECT state, attempts, last_error FROM aq.notifications")
        assert (row["state"], row["attempts"]) == ("PENDING", 1)
        assert POLICY in row["last_error"]
        due = await next_attempt(conn, nid)  # the normal backoff: BASE after the attempt
        assert abs(due - (clock.time() + BASE)) < 1e-3, (due, clock.time())

        await allow(conn, "127.0.0.1")  # committed before the next attempt
        await advance(conn, clock, BASE)
        assert await running.until("DELIVERED") == (nid, "DELIVERED", None)
        hit = await rec.next()
        assert hit.path == "/hook"
        assert hit.headers["X-Pgaq-Notification-Id"] == str(nid)
        assert hit.headers["X-Pgaq-Attempt"] == "2"
        assert rec.hits.empty()  # exactly once
        row = await conn.fetchrow("SELECT state, attempts, last_error FROM aq.notifications")
        assert tuple(row) == ("DELIVERED", 2, None)


async def test_still_refused_at_the_last_attempt_fails_like_a_refused_connection(
        conn: asyncpg.Connection, start_notifier: Start) -> None:  # noqa: F811
    """Two notifications side by side: one to a host the list refuses (127.0.0.2, with a
    receiver that must hear nothing), one to an allowed host where nothing listens. Both
    back off alike and are FAILED after max_attempts attempts, each with its own reason."""
    await make_queue(conn, "s.q")
    closed = f"http://127.0.0.1:{free_port()}/closed"
    async with serving("127.0.0.2") as refused:
        await allow(conn, "127.0.0.1")
        await allow(conn, "127.0.0.2")
        await register(conn, "s.q", None, f"{refused.url}/refused")
        await register(conn, "s.q", None, closed)
        await conn.execute("CALL aq.deny_notification_host('127.0.0.2')")  # a deny wins
        clock = ahead()
        attempts = 3
        running = await start_notifier(clock=clock, max_attempts=attempts, backoff_base=BASE,
                                       backoff_max=4 * BASE)
        await Session(conn).enqueue("s.q", b"m")
        ids = dict(await conn.fetch("SELECT url, id FROM aq.notifications"))
        by_policy, by_network = ids[f"{refused.url}/refused"], ids[closed]
        for k in range(1, attempts + 1):
            outcomes = {o[0]: o for o in [await running.outcome(), await running.outcome()]}
            state = "FAILED" if k == attempts else "PENDING"
            assert outcomes[by_policy][1] == state and refused_by_policy(outcomes[by_policy], "127.0.0.2")
            assert outcomes[by_network][1] == state and POLICY not in str(outcomes[by_network][2])
            if k < attempts:
                wait = BASE * 2 ** (k - 1)
                due = {await next_attempt(conn, i) for i in (by_policy, by_network)}
                assert len(due) == 1 and abs(due.pop() - (clock.time() + wait)) < 1e-3
                await advance(conn, clock, wait)
        rows = {r["id"]: r for r in await conn.fetch(
            "SELECT id, state, attempts, last_error FROM aq.notifications")}
        assert (rows[by_policy]["state"], rows[by_policy]["attempts"]) == ("FAILED", attempts)
        assert POLICY in rows[by_policy]["last_error"] and "127.0.0.2" in rows[by_policy]["last_error"]
        assert (rows[by_network]["state"], rows[by_network]["attempts"]) == ("FAILED", attempts)
        assert refused.hits.empty()


async def deliver_then_deny(conn: asyncpg.Connection, running: Running, url: str,
                            deny: list[str], host: str) -> None:
    """One message delivered to `url`; then the deny entries commit; the next message's
    attempt is refused by the list and nothing reaches the receiver."""
    reg = await register(conn, "s.q", None, url)
    await Session(conn).enqueue("s.q", b"before")
    assert (await running.outcome())[1] == "DELIVERED"
    for pattern in deny:
        await conn.execute("CALL aq.deny_notification_host($1)", pattern)
    await Session(conn).enqueue("s.q", b"after")
    outcome = await running.outcome()
    assert outcome[1] == "PENDING" and refused_by_policy(outcome, host), outcome
    await conn.execute("SELECT aq.unregister('s.q', NULL, $1)", url)
    assert await conn.fetchval("SELECT count(*) FROM aq.registrations WHERE id = $1", reg) == 0


async def test_denied_after_allowed_is_refused_at_the_next_attempt(
        conn: asyncpg.Connection, start_notifier: Start) -> None:  # noqa: F811
    """Allow, deliver, deny: the change takes effect for the very next attempt, for an IP
    literal and for a name whose addresses are denied (the connection kept alive and the
    name looked up under the old list are not reused)."""
    await make_queue(conn, "s.q")
    async with serving("127.0.0.1") as rec:
        await allow(conn, "127.0.0.1")
        await allow(conn, "localhost")
        running = await start_notifier(clock=ahead(), backoff_base=BASE, backoff_max=4 * BASE)
        await deliver_then_deny(conn, running, f"{rec.url}/literal", ["127.0.0.1"], "127.0.0.1")
        assert [(await rec.next()).path] == ["/literal"]
        await conn.execute("CALL aq.remove_notification_host('127.0.0.1')")
        await deliver_then_deny(conn, running, rec.url.replace("127.0.0.1", "localhost") + "/name",
                                ["127.0.0.0/8", "::1"], "localhost")
        assert [(await rec.next()).path] == ["/name"]
        assert rec.hits.empty()
