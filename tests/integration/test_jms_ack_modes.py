"""Acknowledge modes and transactions of pgaq.jms (issue 22) over AQ: what is redelivered,
with which JMSRedelivered and JMSXDeliveryCount, and when AQ's max_retries / retry_delay
move a message on (Oracle Database Advanced Queuing User's Guide, "Introduction to Oracle
Java Message Service", "Retry with Delay Interval" and "Exception Queues")."""

from __future__ import annotations

import asyncio

import asyncpg
import pgaq.jms as jms
import pytest

from .helpers import make_queue
from .waiting import until


async def queue_with(conn: asyncpg.Connection, **kw: object) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE", **kw)  # type: ignore[arg-type]


async def fill(connection: jms.Connection, *texts: str) -> None:
    s = connection.create_session()
    p = s.create_producer(s.get_queue("shop", "orders_q"))
    for t in texts:
        await p.send(s.create_text_message(t))
    await s.close()


async def count(conn: asyncpg.Connection) -> int:
    n: int = await conn.fetchval("SELECT count(*) FROM shop.orders_t WHERE q_name = 'orders_q'")
    return n


def text(m: jms.Message | None) -> str | None:
    assert m is None or isinstance(m, jms.TextMessage)
    return None if m is None else m.text


async def test_transacted_send_is_visible_at_commit(conn: asyncpg.Connection,
                                                    connection: jms.Connection) -> None:
    await queue_with(conn)
    s = connection.create_session(transacted=True)
    assert s.get_transacted() and s.get_acknowledge_mode() == jms.SESSION_TRANSACTED
    p = s.create_producer(s.get_queue("shop", "orders_q"))
    await p.send(s.create_text_message("a"))
    assert await count(conn) == 0
    await s.commit()
    assert await count(conn) == 1
    await p.send(s.create_text_message("b"))
    await s.rollback()
    assert await count(conn) == 1


