"""The scan floor: dequeues stay cheap while a transaction pins the xmin horizon, and no
message is ever out of their reach.

What is expected comes from AQ's contract, not from the floor's code: a REMOVE of a
single-consumer ENQ_TIME queue takes the READY message enqueued first (the default sort order of
DBMS_AQADM.CREATE_QUEUE_TABLE), whatever committed late, rolled back or waited out a delay; and
(PostgreSQL's MVCC) a row deleted while an older snapshot lives keeps its index entry, so
without a floor a dequeue walks every message consumed since the pin.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session
from pgaq.listener import Listener
from pgaq.monitor import Monitor, MonitorSettings

from .helpers import make_queue
from .test_monitor import monitor_at
from .waiting import connected, until

Advance = Callable[[], Awaitable[None]]


@pytest.fixture
async def advance(conn: asyncpg.Connection) -> Advance:
    """One round of the monitor's floor loop (aq.advance_scan_floors), carrying its state
    from round to round as the monitor does."""
    state: dict[str, Any] = {"prev": None}

    async def step() -> None:
        state["prev"] = await conn.fetchval("SELECT aq.advance_scan_floors($1::jsonb)::text", state["prev"])
    return step


@pytest.fixture
async def pinned(db_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A session idle in a transaction with an xid: the xmin horizon stays where it is."""
    async with connected(db_dsn) as c:
        await c.execute("BEGIN")
        await c.fetchval("SELECT txid_current()")
        yield c
        await c.execute("ROLLBACK")


