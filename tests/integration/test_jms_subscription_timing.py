"""Issue 32, item 5: a subscription exists when the call that makes it returns. JMS 1.1
(TopicSubscriber) has a subscriber get what is published while it is active, from the
return of createSubscriber / createDurableSubscriber; here that call is `await
session.create_...(...)`, and `pgaq.jms.blocking`'s create_* (no await, as in Java). A
topic subscriber that was not awaited refuses to receive or take a listener (JMS-107) and
has made nothing in the database: it never subscribes late, which would silently miss what
was published in between. Queue receivers and topic receivers make no subscription (their
messages wait for them) and may still open at their first receive.

Every publication here comes from another connection (another factory, its own pool) right
after the subscribing call returns, before anything receives."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import asyncpg
import pgaq.jms as jms
import pytest
from pgaq.jms import blocking

from .helpers import make_queue

T = TypeVar("T")
Make = Callable[[jms.Session, jms.Topic], jms.MessageConsumer]

SUBSCRIBERS: dict[str, Make] = {
    "create_subscriber": lambda s, t: s.create_subscriber(t),
    "create_consumer(topic)": lambda s, t: s.create_consumer(t),
    "create_durable_subscriber": lambda s, t: s.create_durable_subscriber(t, "AUDIT"),
}


async def _topic(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "shop.events", "shop.events_t", "SYS.AQ$_JMS_TEXT_MESSAGE", multiple=True)


@pytest.fixture
async def publisher_connection(db_dsn: str) -> AsyncIterator[jms.Connection]:
    """A connection of another factory: the publication is not this client's own."""
    c = await jms.ConnectionFactory(db_dsn, safety_poll=30.0).create_connection()
    try:
        yield c
    finally:
        await c.close()


async def _publish(connection: jms.Connection, text: str) -> None:
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    await session.create_publisher(topic).publish(session.create_text_message(text))
    await session.close()


def _first(fut: asyncio.Future[T] | concurrent.futures.Future[T]) -> Callable[[T], None]:
    """A listener that settles `fut` with the first thing it is given."""
    def listener(item: T) -> None:
        if not fut.done():
            fut.set_result(item)

    return listener


async def _subscribers(conn: asyncpg.Connection) -> list[str]:
    return [r["name"] for r in await conn.fetch("SELECT name FROM aq.subscribers ORDER BY name")]


@pytest.mark.parametrize("make", SUBSCRIBERS.values(), ids=SUBSCRIBERS.keys())
async def test_a_message_published_right_after_the_await_reaches_the_subscriber(
        conn: asyncpg.Connection, connection: jms.Connection,
        publisher_connection: jms.Connection, make: Make) -> None:
    await _topic(conn)
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    consumer = await make(session, topic)
    assert len(await _subscribers(conn)) == 1  # made before the await returned
    await _publish(publisher_connection, "right after")
    await connection.start()
    got = await consumer.receive(5.0)
    assert isinstance(got, jms.TextMessage) and got.text == "right after"
    await consumer.close()
    if consumer.durable:
        await session.unsubscribe("AUDIT")
    assert await _subscribers(conn) == []


@pytest.mark.parametrize("make", SUBSCRIBERS.values(), ids=SUBSCRIBERS.keys())
async def test_a_listener_set_right_after_the_await_gets_what_was_published_before_it(
        conn: asyncpg.Connection, connection: jms.Connection,
        publisher_connection: jms.Connection, make: Make) -> None:
    await _topic(conn)
    session = connection.create_session()
    consumer = await make(session, session.get_topic("shop", "events"))
    await _publish(publisher_connection, "before the listener")
    got: asyncio.Future[jms.Message] = asyncio.get_running_loop().create_future()
    consumer.set_message_listener(_first(got))
    await connection.start()
    message = await asyncio.wait_for(got, 5.0)
    assert isinstance(message, jms.TextMessage) and message.text == "before the listener"
    await consumer.close()


