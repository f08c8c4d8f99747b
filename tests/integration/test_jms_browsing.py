"""Browsing, JMSXState and exception queues through pgaq.jms (issue 32, item 8), as the
Oracle Database Advanced Queuing User's Guide says it ("Introduction to Oracle Java Message
Service": QueueBrowser, TopicBrowser, "Browsing Messages", "Exception Queues", "JMS
Message Properties") and JMS 1.1 (4.4 QueueBrowser, 3.5.9 JMSXState):

- a browser's enumeration is a snapshot taken by its first element: what was committed by
  then, in queue order; it removes nothing and returns no message twice;
- a locked browse (Oracle's extension) locks what it shows until the session's commit or
  rollback; another session's receive passes over those messages;
- a TopicBrowser is for a durable subscription only; `purge()` is a destructive receive of
  the messages the browser has shown, in the session's transaction;
- JMSXState: 1 WAITING, 2 READY, 3 EXPIRED, 4 RETAINED;
- the exception queue of a topic's queue table is read with the point-to-point interface,
  a plain Queue consumer, PERSISTENT and NON_PERSISTENT messages alike.
"""

from __future__ import annotations

import asyncpg
import pgaq.jms as jms
import pytest

from .helpers import make_queue
from .waiting import until


async def queue(conn: asyncpg.Connection, **kw: object) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE", **kw)  # type: ignore[arg-type]


async def topic(conn: asyncpg.Connection, **kw: object) -> None:
    await make_queue(conn, "shop.events", "shop.events_t", "SYS.AQ$_JMS_TEXT_MESSAGE",
                     multiple=True, **kw)  # type: ignore[arg-type]


def text(m: jms.Message | None) -> str | None:
    assert m is None or isinstance(m, jms.TextMessage)
    return None if m is None else m.text


async def send(connection: jms.Connection, dest: jms.Destination, *texts: str,
               mode: int = jms.PERSISTENT, **props: int) -> list[str]:
    s = connection.create_session()
    p = s.create_producer(dest)
    p.set_delivery_mode(mode)
    ids = []
    for t in texts:
        m = s.create_text_message(t)
        for k, v in props.items():
            m.set_int_property(k, v)
        await p.send(m)
        assert m.jms_message_id is not None
        ids.append(m.jms_message_id)
    await s.close()
    return ids


# -- QueueBrowser: the snapshot -------------------------------------------------------------

