"""A topic's subscribers without a recipient row each (issue 35): what Oracle's documents say
of multi-consumer queues still holds when a publish writes no row per subscriber.

- Recipients are decided at enqueue (Oracle Database Advanced Queuing User's Guide,
  "Subscriber rules": a rule "is evaluated ... when a message is enqueued"): a subscriber
  that adds a rule while a publish is in flight still gets that message; messages published
  after the rule reach it only when the rule says so.
- Sessions of one consumer share its messages: each message is delivered to one of them
  (the SKIP LOCKED between concurrent dequeuers of the same consumer), and a delivery rolled
  back comes again, counting an attempt.
- A late subscriber sees only later messages; every subscriber reads each message once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session

from .helpers import make_queue, subscribe
from .waiting import connected

# the audience's own tests: every topic publishes to it (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("whole_audience")


async def _take(c: asyncpg.Connection, consumer: str, mode: str = "REMOVE", batch: int = 1) -> list[bytes]:
    got = await Session(c).dequeue("s.q", DequeueOptions(consumer_name=consumer, dequeue_mode=mode,
                                                         batch_size=batch))
    return [bytes(m.payload) for m in got]  # type: ignore[arg-type]


async def _drain_concurrently(db_dsn: str, consumer: str, batches: tuple[int, ...],
                              setup: str = "") -> list[bytes]:
    """Four sessions of `consumer` dequeue until none is left, with batch sizes in turn from
    `batches`; everything they took, together."""
    conns = [await asyncpg.connect(db_dsn) for _ in range(4)]
    try:
        async def drain(c: asyncpg.Connection) -> list[bytes]:
            if setup:
                await c.execute(setup)
            out: list[bytes] = []
            while got := await _take(c, consumer, batch=batches[len(out) % len(batches)]):
                out += got
            return out
        parts = await asyncio.gather(*(drain(c) for c in conns))
    finally:
        for c in conns:
            await c.close()
    return [p for part in parts for p in part]


@pytest.fixture
async def other(db_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A second session of the test's database."""
    async with connected(db_dsn) as c:
        yield c