@pytest.mark.parametrize("make", SUBSCRIBERS.values(), ids=SUBSCRIBERS.keys())
async def test_a_forgotten_await_fails_loudly_and_subscribes_nothing(
        conn: asyncpg.Connection, connection: jms.Connection,
        publisher_connection: jms.Connection, make: Make) -> None:
    await _topic(conn)
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    await connection.start()
    forgotten = make(session, topic)  # no await
    attempts: list[Callable[[], Awaitable[object] | object]] = [
        lambda: forgotten.receive(1.0),
        forgotten.receive_no_wait,
        lambda: forgotten.receive_by_message_id("ID:" + "00" * 16, 1.0),
        lambda: forgotten.set_message_listener(print),
    ]
    for attempt in attempts:
        with pytest.raises(jms.IllegalStateException) as e:
            result = attempt()
            if isinstance(result, Awaitable):
                await result
        assert e.value.error_code == "JMS-107"
        assert "await session.create_" in str(e.value)
        if forgotten.durable:
            assert "create_durable_subscriber" in str(e.value)
    assert forgotten.get_message_listener() is None
    assert await _subscribers(conn) == []  # nothing made half-way, nothing made late
    # the same consumer awaited now subscribes from now on (what was published meanwhile
    # is not for it: JMS's non-durable subscriber was not active then)
    with pytest.raises(jms.JMSException) as no_one:
        await _publish(publisher_connection, "unsubscribed")
    assert no_one.value.error_code == "ORA-24033"  # AQ: the topic has no subscriber at all
    opened = await forgotten
    assert opened is forgotten and len(await _subscribers(conn)) == 1
    await _publish(publisher_connection, "subscribed")
    got = await forgotten.receive(5.0)
    assert isinstance(got, jms.TextMessage) and got.text == "subscribed"
    await forgotten.close()
    if forgotten.durable:
        await session.unsubscribe("AUDIT")
    # closing one that was never awaited leaves nothing either
    never = make(session, topic)
    await never.close()
    assert await _subscribers(conn) == [] and session.consumers == ()


async def test_session_listener_refused_while_a_subscriber_was_not_awaited(
        conn: asyncpg.Connection, connection: jms.Connection,
        publisher_connection: jms.Connection) -> None:
    await _topic(conn)
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    forgotten = session.create_subscriber(topic)
    with pytest.raises(jms.IllegalStateException) as e:
        session.set_message_listener(print)
    assert e.value.error_code == "JMS-107"
    # nothing changed: no session listener, none on the consumer, no subscription
    assert session.get_message_listener() is None and forgotten.get_message_listener() is None
    assert await _subscribers(conn) == []
    await forgotten
    got: asyncio.Future[jms.Message] = asyncio.get_running_loop().create_future()
    session.set_message_listener(_first(got))
    await _publish(publisher_connection, "to the session")
    await connection.start()
    message = await asyncio.wait_for(got, 5.0)
    assert isinstance(message, jms.TextMessage) and message.text == "to the session"
    session.set_message_listener(None)
    await forgotten.close()


async def test_session_listener_and_a_subscriber_created_after_it(
        conn: asyncpg.Connection, connection: jms.Connection,
        publisher_connection: jms.Connection) -> None:
    await _topic(conn)
    told: asyncio.Future[jms.JMSException] = asyncio.get_running_loop().create_future()
    connection.set_exception_listener(_first(told))
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    got: asyncio.Future[jms.Message] = asyncio.get_running_loop().create_future()
    session.set_message_listener(_first(got))
    await connection.start()
    # awaited: subscribed when the await returns, delivered to the session's listener
    subscriber = await session.create_subscriber(topic)
    await _publish(publisher_connection, "to the session's subscriber")
    message = await asyncio.wait_for(got, 5.0)
    assert isinstance(message, jms.TextMessage) and message.text == "to the session's subscriber"
    # not awaited: it can never deliver, and the connection's exception listener says so
    forgotten = session.create_durable_subscriber(topic, "AUDIT")
    exc = await asyncio.wait_for(told, 5.0)
    assert isinstance(exc, jms.IllegalStateException) and exc.error_code == "JMS-107"
    assert await _subscribers(conn) == [subscriber.consumer_name]
    await forgotten.close()
    await subscriber.close()


