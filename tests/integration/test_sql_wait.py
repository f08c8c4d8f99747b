"""dbms_aq.dequeue waits in SQL (R__21): wait => n seconds or dbms_aq.forever() blocks until
a message it may take is committed (or its delay ends) or the wait runs out (ORA-25228).

Nothing here sleeps to synchronise: the tests wait for what the server shows (the waiter
asleep in pg_sleep, a new look's transaction in pg_stat_activity) and then act.
"""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest
from pgaq.listener import Listener
from pgaq.monitor import Monitor, MonitorSettings

from .helpers import make_queue, subscribe
from .waiting import asleep, burn_xids, looked_again, until, xmin

DEQ = ("CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options("
       "consumer_name => $1, wait => $2), payload => NULL::bytea, msgid => NULL)")
FOREVER = ("CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options("
           "consumer_name => $1, wait => dbms_aq.forever()), payload => NULL::bytea, msgid => NULL)")
BROWSE = ("CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options("
          "dequeue_mode => 'BROWSE', navigation => 'NEXT_MESSAGE', wait => $1), payload => NULL::bytea,"
          " msgid => NULL)")
ENQ = "CALL dbms_aq.enqueue(queue_name => 's.q', payload => $1::bytea, msgid => NULL)"
ENQ_TO = ("CALL dbms_aq.enqueue(queue_name => 's.q', message_properties => dbms_aq.message_properties("
          "recipient_list => ARRAY[sys.aq$_agent($2, NULL, NULL)]), payload => $1::bytea, msgid => NULL)")
ENQ_DELAYED = ("CALL dbms_aq.enqueue(queue_name => 's.q', message_properties => dbms_aq.message_properties("
               "delay => $2), payload => $1::bytea, msgid => NULL)")


async def intact(conn: asyncpg.Connection, waiter: asyncpg.Connection) -> None:
    """Nothing half done: the waiter's session is usable, no attempt noted or counted, and a
    message enqueued now is dequeued at once with no attempt on it."""
    assert await waiter.fetchval("SELECT 1") == 1
    assert await conn.fetchval("SELECT count(*) FROM aq.pending_attempts") == 0
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
    await conn.execute(ENQ, b"\x09")
    row = await waiter.fetchrow(DEQ, None, 0)
    assert row["payload"] == b"\x09" and row["message_properties"]["attempts"] == 0


async def test_wait_n_seconds_times_out_after_about_n(conn: asyncpg.Connection, waiter: asyncpg.Connection) -> None:
    await make_queue(conn)
    t = time.monotonic()
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
        await waiter.execute(DEQ, None, 1)
    assert 0.95 <= time.monotonic() - t < 3.0


async def test_no_wait_raises_at_once(conn: asyncpg.Connection, waiter: asyncpg.Connection) -> None:
    await make_queue(conn)
    for sql, args in ((DEQ, (None, 0)), (DEQ.replace("$2", "dbms_aq.no_wait()"), (None,))):
        t = time.monotonic()
        with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
            await waiter.execute(sql, *args)
        assert time.monotonic() - t < 0.5
    assert await waiter.fetchval("SELECT dbms_aq.forever()") == -1
    with pytest.raises(asyncpg.PostgresError, match="ORA-25209"):
        await waiter.execute(DEQ, None, -5)


async def test_forever_returns_on_a_commit_not_before(
    conn: asyncpg.Connection, waiter: asyncpg.Connection, producer: asyncpg.Connection
) -> None:
    await make_queue(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    call = asyncio.create_task(waiter.fetchrow(FOREVER, None))
    await asleep(conn, pid)
    tx = producer.transaction()
    await tx.start()
    mid = await producer.fetchval(ENQ, b"\x01")
    await looked_again(conn, pid)
    assert not call.done()  # an uncommitted message is not seen
    await tx.commit()
    row = await asyncio.wait_for(call, 10)
    assert row["msgid"] == mid and row["payload"] == b"\x01"
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_a_delayed_message_wakes_the_waiter_when_its_delay_ends(
    conn: asyncpg.Connection, waiter: asyncpg.Connection, db_dsn: str
) -> None:
    await make_queue(conn)
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=3)
    listener = Listener(db_dsn)
    await listener.start()
    stop = asyncio.Event()
    monitor = asyncio.create_task(Monitor(pool, listener, MonitorSettings()).run(stop))
    try:
        pid = await waiter.fetchval("SELECT pg_backend_pid()")
        call = asyncio.create_task(waiter.fetchrow(DEQ, None, 20))
        await asleep(conn, pid)
        mid = await conn.fetchval(ENQ_DELAYED, b"\x02", 1)
        ready = await conn.fetchval("SELECT ready_time FROM s.qt WHERE msgid = $1", mid)
        row = await asyncio.wait_for(call, 15)
        returned = await conn.fetchval("SELECT clock_timestamp()")
        assert row["msgid"] == mid
        # woken by the delay's end (the monitor makes it READY), not before and not by the timeout
        assert 0 <= (returned - ready).total_seconds() < 3
    finally:
        stop.set()
        await monitor
        await listener.close()
        await pool.close()