async def test_sessions_of_one_consumer_share_its_messages(conn: asyncpg.Connection,
                                                           other: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    await Session(conn).enqueue_array("s.q", [(b"1", None), (b"2", None), (b"3", None)])
    first = Session(other)
    await first.begin()
    got = await first.dequeue("s.q", DequeueOptions(consumer_name="A"))
    assert [bytes(m.payload) for m in got] == [b"1"]  # type: ignore[arg-type]
    # another session of A skips what the first holds; B is not affected
    assert await _take(conn, "A") == [b"2"]
    assert await _take(conn, "B", batch=10) == [b"1", b"2", b"3"]
    await first.rollback()  # counts the attempt
    # the rolled-back delivery comes again, in its place, counting one attempt
    got = await Session(conn).dequeue("s.q", DequeueOptions(consumer_name="A", batch_size=10))
    assert [(bytes(m.payload), m.attempts) for m in got] == [(b"1", 1), (b"3", 0)]  # type: ignore[arg-type]
    assert await _take(conn, "A") == []
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0  # every recipient done: settled


async def test_concurrent_sessions_take_each_message_once(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    n = 200
    await Session(conn).enqueue_array("s.q", [(str(i).encode(), None) for i in range(n)])
    taken = await _drain_concurrently(db_dsn, "A", (7,))
    assert sorted(taken) == sorted(str(i).encode() for i in range(n))  # each once, none lost
    assert len(await _take(conn, "B", batch=1000)) == n  # B's own copy is untouched


async def test_a_rule_added_while_a_publish_is_in_flight(conn: asyncpg.Connection,
                                                         other: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    await Session(conn).enqueue_array("s.q", [(b"before", MessageProperties(priority=1))])
    tx = other.transaction()
    await tx.start()
    await Session(other).enqueue_array("s.q", [(b"in-flight", MessageProperties(priority=1))])
    # A adds a rule while the publish is not committed: the publish saw A without one
    await conn.execute("CALL dbms_aqadm.alter_subscriber('s.q', sys.aq$_agent('A', NULL, NULL),"
                       " rule => 'priority > 5')")
    await tx.commit()
    await Session(conn).enqueue_array("s.q", [(b"low", MessageProperties(priority=1)),
                                              (b"high", MessageProperties(priority=9))])
    assert await _take(conn, "A", batch=10) == [b"before", b"in-flight", b"high"]
    assert await _take(conn, "B", batch=10) == [b"before", b"in-flight", b"low", b"high"]
    # and the rule removed: A reads every later message again
    await conn.execute("CALL dbms_aqadm.alter_subscriber('s.q', sys.aq$_agent('A', NULL, NULL))")
    await Session(conn).enqueue_array("s.q", [(b"after", MessageProperties(priority=1))])
    assert await _take(conn, "A", batch=10) == [b"after"]
    assert await conn.fetchval("SELECT count(*) FROM s.qt WHERE state IN (0, 1)") == 1  # B's "after"


async def test_a_late_subscriber_and_a_removed_one(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await Session(conn).enqueue_array("s.q", [(b"1", None)])
    await subscribe(conn, "s.q", "LATE")
    await Session(conn).enqueue_array("s.q", [(b"2", None)])
    assert await _take(conn, "LATE", batch=10) == [b"2"]
    # A leaves: its messages leave the queue with it (no other recipient is left)
    await conn.execute("CALL dbms_aqadm.remove_subscriber('s.q', sys.aq$_agent('A', NULL, NULL))")
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_a_subscriber_reads_every_message_once_across_many_calls(conn: asyncpg.Connection) -> None:
    """Its position moves on as it reads; delayed messages wait in their place."""
    await make_queue(conn, multiple=True)
    for name in ("A", "B", "C"):
        await subscribe(conn, "s.q", name)
    s = Session(conn)
    sent: list[bytes] = []
    seen: list[bytes] = []
    for round_ in range(20):
        batch = [(f"{round_}-{i}".encode(), None) for i in range(5)]
        await s.enqueue_array("s.q", batch)
        sent += [p for p, _ in batch]
        seen += await _take(conn, "A", batch=3)
    await s.enqueue_array("s.q", [(b"later", MessageProperties(delay=3600))])
    while got := await _take(conn, "A", batch=4):
        seen += got
    assert seen == sent  # in order, each once, the delayed one not yet
    assert await _take(conn, "B", batch=1000) == sent
    # nothing else for A: the delayed message waits
    assert await _take(conn, "A", "BROWSE", batch=10) == []


async def test_a_message_committed_after_later_ones_is_still_read(
        conn: asyncpg.Connection, other: asyncpg.Connection) -> None:
    """A queue sorted by enqueue time is read from each subscriber's floor (docs/architecture.md,
    "Topics without a row per subscriber"). A publish that took its place in the queue first
    and commits last is read all the same, in the place it took among what is left."""
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    slow = Session(other)
    await slow.begin()
    await slow.enqueue("s.q", b"first, committed last")
    s = Session(conn)
    await s.enqueue_array("s.q", [(b"1", None), (b"2", None)])
    assert await _take(conn, "A", batch=10) == [b"1", b"2"]
    assert await _take(conn, "A", batch=10) == []
    await s.enqueue("s.q", b"3")
    await slow.commit()
    assert await _take(conn, "A", batch=10) == [b"first, committed last", b"3"]
    assert await _take(conn, "B", batch=10) == [b"first, committed last", b"1", b"2", b"3"]


async def test_a_delayed_message_is_read_when_its_delay_ends(conn: asyncpg.Connection) -> None:
    """A subscriber that read past a delayed message gets it once the delay ends (Oracle
    Database Advanced Queuing User's Guide, "Delay": the message becomes READY after the
    delay), in its place by enqueue time, and once."""
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    s = Session(conn)
    await s.enqueue_array("s.q", [(b"0", None), (b"later", MessageProperties(delay=60)), (b"1", None)])
    assert await _take(conn, "A", batch=10) == [b"0", b"1"]
    await s.enqueue("s.q", b"2")
    assert await _take(conn, "A", batch=10) == [b"2"]
    # the monitor's work as if the delay had passed (its time is a parameter)
    await conn.execute("SELECT aq.monitor_table(t, clock_timestamp() + interval '61 s', 100)"
                       " FROM aq.queue_tables t WHERE t.table_name = 'qt'")
    await s.enqueue("s.q", b"3")
    assert await _take(conn, "A", batch=10) == [b"later", b"3"]
    assert await _take(conn, "A", batch=10) == []
    assert await _take(conn, "B", batch=10) == [b"0", b"later", b"1", b"2", b"3"]


async def test_a_subscriber_far_behind_reads_its_backlog_once_in_order(
        conn: asyncpg.Connection, other: asyncpg.Connection) -> None:
    """Behind by more than pgaq.audience_window messages, a subscriber reads its backlog as
    rows (docs/architecture.md, "Topics without a row per subscriber"): still in order and
    once each, and a message another of its sessions holds LOCKED is not handed out again."""
    for c in (conn, other):
        await c.execute("SET pgaq.audience_window = 5")
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    sent = [str(i).encode() for i in range(60)]
    for k in range(0, 60, 20):
        await Session(conn).enqueue_array("s.q", [(p, None) for p in sent[k:k + 20]])
    holder = Session(other)
    await holder.begin()
    held = await holder.dequeue("s.q", DequeueOptions(consumer_name="A", dequeue_mode="LOCKED"))
    assert [bytes(m.payload) for m in held] == [b"0"]  # type: ignore[arg-type]
    seen: list[bytes] = []
    for _ in range(3):  # (a batch of 16 or more moves the position every time)
        seen += await _take(conn, "A", batch=16)
    assert seen == sent[1:49]  # in order, past the one held
    await holder.rollback()
    while got := await _take(conn, "A", batch=16):
        seen += got
    assert sorted(seen) == sorted(sent) and seen[48:] == [b"0", *sent[49:]]
    assert await _take(conn, "B", batch=1000) == sent  # B's own copies, untouched
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0  # every recipient done


async def test_sessions_far_behind_take_each_message_once(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    n = 300
    for k in range(0, n, 50):
        await Session(conn).enqueue_array("s.q", [(str(i).encode(), None) for i in range(k, k + 50)])
    taken = await _drain_concurrently(db_dsn, "A", (3, 16, 20), "SET pgaq.audience_window = 8")
    assert sorted(taken) == sorted(str(i).encode() for i in range(n))  # each once, none lost
    assert len(await _take(conn, "B", batch=1000)) == n