async def test_a_transacted_session_does_not_receive_its_own_uncommitted_sends(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await queue_with(conn)
    await fill(connection, "before")
    s = connection.create_session(True)
    q = s.get_queue("shop", "orders_q")
    c = await s.create_consumer(q, message_selector="JMSType IS NULL")
    await connection.start()
    await s.create_producer(q).send(s.create_text_message("mine"))
    assert text(await c.receive_no_wait()) == "before"
    assert await c.receive_no_wait() is None  # JMS 1.1 4.4.7: delivered after the commit
    await s.commit()
    assert text(await c.receive(1.0)) == "mine"
    await s.commit()


async def test_rollback_redelivers_then_the_exception_queue(conn: asyncpg.Connection,
                                                            connection: jms.Connection) -> None:
    await queue_with(conn, max_retries=2)
    await fill(connection, "m")
    s = connection.create_session(True)
    c = await s.create_consumer(s.get_queue("shop", "orders_q"))
    await connection.start()
    for delivery in (1, 2, 3):  # max_retries 2: the first delivery and two retries
        m = await c.receive(1.0)
        assert text(m) == "m" and m is not None
        assert m.jms_redelivered is (delivery > 1)
        assert m.get_int_property("JMSXDeliveryCount") == delivery
        await s.rollback()
    assert await c.receive_no_wait() is None
    # the third failed attempt moved it to the queue table's exception queue
    exq = await conn.fetchval("SELECT queue_name FROM aq.queue_info WHERE queue_type = 'EXCEPTION_QUEUE'")
    exception_queue = s.get_queue("shop", exq)
    await s.start_destination(exception_queue, enqueue=False)  # Oracle JMS guide: start it to receive
    ex = await s.create_consumer(exception_queue)
    m = await ex.receive(1.0)
    assert text(m) == "m"
    await s.commit()
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_t") == 0


async def test_retry_delay_holds_a_rolled_back_message(conn: asyncpg.Connection,
                                                       connection: jms.Connection) -> None:
    await queue_with(conn, retry_delay=3600)
    await fill(connection, "m")
    s = connection.create_session(True)
    c = await s.create_consumer(s.get_queue("shop", "orders_q"))
    await connection.start()
    assert text(await c.receive(1.0)) == "m"
    await s.rollback()
    assert await c.receive_no_wait() is None
    assert await conn.fetchval("SELECT msg_state FROM shop.aq$orders_t") == "WAIT"


async def test_commit_rollback_recover_are_for_their_modes(connection: jms.Connection) -> None:
    auto = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
    with pytest.raises(jms.IllegalStateException) as e:
        await auto.commit()
    assert e.value.error_code == "JMS-227"
    with pytest.raises(jms.IllegalStateException) as e:
        await auto.rollback()
    assert e.value.error_code == "JMS-228"
    tx = connection.create_session(True, jms.AUTO_ACKNOWLEDGE)  # transacted wins
    with pytest.raises(jms.IllegalStateException) as e:
        await tx.recover()
    assert e.value.error_code == "JMS-238"


async def test_client_acknowledge_acknowledges_everything_consumed(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await queue_with(conn)
    await fill(connection, "a", "b", "c", "d")
    s = connection.create_session(False, jms.CLIENT_ACKNOWLEDGE)
    c = await s.create_consumer(s.get_queue("shop", "orders_q"))
    await connection.start()
    a, b = await c.receive(1.0), await c.receive(1.0)
    assert (text(a), text(b)) == ("a", "b")
    assert await count(conn) == 4  # nothing acknowledged yet
    assert a is not None
    await a.acknowledge()  # acknowledging a acknowledges b too (JMS 1.1 4.5.2)
    assert await count(conn) == 2
    c3 = await c.receive(1.0)
    assert text(c3) == "c"
    await s.recover()  # c comes again, redelivered
    again = await c.receive(1.0)
    assert text(again) == "c" and again is not None and again.jms_redelivered
    assert again.get_int_property("JMSXDeliveryCount") == 2
    d = await c.receive(1.0)
    assert text(d) == "d"
    await s.close()  # unacknowledged: they come again to the next session
    s2 = connection.create_session(False, jms.CLIENT_ACKNOWLEDGE)
    c2 = await s2.create_consumer(s2.get_queue("shop", "orders_q"))
    got = [text(await c2.receive(1.0)), text(await c2.receive(1.0))]
    assert got == ["c", "d"]
    await s2.acknowledge()  # Oracle's AQjmsSession.acknowledge
    assert await count(conn) == 0


async def test_auto_acknowledge_sends_are_not_held_by_a_client_ack_transaction(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await queue_with(conn)
    await fill(connection, "a")
    s = connection.create_session(False, jms.CLIENT_ACKNOWLEDGE)
    q = s.get_queue("shop", "orders_q")
    c = await s.create_consumer(q)
    await connection.start()
    assert text(await c.receive(1.0)) == "a"
    await s.create_producer(q).send(s.create_text_message("b"))  # committed at once
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_t WHERE q_name = 'orders_q'") == 2
    await s.recover()
    assert await count(conn) == 2


async def test_dups_ok_commits_in_batches(conn: asyncpg.Connection, db_dsn: str) -> None:
    await queue_with(conn)
    factory = jms.ConnectionFactory(db_dsn, dups_ok_batch=5, dups_ok_delay=3600.0)
    connection = await factory.create_connection()
    try:
        await fill(connection, *[str(i) for i in range(12)])
        s = connection.create_session(False, jms.DUPS_OK_ACKNOWLEDGE)
        c = await s.create_consumer(s.get_queue("shop", "orders_q"))
        await connection.start()
        got = [text(await c.receive_no_wait()) for _ in range(7)]
        assert got == [str(i) for i in range(7)]
        assert await count(conn) == 12 - 5  # one batch of 5 committed, 2 pending
        rest = [text(await c.receive(0.5)) for _ in range(6)]
        assert rest == [str(i) for i in range(7, 12)] + [None]
        assert await count(conn) == 0  # a receive that waits commits what it holds first
    finally:
        await connection.close()


async def test_dups_ok_commits_after_its_delay(conn: asyncpg.Connection, db_dsn: str) -> None:
    await queue_with(conn)
    factory = jms.ConnectionFactory(db_dsn, dups_ok_batch=100, dups_ok_delay=0.05)
    connection = await factory.create_connection()
    try:
        await fill(connection, "a")
        s = connection.create_session(False, jms.DUPS_OK_ACKNOWLEDGE)
        c = await s.create_consumer(s.get_queue("shop", "orders_q"))
        await connection.start()
        assert text(await c.receive_no_wait()) == "a"

        async def committed() -> bool:  # by the session's flush task, not by us
            return await count(conn) == 0
        await until(committed, "DUPS_OK's delayed commit")
    finally:
        await connection.close()


async def test_listener_auto_ack_redelivers_when_it_raises(conn: asyncpg.Connection,
                                                           connection: jms.Connection) -> None:
    await queue_with(conn)
    await fill(connection, "a", "b")
    s = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
    c = await s.create_consumer(s.get_queue("shop", "orders_q"))
    seen: list[tuple[str | None, int]] = []
    done = asyncio.get_running_loop().create_future()

    async def on_message(m: jms.Message) -> None:
        seen.append((text(m), m.get_int_property("JMSXDeliveryCount")))
        if len(seen) == 1:
            raise RuntimeError("first delivery fails")
        if len(seen) == 3:
            done.set_result(None)

    c.set_message_listener(on_message)
    await asyncio.sleep(0.05)  # an observation window: nothing may happen while stopped
    assert seen == []  # the connection is not started
    await connection.start()
    await asyncio.wait_for(done, 10)
    assert seen == [("a", 1), ("a", 2), ("b", 1)]
    await connection.stop()  # returns once the listener's commit is done
    assert await count(conn) == 0
    with pytest.raises(jms.IllegalStateException):  # no receive on a consumer with a listener
        await c.receive_no_wait()


async def test_listeners_of_a_session_run_one_at_a_time_and_stop_waits(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await queue_with(conn)
    await make_queue(conn, "shop.other_q", "shop.other_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    s = connection.create_session()
    running = 0
    most = 0
    got: list[str | None] = []
    release = asyncio.Event()
    entered = asyncio.Event()
    all_in = asyncio.Event()

    def listener(m: jms.Message) -> object:
        async def run() -> None:
            nonlocal running, most
            running += 1
            most = max(most, running)
            entered.set()
            await release.wait()
            got.append(text(m))
            running -= 1
            if len(got) == 4:
                all_in.set()
        return run()

    for q in ("orders_q", "other_q"):
        (await s.create_consumer(s.get_queue("shop", q))).set_message_listener(listener)
    await fill(connection, "a", "b")
    p = s.create_producer(s.get_queue("shop", "other_q"))
    for t in ("x", "y"):
        await p.send(s.create_text_message(t))
    await connection.start()
    await asyncio.wait_for(entered.wait(), 10)
    stopping = asyncio.create_task(connection.stop())
    await asyncio.sleep(0.05)  # an observation window: stop() must not return meanwhile
    assert not stopping.done()  # stop waits for the listener in progress
    release.set()
    await asyncio.wait_for(stopping, 10)
    delivered = len(got)
    await asyncio.sleep(0.1)  # an observation window: nothing may be delivered while stopped
    assert len(got) == delivered  # stopped: nothing more
    await connection.start()
    await asyncio.wait_for(all_in.wait(), 10)
    assert most == 1 and sorted(got) == ["a", "b", "x", "y"]  # type: ignore[type-var]


async def test_transacted_listener_commits_itself(conn: asyncpg.Connection,
                                                  connection: jms.Connection) -> None:
    await queue_with(conn)
    await fill(connection, "a", "b")
    s = connection.create_session(True)
    c = await s.create_consumer(s.get_queue("shop", "orders_q"))
    seen: list[tuple[str | None, bool]] = []
    done = asyncio.Event()

    async def on_message(m: jms.Message) -> None:
        seen.append((text(m), m.jms_redelivered))
        if text(m) == "a" and not m.jms_redelivered:
            await s.rollback()
        else:
            await s.commit()
        if len(seen) == 3:
            done.set()

    c.set_message_listener(on_message)
    await connection.start()
    await asyncio.wait_for(done.wait(), 10)
    assert seen == [("a", False), ("a", True), ("b", False)]
    assert await count(conn) == 0


async def test_dups_ok_batch_comes_again_when_a_listener_raises_or_a_consumer_closes(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    await queue_with(conn)
    factory = jms.ConnectionFactory(db_dsn, dups_ok_batch=10, dups_ok_delay=3600.0)
    connection = await factory.create_connection()
    try:
        await fill(connection, *[str(i) for i in range(4)])
        s = connection.create_session(False, jms.DUPS_OK_ACKNOWLEDGE)
        q = s.get_queue("shop", "orders_q")
        c = await s.create_consumer(q)
        await connection.start()
        assert text(await c.receive_no_wait()) == "0"  # the batch of 4 is taken, 1 handed out
        await c.close()  # its 3 others are not lost: the batch is rolled back
        c2 = await s.create_consumer(q)
        got = [text(await c2.receive(1.0)) for _ in range(4)]
        assert got == ["0", "1", "2", "3"]
        seen: list[tuple[str | None, bool]] = []
        done = asyncio.Event()

        def on_message(m: jms.Message) -> None:
            seen.append((text(m), m.jms_redelivered))
            if len(seen) == 2:
                raise RuntimeError("fails: the batch comes again")
            if len(seen) == 6:
                done.set()

        await fill(connection, "4", "5", "6", "7")
        s2 = connection.create_session(False, jms.DUPS_OK_ACKNOWLEDGE)
        (await s2.create_consumer(q)).set_message_listener(on_message)
        await asyncio.wait_for(done.wait(), 10)
        await connection.stop()
        # the whole batch was rolled back, 6 and 7 with it before they were handed out: AQ
        # counted an attempt for each, so they come flagged too
        assert seen == [("4", False), ("5", False), ("4", True), ("5", True), ("6", True),
                        ("7", True)]
        await s.close()
        await s2.close()
        assert await count(conn) == 0
    finally:
        await connection.close()


async def test_close_waits_for_the_listener_in_progress(conn: asyncpg.Connection,
                                                        db_dsn: str) -> None:
    await queue_with(conn)
    connection = await jms.ConnectionFactory(db_dsn, safety_poll=30.0).create_connection()
    await fill(connection, "a", "b")
    s = connection.create_session()
    entered = asyncio.Event()
    release = asyncio.Event()
    refused: list[str] = []

    async def on_message(m: jms.Message) -> None:
        try:
            await connection.close()  # from its own listener: refused, it would wait for itself
        except jms.IllegalStateException as e:
            refused.append(e.error_code)
        entered.set()
        await release.wait()

    (await s.create_consumer(s.get_queue("shop", "orders_q"))).set_message_listener(on_message)
    await connection.start()
    await asyncio.wait_for(entered.wait(), 10)
    closing = asyncio.create_task(connection.close())
    await asyncio.sleep(0.05)
    assert not closing.done()  # the message being delivered is finished first
    release.set()
    await asyncio.wait_for(closing, 10)
    assert refused == ["JMS-107"]
    assert await count(conn) == 1  # a acknowledged when its listener returned; b never delivered
