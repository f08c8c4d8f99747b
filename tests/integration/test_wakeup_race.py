"""No wake-up lost while enqueuers check for waiters without a lock (R__11_wakeups.sql).

An enqueuer looks for waiters with its statement's snapshot and takes no lock for it. One
that looked before a waiter's registration was committed notifies nobody: the waiter's
registration reads the transactions still writing the queue's tables and, once they have
ended, wakes its waiters as a NOTIFY would. One that looks after the registration
notifies. Every waiter here polls only every 60 s (safety_poll), so a pickup within
seconds is the wake-ups' doing.
"""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest
from pgaq import DequeueOptions, Session, waiting
from pgaq.listener import Listener

from .helpers import make_queue, subscribe
from .test_library_wait import ENQ, registered
from .waiting import until


async def _in_its_wait(task: asyncio.Task[object]) -> Listener:
    await until(lambda: bool(waiting.listening()), "the shared listener")
    [listener] = waiting.listening()
    await until(lambda: listener.idle == 1 or task.done(), "the waiter in its wait")
    assert not task.done()
    return listener


@pytest.mark.parametrize("route", ["session", "dbms_aq", "buffered", "topic"])
async def test_an_enqueue_in_flight_when_the_waiter_registers_wakes_it_at_commit(
        conn: asyncpg.Connection, waiter: asyncpg.Connection, producer: asyncpg.Connection,
        route: str) -> None:
    """Its check, before the registration, found no waiter: the registration follows it.
    Each route writes another of the queue's tables: the queue table (the fast statement,
    the general PL/pgSQL), the buffered companion, a topic's (its publish)."""
    await make_queue(conn, multiple=route == "topic")
    options = DequeueOptions(wait=30)
    if route == "topic":
        await subscribe(conn, "s.q", "A")
        options = DequeueOptions(wait=30, consumer_name="A")
    elif route == "buffered":
        options = DequeueOptions(wait=30, delivery_mode="BUFFERED", visibility="IMMEDIATE")
    enq = Session(producer, buffered_in_transactions=True)
    await enq.begin()
    # the enqueue's statement is done (its check found no waiter), its transaction open
    if route == "dbms_aq":
        await producer.fetchval(ENQ, "s.q", b"\x01")
    else:
        await enq.enqueue("s.q", b"\x01", delivery_mode="BUFFERED" if route == "buffered" else "PERSISTENT")
    task = asyncio.create_task(Session(waiter, safety_poll=60).dequeue("s.q", options))
    await _in_its_wait(task)  # registered (first), looked, found nothing: it waits
    await registered(conn, "s.q")
    t = time.monotonic()
    await enq.commit()
    [m] = await asyncio.wait_for(task, 10)
    assert m.payload == b"\x01"
    assert time.monotonic() - t < 2.0


async def test_an_enqueue_in_flight_that_rolls_back_wakes_nobody_for_nothing(
        conn: asyncpg.Connection, waiter: asyncpg.Connection, producer: asyncpg.Connection) -> None:
    """The waiter follows the writer to its end and looks again; it finds nothing and waits
    on, and a later enqueue still wakes it."""
    await make_queue(conn)
    looks = 0

    def count(_q: object) -> None:
        nonlocal looks
        looks += 1

    waiter.add_query_logger(count)
    enq = Session(producer)
    await enq.begin()
    await enq.enqueue("s.q", b"\x01")
    task = asyncio.create_task(Session(waiter, safety_poll=60).dequeue("s.q", DequeueOptions(wait=30)))
    listener = await _in_its_wait(task)
    before = looks
    await enq.rollback()
    await until(lambda: looks > before and listener.idle == 1, "a look after the rollback, then the wait")
    assert not task.done()
    t = time.monotonic()
    await Session(producer).enqueue("s.q", b"\x02")
    [m] = await asyncio.wait_for(task, 10)
    assert m.payload == b"\x02"
    assert time.monotonic() - t < 2.0


async def test_an_enqueue_after_the_registration_notifies(
        conn: asyncpg.Connection, waiter: asyncpg.Connection, producer: asyncpg.Connection) -> None:
    await make_queue(conn)
    qid = await conn.fetchval("SELECT (aq.resolve_queue('s.q')).queue_id")
    heard: asyncio.Queue[str] = asyncio.Queue()
    await conn.add_listener(f"aq_{qid}", lambda *a: heard.put_nowait(a[2]))
    task = asyncio.create_task(Session(waiter, safety_poll=60).dequeue("s.q", DequeueOptions(wait=30)))
    await _in_its_wait(task)
    await registered(conn, "s.q")
    enq = Session(producer)
    await enq.begin()
    await enq.enqueue("s.q", b"\x01")  # its check's snapshot is after the registration
    t = time.monotonic()
    await enq.commit()
    assert await asyncio.wait_for(heard.get(), 10) == f"aq_{qid}"  # the enqueue's own NOTIFY
    [m] = await asyncio.wait_for(task, 10)
    assert m.payload == b"\x01"
    assert time.monotonic() - t < 2.0


async def test_a_client_that_registers_by_hand_is_notified(
        conn: asyncpg.Connection, producer: asyncpg.Connection) -> None:
    """aq.register_waiter(queue id) as a client of the previous release (or one that LISTENs
    by hand) calls it: an enqueue after the registration notifies it."""
    await make_queue(conn)
    qid = await conn.fetchval("SELECT (aq.resolve_queue('s.q')).queue_id")
    heard: asyncio.Queue[str] = asyncio.Queue()
    await conn.add_listener(f"aq_{qid}", lambda *a: heard.put_nowait(a[2]))
    await conn.execute("SELECT aq.register_waiter($1)", qid)
    await Session(producer).enqueue("s.q", b"\x01")
    await producer.fetchval(ENQ, "s.q", b"\x02")
    assert [await asyncio.wait_for(heard.get(), 10) for _ in range(2)] == [f"aq_{qid}"] * 2
