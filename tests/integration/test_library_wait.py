"""The Python library waits without the caller wiring a Listener (pgaq.waiting): a
`Session.dequeue` with a wait, and `Session.listen`, return as soon as a message is
committed on another connection, woken by the enqueue's NOTIFY on the one listening
connection the process keeps for every waiter of a database.

The sessions here poll only every 60 s (safety_poll), so a return within a second of the
commit is the NOTIFY's doing. Nothing sleeps to synchronise: the tests wait for the shared
connection's registration as a waiter (aq.waiters) before they enqueue.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest
from pgaq import Agent, DequeueOptions, Session, waiting

from .helpers import make_queue, subscribe
from .waiting import until

ENQ = "CALL dbms_aq.enqueue(queue_name => $1, payload => $2::bytea, msgid => NULL)"
ENQ_TO = ("CALL dbms_aq.enqueue(queue_name => $1, message_properties => dbms_aq.message_properties("
          "recipient_list => ARRAY[sys.aq$_agent($3, NULL, NULL)]), payload => $2::bytea, msgid => NULL)")


@pytest.fixture(autouse=True)
async def _shared_listeners(db_dsn: str) -> AsyncIterator[None]:
    """Each test starts with no shared listener and closes the ones it started (before its
    database is dropped)."""
    assert waiting.listening() == []
    yield
    await waiting.shutdown()


@pytest.fixture
async def conns(db_dsn: str) -> AsyncIterator[list[asyncpg.Connection]]:
    """Waiters' connections of their own."""
    cs = [await asyncpg.connect(db_dsn) for _ in range(10)]
    try:
        yield cs
    finally:
        for c in cs:
            await c.close()


async def registered(admin: asyncpg.Connection, queue: str, n: int = 1) -> None:
    """The shared connection LISTENs to the queue's channel and is registered as its waiter,
    so the next commit of an enqueue notifies it."""
    qid = await admin.fetchval("SELECT (aq.resolve_queue($1)).queue_id", queue)
    await until(lambda: admin.fetchval("SELECT count(*) >= $2 FROM aq.waiters WHERE queue_id = $1",
                                       qid, n), f"a waiter on {queue}")


async def listener_pids(admin: asyncpg.Connection) -> list[int]:
    return [r["pid"] for r in await admin.fetch("SELECT DISTINCT pid FROM aq.waiters")]


async def test_a_dequeue_waits_with_no_listener_and_is_woken_by_a_commit(
    conn: asyncpg.Connection, conns: list[asyncpg.Connection]
) -> None:
    await make_queue(conn)
    s = Session(conns[0], safety_poll=60)
    assert await s.dequeue("s.q", DequeueOptions(wait=0)) == []
    assert waiting.listening() == []  # no wait, no listening connection
    task = asyncio.create_task(s.dequeue("s.q", DequeueOptions(wait=30)))
    await registered(conn, "s.q")
    async with conn.transaction():
        mid = await conn.fetchval(ENQ, "s.q", b"\x01")
        t = time.monotonic()
    [m] = await asyncio.wait_for(task, 10)
    assert m.msgid == mid.hex().upper() and m.payload == b"\x01"
    assert time.monotonic() - t < 1.0


async def test_a_wait_runs_out_after_its_seconds(conn: asyncpg.Connection,
                                                 conns: list[asyncpg.Connection]) -> None:
    """The library's contract: [] from dequeue, None from listen, after `wait` seconds."""
    await make_queue(conn)
    s = Session(conns[0], safety_poll=60)
    t = time.monotonic()
    assert await s.dequeue("s.q", DequeueOptions(wait=1)) == []
    assert 0.95 <= time.monotonic() - t < 3
    t = time.monotonic()
    assert await s.listen([Agent(None, "s.q")], wait=1) is None
    assert 0.95 <= time.monotonic() - t < 3


async def test_listen_returns_the_first_agent_with_a_message(
    conn: asyncpg.Connection, conns: list[asyncpg.Connection]
) -> None:
    await make_queue(conn, "s.q", "s.qt")
    await make_queue(conn, "s.m", "s.mt", multiple=True)
    await subscribe(conn, "s.m", "A")
    await subscribe(conn, "s.m", "B")
    s = Session(conns[0], safety_poll=60)
    agents = [Agent(None, "s.q"), Agent("A", "s.m"), Agent("B", "s.m")]
    assert await s.listen(agents, wait=0) is None
    await conn.execute(ENQ_TO, "s.m", b"\x01", "B")
    await conn.execute(ENQ, "s.q", b"\x02")
    assert await s.listen(agents, wait=0) == agents[0]  # the first in the list's order
    assert await s.listen(agents[::-1], wait=0) == agents[2]
    assert await s.dequeue("s.q") != []  # listen took nothing; the dequeue does
    # a wait across both queues, woken by a commit for A on another connection
    task = asyncio.create_task(s.listen(agents[:2], wait=30))
    await registered(conn, "s.q")
    await registered(conn, "s.m")
    t = time.monotonic()
    await conn.execute(ENQ_TO, "s.m", b"\x03", "A")
    assert await asyncio.wait_for(task, 10) == agents[1]
    assert time.monotonic() - t < 1.0
    with pytest.raises(Exception, match="ORA-24039"):
        await s.listen([Agent("A", "s.q")], wait=0)


