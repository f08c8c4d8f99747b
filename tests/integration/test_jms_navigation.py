"""Navigation modes, transaction-grouped queues and receive_no_data (issue 32, item 8), as
the Oracle JMS guide says in "Message Navigation in Receive" and "Remove No Data":

- "By default, a QueueReceiver, TopicReceiver, or TopicSubscriber uses FIRST_MESSAGE for the
  first receive call, and NEXT_MESSAGE for subsequent receive() calls."
- FIRST_MESSAGE "resets the position to the beginning of the queue. It is useful for
  priority ordered queues, because it allows the consumer to remove the message on the top
  of the queue."
- For grouped messages, NEXT_MESSAGE "sets the position to the next message in the same
  transaction", NEXT_TRANSACTION "to the first message in the next transaction".
- "If the consumer reaches the end of the queue while using the NEXT_MESSAGE or
  NEXT_TRANSACTION option, and you have specified a blocking receive(), then the navigating
  position is automatically changed to the beginning of the queue."
- receiveNoData removes "a message from a queue or topic without retrieving it".
"""

from __future__ import annotations

import asyncpg
import pgaq.jms as jms
import pytest

from .helpers import make_queue


async def grouped(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "shop.gq", "shop.gt", "SYS.AQ$_JMS_TEXT_MESSAGE", grouping="TRANSACTIONAL")


async def send_groups(connection: jms.Connection, queue: str, groups: list[list[str]]) -> None:
    s = connection.create_session(True)
    p = s.create_producer(s.get_queue("shop", queue))
    for g in groups:
        for t in g:
            await p.send(s.create_text_message(t))
        await s.commit()
    await s.close()


def text(m: jms.Message | None) -> str | None:
    assert m is None or isinstance(m, jms.TextMessage)
    return None if m is None else m.text


@pytest.mark.parametrize("mode", [jms.AUTO_ACKNOWLEDGE, jms.CLIENT_ACKNOWLEDGE,
                                  jms.DUPS_OK_ACKNOWLEDGE, jms.SESSION_TRANSACTED])
async def test_a_consumer_of_a_grouped_queue_goes_on_past_the_first_group(
        conn: asyncpg.Connection, connection: jms.Connection, mode: int) -> None:
    await grouped(conn)
    await send_groups(connection, "gq", [["a1", "a2"], ["b1", "b2"], ["c1"]])
    s = connection.create_session(mode == jms.SESSION_TRANSACTED, mode)
    c = await s.create_consumer(s.get_queue("shop", "gq"))
    await connection.start()
    got = []
    for _ in range(5):
        m = await c.receive(2.0)
        got.append(text(m))
        if mode == jms.CLIENT_ACKNOWLEDGE and m is not None:
            await m.acknowledge()
        if mode == jms.SESSION_TRANSACTED:
            await s.commit()
    assert got == ["a1", "a2", "b1", "b2", "c1"]
    assert await c.receive_no_wait() is None


