"""Behaviours Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2 (10.2),
"Introducing Oracle Streams AQ" describes that worked before issue 21 but that no test asserted
(issue 21, section 2). Each test quotes the sentence it checks.
"""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session
from pgaq.listener import Listener

from .helpers import make_queue, subscribe
from .waiting import until

ENQ = ("CALL dbms_aq.enqueue(queue_name => 's.q', message_properties => dbms_aq.message_properties("
       "priority => $2, delay => $3, expiration => $4), payload => $1::bytea, msgid => NULL)")
DEQ = ("CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options("
       "wait => 0), payload => NULL::bytea, msgid => NULL)")


# -- a group takes its first message's properties ---------------------------------------

async def test_a_group_takes_its_first_messages_properties(conn: asyncpg.Connection) -> None:
    """AQ User's Guide (10.2), "Message Grouping": "Group message properties priority, delay,
    and expiration are determined solely by the message properties specified for the first
    message in a group, irrespective of which properties are specified for subsequent messages
    in the group." Through dbms_aq.enqueue, three calls in one transaction."""
    await make_queue(conn, grouping="TRANSACTIONAL")
    async with conn.transaction():
        first = await conn.fetchval(ENQ, b"\x01", 7, 0, 60)
        await conn.fetchval(ENQ, b"\x02", 1, 30, 3600)
        await conn.fetchval(ENQ, b"\x03", 3, 0, -1)
    rows = await conn.fetch("SELECT msg_priority, delay_seconds, expiration, msg_state FROM s.aq$qt "
                            "ORDER BY enq_time")
    assert [tuple(r) for r in rows] == [(7, 0, 60, "READY")] * 3
    # dequeued as one group, the first message first
    got = await Session(conn).dequeue("s.q", DequeueOptions(batch_size=10))
    assert [m.payload for m in got] == [b"\x01", b"\x02", b"\x03"] and got[0].msgid == first.hex().upper()


async def test_a_groups_first_delay_holds_the_whole_group(conn: asyncpg.Connection) -> None:
    """The same sentence, for the delay: a first message delayed makes the group wait, and
    a later message's own delay or expiration counts for nothing. Through the library's
    array enqueue (one call)."""
    await make_queue(conn, grouping="TRANSACTIONAL")
    s = Session(conn)
    await s.enqueue_array("s.q", [(b"\x01", MessageProperties(priority=2, delay=30, expiration=10)),
                                  (b"\x02", MessageProperties(priority=9, delay=0)),
                                  (b"\x03", MessageProperties(priority=5, delay=5, expiration=99))])
    rows = await conn.fetch("SELECT msg_priority, delay_seconds, expiration, msg_state FROM s.aq$qt")
    assert {tuple(r) for r in rows} == {(2, 30, 10, "WAIT")}
    assert await s.dequeue("s.q") == []


# -- subscribers ------------------------------------------------------------------------

async def test_a_late_subscriber_sees_only_later_messages(conn: asyncpg.Connection) -> None:
    """AQ User's Guide (10.2), "Oracle Streams AQ in Integrated Application Environments": "A
    consumer that is added as a subscriber to a queue is only able to dequeue messages that are
    enqueued after the subscriber is added." """
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "EARLY")
    s = Session(conn)
    await s.enqueue("s.q", b"before")
    await subscribe(conn, "s.q", "LATE")
    await s.enqueue("s.q", b"after")
    late = await s.dequeue("s.q", DequeueOptions(consumer_name="LATE", batch_size=10))
    assert [m.payload for m in late] == [b"after"]
    early = await s.dequeue("s.q", DequeueOptions(consumer_name="EARLY", batch_size=10))
    assert [m.payload for m in early] == [b"before", b"after"]
    # and through SQL, the late subscriber's next look finds nothing more
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
        await conn.execute("CALL dbms_aq.dequeue('s.q', dbms_aq.dequeue_options(consumer_name => 'LATE', "
                           "wait => 0), payload => NULL::bytea, msgid => NULL)")