async def test_browser_sees_what_was_there_at_its_first_element(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await queue(conn)
    s = connection.create_session()
    q = s.get_queue("shop", "orders_q")
    await send(connection, q, "a", "b", "c")
    it = aiter(s.create_browser(q))
    assert text(await anext(it)) == "a"
    await send(connection, q, "late")  # after the first element: not in this enumeration
    receiver = await s.create_consumer(q)
    await connection.start()
    assert text(await receiver.receive(1.0)) == "a"
    assert text(await receiver.receive(1.0)) == "b"
    rest = [text(m) async for m in it]
    # b was read ahead with a (a batch): shown or not, never twice; "late" is not shown
    assert rest in (["b", "c"], ["c"])
    # a new enumeration is a new snapshot
    assert [text(m) async for m in s.create_browser(q)] == ["c", "late"]


async def test_browsing_removes_nothing_and_shows_each_message_once(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await queue(conn)
    s = connection.create_session()
    q = s.get_queue("shop", "orders_q")
    ids = await send(connection, q, *(f"m{i}" for i in range(120)))  # more than one batch
    await send(connection, q, "np", mode=jms.NON_PERSISTENT)
    seen = [m.jms_message_id async for m in s.create_browser(q)]
    assert len(seen) == len(set(seen)) == 121 and set(ids) <= set(seen)
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_t") == 120


# -- locked browse ----------------------------------------------------------------------------

async def test_locked_browse_holds_messages_until_the_session_ends_its_transaction(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await queue(conn)
    s = connection.create_session(True)
    q = s.get_queue("shop", "orders_q")
    await send(connection, q, "a", "b")
    it = aiter(s.create_browser(q, locked=True))
    assert text(await anext(it)) == "a"  # locked now
    other = connection.create_session(True)
    r = await other.create_consumer(q)
    await connection.start()
    assert text(await r.receive_no_wait()) == "b"  # passes over the locked one
    assert await r.receive_no_wait() is None
    await other.commit()
    assert [text(m) async for m in it] == []  # b is gone
    await s.rollback()  # releases the lock, not a failed attempt
    m = await r.receive(1.0)
    assert text(m) == "a" and m is not None and not m.jms_redelivered
    await other.commit()


async def test_locked_browse_then_receive_by_id_in_the_same_transaction(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    """"Browsing Messages": to remove a message viewed by a QueueBrowser, the session
    creates a QueueReceiver with the JMSMessageID as the selector."""
    await queue(conn)
    s = connection.create_session(True)
    q = s.get_queue("shop", "orders_q")
    await send(connection, q, "a", "b")
    seen = [m async for m in s.create_browser(q, locked=True)]
    assert [text(m) for m in seen] == ["a", "b"]
    r = await s.create_consumer(q, f"JMSMessageID = '{seen[1].jms_message_id}'")
    await connection.start()
    assert text(await r.receive(1.0)) == "b"
    await s.commit()
    assert [text(m) async for m in s.create_browser(q)] == ["a"]


# -- TopicBrowser ------------------------------------------------------------------------------

async def test_topic_browser_needs_a_durable_subscription(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await topic(conn)
    s = connection.create_session()
    t = s.get_topic("shop", "events")
    with pytest.raises(jms.JMSException) as e:
        s.create_browser(t)
    assert e.value.error_code == "JMS-116"
    with pytest.raises(jms.InvalidDestinationException) as e2:  # nobody of that name
        [m async for m in s.create_browser(t, subscription_name="NOBODY")]
    assert e2.value.error_code == "JMS-126"


async def test_topic_browser_shows_the_subscribers_messages_and_purges_the_seen_ones(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await topic(conn)
    s = connection.create_session(True)
    t = s.get_topic("shop", "events")
    audit = await s.create_durable_subscriber(t, "AUDIT")
    other = await s.create_durable_subscriber(t, "OTHER")
    await s.commit()
    await send(connection, t, "e1", "e2", "e3")
    browser = s.create_topic_browser(t, "AUDIT")
    it = aiter(browser)
    assert [text(await anext(it)), text(await anext(it))] == ["e1", "e2"]
    assert await browser.purge() == 2  # the two seen, not e3
    await s.rollback()  # undoes the purge
    assert [text(m) async for m in s.create_topic_browser(t, "AUDIT")] == ["e1", "e2", "e3"]
    browser = s.create_topic_browser(t, "AUDIT")
    it = aiter(browser)
    assert text(await anext(it)) == "e1"
    assert await browser.purge() == 1
    assert text(await anext(it)) == "e2"
    assert await browser.purge() == 1  # again: what was seen since
    await s.commit()
    await connection.start()
    assert text(await audit.receive(1.0)) == "e3"
    assert await audit.receive_no_wait() is None
    assert [text(await other.receive(1.0)) for _ in range(3)] == ["e1", "e2", "e3"]  # untouched
    await s.commit()


async def test_topic_browser_purges_non_persistent_messages_too(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await topic(conn)
    s = connection.create_session(True)
    t = s.get_topic("shop", "events")
    audit = await s.create_durable_subscriber(t, "AUDIT")
    await s.commit()
    await send(connection, t, "p1")
    await send(connection, t, "n1", "n2", mode=jms.NON_PERSISTENT)
    browser = s.create_topic_browser(t, "AUDIT")
    it = aiter(browser)
    first = [await anext(it), await anext(it)]
    assert all(m.jms_delivery_mode == jms.NON_PERSISTENT for m in first)
    assert await browser.purge() == 2
    await s.rollback()  # undoes it: NON_PERSISTENT messages are in the transaction too
    seen = [m async for m in s.create_topic_browser(t, "AUDIT")]
    assert sorted(text(m) or "" for m in seen) == ["n1", "n2", "p1"]
    browser = s.create_topic_browser(t, "AUDIT")
    assert len([m async for m in browser]) == 3
    assert await browser.purge() == 3
    await s.commit()
    await connection.start()
    assert await audit.receive_no_wait() is None


async def test_purge_in_a_non_transacted_session_is_at_once(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await topic(conn)
    s = connection.create_session()
    t = s.get_topic("shop", "events")
    await s.create_durable_subscriber(t, "AUDIT")
    await send(connection, t, "e1", "e2")
    browser = s.create_topic_browser(t, "AUDIT", "TRUE")
    assert [text(m) async for m in browser] == ["e1", "e2"]
    assert await browser.purge() == 2
    assert await browser.purge() == 0
    s2 = connection.create_session()
    assert [m async for m in s2.create_topic_browser(t, "AUDIT")] == []


# -- JMSXState ---------------------------------------------------------------------------------

async def test_jmsx_state_ready(conn: asyncpg.Connection, connection: jms.Connection) -> None:
    """A delayed (WAITING) message is not shown by a browser, and a retained one neither:
    pgaq's browse, as its dequeue, shows READY messages (docs/jms.md, Browsing)."""
    await queue(conn, retention=3600)
    s = connection.create_session()
    q = s.get_queue("shop", "orders_q")
    [ready] = await send(connection, q, "now")
    await send(connection, q, "later", JMS_OracleDelay=3600)
    seen = [m async for m in s.create_browser(q)]
    assert [(text(m), m.get_int_property("JMSXState")) for m in seen] == [("now", 2)]
    r = await s.create_consumer(q)
    await connection.start()
    m = await r.receive(1.0)
    assert m is not None and m.jms_message_id == ready and m.get_int_property("JMSXState") == 2
    assert [m async for m in s.create_browser(q)] == []  # the retained one is not shown


@pytest.mark.parametrize("topic_kind", [False, True])
async def test_jmsx_state_waiting_and_retained_by_message_id(
        conn: asyncpg.Connection, connection: jms.Connection, topic_kind: bool) -> None:
    """The guide's "QueueReceiver": a retained message "can be ... dequeued by specifying
    the message identifier of the processed message in a QueueBrowser"; a browse by id
    also shows a WAITING one. JMSXState says which: 1 WAITING, 2 READY, 4 RETAINED."""
    s = connection.create_session()
    if topic_kind:
        await topic(conn, retention=3600)
        events = s.get_topic("shop", "events")
        dest: jms.Destination = events
        consumer = await s.create_durable_subscriber(events, "AUDIT")
    else:
        await queue(conn, retention=3600)
        dest = s.get_queue("shop", "orders_q")
        consumer = await s.create_consumer(dest)
    [waiting] = await send(connection, dest, "later", JMS_OracleDelay=3600)
    [done] = await send(connection, dest, "now")
    await connection.start()
    got = await consumer.receive(1.0)
    assert got is not None and got.jms_message_id == done

    def by_id(mid: str) -> jms.QueueBrowser:
        selector = f"JMSMessageID = '{mid}'"
        if topic_kind:
            return s.create_browser(dest, selector, subscription_name="AUDIT")
        return s.create_browser(dest, selector)

    states = {}
    for mid in (waiting, done):
        [m] = [m async for m in by_id(mid)]
        states[text(m)] = m.get_int_property("JMSXState")
    assert states == {"later": 1, "now": 4}
    assert await consumer.receive_no_wait() is None  # browsing took nothing


# -- a topic's exception queue -------------------------------------------------------------------

async def _exception_queue(conn: asyncpg.Connection) -> str:
    name: str = await conn.fetchval(
        "SELECT queue_name FROM aq.queue_info WHERE queue_type = 'EXCEPTION_QUEUE' "
        "AND schema_name = 'shop'")
    return name


@pytest.mark.parametrize("mode", [jms.PERSISTENT, jms.NON_PERSISTENT])
async def test_a_topics_failed_messages_are_read_from_its_exception_queue(
        conn: asyncpg.Connection, connection: jms.Connection, mode: int) -> None:
    await topic(conn, max_retries=1)
    s = connection.create_session(True)
    t = s.get_topic("shop", "events")
    sub = await s.create_durable_subscriber(t, "AUDIT")
    await s.commit()
    [mid] = await send(connection, t, "bad", mode=mode)
    await connection.start()
    for _ in range(2):  # the delivery and its one retry
        assert text(await sub.receive(1.0)) == "bad"
        await s.rollback()
    assert await sub.receive_no_wait() is None
    await conn.fetchval("SELECT done FROM aq.monitor_pass(1000)")  # moves a buffered one
    exq = s.get_queue("shop", await _exception_queue(conn))
    await s.start_destination(exq, enqueue=False)
    seen = [m async for m in s.create_browser(exq)]
    assert [text(m) for m in seen] == ["bad"]
    assert seen[0].get_int_property("JMSXState") == 3  # EXPIRED
    r = await s.create_consumer(exq)
    m = await r.receive(1.0)
    assert text(m) == "bad" and m is not None
    assert m.jms_delivery_mode == jms.PERSISTENT  # moved there as a persistent message
    assert m.get_string_property("JMS_OracleOriginalMessageID") == mid
    assert m.get_int_property("JMSXDeliveryCount") >= 1
    assert m.get_int_property("JMSXState") == 3
    await s.commit()
    assert await conn.fetchval("SELECT count(*) FROM shop.events_t") == 0
    with pytest.raises(jms.JMSException):  # applications cannot enqueue into it
        await send(connection, exq, "x")


async def test_an_expired_topic_message_is_read_from_the_exception_queue(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await topic(conn)
    s = connection.create_session()
    t = s.get_topic("shop", "events")
    await s.create_durable_subscriber(t, "AUDIT")
    p = s.create_producer(t)
    await p.send(s.create_text_message("old"), time_to_live=1.0)
    name = await _exception_queue(conn)

    async def expired() -> bool:
        await conn.fetchval("SELECT done FROM aq.monitor_pass(1000)")
        n: int = await conn.fetchval("SELECT count(*) FROM shop.events_t WHERE q_name = $1", name)
        return n == 1

    await until(expired, "the monitor moved the expired message")
    exq = s.get_queue("shop", name)
    await s.start_destination(exq, enqueue=False)
    r = await s.create_consumer(exq)
    await connection.start()
    m = await r.receive(1.0)
    assert text(m) == "old" and m is not None and m.get_int_property("JMSXState") == 3