async def test_receive_no_wait_also_goes_on_to_the_next_group(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await grouped(conn)
    await send_groups(connection, "gq", [["a1"], ["b1"]])
    s = connection.create_session()
    c = await s.create_consumer(s.get_queue("shop", "gq"))
    await connection.start()
    assert [text(await c.receive_no_wait()) for _ in range(3)] == ["a1", "b1", None]


async def test_next_transaction_skips_the_rest_of_a_group(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await grouped(conn)
    await send_groups(connection, "gq", [["a1", "a2", "a3"], ["b1", "b2"]])
    s = connection.create_session(False, jms.CLIENT_ACKNOWLEDGE)
    c = await s.create_consumer(s.get_queue("shop", "gq"))
    await connection.start()
    assert c.get_navigation_mode() == jms.NAVIGATION_NEXT_MESSAGE
    assert text(await c.receive_no_wait()) == "a1"
    c.set_navigation_mode(jms.NAVIGATION_NEXT_TRANSACTION)
    assert c.get_navigation_mode() == jms.NAVIGATION_NEXT_TRANSACTION
    assert text(await c.receive_no_wait()) == "b1"
    c.set_navigation_mode(jms.NAVIGATION_NEXT_MESSAGE)
    assert text(await c.receive_no_wait()) == "b2"
    # the end of the group, no wait: NEXT_MESSAGE set explicitly stays where it is
    assert await c.receive_no_wait() is None
    # a blocking receive goes back to the beginning: a2 and a3 were skipped, not lost
    assert text(await c.receive(2.0)) == "a2"
    await s.recover()


async def test_next_transaction_on_an_ungrouped_queue_is_refused(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await make_queue(conn, "shop.q", "shop.t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    s = connection.create_session()
    c = await s.create_consumer(s.get_queue("shop", "q"))
    await connection.start()
    c.set_navigation_mode(jms.NAVIGATION_NEXT_TRANSACTION)
    with pytest.raises(jms.JMSException) as e:
        await c.receive_no_wait()
    assert e.value.error_code == "ORA-25237"
    for bad in (0, 4, True, None, "FIRST_MESSAGE"):
        with pytest.raises(jms.JMSException) as e:
            c.set_navigation_mode(bad)  # type: ignore[arg-type]
        assert e.value.error_code == "ORA-25237"
    assert c.get_navigation_mode() == jms.NAVIGATION_NEXT_TRANSACTION  # unchanged


async def test_first_message_takes_the_most_urgent_that_arrived_meanwhile(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    """On a priority-ordered queue FIRST_MESSAGE takes the head each time: a more urgent
    message that came after the consumer's last one comes before the older ones."""
    await make_queue(conn, "shop.pq", "shop.pt", "SYS.AQ$_JMS_TEXT_MESSAGE", sort_list="PRIORITY,ENQ_TIME")
    s0 = connection.create_session()
    p = s0.create_producer(s0.get_queue("shop", "pq"))
    await p.send(s0.create_text_message("late-5"), priority=5)
    await p.send(s0.create_text_message("late-6"), priority=6)
    s = connection.create_session(False, jms.CLIENT_ACKNOWLEDGE)
    c = await s.create_consumer(s.get_queue("shop", "pq"))
    c.set_navigation_mode(jms.NAVIGATION_FIRST_MESSAGE)
    await connection.start()
    assert text(await c.receive_no_wait()) == "late-5"
    await p.send(s0.create_text_message("urgent-1"), priority=1)  # non-compliant: 1 beats 5
    assert text(await c.receive_no_wait()) == "urgent-1"
    assert text(await c.receive_no_wait()) == "late-6"
    await s.acknowledge()


async def test_receive_no_data_removes_a_browsed_message(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await make_queue(conn, "shop.q", "shop.t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    s = connection.create_session()
    q = s.get_queue("shop", "q")
    await s.create_producer(q).send(s.create_text_message("looked at"))
    seen = [m async for m in s.create_browser(q)]
    assert [text(m) for m in seen] == ["looked at"]
    c = await s.create_consumer(q)
    await connection.start()
    assert await c.receive_no_data() == seen[0].jms_message_id
    assert await c.receive_no_data() is None
    assert await conn.fetchval("SELECT count(*) FROM shop.t") == 0


async def test_receive_no_data_follows_the_acknowledge_mode(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await make_queue(conn, "shop.q", "shop.t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    s0 = connection.create_session()
    q = s0.get_queue("shop", "q")
    await s0.create_producer(q).send(s0.create_text_message("m"))
    s = connection.create_session(True)
    c = await s.create_consumer(q)
    await connection.start()
    mid = await c.receive_no_data(1.0)
    assert mid is not None
    await s.rollback()  # the removal is undone: it comes again, a failed attempt
    again = await c.receive(1.0)
    assert again is not None and again.jms_message_id == mid and again.jms_redelivered
    await s.commit()
    assert await conn.fetchval("SELECT count(*) FROM shop.t") == 0