async def test_removing_a_subscriber_removes_its_pending_messages(conn: asyncpg.Connection) -> None:
    """AQ User's Guide (10.2), "Cleaning Up Message Queues": "To clean up messages for a
    particular subscriber, you can remove the subscriber and add the subscriber again. Removing
    the subscriber removes all the messages for that subscriber." The other subscriber keeps its
    copies; a message meant for the removed subscriber alone leaves the queue."""
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "KEEP", rule="priority < 5")
    await subscribe(conn, "s.q", "GONE")
    s = Session(conn)
    await s.enqueue("s.q", b"both", MessageProperties(priority=1))
    only = await s.enqueue("s.q", b"gone only", MessageProperties(priority=9))
    assert await conn.fetchval("SELECT count(*) FROM s.aq$qt WHERE consumer_name = 'GONE'") == 2
    await conn.execute("CALL dbms_aqadm.remove_subscriber('s.q', sys.aq$_agent('GONE', NULL, NULL))")
    assert await conn.fetchval("SELECT count(*) FROM s.aq$qt WHERE consumer_name = 'GONE'") == 0
    await subscribe(conn, "s.q", "GONE")
    assert await s.dequeue("s.q", DequeueOptions(consumer_name="GONE", batch_size=10)) == []
    keep = await s.dequeue("s.q", DequeueOptions(consumer_name="KEEP", batch_size=10))
    assert [m.payload for m in keep] == [b"both"]
    # the message that only GONE would have taken is no longer in the queue
    assert await conn.fetchval("SELECT count(*) FROM s.qt WHERE msgid = decode($1, 'hex') AND state IN (0, 1)",
                               only) == 0


# -- browsing ---------------------------------------------------------------------------

async def test_browse_next_message_with_a_wait_wraps_to_the_start(conn: asyncpg.Connection,
                                                                   db_dsn: str) -> None:
    """AQ User's Guide (10.2), "Navigation of Messages in Dequeuing": "If you reach the end of
    the queue while using the NEXT_MESSAGE or NEXT_TRANSACTION option, and you have specified a
    nonzero wait time, then the navigating position is automatically changed to the beginning of
    the queue. If a zero wait time is specified, then you can get an exception when the end of
    the queue is reached." Through the library, waiting on its listener (the SQL form:
    tests/integration/test_sql_wait.py)."""
    await make_queue(conn)
    s = Session(conn)
    ids = [await s.enqueue("s.q", bytes([i])) for i in (1, 2)]
    listener = Listener(db_dsn)
    await listener.start()
    try:
        b = Session(conn, listener=listener)
        browse = DequeueOptions(dequeue_mode="BROWSE", navigation="NEXT_MESSAGE", wait=0)
        assert [(await b.dequeue("s.q", browse))[0].msgid for _ in range(2)] == ids
        assert await b.dequeue("s.q", browse) == []  # no wait: the end of the queue
        t = time.monotonic()
        waiting = DequeueOptions(dequeue_mode="BROWSE", navigation="NEXT_MESSAGE", wait=5)
        assert [m.msgid for m in await b.dequeue("s.q", waiting)] == ids[:1]  # from the start again
        assert [m.msgid for m in await b.dequeue("s.q", waiting)] == ids[1:]
        assert [m.msgid for m in await b.dequeue("s.q", waiting)] == ids[:1]  # "over and over again"
        assert time.monotonic() - t < 2.0  # never waited: there was a message each time
    finally:
        await listener.close()


# -- a client that dies -----------------------------------------------------------------

