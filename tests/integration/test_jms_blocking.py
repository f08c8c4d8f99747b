"""pgaq.jms.blocking (issue 22): the same names as plain methods for synchronous code, a
background event loop underneath; listeners are plain callables that may call back."""

from __future__ import annotations

import asyncio
import queue
import threading

import asyncpg
import pgaq.jms as jms
import pytest
from pgaq.jms import blocking

from .helpers import make_queue


def _sync_round_trip(dsn: str) -> None:
    factory = blocking.ConnectionFactory(dsn, safety_poll=30.0)
    try:
        with factory.create_connection() as conn:
            session = conn.create_session(False, blocking.CLIENT_ACKNOWLEDGE)
            q = session.get_queue("shop", "orders_q")
            producer = session.create_producer(q)
            m = session.create_text_message("hello")
            m.set_string_property("country", "UK")
            producer.send(m, priority=5, time_to_live=60.0)
            assert m.jms_message_id is not None and m.jms_message_id.startswith("ID:")
            with pytest.raises(jms.InvalidSelectorException):  # at creation, not first receive
                session.create_consumer(q, message_selector="country = ")
            consumer = session.create_consumer(q, message_selector="country = 'UK'")
            assert consumer.receive_no_wait() is None  # stopped
            conn.start()
            got = consumer.receive(5.0)
            assert isinstance(got, jms.TextMessage) and got.text == "hello"
            assert consumer.receive(0.1) is None
            session.recover()
            again = consumer.receive(5.0)
            assert again is not None and again.jms_redelivered
            blocking.acknowledge(again)
            assert consumer.receive_no_wait() is None
            # a browser is a plain iterator
            producer.send(session.create_text_message("b1"))
            producer.send(session.create_text_message("b2"))
            assert [x.text for x in session.create_browser(q)] == ["b1", "b2"]
            session.acknowledge()
    finally:
        factory.close()


async def test_blocking_round_trip(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    await asyncio.to_thread(_sync_round_trip, db_dsn)
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_t") == 2  # b1, b2 browsed only


def _sync_listener(dsn: str) -> None:
    factory = blocking.ConnectionFactory(dsn, safety_poll=30.0)
    try:
        conn = factory.create_connection()
        session = conn.create_session(True)
        q = session.get_queue("shop", "orders_q")
        replies = session.get_queue("shop", "replies_q")
        reply_producer = session.create_producer(replies)
        got: queue.Queue[tuple[str, str]] = queue.Queue()

        def on_message(m: jms.Message) -> None:
            # a plain function, in a worker thread: it calls blocking methods itself
            assert isinstance(m, jms.TextMessage) and m.text is not None
            reply_producer.send(session.create_text_message(m.text.upper()))
            session.commit()
            got.put((m.text, threading.current_thread().name))

        session.create_consumer(q).set_message_listener(on_message)
        sender = conn.create_session()
        sender.create_producer(q).send(sender.create_text_message("ping"))
        conn.start()
        text, thread = got.get(timeout=10)
        assert text == "ping" and thread != threading.main_thread().name
        reader = conn.create_session()
        answer = reader.create_consumer(replies).receive(5.0)
        assert answer is not None and answer.text == "PING"
        conn.close()
        with pytest.raises(jms.IllegalStateException):
            conn.create_session()
    finally:
        factory.close()


async def test_blocking_listener_calls_back(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    await make_queue(conn, "shop.replies_q", "shop.replies_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    await asyncio.to_thread(_sync_listener, db_dsn)
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_t") == 0