async def test_a_multi_consumer_waiter_waits_for_its_own_messages(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    call = asyncio.create_task(waiter.fetchrow(FOREVER, "A"))
    await asleep(conn, pid)
    await conn.execute(ENQ_TO, b"\x0b", "B")  # committed, but for B only
    await looked_again(conn, pid)
    assert not call.done()
    mid = await conn.fetchval(ENQ_TO, b"\x0a", "A")
    row = await asyncio.wait_for(call, 10)
    assert row["msgid"] == mid and row["payload"] == b"\x0a"
    states = await conn.fetch("SELECT consumer_name, msg_state FROM s.aq$qt ORDER BY consumer_name")
    assert [tuple(r) for r in states] == [("A", "PROCESSED"), ("B", "READY")] or \
        [tuple(r) for r in states] == [("B", "READY")]


async def test_a_waiter_with_messages_it_cannot_take_still_gets_a_new_one(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    """READY messages for another correlation are there all along: the waiter tries them
    again at growing intervals (up to 250 ms), and takes the matching one when it comes."""
    await make_queue(conn)
    await conn.execute("CALL dbms_aq.enqueue(queue_name => 's.q', message_properties =>"
                       " dbms_aq.message_properties(correlation => 'other'), payload => '\\x01'::bytea,"
                       " msgid => NULL)")
    sql = DEQ.replace("consumer_name => $1", "correlation => $1")
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    call = asyncio.create_task(waiter.fetchrow(sql, "mine", 20))
    await asleep(conn, pid)
    mid = await conn.fetchval("CALL dbms_aq.enqueue(queue_name => 's.q', message_properties =>"
                              " dbms_aq.message_properties(correlation => 'mine'), payload => '\\x02'::bytea,"
                              " msgid => NULL)")
    t = time.monotonic()
    row = await asyncio.wait_for(call, 10)
    assert row["msgid"] == mid and time.monotonic() - t < 1.5
    assert await conn.fetchval("SELECT corrid FROM s.qt") == "other"


async def test_browse_next_message_with_a_wait_wraps_to_the_start(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await make_queue(conn)
    ids = [await conn.fetchval(ENQ, bytes([i])) for i in (1, 2)]
    assert [(await waiter.fetchrow(BROWSE, 1))["msgid"] for _ in range(2)] == ids
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
        await waiter.execute(BROWSE, 0)  # no wait: the end of the queue
    t = time.monotonic()
    assert (await waiter.fetchrow(BROWSE, 1))["msgid"] == ids[0]  # a wait: from the start again
    assert time.monotonic() - t < 0.5


async def test_statement_timeout_cancels_the_wait_cleanly(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await make_queue(conn)
    await waiter.execute("SET statement_timeout = '300ms'")
    t = time.monotonic()
    with pytest.raises(asyncpg.QueryCanceledError):
        await waiter.execute(FOREVER, None)
    assert time.monotonic() - t < 3
    await waiter.execute("RESET statement_timeout")
    await intact(conn, waiter)


async def test_pg_cancel_backend_cancels_the_wait_cleanly(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await make_queue(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    call = asyncio.create_task(waiter.execute(FOREVER, None))
    await asleep(conn, pid)
    assert await conn.fetchval("SELECT pg_cancel_backend($1)", pid)
    with pytest.raises(asyncpg.QueryCanceledError):
        await asyncio.wait_for(call, 10)
    await intact(conn, waiter)


async def test_backend_xmin_advances_while_a_call_waits_outside_a_transaction_block(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await make_queue(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    call = asyncio.create_task(waiter.fetchrow(FOREVER, None))
    await asleep(conn, pid)
    first = await xmin(conn, pid)
    assert first is not None
    await burn_xids(conn)

    async def advanced() -> bool:
        x = await xmin(conn, pid)
        return x is not None and x > first

    await until(advanced, "backend_xmin to advance")
    # each look is its own transaction: locks are let go too (a DDL lock is granted at once)
    async with conn.transaction():
        await conn.execute("SET LOCAL lock_timeout = '2s'")
        await conn.execute("LOCK TABLE s.qt IN ACCESS EXCLUSIVE MODE")
    await conn.execute(ENQ, b"\x01")
    assert (await asyncio.wait_for(call, 10))["payload"] == b"\x01"


async def test_inside_a_transaction_block_the_wait_holds_its_snapshot(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    """What PostgreSQL allows: a procedure cannot end the caller's transaction, so the
    CALL's snapshot pins backend_xmin for the whole wait (documented)."""
    await make_queue(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")

    async def in_block() -> None:
        async with waiter.transaction():
            await waiter.execute(DEQ, None, 2)

    call = asyncio.create_task(in_block())
    await asleep(conn, pid)
    first = await xmin(conn, pid)
    await burn_xids(conn)
    samples = []
    while not call.done():
        if await conn.fetchval("SELECT state = 'active' FROM pg_stat_activity WHERE pid = $1", pid):
            samples.append(await xmin(conn, pid))
        await asyncio.sleep(0.05)
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
        await call
    assert first is not None and set(samples) - {None} == {first}


async def test_waits_where_no_commit_is_possible(conn: asyncpg.Connection, waiter: asyncpg.Connection,
                                                 producer: asyncpg.Connection) -> None:
    """In a transaction block, in a query string of several statements, and under a caller's
    exception block the loop runs inside the caller's transaction: it still waits and wakes."""
    await make_queue(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    # a caller's exception block (the usual port of Oracle's EXCEPTION WHEN ... handler)
    await waiter.execute("CREATE TEMP TABLE r (s text)")
    await waiter.execute("""
        DO $$
        DECLARE
          props dbms_aq.message_properties_t;
          body bytea;
          id bytea;
        BEGIN
          CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options(wait => 1),
                               message_properties => props, payload => body, msgid => id);
          INSERT INTO r VALUES ('got');
        EXCEPTION WHEN sqlstate 'P0002' THEN
          INSERT INTO r VALUES ('timeout');
        END $$""")
    assert await waiter.fetchval("SELECT s FROM r") == "timeout"
    # several statements in one query string: an implicit transaction block
    call = asyncio.create_task(waiter.execute(
        "CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options(wait => 20),"
        " payload => NULL::bytea, msgid => NULL); SELECT 'done'"))
    await asleep(conn, pid)
    await producer.execute(ENQ, b"\x03")
    assert await asyncio.wait_for(call, 10) == "SELECT 1"
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
    # a REPEATABLE READ block would never see a new message: refused at once
    t = time.monotonic()
    with pytest.raises(asyncpg.PostgresError, match=r"ORA-25228.*REPEATABLE READ"):
        async with waiter.transaction(isolation="repeatable_read"):
            await waiter.execute(DEQ, None, 20)
    assert time.monotonic() - t < 1


async def test_an_immediate_dequeue_waits_too(conn: asyncpg.Connection, waiter: asyncpg.Connection,
                                              producer: asyncpg.Connection) -> None:
    """IMMEDIATE runs the dequeue in a transaction of its own (the autonomous link); the wait
    runs in the caller's session, here inside its transaction block."""
    await make_queue(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    tx = waiter.transaction()
    await tx.start()
    call = asyncio.create_task(waiter.fetchrow(
        "CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options("
        "visibility => 'IMMEDIATE', wait => 20), payload => NULL::bytea, msgid => NULL)"))
    await asleep(conn, pid)
    mid = await producer.fetchval(ENQ, b"\x05")
    row = await asyncio.wait_for(call, 10)
    await tx.rollback()
    assert row["msgid"] == mid
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0  # removed for good
    assert await conn.fetchval("SELECT count(*) FROM aq.pending_attempts") == 0
