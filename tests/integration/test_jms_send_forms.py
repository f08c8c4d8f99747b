"""MessageProducer.send's four forms, positionally as Java code ported line for line writes
them (JMS 1.1 MessageProducer: send(Message), send(Message, int deliveryMode, int priority,
long timeToLive), send(Destination, Message), send(Destination, Message, int, int, long))."""

from __future__ import annotations

import asyncpg
import pgaq.jms as jms
import pytest

from .helpers import make_queue


async def test_the_four_forms(conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await make_queue(conn, "shop.q", "shop.t", "SYS.AQ$_JMS_TEXT_MESSAGE", sort_list="PRIORITY,ENQ_TIME")
    s = connection.create_session()
    q = s.get_queue("shop", "q")
    bound = s.create_producer(q)
    unbound = s.create_producer()
    await bound.send(s.create_text_message("a"))
    await bound.send(s.create_text_message("b"), jms.NON_PERSISTENT, 3, 60)
    await unbound.send(q, s.create_text_message("c"))
    await unbound.send(q, s.create_text_message("d"), jms.NON_PERSISTENT, 2, 0)
    await unbound.send(q, s.create_text_message("e"), delivery_mode=jms.PERSISTENT, priority=5)
    c = await s.create_consumer(q)
    await connection.start()
    got = {}
    for _ in range(5):
        m = await c.receive(1.0)
        assert isinstance(m, jms.TextMessage) and m.text is not None
        got[m.text] = (m.jms_delivery_mode, m.jms_priority)
    assert got["b"] == (jms.NON_PERSISTENT, 3) and got["d"] == (jms.NON_PERSISTENT, 2)
    assert got["e"] == (jms.PERSISTENT, 5) and got["c"][0] == jms.PERSISTENT


async def test_bad_forms_are_refused_and_send_nothing(conn: asyncpg.Connection,
                                                      connection: jms.Connection) -> None:
    await make_queue(conn, "shop.q", "shop.t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    s = connection.create_session()
    q = s.get_queue("shop", "q")
    p = s.create_producer()
    with pytest.raises(jms.JMSException) as e:
        await p.send(q)  # no message
    assert e.value.error_code == "JMS-133"
    with pytest.raises(jms.JMSException) as e:
        await p.send(q, s.create_text_message("x"), jms.PERSISTENT, 4, 0, 9)
    assert e.value.error_code == "JMS-207"
    with pytest.raises(jms.JMSException) as e:
        await p.send(q, s.create_text_message("x"), jms.PERSISTENT, delivery_mode=jms.PERSISTENT)
    assert e.value.error_code == "JMS-207"
    assert await conn.fetchval("SELECT count(*) FROM shop.t") == 0
