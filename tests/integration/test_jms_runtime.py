"""pgaq.jms at the level of an application (issue 22): connection, session, producer and
consumer over real queue tables made with dbms_aqadm; the expected results are seed 004's
and JMS 1.1's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

import pgaq.jms as jms

from .helpers import make_queue, subscribe


@pytest.fixture
async def factory(db_dsn: str) -> AsyncIterator[jms.ConnectionFactory]:
    yield jms.ConnectionFactory(db_dsn, safety_poll=30.0)


@pytest.fixture
async def connection(factory: jms.ConnectionFactory) -> AsyncIterator[jms.Connection]:
    c = await factory.create_connection()
    try:
        yield c
    finally:
        await c.close()


async def text_queue(conn: asyncpg.Connection, queue: str = "shop.orders_q", **kw: object) -> None:
    await make_queue(conn, queue, queue + "_t", "SYS.AQ$_JMS_TEXT_MESSAGE", **kw)  # type: ignore[arg-type]


async def test_send_receive_text_message_with_headers(conn: asyncpg.Connection,
                                                       connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
    queue = session.get_queue("shop", "orders_q")
    producer = session.create_producer(queue)
    msg = session.create_text_message("hello")
    msg.set_string_property("country", "UK")
    msg.jms_correlation_id = "c-1"
    msg.jms_type = "order"
    await producer.send(msg, priority=5, time_to_live=60.0)
    assert msg.jms_message_id is not None and msg.jms_message_id.startswith("ID:")
    assert msg.jms_timestamp > 0 and msg.jms_priority == 5
    assert msg.jms_expiration == msg.jms_timestamp + 60_000
    consumer = await session.create_consumer(queue, message_selector="country = 'UK'")
    await connection.start()
    got = await consumer.receive(timeout=5.0)
    assert isinstance(got, jms.TextMessage)
    assert got.text == "hello"
    assert got.get_string_property("country") == "UK"
    assert got.jms_message_id == msg.jms_message_id
    assert got.jms_correlation_id == "c-1" and got.jms_type == "order"
    assert got.jms_priority == 5 and got.jms_redelivered is False
    assert got.jms_delivery_mode == jms.PERSISTENT
    assert got.jms_destination == queue
    assert got.get_int_property("JMSXDeliveryCount") == 1
    # AUTO_ACKNOWLEDGE: gone once receive returned
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_q_t") == 0
    assert await consumer.receive_no_wait() is None