async def test_queue_and_topic_receivers_still_open_at_their_first_receive(
        conn: asyncpg.Connection, connection: jms.Connection,
        publisher_connection: jms.Connection) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_q_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    await _topic(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    topic = session.get_topic("shop", "events")
    receiver = session.create_consumer(queue)  # no await: a queue keeps its messages
    bob = session.create_topic_receiver(topic, "BOB")  # no subscription to make
    other = publisher_connection.create_session()
    await other.create_producer(queue).send(other.create_text_message("queued"))
    await other.create_publisher(topic).publish(
        other.create_text_message("for bob"), recipient_list=[jms.AQjmsAgent("BOB")])
    await connection.start()
    got = await receiver.receive(5.0)
    assert isinstance(got, jms.TextMessage) and got.text == "queued"
    for_bob = await bob.receive(5.0)
    assert isinstance(for_bob, jms.TextMessage) and for_bob.text == "for bob"
    assert await _subscribers(conn) == []


async def test_durable_subscription_semantics(conn: asyncpg.Connection, connection: jms.Connection,
                                              publisher_connection: jms.Connection) -> None:
    """Oracle's DurableSubscriber (Database Advanced Queuing User's Guide, "Introduction to
    Oracle Java Message Service"): the same name on the same topic with another selector
    alters the subscription; JMS 1.1 (durable TopicSubscriber): it keeps what is published
    while no consumer is open; an active one cannot be unsubscribed."""
    await _topic(conn)
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    audit = await session.create_durable_subscriber(topic, "AUDIT")
    await audit.close()
    await _publish(publisher_connection, "while closed")
    # re-created with a selector: altered, not dropped (the message it held is kept)
    again = await session.create_durable_subscriber(topic, "AUDIT", message_selector="level > 1")
    assert await conn.fetchval("SELECT rule FROM aq.subscribers WHERE name = 'AUDIT'") == "level > 1"
    await connection.start()
    got = await again.receive(5.0)
    assert isinstance(got, jms.TextMessage) and got.text == "while closed"
    with pytest.raises(jms.IllegalStateException) as e:
        await session.unsubscribe("AUDIT")
    assert e.value.error_code == "JMS-230"
    await again.close()
    # a durable subscriber object that was not awaited is still a TopicSubscriber: active
    pending = session.create_durable_subscriber(topic, "AUDIT")
    with pytest.raises(jms.IllegalStateException) as e:
        await session.unsubscribe("AUDIT")
    assert e.value.error_code == "JMS-230"
    # and, never awaited, it did not alter the subscription back to no selector
    assert await conn.fetchval("SELECT rule FROM aq.subscribers WHERE name = 'AUDIT'") == "level > 1"
    await pending.close()
    await session.unsubscribe("AUDIT")
    assert await _subscribers(conn) == []


def _blocking_subscriber(dsn: str, made: concurrent.futures.Future[None],
                         published: threading.Event, *, listener: bool) -> str | None:
    factory = blocking.ConnectionFactory(dsn, safety_poll=30.0)
    try:
        with factory.create_connection() as c:
            session = c.create_session(False, blocking.AUTO_ACKNOWLEDGE)
            topic = session.get_topic("shop", "events")
            got: concurrent.futures.Future[jms.Message] = concurrent.futures.Future()
            if listener:
                session.set_message_listener(_first(got))
            subscriber = session.create_durable_subscriber(topic, "AUDIT")  # as in Java
            made.set_result(None)
            if not published.wait(30.0):
                return None
            c.start()
            message = got.result(5.0) if listener else subscriber.receive(5.0)
            subscriber.close()
            session.unsubscribe("AUDIT")
            return message.text if isinstance(message, jms.TextMessage) else None
    finally:
        factory.close()


@pytest.mark.parametrize("listener", [False, True], ids=["receive", "session listener"])
async def test_blocking_create_returns_with_the_subscription_made(
        conn: asyncpg.Connection, db_dsn: str, publisher_connection: jms.Connection,
        listener: bool) -> None:
    await _topic(conn)
    made: concurrent.futures.Future[None] = concurrent.futures.Future()
    published = threading.Event()
    thread = asyncio.ensure_future(asyncio.to_thread(
        _blocking_subscriber, db_dsn, made, published, listener=listener))
    try:
        await asyncio.wait_for(asyncio.wrap_future(made), 30.0)
        assert await _subscribers(conn) == ["AUDIT"]
        await _publish(publisher_connection, "from elsewhere")
    finally:
        published.set()
    assert await thread == "from elsewhere"
    assert await _subscribers(conn) == []