async def test_a_client_that_dies_in_its_transaction_counts_no_attempt(conn: asyncpg.Connection,
                                                                      db_dsn: str) -> None:
    """AQ User's Guide (10.2), "Retries with Delays": "If a dequeue transaction fails because
    the server process dies (including ALTER SYSTEM KILL SESSION) or SHUTDOWN ABORT on the
    instance, then RETRY_COUNT is not incremented." Through SQL (dbms_aq.dequeue notes its
    attempt autonomously, for a ROLLBACK to count) and through the library: the dequeuing
    backend is terminated with its transaction open; the message is READY again with no attempt
    counted. A ROLLBACK, by contrast, counts one (the same section: "If the transaction
    dequeuing a message from a queue fails, then it is regarded as an unsuccessful attempt")."""
    await make_queue(conn)
    await conn.execute(ENQ, b"\x01", 1, 0, -1)

    async def retry_count() -> int:
        await conn.fetchval("SELECT aq.settle_pending_attempts()")  # the monitor's part
        return int(await conn.fetchval("SELECT retry_count FROM s.aq$qt"))

    async def killed_mid_transaction(sql: bool) -> None:
        c = await asyncpg.connect(db_dsn)
        pid = await c.fetchval("SELECT pg_backend_pid()")
        tx = c.transaction()
        await tx.start()
        if sql:
            assert (await c.fetchrow(DEQ))["payload"] == b"\x01"
        else:
            [m] = await Session(c).dequeue("s.q")
            assert m.payload == b"\x01"
        assert await conn.fetchval("SELECT pg_terminate_backend($1, 10000)", pid)
        with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError, ConnectionError, OSError)):
            await tx.rollback()
        c.terminate()

    await killed_mid_transaction(sql=True)
    assert await retry_count() == 0
    await killed_mid_transaction(sql=False)
    assert await retry_count() == 0
    assert await conn.fetchval("SELECT msg_state FROM s.aq$qt") == "READY"
    # a rollback by a session that lives on counts
    c = await asyncpg.connect(db_dsn)
    try:
        tx = c.transaction()
        await tx.start()
        assert (await c.fetchrow(DEQ))["payload"] == b"\x01"
        await tx.rollback()
        assert await retry_count() == 1
    finally:
        await c.close()


# -- a blocked dequeue on an exception queue --------------------------------------------

async def monitor_at(conn: asyncpg.Connection, seconds_ahead: float, table: str = "qt") -> int:
    """The queue monitor's pass over a table as if `seconds_ahead` had passed (its clock is a
    parameter, as in tests/integration/test_monitor.py)."""
    return int(await conn.fetchval(
        "SELECT sum(m.done) FROM aq.queue_tables t,"
        " aq.monitor_table(t, clock_timestamp() + make_interval(secs => $1), 1000) m"
        " WHERE t.table_name = $2", seconds_ahead, table))


async def test_a_blocked_dequeue_on_an_exception_queue_is_woken_by_an_expiry(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    """AQ User's Guide (10.2), "Waiting for Messages": "Applications can also perform a blocking
    dequeue on exception queues to wait for arrival of EXPIRED messages." and "An application
    that is blocked on a dequeue is either awakened directly by the enqueuer if the new message
    has no DELAY or is awakened by the queue monitor process when the DELAY or EXPIRATION time
    has passed." A SQL dequeue (aq.await_message) and a library dequeue (its listener, no safety
    poll) wait on the exception queue; the monitor's pass, run with its clock past the message's
    expiration, moves it there, and both return with it long before their waits end."""
    await make_queue(conn)
    await conn.execute("CALL dbms_aqadm.start_queue('s.aq$_qt_e', enqueue => false)")
    mid = await conn.fetchval(ENQ, b"\x0e", 1, 0, 60)  # expires in a minute
    sql_waiter = await asyncpg.connect(db_dsn)
    listener = Listener(db_dsn)
    await listener.start()
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2)
    try:
        pid = await sql_waiter.fetchval("SELECT pg_backend_pid()")
        sql_call = asyncio.create_task(sql_waiter.fetchrow(
            "CALL dbms_aq.dequeue('s.aq$_qt_e', dbms_aq.dequeue_options(wait => 60), "
            "payload => NULL::bytea, msgid => NULL)"))
        lib = Session(None, pool=pool, listener=listener, safety_poll=60)
        lib_call = asyncio.create_task(lib.dequeue("s.aq$_qt_e", DequeueOptions(dequeue_mode="BROWSE", wait=60)))
        await until(lambda: conn.fetchval(
            "SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $1", pid), "the SQL waiter to sleep")
        await asyncio.wait_for(listener.subscribed.wait(), 10)  # its LISTEN is in place
        assert not sql_call.done() and not lib_call.done()
        t = time.monotonic()
        assert await monitor_at(conn, 61) == 1
        [seen] = await asyncio.wait_for(lib_call, 10)
        row = await asyncio.wait_for(sql_call, 10)
        assert row["msgid"] == mid and row["payload"] == b"\x0e"
        assert seen.msgid == mid.hex().upper()
        assert time.monotonic() - t < 2  # woken by the expiry, not by the end of a wait
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
    finally:
        await sql_waiter.close()
        await listener.close()
        await pool.close()
