"""Removing one subscriber's delivery never waits for another subscriber's transaction.

Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2 (10.2), "Introducing
Oracle Streams AQ": each subscriber of a multi-consumer queue dequeues the message
independently, and the message is processed (kept for the retention time, or removed) once every
intended recipient has consumed it; a message one recipient failed goes to the exception queue.
Oracle's dequeue of one recipient does not wait for another recipient's open transaction on the
same message. The last one to finish settles the message when it can; when the message row is
held by the other transaction, the queue monitor settles it after that transaction ends.

Every route of a multi-consumer REMOVE runs the same scenarios: the library's one-message
dequeue, its batched dequeue, and dbms_aq.dequeue in SQL, each as a plain SQL user whose
DEQUEUE right comes from a grant (no superuser powers).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest
from pgaq import DequeueOptions, Session

from .helpers import make_queue, subscribe

Remove = Callable[[asyncpg.Connection, str], Awaitable[list[bytes]]]


async def _engine_one(c: asyncpg.Connection, consumer: str) -> list[bytes]:
    got = await Session(c).dequeue("s.q", DequeueOptions(consumer_name=consumer))
    return [bytes.fromhex(m.msgid) for m in got]


async def _engine_batch(c: asyncpg.Connection, consumer: str) -> list[bytes]:
    got = await Session(c).dequeue("s.q", DequeueOptions(consumer_name=consumer, batch_size=5))
    return [bytes.fromhex(m.msgid) for m in got]


async def _sql(c: asyncpg.Connection, consumer: str) -> list[bytes]:
    try:
        row = await c.fetchrow(
            """CALL dbms_aq.dequeue(queue_name => 's.q',
                 dequeue_options => dbms_aq.dequeue_options(consumer_name => $1, wait => 0),
                 message_properties => NULL, payload => NULL::bytea, msgid => NULL)""",
            consumer,
        )
    except asyncpg.PostgresError as e:
        if "25228" in str(e):  # nothing to dequeue
            return []
        raise
    return [row["msgid"]] if row and row["msgid"] is not None else []


ROUTES: dict[str, Remove] = {"engine": _engine_one, "engine-batch": _engine_batch, "sql": _sql}


@pytest.fixture
async def users(conn: asyncpg.Connection, db_dsn: str, request: pytest.FixtureRequest
                ) -> AsyncIterator[tuple[asyncpg.Connection, asyncpg.Connection]]:
    """Two plain SQL users with DEQUEUE on the topic s.q (subscribers A and B)."""
    retention, max_retries = request.param
    await make_queue(conn, multiple=True, retention=retention, max_retries=max_retries)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    role = f"topic_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{role}" LOGIN')
    await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('ALL', 's.q', '{role}')")
    dsn = db_dsn.replace("postgres@", f"{role}@")
    a, b = await asyncpg.connect(dsn), await asyncpg.connect(dsn)
    for c in (a, b):
        # a dequeue that waited on the other transaction's row lock fails instead of hanging
        await c.execute("SET lock_timeout = '3s'")
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()


async def _state(conn: asyncpg.Connection, mid: bytes) -> list[tuple[str, str | None, str]]:
    rows = await conn.fetch(
        "SELECT msg_state, consumer_name, queue FROM s.aq$qt WHERE msg_id = $1 ORDER BY consumer_name",
        mid.hex().upper())
    return [(r["msg_state"], r["consumer_name"], r["queue"]) for r in rows]


async def _monitor(conn: asyncpg.Connection) -> None:
    row = await conn.fetchrow("SELECT * FROM aq.monitor_pass(1000)")
    assert not row["busy"], dict(row)


async def _settled(conn: asyncpg.Connection, mid: bytes, retention: float) -> None:
    if retention:
        assert {s for s, _, _ in await _state(conn, mid)} == {"PROCESSED"}
        assert await conn.fetchval("SELECT state FROM s.qt WHERE msgid = $1", mid) == 2
    else:
        assert await conn.fetchval("SELECT count(*) FROM s.qt WHERE msgid = $1", mid) == 0


@pytest.mark.parametrize("users", [(0, 5), (3600, 5)], indirect=True, ids=["retention0", "retention"])
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("first_commits", [True, False], ids=["A-commits-first", "B-commits-first"])
async def test_second_subscriber_does_not_wait(
    conn: asyncpg.Connection, users: tuple[asyncpg.Connection, asyncpg.Connection],
    route: str, first_commits: bool,
) -> None:
    a, b = users
    remove = ROUTES[route]
    [mid] = await Session(conn).enqueue_array("s.q", [(b"m", None)])
    mid_b = bytes.fromhex(mid)
    retention = await conn.fetchval("SELECT retention_time FROM aq.queues WHERE queue_name = 'q'")
    ta, tb = a.transaction(), b.transaction()
    await ta.start()
    assert await remove(a, "A") == [mid_b]
    await tb.start()
    # the other delivery of the same message, while A's transaction is open
    assert await asyncio.wait_for(remove(b, "B"), 10) == [mid_b]
    if first_commits:
        await ta.commit()
        await tb.commit()
    else:
        await tb.commit()
        await ta.commit()
    await _monitor(conn)
    await _settled(conn, mid_b, retention)
    # nothing more for either subscriber
    assert await remove(a, "A") == []
    assert await remove(b, "B") == []


@pytest.mark.parametrize("users", [(0, 5)], indirect=True, ids=["retention0"])
@pytest.mark.parametrize("route", ROUTES)
async def test_rolled_back_delivery_keeps_the_message(
    conn: asyncpg.Connection, users: tuple[asyncpg.Connection, asyncpg.Connection], route: str,
) -> None:
    """A's removal rolls back after B's committed: the message stays for A, then is settled
    when A removes it again."""
    a, b = users
    remove = ROUTES[route]
    [mid] = await Session(conn).enqueue_array("s.q", [(b"m", None)])
    mid_b = bytes.fromhex(mid)
    ta = a.transaction()
    await ta.start()
    assert await remove(a, "A") == [mid_b]
    assert await asyncio.wait_for(remove(b, "B"), 10) == [mid_b]  # autocommit
    await ta.rollback()
    await _monitor(conn)
    assert await _state(conn, mid_b) == [("READY", "A", "q"), ("PROCESSED", "B", "q")]
    assert await remove(a, "A") == [mid_b]
    await _monitor(conn)
    await _settled(conn, mid_b, 0)


@pytest.mark.parametrize("users", [(0, 0)], indirect=True, ids=["max_retries0"])
async def test_failed_delivery_goes_to_the_exception_queue(
    conn: asyncpg.Connection, users: tuple[asyncpg.Connection, asyncpg.Connection],
) -> None:
    """max_retries 0: A's rolled-back removal fails its delivery; once B has consumed the
    message it is in the exception queue (MAX_RETRY_EXCEEDED), not lost and not processed."""
    a, b = users
    [mid] = await Session(conn).enqueue_array("s.q", [(b"m", None)])
    mid_b = bytes.fromhex(mid)
    ta = a.transaction()
    await ta.start()
    sa = Session(a)
    got = await sa.dequeue("s.q", DequeueOptions(consumer_name="A"))
    assert [m.msgid for m in got] == [mid]
    assert await asyncio.wait_for(_engine_one(b, "B"), 10) == [mid_b]
    await ta.rollback()
    await a.fetchval("SELECT aq.record_failed_attempts('s.q', 'A', $1)", [mid_b])
    await _monitor(conn)
    row = await conn.fetchrow("SELECT state, q_name, expiration_reason FROM s.qt WHERE msgid = $1", mid_b)
    assert (row["state"], row["q_name"], row["expiration_reason"]) == (3, "aq$_qt_e", "MAX_RETRY_EXCEEDED")


@pytest.mark.parametrize("users", [(0, 5)], indirect=True, ids=["retention0"])
async def test_monitor_settles_once_the_holder_ends(
    conn: asyncpg.Connection, users: tuple[asyncpg.Connection, asyncpg.Connection],
) -> None:
    """While A's transaction is open the monitor leaves the message (busy, and says so);
    after A commits one pass settles it."""
    a, b = users
    [mid] = await Session(conn).enqueue_array("s.q", [(b"m", None)])
    mid_b = bytes.fromhex(mid)
    ta = a.transaction()
    await ta.start()
    assert await _engine_one(a, "A") == [mid_b]
    assert await asyncio.wait_for(_engine_one(b, "B"), 10) == [mid_b]
    row = await conn.fetchrow("SELECT * FROM aq.monitor_pass(1000)")
    assert row["busy"] and row["busy_msgid"] == mid_b
    assert await conn.fetchval("SELECT count(*) FROM s.qt WHERE msgid = $1", mid_b) == 1
    await ta.commit()
    await _monitor(conn)
    await _settled(conn, mid_b, 0)


async def _role_conn(conn: asyncpg.Connection, db_dsn: str, *, admin: bool = False) -> asyncpg.Connection:
    role = f"topic_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{role}" LOGIN')
    if admin:
        await conn.execute(f'GRANT aq_administrator_role TO "{role}"')
    else:
        await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('ALL', 's.q', '{role}')")
    c = await asyncpg.connect(db_dsn.replace("postgres@", f"{role}@"))
    await c.execute("SET lock_timeout = '3s'")
    return c


async def test_three_subscribers_none_waits(conn: asyncpg.Connection, db_dsn: str) -> None:
    """A holds the message row, B and C both leave it for the monitor while their
    transactions are open: neither waits for the other's note, in either message order."""
    await make_queue(conn, multiple=True)
    for name in ("A", "B", "C"):
        await subscribe(conn, "s.q", name)
    a, b, c = [await _role_conn(conn, db_dsn) for _ in range(3)]
    try:
        ids = [bytes.fromhex(i) for i in await Session(conn).enqueue_array("s.q", [(b"1", None), (b"2", None)])]
        txs = [x.transaction() for x in (a, b, c)]
        for t in txs:
            await t.start()
        assert await _engine_batch(a, "A") == ids
        assert await asyncio.wait_for(_engine_batch(b, "B"), 10) == ids
        assert await asyncio.wait_for(_engine_batch(c, "C"), 10) == ids
        for t in txs:
            await t.commit()
        await _monitor(conn)
        for mid in ids:
            await _settled(conn, mid, 0)
        assert await conn.fetchval("SELECT count(*) FROM aq.deferred_settlements") == 0
    finally:
        for x in (a, b, c):
            await x.close()


