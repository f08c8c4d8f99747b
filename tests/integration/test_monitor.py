"""The queue monitor: delay, expiry, retry delay and retention, on the database's clock."""

from __future__ import annotations

import asyncio
import time

import asyncpg
from pgaq import DequeueOptions, MessageProperties, Session
from pgaq.listener import Listener
from pgaq.monitor import Monitor, MonitorSettings, sleep_for

from .helpers import make_queue, subscribe


async def monitor_at(conn: asyncpg.Connection, seconds_ahead: float, table: str = "qt") -> int:
    """Run the monitor's work as if `seconds_ahead` had passed (time is a parameter)."""
    done: int = await conn.fetchval(
        "SELECT sum(m.done) FROM aq.queue_tables t,"
        " aq.monitor_table(t, clock_timestamp() + make_interval(secs => $1), 1000) m"
        " WHERE t.table_name = $2", seconds_ahead, table)
    return done


async def state(conn: asyncpg.Connection) -> list[tuple[str, str]]:
    return [tuple(r) for r in await conn.fetch("SELECT queue, msg_state FROM s.aq$qt ORDER BY enq_time")]


async def test_delay_then_ready(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.enqueue("s.q", b"later", MessageProperties(delay=30))
    assert await state(conn) == [("q", "WAIT")]
    assert await s.dequeue("s.q") == []
    assert await monitor_at(conn, 10) == 0
    assert await monitor_at(conn, 31) == 1
    assert [m.payload for m in await s.dequeue("s.q")] == [b"later"]


async def test_expiry_single_consumer(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    await conn.execute("CALL dbms_aqadm.start_queue('s.aq$_qt_e', enqueue => false)")
    s = Session(conn)
    mid = await s.enqueue("s.q", b"x", MessageProperties(expiration=5))
    await s.enqueue("s.q", b"never")
    await monitor_at(conn, 6)
    row = await conn.fetchrow("SELECT queue, msg_state, expiration_reason FROM s.aq$qt WHERE msg_id = $1", mid)
    assert tuple(row) == ("aq$_qt_e", "EXPIRED", "TIME_EXPIRATION")
    [e] = await s.dequeue("s.aq$_qt_e")
    assert e.msgid == mid
    assert await s.dequeue("s.aq$_qt_e") == []
    assert [m.payload for m in await s.dequeue("s.q")] == [b"never"]


async def test_expiry_counts_from_ready(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.enqueue("s.q", b"x", MessageProperties(delay=10, expiration=5))
    await monitor_at(conn, 12)  # ready at 10, expires at 15
    assert await state(conn) == [("q", "READY")]
    await monitor_at(conn, 16)
    assert await state(conn) == [("aq$_qt_e", "EXPIRED")]


async def test_expiry_multi_consumer(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    s = Session(conn)
    mid = await s.enqueue("s.q", b"x", MessageProperties(expiration=5))
    await s.dequeue("s.q", DequeueOptions(consumer_name="A"))
    await monitor_at(conn, 6)
    # expired for B, who had not dequeued it: the message is in the exception queue
    rows = await conn.fetch("SELECT DISTINCT queue, msg_state FROM s.aq$qt WHERE msg_id = $1", mid)
    assert [tuple(r) for r in rows] == [("aq$_qt_e", "EXPIRED")]
    await conn.execute("CALL dbms_aqadm.start_queue('s.aq$_qt_e', enqueue => false)")
    [e] = await s.dequeue("s.aq$_qt_e")
    assert e.msgid == mid


async def test_retry_delay_ends(conn: asyncpg.Connection) -> None:
    await make_queue(conn, retry_delay=20)
    s = Session(conn)
    await s.enqueue("s.q", b"x")
    await s.begin()
    await s.dequeue("s.q")
    await s.rollback()
    assert await state(conn) == [("q", "WAIT")]
    await monitor_at(conn, 21)
    [m] = await s.dequeue("s.q", DequeueOptions(navigation="FIRST_MESSAGE"))
    assert m.attempts == 1


async def test_retention_and_infinite(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "s.q", retention=60)
    await make_queue(conn, "s.forever", retention=-1, create_table=False)
    s = Session(conn)
    await s.enqueue("s.q", b"a")
    await s.enqueue("s.forever", b"b")
    await s.dequeue("s.q")
    await s.dequeue("s.forever")
    assert sorted(await state(conn)) == [("forever", "PROCESSED"), ("q", "PROCESSED")]
    await monitor_at(conn, 30)
    assert len(await state(conn)) == 2
    await monitor_at(conn, 61)
    assert await state(conn) == [("forever", "PROCESSED")]
    await monitor_at(conn, 10**8)
    assert await state(conn) == [("forever", "PROCESSED")]


async def test_gv_aq(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.enqueue("s.q", b"1")
    await s.enqueue("s.q", b"2", MessageProperties(delay=100))
    row = await conn.fetchrow("SELECT waiting, ready, expired, average_msg_age FROM gv$aq WHERE queue_name = 'q'")
    assert (row["waiting"], row["ready"], row["expired"]) == (1, 1, 0)
    assert await conn.fetchval("SELECT aq.take_snapshot()") >= 1


def test_sleep_maths() -> None:
    assert sleep_for(None, 5) == 5
    assert sleep_for(0.25, 5) == 0.25
    assert sleep_for(-3, 5) == 0
    assert sleep_for(60, 5) == 5


async def test_service_wakes_a_blocked_receiver_on_delay_end(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=3)
    listener = Listener(db_dsn)
    await listener.start()
    stop = asyncio.Event()
    monitor = asyncio.create_task(Monitor(pool, listener, MonitorSettings(safety_poll=30)).run(stop))
    try:
        async with pool.acquire() as c:
            waiter = Session(c, listener=listener, safety_poll=30)
            receive = asyncio.create_task(waiter.dequeue("s.q", DequeueOptions(wait=20)))
            started = time.monotonic()
            await Session(conn).enqueue("s.q", b"soon", MessageProperties(delay=1))
            [m] = await asyncio.wait_for(receive, 10)
            elapsed = time.monotonic() - started
        assert m.payload == b"soon"
        assert 0.9 < elapsed < 3.0  # woken by the monitor's NOTIFY, not a 30 s poll
    finally:
        stop.set()
        await monitor
        await listener.close()
        await pool.close()


async def test_two_monitors_share_the_work(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.enqueue_array("s.q", [(b"x", MessageProperties(expiration=1)) for _ in range(600)])
    a, b = await asyncpg.connect(db_dsn), await asyncpg.connect(db_dsn)
    try:
        sql = ("SELECT sum(m.done) FROM aq.queue_tables t,"
               " aq.monitor_table(t, clock_timestamp() + interval '2 s', 200) m")
        done = await asyncio.gather(a.fetchval(sql), b.fetchval(sql))
        assert sum(done) == 400  # two batches of 200, no message moved twice
        while await monitor_at(conn, 2):
            pass
    finally:
        await a.close()
        await b.close()
    assert await conn.fetchval("SELECT count(*) FROM s.aq$qt WHERE msg_state = 'EXPIRED'") == 600


async def test_waiters_wake_across_a_postgres_restart() -> None:
    """A blocked receiver (autocommit, pooled) still wakes after PostgreSQL restarts."""
    import os
    import shutil
    import tempfile
    from pathlib import Path

    from pgaq.embedded import Cluster
    from pgaq.migrate import migrate

    base = Path(tempfile.mkdtemp(prefix="pgaq-restart-"))
    os.chmod(base, 0o755)
    cluster = Cluster(base / "c", durable=False)
    cluster.init()
    cluster.start()
    try:
        conn = await asyncpg.connect(cluster.dsn())
        await migrate(conn)
        await make_queue(conn)
        await conn.close()
        pool = await asyncpg.create_pool(cluster.dsn(), min_size=0, max_size=3)
        listener = Listener(cluster.dsn(), reconnect_max=0.2)
        await listener.start()
        try:
            waiter = Session(None, pool=pool, listener=listener, safety_poll=60)
            receive = asyncio.create_task(waiter.dequeue("s.q", DequeueOptions(wait=60)))
            await asyncio.wait_for(listener.subscribed.wait(), 10)
            listener.connected.clear()
            await asyncio.to_thread(cluster.restart)
            await pool.expire_connections()
            await asyncio.wait_for(listener.connected.wait(), 30)  # re-subscribed
            async with pool.acquire() as c:
                await Session(c).enqueue("s.q", b"after restart")
            [m] = await asyncio.wait_for(receive, 30)
            assert m.payload == b"after restart"
        finally:
            await listener.close()
            await pool.close()
    finally:
        cluster.destroy()
        shutil.rmtree(base, ignore_errors=True)


async def test_vanished_exception_queue_falls_back_with_a_warning(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    await conn.execute("CALL dbms_aqadm.create_queue('s.myexc', 's.qt', queue_type => 'EXCEPTION_QUEUE')")
    s = Session(conn)
    mid = await s.enqueue("s.q", b"x", MessageProperties(expiration=1, exception_queue="s.myexc"))
    await conn.execute("CALL dbms_aqadm.stop_queue('s.myexc'); CALL dbms_aqadm.drop_queue('s.myexc')")
    notices: list[str] = []
    conn.add_log_listener(lambda _c, m: notices.append(m.message))
    await monitor_at(conn, 2)
    assert await conn.fetchval("SELECT queue FROM s.aq$qt WHERE msg_id = $1", mid) == "aq$_qt_e"
    assert any("no longer exists" in n for n in notices)


async def test_a_pass_is_all_or_nothing(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    await Session(conn).enqueue_array("s.q", [(b"x", MessageProperties(expiration=1))] * 50)
    tx = conn.transaction()
    await tx.start()
    await monitor_at(conn, 2)
    await tx.rollback()  # as if the monitor died mid-batch
    assert await conn.fetchval("SELECT count(*) FROM s.aq$qt WHERE msg_state = 'READY'") == 50
    await monitor_at(conn, 2)
    assert await conn.fetchval("SELECT count(*) FROM s.aq$qt WHERE msg_state = 'EXPIRED'") == 50