async def test_one_listening_connection_serves_every_waiter_of_the_process(
    conn: asyncpg.Connection, conns: list[asyncpg.Connection], db_dsn: str
) -> None:
    queues = ["s.q1", "s.q2", "s.q3"]
    await make_queue(conn, "s.q1", "s.qt")
    for q in queues[1:]:
        await make_queue(conn, q, "s.qt", create_table=False)
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2,
                                     server_settings={"application_name": "the pool"})
    try:
        own = {await c.fetchval("SELECT pg_backend_pid()") for c in [*conns, conn]}
        sessions = [Session(c, safety_poll=60) for c in conns]
        pooled = Session(None, pool=pool, safety_poll=60)  # a pooled session shares it too
        tasks = [asyncio.create_task(s.dequeue(queues[i % 3], DequeueOptions(wait=30)))
                 for i, s in enumerate(sessions[:8])]
        tasks.append(asyncio.create_task(pooled.dequeue("s.q1", DequeueOptions(wait=30))))
        listens = [asyncio.create_task(s.listen([Agent(None, q) for q in queues], wait=30))
                   for s in sessions[8:]]
        for q in queues:
            await registered(conn, q)
        [listener] = waiting.listening()
        await until(lambda: listener.waiters == 11, "every waiter subscribed")
        # one LISTEN connection for the eleven waiters: registered on every queue, and the
        # database's only backend beyond the sessions' own, the pool's and this one
        [pid] = await listener_pids(conn)
        others = await conn.fetch("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                                  " AND backend_type = 'client backend' AND NOT pid = ANY($1::int[])"
                                  " AND application_name <> 'the pool'", list(own))
        assert [r["pid"] for r in others] == [pid]
        assert pid not in own
        # every waiter is woken: three messages per queue and one more for the pooled one
        for q in queues:
            for i in range(3 + (q == "s.q1")):
                await conn.execute(ENQ, q, bytes([i]))
        got = await asyncio.wait_for(asyncio.gather(*tasks), 10)
        assert all(len(g) == 1 for g in got)
        heard = await asyncio.wait_for(asyncio.gather(*listens), 10)
        assert all(a is not None and a.address in queues for a in heard)
        # shutdown closes it
        await waiting.shutdown()
        assert waiting.listening() == []
        await until(lambda: conn.fetchval("SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)",
                                          pid), "the listening connection to close")
    finally:
        await pool.close()


async def test_the_shared_connection_reconnects_and_waiters_still_wake(
    conn: asyncpg.Connection, conns: list[asyncpg.Connection]
) -> None:
    await make_queue(conn)
    s = Session(conns[0], safety_poll=60)
    task = asyncio.create_task(s.dequeue("s.q", DequeueOptions(wait=30)))
    await registered(conn, "s.q")
    [first] = await listener_pids(conn)
    assert await conn.fetchval("SELECT pg_terminate_backend($1)", first)

    async def reconnected() -> bool:  # (the dead connection's row stays until the monitor's pass)
        return any(p != first for p in await listener_pids(conn))

    await until(reconnected, "the listener to reconnect and register again")
    t = time.monotonic()
    await conn.execute(ENQ, "s.q", b"\x07")
    [m] = await asyncio.wait_for(task, 10)
    assert m.payload == b"\x07" and time.monotonic() - t < 1.0


async def test_an_idle_shared_listener_closes_after_it_lingered(
    conn: asyncpg.Connection, conns: list[asyncpg.Connection], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(waiting, "LINGER", 0.2)
    await make_queue(conn)
    s = Session(conns[0], safety_poll=60)
    task = asyncio.create_task(s.dequeue("s.q", DequeueOptions(wait=30)))
    await registered(conn, "s.q")
    [pid] = await listener_pids(conn)
    await conn.execute(ENQ, "s.q", b"\x01")
    assert len(await asyncio.wait_for(task, 10)) == 1
    await until(lambda: conn.fetchval("SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)",
                                      pid), "the idle listener to close")
    assert waiting.listening() == []