async def test_repeatable_read_leaves_nothing_unsettled(conn: asyncpg.Connection, db_dsn: str) -> None:
    """B's snapshot predates A's commit: B cannot see A done, so it leaves the message to
    the monitor, which settles it (it was left unsettled for good before)."""
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    a, b = await _role_conn(conn, db_dsn), await _role_conn(conn, db_dsn)
    try:
        [mid] = [bytes.fromhex(i) for i in await Session(conn).enqueue_array("s.q", [(b"m", None)])]
        tb = b.transaction(isolation="repeatable_read")
        await tb.start()
        await b.fetchval("SELECT count(*) FROM s.qt")  # the snapshot is taken
        assert await _engine_one(a, "A") == [mid]  # autocommit
        assert await _engine_one(b, "B") == [mid]
        await tb.commit()
        await _monitor(conn)
        await _settled(conn, mid, 0)
    finally:
        await a.close()
        await b.close()


async def test_the_monitor_settles_as_an_aq_administrator(conn: asyncpg.Connection, db_dsn: str) -> None:
    """The monitor's login need not be a superuser: an AQ administrator settles the notes."""
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    a, b = await _role_conn(conn, db_dsn), await _role_conn(conn, db_dsn)
    admin = await _role_conn(conn, db_dsn, admin=True)
    try:
        [mid] = [bytes.fromhex(i) for i in await Session(conn).enqueue_array("s.q", [(b"m", None)])]
        ta = a.transaction()
        await ta.start()
        assert await _engine_one(a, "A") == [mid]
        assert await asyncio.wait_for(_engine_one(b, "B"), 10) == [mid]
        await ta.commit()
        row = await admin.fetchrow("SELECT * FROM aq.monitor_pass(1000)")
        assert not row["busy"]
        await _settled(conn, mid, 0)
    finally:
        for x in (a, b, admin):
            await x.close()
