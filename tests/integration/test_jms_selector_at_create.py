"""Issue 22: "a selector that does not parse: the JMS exception with the Oracle error code,
no partial effect", at the call JMS 1.1 names (createConsumer, createDurableSubscriber,
createBrowser throw InvalidSelectorException): `session.create_consumer(...)` raises
itself, before anything is awaited, through the async API and pgaq.jms.blocking; `await
session.create_consumer(...)` keeps working; what only the database can say (a type
error) is said at the await, and leaves nothing behind either."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncpg
import pgaq.jms as jms
import pytest
from pgaq.jms import blocking

from .helpers import make_queue

BAD = ("country = ", "country IN ()", "price >>> 3", "a = 'x' AND", "x = = 1", "a = 'open")


async def _destinations(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_q_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    await make_queue(conn, "shop.events", "shop.events_t", "SYS.AQ$_JMS_TEXT_MESSAGE", multiple=True)


async def test_a_selector_that_does_not_parse_raises_at_the_factory_call(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await _destinations(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    topic = session.get_topic("shop", "events")
    for bad in BAD:
        for make in (lambda b=bad: session.create_consumer(queue, message_selector=b),
                     lambda b=bad: session.create_consumer(topic, message_selector=b),
                     lambda b=bad: session.create_durable_subscriber(topic, "AUDIT", message_selector=b),
                     lambda b=bad: session.create_topic_receiver(topic, "BOB", b),
                     lambda b=bad: session.create_browser(queue, message_selector=b)):
            with pytest.raises(jms.InvalidSelectorException) as e:
                make()  # no await: the call itself raises
            assert e.value.error_code == "JMS-159"
            linked = e.value.get_linked_exception()
            assert isinstance(linked, jms.JMSException) and linked.error_code == "ORA-00936"
            # the same words the database says of it
            with pytest.raises(jms.InvalidSelectorException) as db:
                await session.check_selector(queue, bad)
            assert str(e.value) == str(db.value)
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers") == 0
    assert session.consumers == ()
    # nor a durable subscription remembered: unsubscribe looks for it and finds none
    with pytest.raises(jms.InvalidDestinationException) as unknown:
        await session.unsubscribe("AUDIT")
    assert unknown.value.error_code == "JMS-235"


async def test_await_still_works_and_what_the_database_refuses_leaves_nothing(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await _destinations(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    topic = session.get_topic("shop", "events")
    # parses, but a string in arithmetic is a type error (ORA-00932): the database says it
    typed = "country + 1 = 2 AND 'x' * 2 = 1"
    opens: tuple[Callable[[], jms.MessageConsumer], ...] = (
        lambda: session.create_consumer(queue, message_selector=typed),
        lambda: session.create_durable_subscriber(topic, "AUDIT", message_selector=typed))
    for make in opens:
        pending = make()
        with pytest.raises(jms.InvalidSelectorException) as e:
            await pending
        assert e.value.error_code == "JMS-159"
        assert pending.closed
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers") == 0
    assert session.consumers == ()
    # both forms of a good selector
    consumer = await session.create_consumer(queue, message_selector="country = 'UK'")
    plain = session.create_consumer(queue, message_selector="country = 'FR'")
    audit = await session.create_durable_subscriber(topic, "AUDIT", message_selector="level > 1")
    assert await conn.fetchval("SELECT rule FROM aq.subscribers WHERE name = 'AUDIT'") == "level > 1"
    producer = session.create_producer(queue)
    for country in ("FR", "UK"):
        m = session.create_text_message(country)
        m.set_string_property("country", country)
        await producer.send(m)
    await connection.start()
    got = await consumer.receive(5.0)
    assert isinstance(got, jms.TextMessage) and got.text == "UK"
    other = await plain.receive(5.0)
    assert isinstance(other, jms.TextMessage) and other.text == "FR"
    await audit.close()
    await session.unsubscribe("AUDIT")


def _blocking(dsn: str) -> int:
    factory = blocking.ConnectionFactory(dsn, safety_poll=30.0)
    try:
        with factory.create_connection() as conn:
            session = conn.create_session(False, blocking.AUTO_ACKNOWLEDGE)
            queue = session.get_queue("shop", "orders_q")
            topic = session.get_topic("shop", "events")
            bad: tuple[Callable[[], object], ...] = (
                lambda: session.create_consumer(queue, message_selector="country = "),
                lambda: session.create_durable_subscriber(topic, "AUDIT", "x = = 1"),
                lambda: session.create_subscriber(topic, "a IN ()"),
                lambda: session.create_browser(queue, "a = 'open"))
            for make in bad:
                with pytest.raises(jms.InvalidSelectorException) as e:
                    make()
                assert e.value.error_code == "JMS-159"
            # a type error, said by the database when the blocking call opens it
            with pytest.raises(jms.InvalidSelectorException):
                session.create_durable_subscriber(topic, "AUDIT", "'x' * 2 = 1")
            ok = session.create_consumer(queue, message_selector="country = 'UK'")
            ok.close()
            return len(session.consumers)
    finally:
        factory.close()


async def test_blocking_raises_at_the_factory_call(conn: asyncpg.Connection, db_dsn: str) -> None:
    await _destinations(conn)
    assert await asyncio.to_thread(_blocking, db_dsn) == 0
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers") == 0