@pytest.fixture
async def other(db_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    async with connected(db_dsn) as c:
        yield c


async def floor(conn: asyncpg.Connection) -> int:
    return int(await conn.fetchval('SELECT last_value FROM s."aq$_qt_sf"'))


async def entries_read(conn: asyncpg.Connection, work: Callable[[], Awaitable[object]]) -> tuple[int, object]:
    """Index entries of the READY index the work read, in one transaction (rolled back)."""
    read = "SELECT pg_stat_get_xact_tuples_returned('s.qt_ready'::regclass)"  # (not flushed yet: a delta)
    tr = conn.transaction()
    await tr.start()
    try:
        before = await conn.fetchval(read)
        out = await work()
        n = await conn.fetchval(read) - before
    finally:
        await tr.rollback()
    return int(n), out


async def consume_all(s: Session, queue: str = "s.q") -> list[object]:
    out: list[object] = []
    while got := await s.dequeue(queue, DequeueOptions(batch_size=100)):
        out += [m.payload for m in got]
    return out


async def test_a_pinned_horizon_no_longer_makes_each_dequeue_walk_the_consumed(
        conn: asyncpg.Connection, pinned: asyncpg.Connection, advance: Advance) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.enqueue_array("s.q", [(b"old%d" % i, None) for i in range(2000)])
    assert len(await consume_all(s)) == 2000
    k = MessageProperties(correlation="k")
    await s.enqueue_array("s.q", [(b"a", k), (b"b", k)])

    # without a floor (the monitor has not run): the scan reads all 2,000 dead entries
    walked, got = await entries_read(conn, lambda: s.dequeue("s.q"))
    assert [m.payload for m in got] == [b"a"]  # type: ignore[attr-defined]
    assert walked >= 2000

    await advance()
    await advance()
    for how in (lambda: s.dequeue("s.q"),  # the library's one-statement REMOVE
                lambda: s.dequeue("s.q", DequeueOptions(batch_size=10)),
                lambda: s.dequeue("s.q", DequeueOptions(correlation="k")),  # the general path
                lambda: conn.fetchval("SELECT msgid FROM aq.dequeue_array('s.q', p_batch => 1)"),
                lambda: conn.fetchval("SELECT aq.listen_first(ARRAY[sys.aq$_agent(NULL, 's.q', NULL)])")):
        walked, got = await entries_read(conn, how)
        assert got, how
        assert walked <= 3, walked
    assert [m.payload for m in await s.dequeue("s.q", DequeueOptions(batch_size=10))] == [b"a", b"b"]


async def test_an_enqueue_committed_after_a_raise_is_still_taken_first(
        conn: asyncpg.Connection, other: asyncpg.Connection, pinned: asyncpg.Connection,
        advance: Advance) -> None:
    await make_queue(conn)
    s, late = Session(conn), Session(other)
    await s.enqueue("s.q", b"gone")
    await consume_all(s)
    await advance()
    async with other.transaction():  # position drawn before the next ones, committed after
        await late.enqueue("s.q", b"first")
        await s.enqueue("s.q", b"second")
        await advance()  # the enqueue in progress holds the floor below its position
        await advance()
        assert await consume_all(s) == [b"second"]
        await advance()
    await advance()
    await advance()
    assert await consume_all(s) == [b"first"]


async def test_a_rolled_back_remove_puts_its_message_back_within_reach(
        conn: asyncpg.Connection, other: asyncpg.Connection, pinned: asyncpg.Connection,
        advance: Advance) -> None:
    await make_queue(conn, max_retries=10)
    s, taker = Session(conn), Session(other)
    await s.enqueue_array("s.q", [(b"m1", None), (b"m2", None), (b"m3", None)])
    await advance()
    await taker.begin()
    assert [m.payload for m in await taker.dequeue("s.q")] == [b"m1"]
    assert [m.payload for m in await s.dequeue("s.q")] == [b"m2"]
    await advance()
    await advance()
    await taker.rollback()
    await advance()
    await advance()
    assert await consume_all(s) == [b"m1", b"m3"]


async def test_a_delay_that_ends_below_the_floor_lowers_it(
        conn: asyncpg.Connection, pinned: asyncpg.Connection, advance: Advance) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.enqueue("s.q", b"later", MessageProperties(delay=30))
    await s.enqueue_array("s.q", [(b"now1", None), (b"now2", None)])
    assert await consume_all(s) == [b"now1", b"now2"]
    await advance()
    await advance()
    seq = await conn.fetchval("SELECT enq_seq FROM s.qt WHERE state = 1")
    assert await floor(conn) > seq  # raised past the WAITING message: it is not READY
    await s.enqueue("s.q", b"after")
    assert await monitor_at(conn, 31) == 1  # its delay ends
    assert await floor(conn) <= seq
    assert await consume_all(s) == [b"later", b"after"]


async def test_a_retry_delay_that_ends_below_the_floor_lowers_it(
        conn: asyncpg.Connection, pinned: asyncpg.Connection, advance: Advance) -> None:
    await make_queue(conn, retry_delay=10)
    s = Session(conn)
    await s.enqueue_array("s.q", [(b"retried", None), (b"next", None)])
    await s.begin()
    assert [m.payload for m in await s.dequeue("s.q")] == [b"retried"]
    await s.rollback()  # back, WAITING for its retry delay
    assert await consume_all(s) == [b"next"]
    await advance()
    await advance()
    await monitor_at(conn, 11)
    assert await consume_all(s) == [b"retried"]


async def test_tables_without_a_floor_are_dequeued_as_before(conn: asyncpg.Connection, advance: Advance) -> None:
    await make_queue(conn, "s.p", "s.pt", sort_list="PRIORITY,ENQ_TIME")
    await make_queue(conn, "s.m", "s.mt", multiple=True)
    await conn.execute("CALL dbms_aqadm.add_subscriber('s.m', sys.aq$_agent('A', NULL, NULL))")
    assert await conn.fetchval("""SELECT count(*) FROM pg_class WHERE relname IN ('aq$_pt_sf', 'aq$_mt_sf')""") == 0
    s = Session(conn)
    await s.enqueue("s.p", b"low", MessageProperties(priority=5))
    await s.enqueue("s.p", b"high", MessageProperties(priority=1))
    await s.enqueue("s.m", b"x")
    await advance()
    await advance()
    assert await consume_all(s, "s.p") == [b"high", b"low"]
    assert [m.payload for m in await s.dequeue("s.m", DequeueOptions("A"))] == [b"x"]


async def test_the_monitor_service_raises_the_floor_on_its_own(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.enqueue_array("s.q", [(b"x", None), (b"y", None)])
    assert await consume_all(s) == [b"x", b"y"]
    head = int(await conn.fetchval("SELECT last_value FROM aq.enq_seq"))
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=3)
    listener = Listener(db_dsn)
    await listener.start()
    stop = asyncio.Event()
    monitor = Monitor(pool, listener, MonitorSettings(safety_poll=30, scan_floor_period=0.05))
    task = asyncio.create_task(monitor.run(stop))
    try:
        async def raised() -> bool:
            return await floor(conn) > head
        await until(raised, "the monitor's floor rounds to pass the consumed messages", timeout=30)
        await s.enqueue("s.q", b"z")
        assert await consume_all(s) == [b"z"]

        # rounds go on by themselves (the first one may already have passed the consumed
        # messages, and the test body can end before the next one is due)
        async def repeated() -> bool:
            return monitor.floor_rounds >= 2
        await until(repeated, "a second floor round", timeout=30)
    finally:
        stop.set()
        await task
        await listener.close()
        await pool.close()


async def test_a_waiting_message_below_the_floor_is_still_taken_by_its_id(
        conn: asyncpg.Connection, advance: Advance) -> None:
    # Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2 (10.2),
    # "Introducing Oracle Streams AQ", "Dequeue Features": "Unless the message identifier of a
    # specific message is specified during dequeue, consumers can dequeue messages that are in
    # the READY state": by id, a WAITING message is taken too, so the floor (a bound on READY
    # positions) must not apply to that look
    await make_queue(conn)
    s = Session(conn)
    later = await s.enqueue("s.q", b"later", MessageProperties(delay=60))
    await s.enqueue_array("s.q", [(b"n1", None), (b"n2", None)])
    assert await consume_all(s) == [b"n1", b"n2"]
    await advance()
    await advance()
    assert await floor(conn) > await conn.fetchval("SELECT enq_seq FROM s.qt WHERE state = 1")
    [m] = await s.dequeue("s.q", DequeueOptions(msgid=later))
    assert m.payload == b"later"
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_a_monitor_starting_puts_the_floors_back_to_zero(conn: asyncpg.Connection) -> None:
    # a logical restore can bring back a floor read after the rows were (pg_dump reads
    # sequences outside its snapshot): the first round of a monitor starts them from 0
    await make_queue(conn)
    await conn.execute("""SELECT setval('s."aq$_qt_sf"', 1000, true)""")
    await conn.fetchval("SELECT aq.advance_scan_floors(NULL)")
    assert await floor(conn) == 0
    await conn.execute("""SELECT setval('s."aq$_qt_sf"', 1000, true)""")
    assert await conn.fetchval("SELECT aq.reset_scan_floors()") >= 1
    assert await floor(conn) == 0
